"""multi mode: one analysis of the query decides how much each leg is heard in a weighted RRF.

Two legs: the hybrid blend (vector and bm25 already blended, the best single list on prose) and the
graph leg. A question about a relation whose entity the graph resolved ("what calls parse_header",
"X's subclasses") is answered by the graph: it leads, and the blend only orders what the graph did
not rank. When the graph resolved nothing it stays silent (weight 0) rather than vote with a fallback.
On prose the graph leg hears only names written as code (``compute_total``, ``Cart.add``) and
counts less than the blend: measured on docstring questions, plain words that happen to name a
symbol made the fusion worse, while named identifiers are strong evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import Hit, QueryContext
from .fusion import rrf
from .graph import graph_leg
from .hybrid import blend

RELATION_WEIGHTS = {"graph": 1.0, "hybrid": 0.01}  # the graph leads a relation question it resolved
PROSE_WEIGHTS = {"hybrid": 1.0, "graph": 0.5}
LOOKUP_WEIGHTS = {"hybrid": 1.0, "graph": 1.0}  # a query of names only: both are evidence
SILENT_GRAPH = {"hybrid": 1.0, "graph": 0.0}


@dataclass
class Fused:
    hits: list[Hit]
    entities: list[str]
    intent: str
    weights: dict[str, float]


def weights_for(intent_label: str, relation: bool, graph_heard: bool) -> dict[str, float]:
    """Each leg's weight: the graph's is 0 when it found nothing to say."""
    if not graph_heard:
        return dict(SILENT_GRAPH)
    if relation:
        return dict(RELATION_WEIGHTS)
    return dict(LOOKUP_WEIGHTS if intent_label == "lookup" else PROSE_WEIGHTS)


def run(ctx: QueryContext) -> Fused:
    pool = ctx.pool
    intent = ctx.intent
    relation = intent.relation is not None
    graph_hits, entities = graph_leg(ctx, pool, strong_only=not relation)
    weights = weights_for(intent.label, relation, bool(graph_hits))
    legs = {"hybrid": blend(ctx, pool), "graph": graph_hits}
    hits = rrf(legs, ctx.request.rrf_k, weights)[: ctx.request.top_k]
    return Fused(hits, entities, intent.label, weights)
