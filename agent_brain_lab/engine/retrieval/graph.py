"""graph mode: entities named in the query, their neighbourhood in the code graph, and its chunks.

A chunk's proximity sums, over the query's entities that reach it, ``weight * 0.5 ** hops``; an
entity's weight falls with how many graph nodes share its name, so "get" matters less than
"InsufficientStockError", and a plain word that happens to name a symbol counts half of an
identifier — and only in a question about relations ("what calls cart"): in prose such words
("event", "string") are measured noise. The graph score is that proximity scaled by the chunk's
relevance to the query (BM25 and embedding similarity, normalised over the neighbourhood), so the
graph picks the candidates and the query's content orders them.

Whether the query asks about a relation, which one and which way round comes from the one query
analysis shared with multi (:mod:`.intent`). A question about a relation ("what calls X", "what
does X call", "subclasses of X", "modules importing X") is answered by
the neighbours over that relation, the way round it asks: they count double, X itself less, and
each is shown at the chunk where the edge is written (the call, not the caller's first lines).
Go writes no ``implements``: the implementations of a Go interface are worked out when asked
(:func:`go_implementers`), as the types of its package that have all its methods.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from typing import NamedTuple

import numpy as np

from ..store.graph import CodeGraph, GraphPath, PathStep, Reach
from ..tokenizer import identifiers
from .context import Hit, QueryContext
from .fusion import minmax
from .intent import CODE_LIKE, DOTTED, Intent
from .vector import scaled_meaning

DECAY = 0.5
RELEVANCE = 0.9  # how much relevance to the query's words and meaning orders chunks of equal proximity
STRUCTURAL_RELEVANCE = 0.3  # the same when the query asks about a relation
MAX_SEEDS = 24
ASKED_BOOST = 2.0  # a neighbour reached over the relation the query asks about counts double
WRITTEN_AT_SOURCE = {"calls", "imports", "extends", "implements", "mentions"}  # the edge's chunk is the source's
SEED_IN_RELATION = 0.6  # in "what calls X", X itself ranks after its callers, before unrelated neighbours
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
        "all",
        "any",
        "each",
        "file",
        "files",
        "code",
        "function",
        "functions",
        "class",
        "method",
        "methods",
        "return",
        "returns",
        "value",
        "values",
        "get",
        "set",
        "new",
        "use",
        "used",
        "using",
        "find",
        "show",
        "list",
        "make",
    ]
)


class QueryEntity(NamedTuple):
    """A graph entity the query names."""

    written: str  # as the query writes it
    nodes: list[str]  # the graph nodes of that name
    weight: float
    strong: bool  # written as code, or a capitalised exact name, or in a terse query: surely meant


# A name the question writes as code: in backticks, called (`values()`), or named as a symbol
# ("function values", "the values method", a capitalised name before its kind: "the Value interface").
# Such a name counts even when it is a common word.
_MARKED = tuple(
    re.compile(pattern)
    for pattern in (
        r"`([A-Za-z_$][\w$.:]*)(?:\(\))?`",
        r"\b([A-Za-z_$][\w$]*)\(\)",
        r"\b(?:function|class|def|func|fn)\s+([A-Za-z_$][\w$]*)",
        r"\b([A-Za-z_$][\w$]*)\s+(?:function|method)\b(?!\s+(?:that|which|to|of|for|in)\b)",
        r"\b([A-Z][\w$]*)\s+(?:interface|class|struct|trait|enum)\b",  # "the Value interface"
    )
)


# Common words that are also common names: an entity when the question marks them as code, or asks
# a relation question about them alone ("what calls values", "functions called by value").
_NAMELIKE = frozenset({"value", "values", "get", "set", "new", "use", "find", "show", "list", "make", "each", "all"})
_GRAMMAR = _COMMON - _NAMELIKE  # never a name, marked or not ("callers of function that ...")


def marked_as_code(query: str) -> set[str]:
    """Lowercased names the query marks as code (see ``_MARKED``)."""
    names = {name.lower() for pattern in _MARKED for name in pattern.findall(query)}
    return names - _GRAMMAR


def find_entities(intent: Intent, graph: CodeGraph) -> list[QueryEntity]:
    """Every graph entity the query names, heaviest first.

    Strong: written as code (``compute_total``, ``Cart.add``, ``IOLoop``), a capitalised exact name
    (``Cart``), or any name in a query of three words or fewer. A plain word that happens to name an
    entity ("event", "string") is weak.
    """
    query = intent.query
    words = identifiers(query)
    terse = intent.terse  # a query that is little more than names: every match is meant
    candidates = DOTTED.findall(query) + words
    for a, b in itertools.pairwise(words):  # "compute total" may mean compute_total / computeTotal
        candidates += [f"{a}_{b}", f"{a}{b[:1].upper()}{b[1:]}", f"{a}{b}"]
    marked = marked_as_code(query)
    if intent.asked and len(intent.names) == 1:  # a relation question about one name: "callers of values"
        sole = intent.names[0].lower()  # a common word that names things, or a short name (Go's `ld`, `Eq`)
        marked |= {sole} if sole in _NAMELIKE or (len(sole) == 2 and sole not in _COMMON) else set()
    found: dict[str, QueryEntity] = {}
    for cand in candidates:
        key = cand.lower().replace("::", ".")
        if key in found or (len(key) < 3 and key not in marked) or (key in _COMMON and key not in marked):
            continue
        nodes = graph.lookup(key)
        if nodes:
            strong = (
                terse
                or key in marked
                or bool(CODE_LIKE.search(cand))
                or (cand[:1].isupper() and any(graph.attrs(n).get("name") == cand for n in nodes))
            )
            found[key] = QueryEntity(cand, nodes, (1.0 if strong else 0.5) / len(nodes) ** 0.5, strong)
    return sorted(found.values(), key=lambda e: -e.weight)


def _entities(ctx: QueryContext, graph: CodeGraph, strong_only: bool) -> list[QueryEntity]:
    entities = find_entities(ctx.intent, graph)
    if strong_only or not ctx.intent.asked:  # a plain word naming an entity counts only in a relation question
        entities = [e for e in entities if e.strong]
    return entities


def entity_names(ctx: QueryContext, strong_only: bool = False) -> list[str]:
    """The entities the query names, as ``graph_leg`` finds them, without walking the graph."""
    graph = ctx.snapshot.graph
    return [e.written for e in _entities(ctx, graph, strong_only)] if graph is not None else []


class GraphLeg(NamedTuple):
    """The graph leg's hits, best first, without their labels (:meth:`describe` adds them to the hits
    shown), and the entities found."""

    hits: list[Hit]
    entities: list[str]
    reached: dict[int, tuple[str, GraphPath]]  # hit key -> the node it is the chunk of, and the path there
    graph: CodeGraph | None = None

    def describe(self, hits: list[Hit]) -> None:
        """Give the ``hits`` that are this leg's (a fused list's keep the graph leg's rank) their node's
        neighbours and the path from the named entity: only the hits shown pay for reading them."""
        graph = self.graph
        for hit in hits:
            if graph is not None and "graph" in hit.ranks and hit.key in self.reached:
                node, path = self.reached[hit.key]
                hit.related_entities = _neighbours(graph, node)
                hit.relationship_path = _path_labels(graph, path)


def graph_leg(ctx: QueryContext, count: int, strong_only: bool = False) -> GraphLeg:
    """Graph hits, best first, and the entities found; ``strong_only`` keeps identifier-like names."""
    graph = ctx.snapshot.graph
    if graph is None:
        return GraphLeg([], [], {})
    intent = ctx.intent
    entities = _entities(ctx, graph, strong_only)
    asked = intent.asked
    directions = {e.written: intent.direction_of(e.written) for e in entities}
    seeds = [(n, e.weight, directions[e.written]) for e in entities for n in e.nodes][:MAX_SEEDS]
    node_score: dict[str, float] = defaultdict(float)
    node_path: dict[str, tuple[float, GraphPath]] = {}
    for seed, weight, direction in seeds:
        around = graph.neighbourhood([seed], ctx.request.traversal_depth)
        if "implements" in asked and direction != "out":
            for node in go_implementers(ctx, graph, seed):
                path, known = GraphPath(seed, (PathStep("implements", True, node),)), around.get(node)
                around[node] = (
                    Reach(1, [path]) if known is None or known.hop > 1 else known._replace(paths=[*known.paths, path])
                )
        for node, (hop, paths) in around.items():
            contribution, path = max(
                ((_contribution(weight, hop, p, asked, direction), p) for p in paths), key=lambda c: c[0]
            )
            node_score[node] += contribution
            if node not in node_path or contribution > node_path[node][0]:
                node_path[node] = (contribution, path)
    chunk_nodes: dict[str, str] = {}
    aside: set[str] = set()  # a node's other chunks, when the asked edge is written in one of them
    for node in sorted(node_score, key=lambda n: -node_score[n]):
        chunks, written = _evidence_chunks(graph, node, node_path[node][1], asked)
        for i, chunk_id in enumerate(chunks):
            if chunk_id not in chunk_nodes:
                chunk_nodes[chunk_id] = node
                if written and i >= written:
                    aside.add(chunk_id)
    key_of = ctx.keys_of_chunk_ids(list(chunk_nodes))
    pairs = [(key_of[c], n) for c, n in chunk_nodes.items() if c in key_of]
    if not pairs:
        return GraphLeg([], [e.written for e in entities], {})
    keys = np.array([k for k, _ in pairs], dtype=np.int64)
    allowed = ctx.allowed_keys(keys)
    part = {key_of[c]: 1 - STRUCTURAL_RELEVANCE for c in aside if c in key_of}  # never above where it is written
    base = np.array([node_score[n] * part.get(k, 1.0) for k, n in pairs])
    keywords = minmax(ctx.bm25_scores[ctx.snapshot.columns.positions(keys)])
    meaning = scaled_meaning(ctx, keys, keywords)  # not embedded yet: the keyword score stands in
    weight = STRUCTURAL_RELEVANCE if asked else RELEVANCE  # "what calls X": the structure is the answer
    scores = base * (1 - weight + weight * (keywords + meaning) / 2)
    hits, reached = [], {}
    for i in np.argsort(-scores, kind="stable"):
        if not allowed[i]:
            continue
        node = pairs[i][1]
        hits.append(Hit(int(keys[i]), float(scores[i]), graph_score=float(scores[i])))
        reached[hits[-1].key] = (node, node_path[node][1])
        if len(hits) == count:
            break
    return GraphLeg(hits, [e.written for e in entities], reached, graph)


# a Go interface's own method (`Set(string) error`) and an interface it embeds (`Value`, `io.Reader`)
_GO_METHOD_SPEC = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(", re.MULTILINE)
_GO_EMBEDDED = re.compile(r"^\s*([A-Za-z_]\w*)\s*$", re.MULTILINE)


def go_implementers(ctx: QueryContext, graph: CodeGraph, node: str) -> list[str]:
    """The types of a Go interface's package that have every method it asks for: Go states no
    ``implements``, a type with the methods is one (``intValue`` with ``String``, ``Set`` and ``Type``
    implements ``Value``). The methods are read off the interface's chunks, with those of the
    interfaces of its package it embeds; an interface embedding one from elsewhere asks at least its
    own. Empty for anything but a Go interface."""
    data = graph.attrs(node)
    source = str(data.get("source", ""))
    if data.get("kind") != "interface" or not source.endswith(".go"):
        return []
    package = source.rpartition("/")[0]
    methods: set[str] = set()
    seen: set[str] = set()
    todo = [node]
    while todo:
        current = todo.pop()
        seen.add(current)
        attrs = graph.attrs(current)
        ids = [c for c in (attrs.get("chunk_id"), *attrs.get("more_chunk_ids", ())) if c]
        keys = list(ctx.keys_of_chunk_ids(ids).values())
        for chunk in ctx.chunks_of_keys(keys).values():
            methods.update(_GO_METHOD_SPEC.findall(chunk.text))
            for embedded in _GO_EMBEDDED.findall(chunk.text):
                todo += [n for n in _in_package(graph, embedded, package, "interface") if n not in seen]
    if not methods:
        return []
    covered: dict[str, set[str]] = defaultdict(set)
    for name in methods:
        for method in _in_package(graph, name, package, "method"):
            for edge in graph.in_edges(method):
                if edge.relation == "contains":
                    covered[edge.source].add(name)
    return sorted(t for t, names in covered.items() if names == methods and t != node)


def _in_package(graph: CodeGraph, name: str, package: str, kind: str) -> list[str]:
    """The nodes of ``kind`` named ``name`` (exactly) defined in the files of folder ``package``."""
    return [
        n
        for n, data in ((n, graph.attrs(n)) for n in graph.lookup(name))
        if data.get("kind") == kind
        and data.get("name") == name
        and str(data.get("source", "")).rpartition("/")[0] == package
    ]


def _path_labels(graph: CodeGraph, path: GraphPath) -> list[str]:
    """The path as a person reads it: ``["Cart.total", "<-calls-", "checkout"]``."""
    return [graph.label(path.start), *(text for s in path.steps for text in (s.arrow, graph.label(s.node)))]


def _contribution(weight: float, hop: int, path: GraphPath, asked: set[str], direction: str | None) -> float:
    """``weight * 0.5 ** hop``; in a relation question the named entity itself counts less and a
    neighbour over the asked relation more."""
    contribution = weight * DECAY**hop
    if asked and not hop:
        return contribution * SEED_IN_RELATION
    if asked and _over_asked(path, asked, direction):
        return contribution * ASKED_BOOST
    return contribution


def _over_asked(path: GraphPath, asked: set[str], direction: str | None) -> bool:
    """Whether a path from the named entity follows asked relations (the asked way round, if known)
    and nothing else but steps into its members (a class's callees are its methods'): a callee's
    changelog entry (``-calls-> res.get <-mentions-``) or the module code of its file (``-defined_in->
    app.js -calls-> app.set``) is not a callee."""
    matching = [step.incoming for step in path.steps if step.relation in asked]
    members = all(step.relation in asked or (step.relation == "contains" and not step.incoming) for step in path.steps)
    return bool(matching) and members and (direction is None or all(i == (direction == "in") for i in matching))


def _evidence_chunks(graph: CodeGraph, node: str, path: GraphPath, asked: set[str]) -> tuple[list[str], int]:
    """The node's chunks and how many of the first are where the asked edge is written: reached over
    the relation the question asks about, those come first (for "what calls X" the part of a long
    caller that makes the call, for "what implements Display" the ``impl`` block, not the struct)."""
    data = graph.attrs(node)
    first: list[str] = []
    last = path.steps[-1] if path.steps else None
    if last is not None and last.incoming and last.relation in asked & WRITTEN_AT_SOURCE:  # an asked edge it wrote
        before = path.steps[-2].node if len(path.steps) > 1 else path.start
        first = [c for c in dict.fromkeys(graph.edge_chunks(node, before, last.relation)) if c]
    rest = [c for c in dict.fromkeys([data.get("chunk_id"), *data.get("more_chunk_ids", ())]) if c and c not in first]
    return [*first, *rest], len(first)


def _neighbours(graph: CodeGraph, node: str, limit: int = 8) -> list[str]:
    names = []
    for other in graph.neighbours(node):
        label = graph.label(other)
        if label not in names:
            names.append(label)
        if len(names) == limit:
            break
    return names


def run(ctx: QueryContext) -> tuple[list[Hit], list[str]]:
    leg = graph_leg(ctx, ctx.request.top_k)
    for rank, hit in enumerate(leg.hits, 1):
        hit.ranks["graph"] = rank
    leg.describe(leg.hits)
    return leg.hits, leg.entities
