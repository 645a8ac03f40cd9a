"""hybrid mode: ``alpha * vector + (1 - alpha) * bm25`` over both legs' candidates, each leg normalised.

Every candidate gets its real score on both legs (not zero for "missing from the other top list"),
so the blend compares like with like.
"""

from __future__ import annotations

import numpy as np

from .bm25 import bm25_leg
from .context import Hit, QueryContext
from .fusion import minmax
from .vector import similarities, vector_leg


def run(ctx: QueryContext) -> list[Hit]:
    return blend(ctx, ctx.request.top_k)


def blend(ctx: QueryContext, count: int) -> list[Hit]:
    """The ``count`` best candidates of the blend, each with its vector and bm25 rank."""
    pool = max(ctx.pool, count)
    alpha = ctx.request.alpha
    # at alpha 1 the keyword leg's weight is 0: not scored at all, unless some chunks have no vector yet
    # (those are found, and ranked, by their keyword score alone)
    keywords_heard = alpha < 1 or ctx.snapshot.coverage < 1
    vec_hits = vector_leg(ctx, pool)
    kw_hits = bm25_leg(ctx, pool) if keywords_heard else []
    keys = np.array(list(dict.fromkeys([h.key for h in vec_hits] + [h.key for h in kw_hits])), dtype=np.int64)
    if not len(keys):
        return []
    bm25 = ctx.bm25_scores[ctx.snapshot.columns.positions(keys)] if keywords_heard else np.zeros(len(keys))
    keywords = minmax(bm25)
    sims, meaning, embedded = similarities(ctx, keys, keywords)  # not embedded yet: the keyword score alone
    blended = alpha * meaning + (1 - alpha) * keywords
    order = np.argsort(-blended, kind="stable")
    ranks = {leg: {h.key: r for r, h in enumerate(hits, 1)} for leg, hits in (("vector", vec_hits), ("bm25", kw_hits))}
    hits = []
    for i in order:
        key = int(keys[i])
        if sims[i] < ctx.request.similarity_threshold and key not in ranks["bm25"]:
            continue
        vector_score = float(sims[i]) if embedded[i] else None  # None: no vector yet, not "no similarity"
        bm25_score = float(bm25[i]) if keywords_heard else None
        hit = Hit(key, float(blended[i]), vector_score=vector_score, bm25_score=bm25_score)
        hit.ranks = {leg: r[key] for leg, r in ranks.items() if key in r}
        hits.append(hit)
    return hits[:count]
