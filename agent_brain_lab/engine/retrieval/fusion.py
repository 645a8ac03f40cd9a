"""Ways to merge ranked legs: reciprocal-rank fusion and min-max normalisation for alpha blends."""

from __future__ import annotations

import numpy as np

from .context import Hit


def rrf(legs: dict[str, list[Hit]], k: int, weights: dict[str, float] | None = None) -> list[Hit]:
    """``score = sum over legs of weight / (k + rank)`` (weight 1 unless given; a leg of weight 0 is not
    heard); each hit keeps every leg's rank and score, and the ranks its legs had from their own legs."""
    merged: dict[int, Hit] = {}
    for leg, hits in legs.items():
        weight = 1.0 if weights is None else weights.get(leg, 0.0)
        if weight <= 0:
            continue
        for rank, hit in enumerate(hits, 1):
            into = merged.setdefault(hit.key, Hit(hit.key, 0.0))
            into.score += weight / (k + rank)
            into.ranks.update({**hit.ranks, leg: rank})
            for name in ("vector_score", "bm25_score", "graph_score"):
                if getattr(hit, name) is not None:
                    setattr(into, name, getattr(hit, name))
            if hit.relationship_path and not into.relationship_path:
                into.related_entities = hit.related_entities
                into.relationship_path = hit.relationship_path
    return sorted(merged.values(), key=lambda h: -h.score)


def minmax(values: np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant non-zero leg scales to 1 (it still says "relevant")."""
    if not len(values):
        return values
    low, high = float(values.min()), float(values.max())
    if high - low < 1e-12:
        return np.full_like(values, 1.0 if high > 0 else 0.0)
    return (values - low) / (high - low)
