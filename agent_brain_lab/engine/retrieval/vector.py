"""vector mode: cosine similarity to the query embedding; below the threshold is dropped."""

from __future__ import annotations

import numpy as np

from ..types import MAX_TOP_K
from .context import Hit, QueryContext
from .fusion import minmax


def vector_leg(ctx: QueryContext, count: int) -> list[Hit]:
    keys, sims = vector_rows(ctx, count)
    return [Hit(k, s, vector_score=s) for k, s in zip(keys.tolist(), sims.tolist())]


def vector_rows(ctx: QueryContext, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The leg's best ``count`` (keys, similarities), best first, as arrays (what the blend reads)."""
    vectors = ctx.snapshot.vectors
    if vectors is None or not len(vectors):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    total = len(vectors)
    # never fewer than a page of MAX_TOP_K: an approximate (HNSW) search asked for 10 and for 50 may
    # differ in its first 10, and the first results must not depend on how many were asked for
    wanted = max(count, MAX_TOP_K)
    fetch = wanted if ctx.mask is None else wanted * 4
    threshold = ctx.request.similarity_threshold
    while True:  # over-fetch until enough rows pass the filters (or everything was seen)
        keys, sims = vectors.search(ctx.query_vector, fetch)
        keep = ctx.allowed_keys(keys) & (sims >= threshold)
        if keep.sum() >= wanted or fetch >= total or (len(sims) and sims[-1] < threshold):
            break  # enough, everything, or the rest lies below the threshold (best first)
        fetch = min(total, fetch * 8)
    return keys[keep][:count], sims[keep][:count]


def run(ctx: QueryContext) -> list[Hit]:
    hits = vector_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(hits, 1):
        hit.ranks["vector"] = rank
    return hits


def similarities(ctx: QueryContext, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cosine similarity of each key to the query, whether the key has a vector). A key without a
    vector (a generation still being embedded) gets 0."""
    vectors = ctx.snapshot.vectors
    if not vectors:
        return np.zeros(len(keys)), np.zeros(len(keys), dtype=bool)
    return vectors.similarities(ctx.query_vector, keys.tolist())


def scaled_meaning(ctx: QueryContext, keys: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """The keys' similarities min-max scaled among the embedded ones; a key without a vector gets its
    ``fallback`` value (the other leg's)."""
    sims, embedded = similarities(ctx, keys)
    scaled = np.array(fallback, dtype=float)
    scaled[embedded] = minmax(sims[embedded])
    return scaled
