"""Ranking metrics for one relevant item per query, and latency percentiles."""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence


def first_hit(hits: Sequence[bool], k: int) -> Optional[int]:
    """1-based rank of the first relevant result within the top ``k``, else ``None``.

    Several chunks of the same function count once: only the first one found earns credit.
    """
    for rank, hit in enumerate(hits[:k], start=1):
        if hit:
            return rank
    return None


def ndcg(rank: Optional[int]) -> float:
    """nDCG for a single relevant item: the ideal DCG is 1 (it ranked first)."""
    return 0.0 if rank is None else 1.0 / math.log2(rank + 1)


def reciprocal_rank(rank: Optional[int]) -> float:
    return 0.0 if rank is None else 1.0 / rank


def summarize(ranks: Iterable[Optional[int]]) -> dict[str, float]:
    """Mean nDCG, MRR and recall over the first-hit ranks of a query set (already cut at k)."""
    ranks = list(ranks)
    if not ranks:
        return {"ndcg": 0.0, "mrr": 0.0, "recall": 0.0, "queries": 0}
    n = len(ranks)
    return {
        "ndcg": sum(ndcg(r) for r in ranks) / n,
        "mrr": sum(reciprocal_rank(r) for r in ranks) / n,
        "recall": sum(r is not None for r in ranks) / n,
        "queries": n,
    }


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": percentile(ms, 50), "p95_ms": percentile(ms, 95), "n": len(ms)}


def rrf(rankings: Iterable[Sequence[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion of id lists: ``score = sum 1 / (k + rank)``, best first."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda item: (-scores[item], item))
