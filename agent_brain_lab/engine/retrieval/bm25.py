"""bm25 mode: BM25 over code-aware tokens; documents without any query token are not results."""

from __future__ import annotations

import numpy as np

from .context import Hit, QueryContext

__all__ = ["bm25_rows", "run"]


def bm25_rows(ctx: QueryContext, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The leg's best ``count`` (keys, scores), best first, as arrays (what the blend reads)."""
    top = ctx.keyword_top(count)
    return ctx.snapshot.columns.keys[top], ctx.bm25_scores[top]


def run(ctx: QueryContext) -> list[Hit]:
    keys, scores = bm25_rows(ctx, ctx.request.top_k)
    ranked = enumerate(zip(keys.tolist(), scores.tolist()), 1)  # Python ints and floats
    return [Hit(k, v, bm25_score=v, ranks={"bm25": rank}) for rank, (k, v) in ranked]
