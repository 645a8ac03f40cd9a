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


def search(ctx: QueryContext) -> Outcome:
    mode = ctx.request.mode
    if mode == "vector":
        return Outcome(vector.run(ctx))
    if mode == "bm25":
        return Outcome(bm25.run(ctx))
    if mode == "hybrid":
        return Outcome(hybrid.run(ctx))
    if mode == "multi":
        return Outcome(*multi.run(ctx))
    hits, entities = graph.run(ctx)
    if hits:
        return Outcome(hits, entities)
    reason = NO_ENTITY if not entities else "vector: no chunk linked to " + ", ".join(entities) + " passes the filters"
    return Outcome(vector.run(ctx), entities, reason)
