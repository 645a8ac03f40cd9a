"""bm25 mode: BM25 over code-aware tokens; documents without any query token are not results."""

from __future__ import annotations

import numpy as np

from .context import Hit, QueryContext


def top_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """Rows of the ``count`` highest positive scores, best first; equal scores in row order, also at
    the cut (which of several equal rows makes it never depends on the selection's internals).

    Selection, not a sort: ``np.partition`` finds the ``count``-th best score (the cut) over all
    rows, one pass takes the rows at or above it, and only those are sorted (of the rows equal to
    the cut, the first ones in row order fill the page). Gathering the positive rows first and
    partitioning those took 1.8x the CPU at 100k chunks, where most rows score (a common word of the
    query is enough). Scores are finite, as BM25 sums are (a NaN would sort above every score)."""
    n = len(scores)
    if count <= 0:
        return np.zeros(0, dtype=np.intp)
    if n > count:
        cut = np.partition(scores, n - count)[n - count]
        if cut > 0:
            rows = np.flatnonzero(scores >= cut)
            if len(rows) > count:  # more rows equal to the cut than places left: the first ones
                keep = scores[rows] > cut
                keep[np.flatnonzero(~keep)[: count - int(np.count_nonzero(keep))]] = True
                rows = rows[keep]
            return rows[np.argsort(-scores[rows], kind="stable")]
    rows = np.flatnonzero(scores > 0)  # no more positive scores than places: all of them
    return rows[np.argsort(-scores[rows], kind="stable")]


def bm25_leg(ctx: QueryContext, count: int) -> list[Hit]:
    keys, scores = bm25_rows(ctx, count)
    return [Hit(k, v, bm25_score=v) for k, v in zip(keys.tolist(), scores.tolist())]  # Python ints, floats


def bm25_rows(ctx: QueryContext, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The leg's best ``count`` (keys, scores), best first, as arrays (what the blend reads)."""
    scores = ctx.bm25_scores
    top = top_rows(scores, count)
    return ctx.snapshot.columns.keys[top], scores[top]


def run(ctx: QueryContext) -> list[Hit]:
    hits = bm25_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(hits, 1):
        hit.ranks["bm25"] = rank
    return hits
