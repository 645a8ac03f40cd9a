"""Ranking metrics for queries with one or several relevant items, and latency percentiles."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def found_ranks(matches: Sequence[int | None], k: int) -> list[int]:
    """1-based ranks within the top ``k`` where a relevant item turns up for the first time.

    ``matches[i]`` is the index of the relevant item result ``i`` hits, or ``None``. Each item
    counts once: several chunks of the same function earn credit once.
    """
    seen: set[int] = set()
    ranks = []
    for rank, item in enumerate(matches[:k], start=1):
        if item is not None and item not in seen:
            seen.add(item)
            ranks.append(rank)
    return ranks


def query_scores(ranks: Sequence[int], relevant: int, k: int) -> dict[str, float]:
    """nDCG@k (binary gains; the ideal ranks all ``relevant`` items first), reciprocal rank, recall."""
    dcg = sum(1.0 / math.log2(r + 1) for r in ranks)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(relevant, k) + 1))
    return {"ndcg": dcg / ideal, "mrr": 1.0 / ranks[0] if ranks else 0.0, "recall": len(ranks) / relevant}


def summarize(scores: Sequence[dict[str, float]]) -> dict[str, float]:
    """Means of :func:`query_scores` over a query set."""
    n = len(scores)
    means = {m: sum(s[m] for s in scores) / n if n else 0.0 for m in ("ndcg", "mrr", "recall")}
    return {**means, "queries": n}


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
