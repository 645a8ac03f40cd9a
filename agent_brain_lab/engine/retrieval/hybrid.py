"""hybrid mode: ``alpha * vector + (1 - alpha) * bm25`` over both legs' candidates, each leg normalised.

Every candidate gets its real score on both legs (not zero for "missing from the other top list"),
so the blend compares like with like.

The first results never depend on how many were asked for (a page of 10 is the prefix of a page of
50): each leg's scale is set by its ``POOL`` best, whatever ``top_k`` is, so a chunk's blended score
is the same in every request; and the candidates are each leg's best until no chunk outside them can
blend above the last result kept (the threshold algorithm: such a chunk scores at most the last seen
on each leg), fetching deeper when one could. Equal scores are ordered by row key.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from ..store.vectors import is_in
from .bm25 import bm25_rows
from .context import POOL, Hit, QueryContext
from .vector import similarities, vector_rows

DEEPER = 4  # how much deeper each leg is read when a chunk outside the candidates could still rank


def run(ctx: QueryContext) -> list[Hit]:
    return blend(ctx, ctx.request.top_k)


def start(ctx: QueryContext, beside: Callable[[Callable[[], np.ndarray]], Future[np.ndarray]]) -> None:
    """Before :func:`run`: the keyword leg scored on another thread (``beside`` runs it) while this one
    embeds the query. The embedding starts at once and finishes on this thread: a thread embedding
    beside Python work waited for the GIL to start the model (up to the 5 ms switch interval; p95
    ~4.5 ms at 100k chunks on 2 busy cores) and then to hand the vector over."""
    if keywords_heard(ctx):
        ctx.score_keywords_beside(beside, POOL)  # and the first pass's top rows: off this thread's path
    if ctx.snapshot.vectors:  # else the vector leg is empty and the query is not embedded
        ctx.query_vector  # noqa: B018


def keywords_heard(ctx: QueryContext) -> bool:
    """Whether the blend scores keywords: at alpha 1 their weight is 0, so not at all, unless some chunks
    have no vector yet (those are found, and ranked, by their keyword score alone)."""
    return ctx.request.alpha < 1 or _partly_embedded(ctx)


def _partly_embedded(ctx: QueryContext) -> bool:
    vectors = ctx.snapshot.vectors
    return not vectors or len(vectors) < len(ctx.snapshot)


@dataclass(frozen=True)
class Scale:
    """Min-max scaling of one leg, fixed by its values over the first candidates."""

    low: float
    high: float

    @classmethod
    def of(cls, values: np.ndarray) -> Scale:
        if not len(values):
            return cls(0.0, 1.0)
        return cls(float(values.min()), float(values.max()))

    def __call__(self, values: np.ndarray | float) -> np.ndarray:
        values = np.asarray(values, dtype=float)
        if self.high - self.low < 1e-12:  # a constant leg scales to 1 (it still says "relevant") or 0
            return np.where(values >= self.high, 1.0 if self.high > 0 else 0.0, 0.0)
        return (values - self.low) / (self.high - self.low)


def blend(ctx: QueryContext, count: int, exact: bool = True) -> list[Hit]:
    """The ``count`` best chunks of the blend, each with its vector and bm25 rank; not ``exact``: the
    best of the first ``POOL`` candidates of each leg only (what multi fuses: the same list for every
    ``top_k``, without reading the legs deeper)."""
    total = len(ctx.snapshot)
    partly_embedded = _partly_embedded(ctx)
    alpha, threshold = ctx.request.alpha, ctx.request.similarity_threshold
    heard = keywords_heard(ctx)
    depth, scales, seen = POOL, None, _Similarities(ctx)
    no_keywords = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    while True:
        # the vector leg first: hybrid's keyword leg is being scored beside (:func:`start`) meanwhile.
        # Each leg as arrays (keys, scores): the blend orders by (score, key), so the candidates' own
        # order does not matter and they are taken sorted and unique.
        vec_keys, vec_sims = vector_rows(ctx, depth)
        kw_keys, kw_scores = bm25_rows(ctx, depth) if heard else no_keywords
        keys = np.unique(np.concatenate([vec_keys, kw_keys]))
        if not len(keys):
            return []
        bm25 = ctx.bm25_scores[ctx.snapshot.columns.positions(keys)] if heard else np.zeros(len(keys))
        sims, embedded = seen(keys)
        if scales is None:  # the first POOL of each leg: the same in every request
            scales = Scale.of(bm25), Scale.of(sims[embedded])
        keywords = scales[0](bm25)
        meaning = np.where(embedded, scales[1](sims), keywords)  # not embedded yet: the keyword score alone
        blended = alpha * meaning + (1 - alpha) * keywords
        order = np.lexsort((keys, -blended))
        order = order[((sims >= threshold) | (bm25 > 0))[order]]
        exhausted = len(vec_keys) < depth and len(kw_keys) < depth  # every chunk that can be a result is here
        if exhausted or depth >= total or not exact:
            break
        unseen = _unseen(scales, vec_sims, kw_scores, depth, alpha, threshold, partly_embedded)
        if len(order) >= count and blended[order[count - 1]] > unseen:  # no chunk outside can rank
            break
        depth *= DEEPER
    shown = order[:count]
    legs = (("vector", vec_keys), ("bm25", kw_keys))
    ranks = {leg: dict(zip(found.tolist(), range(1, len(found) + 1))) for leg, found in legs}
    hits = []
    for key, blend_score, sim, is_embedded, bm25_score in zip(
        keys[shown].tolist(),
        blended[shown].tolist(),
        sims[shown].tolist(),
        embedded[shown].tolist(),
        bm25[shown].tolist(),
    ):
        vector_score = sim if is_embedded else None  # None: no vector yet, not "no similarity"
        hit = Hit(key, blend_score, vector_score=vector_score, bm25_score=bm25_score if heard else None)
        hit.ranks = {leg: r[key] for leg, r in ranks.items() if key in r}
        hits.append(hit)
    return hits


class _Similarities:
    """:func:`similarities` of the keys one blend has asked for, each computed once: a deeper pass
    (4 and 16 times the first) asks again for every key of the passes before it. A key's
    similarity does not depend on the keys asked with it, so a remembered one is the same float."""

    def __init__(self, ctx: QueryContext):
        self._ctx = ctx
        self._keys = np.zeros(0, dtype=np.int64)  # sorted
        self._sims: np.ndarray = np.zeros(0, dtype=np.float32)
        self._embedded = np.zeros(0, dtype=bool)

    def __call__(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        new = keys[~is_in(keys, self._keys)]
        if len(new):
            sims, embedded = similarities(self._ctx, new)
            known = np.concatenate([self._keys, new])
            order = np.argsort(known)
            self._keys = known[order]
            self._sims = np.concatenate([self._sims, sims])[order]
            self._embedded = np.concatenate([self._embedded, embedded])[order]
        at = np.searchsorted(self._keys, keys)
        return self._sims[at], self._embedded[at]


def _unseen(
    scales: tuple[Scale, Scale],
    vec_sims: np.ndarray,
    kw_scores: np.ndarray,
    depth: int,
    alpha: float,
    threshold: float,
    partly_embedded: bool,
) -> float:
    """The most a chunk outside both legs' candidates can blend to: at most the last score seen on
    each leg (or, past a short leg, below the threshold / no keyword at all)."""
    low_kw = scales[0](float(kw_scores[-1]) if len(kw_scores) == depth else 0.0)
    low_vec = scales[1](float(vec_sims[-1]) if len(vec_sims) else threshold)
    bound = float(alpha * low_vec + (1 - alpha) * low_kw)
    return max(bound, float(low_kw)) if partly_embedded else bound
