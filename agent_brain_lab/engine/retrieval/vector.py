"""vector mode: cosine similarity to the query embedding; below the threshold is dropped."""

from __future__ import annotations

from .context import Hit, QueryContext


def vector_leg(ctx: QueryContext, count: int) -> list[Hit]:
    vectors = ctx.snapshot.vectors
    if vectors is None or not len(vectors):
        return []
    total = len(vectors)
    fetch = count if ctx.mask is None else count * 4
    while True:  # over-fetch until enough rows pass the filters (or everything was seen)
        keys, sims = vectors.search(ctx.query_vector, fetch)
        keep = ctx.allowed_keys(keys) & (sims >= ctx.request.similarity_threshold)
        if keep.sum() >= count or fetch >= total:
            break
        fetch = min(total, fetch * 8)
    return [Hit(int(k), float(s), vector_score=float(s)) for k, s in zip(keys[keep][:count], sims[keep][:count])]


def run(ctx: QueryContext) -> list[Hit]:
    hits = vector_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(hits, 1):
        hit.ranks["vector"] = rank
    return hits
