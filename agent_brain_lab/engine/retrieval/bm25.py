"""bm25 mode: BM25 over code-aware tokens; documents without any query token are not results."""

from __future__ import annotations

import numpy as np

from .context import Hit, QueryContext


def top_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """Rows of the ``count`` highest positive scores, best first; equal scores in row order, also at
    the cut (which of several equal rows makes it never depends on the selection's internals).

    Selection, not a sort: only the rows with a score are looked at, the ``count``-th best score is
    found by ``np.partition`` and only the rows above it (and the first ones equal to it) are sorted."""
    rows = np.flatnonzero(scores > 0)
    if count <= 0:
        return rows[:0]
    if len(rows) > count:
        values = scores[rows]
        cut = np.partition(values, len(rows) - count)[len(rows) - count]
        above = values > cut
        tied = np.flatnonzero(values == cut)[: count - int(np.count_nonzero(above))]
        keep = above
        keep[tied] = True
        rows = rows[keep]
    return rows[np.argsort(-scores[rows], kind="stable")]


def bm25_leg(ctx: QueryContext, count: int) -> list[Hit]:
    scores = ctx.bm25_scores
    top = top_rows(scores, count)
    keys = ctx.snapshot.columns.keys[top]
    return [Hit(int(k), float(scores[p]), bm25_score=float(scores[p])) for k, p in zip(keys, top)]


def run(ctx: QueryContext) -> list[Hit]:
    hits = bm25_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(hits, 1):
        hit.ranks["bm25"] = rank
    return hits
