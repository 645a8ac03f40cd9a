"""Retrieval: one module per mode, all working from a :class:`QueryContext`."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from ..store.graph import CodeGraph
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


def as_in_code(graph: CodeGraph, name: str) -> str:
    """The entity a query named, spelled as the code spells it: "request context" was looked up as
    ``requestContext`` and found ``RequestContext``; "session's" found the module ``sessions``. A
    name the code spells exactly so is kept (``Session`` when there is also a ``session``)."""
    key = name.lower().replace("::", ".")
    found = []
    for node in graph.lookup(key):
        data = graph.attrs(node)
        spellings = [str(data.get("qualname") or ""), str(data.get("name") or "")]
        if data.get("kind") == "file":
            module = posixpath.splitext(node)[0]
            spellings += [node, posixpath.basename(module), module.replace("/", ".")]
        found += [s for s in spellings if s.lower().replace("::", ".") == key]
    return name if name in found or not found else found[0]


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
        return Outcome(hits, in_code(ctx, entities), vectors=False)
    entities = in_code(ctx, entities)
    reason = NO_ENTITY if not entities else "vector: no chunk linked to " + ", ".join(entities) + " passes the filters"
    return Outcome(vector.run(ctx), entities, reason)


def multi_outcome(ctx: QueryContext) -> Outcome:
    fused = multi.run(ctx)
    return Outcome(fused.hits, in_code(ctx, fused.entities), intent=fused.intent, weights=fused.weights)


def in_code(ctx: QueryContext, entities: list[str]) -> list[str]:
    """The entities the query named, as the code spells them (reported to the user)."""
    graph_ = ctx.snapshot.graph
    return entities if graph_ is None else list(dict.fromkeys(as_in_code(graph_, name) for name in entities))
