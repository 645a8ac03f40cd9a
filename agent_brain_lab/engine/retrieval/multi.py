"""multi mode: reciprocal-rank fusion of the vector, bm25 and graph legs.

The graph leg votes here only for entities the query names as code (identifiers such as
``compute_total``, ``Cart.add``, ``IOLoop``): measured on docstring queries, plain words that happen
to name a symbol made the fusion worse than its best leg, while named identifiers are strong evidence.
"""

from __future__ import annotations

from .bm25 import bm25_leg
from .context import Hit, QueryContext
from .fusion import rrf
from .graph import graph_leg
from .vector import vector_leg


def run(ctx: QueryContext) -> tuple[list[Hit], list[str]]:
    pool = ctx.pool
    graph_hits, entities = graph_leg(ctx, pool, strong_only=True)
    legs = {"vector": vector_leg(ctx, pool), "bm25": bm25_leg(ctx, pool), "graph": graph_hits}
    return rrf(legs, ctx.request.rrf_k)[: ctx.request.top_k], entities
