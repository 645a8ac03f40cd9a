"""multi mode: one analysis of the query (:mod:`.intent`) decides how much each leg is heard.

Three legs: the hybrid blend (vector and bm25 already blended: the best single list on prose), the
graph leg and the names leg (symbols whose name the query spells out, :mod:`.names`).

- A question about a relation whose entity the graph resolved ("what calls parse_header", "X's
  subclasses") is answered by the graph: in a weighted RRF it leads, and the blend only breaks
  near-ties and orders what the graph did not rank. When the graph resolved nothing it is silent
  (weight 0) rather than vote with a fallback.
- Prose is ranked by the blend, and a candidate whose name the query spells out gains up to
  ``NAME_BOOST`` on the blend's [0, 1] scale. Measured on docstring questions, the graph leg made
  prose worse (names in prose are rarely the answer's neighbours), so it is silent there; the names
  leg as an RRF vote was worse too (a rank-1 vote outweighs the blend's spread), as a bounded boost
  it helps. Then the best candidates gain up to ``symbols.NAME_COVER_BOOST`` by how much of their
  own name the query's words cover, fully or not (:mod:`.symbols`): new evidence, not a re-weighting;
  in the same pass import/export glue, the function the question compares its answer with ("Like
  `map`, but ...") and, for a question saying what a function does, type aliases and interfaces go
  lower;
  tests go below library code unless the question is about tests, changelog entries unless it asks
  what changed, and docs a little when it asks how the code does something ("how does ...", "where
  is ...", "does ky respect ...") rather than how to use it (:func:`.evidence.asides_below`).
- A pasted message puts the code that raises or logs it first (its string literal, template holes
  standing for any text); a question in prose opening with its subject's name ("`o` is a curried
  ...") puts that definition first; a query of names only puts the definitions named exactly so first, then the
  doc entries defining them; a question about what the code does that names a function by its owner
  ("how does res.send ...") puts that function first; a question asking a setting's default ("what is
  the default timeout") puts the code giving that setting its value first (``timeout: 0``); a question
  about what happens when an option is set puts the code branching on it first, one comparing two names
  both definitions, a how-do-I question quoting calls (``f(3)``) the text writing them; a how-do-I
  question the docs answer first gets the code the doc section keys on beside it (above a reference
  entry titled with an option, ``##### json``; below a how-to section, the one name it shows).
- A query of names only ("IOLoop.start", "SECRET_KEY") hears all three legs alike; tests and
  changelogs go below the library code there too.

The response reports the intent's label and these weights.
"""

from __future__ import annotations

from dataclasses import dataclass

from .context import Hit, QueryContext
from .evidence import (
    asides_below,
    branches_first,
    compared_first,
    constants_first,
    declared_members_first,
    defaults_first,
    exact_names_first,
    keyed_code_first,
    named_subject_first,
    options_read_first,
    quoted_calls_first,
    text_evidence_first,
)
from .fusion import rrf
from .graph import GraphLeg, entity_names, graph_leg
from .hybrid import blend, keywords_heard
from .names import names_leg
from .symbols import name_covered

RELATION_WEIGHTS = {"graph": 1.0, "hybrid": 0.01, "names": 0.0}  # the graph leads a relation it resolved
LOOKUP_WEIGHTS = {"hybrid": 1.0, "graph": 1.0, "names": 1.0}  # a query of names only: all are evidence
NAME_BOOST = 0.1  # measured on click and jinja2 docstring questions: 0.05 too little, 0.2 too much
PROSE_WEIGHTS = {"hybrid": 1.0, "graph": 0.0, "names": NAME_BOOST}


@dataclass
class Fused:
    hits: list[Hit]
    entities: list[str]
    intent: str
    weights: dict[str, float]


def weights_for(intent_label: str, relation: bool, graph_heard: bool) -> dict[str, float]:
    """Each leg's weight; the graph's is 0 when it found nothing to say."""
    if relation and graph_heard:
        return dict(RELATION_WEIGHTS)
    weights = dict(LOOKUP_WEIGHTS if intent_label == "lookup" else PROSE_WEIGHTS)
    if not graph_heard:
        weights["graph"] = 0.0
    return weights


def run(ctx: QueryContext) -> Fused:
    pool = ctx.pool
    intent = ctx.intent
    relation = intent.relation is not None
    # every way through reads the keyword scores (the graph leg that leads, or the evidence of the text):
    # scored first, with the blend's first keyword rows, while the query's embedding (started by the
    # caller) runs beside
    ctx.bm25_scores  # noqa: B018
    if keywords_heard(ctx):
        ctx.keyword_top(pool)
    if relation or intent.label == "lookup":
        graph = graph_leg(ctx, pool, strong_only=not relation)
    else:  # prose: the graph's weight is 0 whatever it finds, so it is not walked; it names the entities
        graph = GraphLeg([], entity_names(ctx, strong_only=True), {})
    graph_hits, entities = graph.hits, graph.entities
    weights = weights_for(intent.label, relation, bool(graph_hits))
    # a leg whose weight is 0 is not run: its hits would not count (a relation the graph leads
    # does not hear the names leg)
    names = names_leg(ctx, pool) if weights["names"] > 0 else []
    legs = {"hybrid": blend(ctx, pool, exact=False), "graph": graph_hits, "names": names}
    led_by_graph = relation and bool(graph_hits)
    fused_by_rank = led_by_graph or intent.label == "lookup"
    if not fused_by_rank:
        hits = asides_below(ctx, name_covered(ctx, boosted(legs["hybrid"], legs["names"], weights["names"])))
        hits = named_subject_first(ctx, hits)  # "how does res.send decide ...": res.send
    else:
        hits = rrf(legs, ctx.request.rrf_k, weights)
        if not led_by_graph:  # a look-up: "SECRET_KEY" is where the library reads it, not a test's
            hits = asides_below(ctx, hits, scale=hits[0].score if hits else 1.0)
    if not led_by_graph:  # a pasted message: where it is raised or logged first; a heading: its section
        hits = quoted_calls_first(ctx, hits)  # "how do I make f(3) and f(3.0) cached separately": the docs' f(3)
        hits = text_evidence_first(ctx, hits)
        hits = declared_members_first(ctx, hits)  # "what does NoOptDefVal mean": the struct declaring it
        hits = defaults_first(ctx, hits)  # "what is the default timeout": the code giving it its value
        hits = options_read_first(ctx, hits)  # "which option limits how many redirects": config.maxRedirects
        hits = constants_first(ctx, hits)  # "which HTTP methods get retried": const retryMethods = [...]
        hits = branches_first(ctx, hits)  # "what happens when ... throwOnTimeout is not set": its if
        hits = compared_first(ctx, hits)  # "the difference between TTLCache and TLRUCache": both classes
        hits = keyed_code_first(ctx, hits)  # "how do I send JSON": the code reading the README entry's `json`
    if intent.label == "lookup":  # "Session": the class Session, then the function session()
        hits = exact_names_first(ctx, hits)
    top_k = ctx.request.top_k
    if len(hits) < top_k:  # past the fused pool: the blend's next best, in its order
        hits += beyond(ctx, hits, top_k, ctx.request.rrf_k, weights["hybrid"] if fused_by_rank else None)
    hits = hits[:top_k]
    graph.describe(hits)  # the graph's neighbours and path, read for the results only (not the leg's whole pool)
    return Fused(hits, entities, intent.label, weights)


def beyond(ctx: QueryContext, fused: list[Hit], top_k: int, rrf_k: int, weight: float | None) -> list[Hit]:
    """The blend's best chunks the fused list lacks, best first, until ``top_k`` results are there.

    The fused list is the same for every ``top_k`` (its legs are ``ctx.pool`` long) and the blend's
    order does not depend on how many it was asked for, so a page of 10 stays the prefix of a page of
    100. Scored as the blend scores them, or in an RRF (``weight`` given) as the hybrid leg's vote at
    that rank: below every fused result either way."""
    seen = {h.key for h in fused}
    more = []
    for rank, hit in enumerate(blend(ctx, top_k + len(fused)), 1):
        if hit.key in seen:
            continue
        if weight is not None:
            hit.score = weight / (rrf_k + rank)
        hit.ranks["hybrid"] = rank
        more.append(hit)
        if len(fused) + len(more) == top_k:
            break
    return more


def boosted(ranked: list[Hit], named: list[Hit], boost: float) -> list[Hit]:
    """``ranked`` (scores in [0, 1]) re-ordered after adding ``boost`` x each named hit's weight
    relative to the best one; names the ranked list does not hold are not added."""
    weight = {h.key: (h.score, rank) for rank, h in enumerate(named, 1)}
    top = max((w for w, _ in weight.values()), default=1.0)
    for hit in ranked:
        if hit.key in weight:
            hit.score += boost * weight[hit.key][0] / top
            hit.ranks["names"] = weight[hit.key][1]
    return sorted(ranked, key=lambda h: -h.score)
