"""Retrieval: one module per mode, all working from a :class:`QueryContext`."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import bm25, graph, hybrid, multi, vector
from .context import Hit, QueryContext

__all__ = ["Hit", "Outcome", "QueryContext", "search"]

NO_ENTITY = "vector: the query names no code entity known to the graph"


@dataclass
class Outcome:
    hits: list[Hit]
    entities: list[str] = field(default_factory=list)
    fallback: str | None = None
    intent: str | None = None  # multi: what the query analysis saw (``callers``, ``prose``, ...)
    weights: dict[str, float] = field(default_factory=dict)  # multi: each leg's weight in the fusion
    vectors: bool = True  # whether a vector leg took part (what the embedding coverage applies to)


def search(ctx: QueryContext) -> Outcome:
    mode = ctx.request.mode
    if mode == "vector":
        return Outcome(vector.run(ctx))
    if mode == "bm25":
        return Outcome(bm25.run(ctx), vectors=False)
    if mode == "hybrid":
        return Outcome(hybrid.run(ctx))
    if mode == "multi":
        return multi_outcome(ctx)
    hits, entities = graph.run(ctx)
    if hits:
        return Outcome(hits, entities, vectors=False)
    reason = NO_ENTITY if not entities else "vector: no chunk linked to " + ", ".join(entities) + " passes the filters"
    return Outcome(vector.run(ctx), entities, reason)


def multi_outcome(ctx: QueryContext) -> Outcome:
    fused = multi.run(ctx)
    return Outcome(fused.hits, fused.entities, intent=fused.intent, weights=fused.weights)
