"""multi mode: reciprocal-rank fusion of the vector, bm25 and graph legs."""

from __future__ import annotations

from .bm25 import bm25_leg
from .context import Hit, QueryContext
from .fusion import rrf
from .graph import graph_leg
from .vector import vector_leg


def run(ctx: QueryContext) -> tuple[list[Hit], list[str]]:
    pool = ctx.pool
    graph_hits, entities = graph_leg(ctx, pool)
    legs = {"vector": vector_leg(ctx, pool), "bm25": bm25_leg(ctx, pool), "graph": graph_hits}
    return rrf(legs, ctx.request.rrf_k)[: ctx.request.top_k], entities
