"""bm25 mode: BM25 over code-aware tokens; documents without any query token are not results."""

from __future__ import annotations

import numpy as np

from .context import Hit, QueryContext


def bm25_leg(ctx: QueryContext, count: int) -> list[Hit]:
    scores = ctx.bm25_scores
    positive = int(np.count_nonzero(scores > 0))
    count = min(count, positive)
    if count <= 0:
        return []
    top = np.argpartition(-scores, count - 1)[:count]
    top = top[np.argsort(-scores[top], kind="stable")]
    keys = ctx.snapshot.columns.keys[top]
    return [Hit(int(k), float(scores[p]), bm25_score=float(scores[p])) for k, p in zip(keys, top)]


def run(ctx: QueryContext) -> list[Hit]:
    hits = bm25_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(hits, 1):
        hit.ranks["bm25"] = rank
    return hits
