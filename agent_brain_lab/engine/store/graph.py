"""The code graph's read side: :class:`CodeGraph`, entities and relations built from per-file facts, no LLM.

A generation's graph is the union of one fragment per file (:mod:`.graph_files`, names resolved by
:mod:`..graph_names`): the base's graph, in arrays and loaded once per process (:mod:`.graph_cache`),
overlaid by the delta's (:mod:`.graph_view`), or the delta's alone. Retrieval and the explorer read
it through the small interface below (nodes and their attributes, edges as :class:`GraphEdge`,
walks as :class:`GraphPath`), never through the graph implementations.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from ..graph_names import FileFacts, file_nodes
from .datafiles import CorruptIndexFile
from .graph_arrays import ArrayGraph
from .graph_cache import base_graph
from .graph_files import FOLDER, GraphFiles
from .graph_view import OverlayGraph

if TYPE_CHECKING:
    import networkx as nx

HUB_DEGREE = 60
MAX_PATHS = 4  # paths kept per node reached at the same hop
LOOKUPS_KEPT = 16_384  # names whose meaning an overlay graph keeps
T = TypeVar("T")


class GraphEdge(NamedTuple):
    source: str
    target: str
    relation: str
    chunk_ids: list[str]  # the chunks the relation is written in


class PathStep(NamedTuple):
    """One step of a walk: over ``relation``, with the edge (``X -calls-> Y``) or against it
    (``X <-calls- Y``: Y calls X), arriving at ``node``."""

    relation: str
    incoming: bool
    node: str

    @property
    def arrow(self) -> str:
        return f"<-{self.relation}-" if self.incoming else f"-{self.relation}->"


class GraphPath(NamedTuple):
    start: str
    steps: tuple[PathStep, ...] = ()

    @property
    def end(self) -> str:
        return self.steps[-1].node if self.steps else self.start

    def then(self, step: PathStep) -> GraphPath:
        return GraphPath(self.start, (*self.steps, step))


class Reach(NamedTuple):
    hop: int
    paths: list[GraphPath]  # the shortest paths from the seed, up to MAX_PATHS


class CodeGraph:
    """The read side: the graph of every fragment, assembled when first used."""

    def __init__(self, files: GraphFiles):
        self.files = files

    @cached_property
    def _g(self) -> nx.MultiDiGraph | OverlayGraph:
        return _assemble(self.files)

    @classmethod
    def open(cls, gen_dir: Path) -> CodeGraph | None:
        """The generation's graph, loaded now; None when it has none (:class:`CorruptIndexFile` if damaged)."""
        files = GraphFiles.open(gen_dir)
        if files is None:
            return None
        graph = cls(files)
        graph.lookup("")  # building the graph and its name index now checks every fragment
        return graph

    def save(self, gen_dir: Path) -> None:
        self.files.save(gen_dir)

    def stats(self) -> dict[str, Any]:
        return self.files.stats()

    # ---------------------------------------------------------------- nodes

    def __contains__(self, node: object) -> bool:
        return node in self._g

    def attrs(self, node: str) -> Mapping[str, Any]:
        """The node's attributes (``kind``, ``name``, ``qualname``, ``source``, ``chunk_id``...); KeyError if none."""
        return self._g.nodes[node]

    def get(self, node: str) -> Mapping[str, Any] | None:
        return self._g.nodes.get(node)

    def node(self, node_id: str) -> dict[str, Any]:
        return {"id": node_id, **self.attrs(node_id)}

    def nodes(self) -> Iterator[tuple[str, Mapping[str, Any]]]:
        """Every node with its attributes (an edge's end known only as an end has none)."""
        return iter(self._g.nodes(data=True))

    def number_of_nodes(self) -> int:
        return int(self._g.number_of_nodes())

    def label(self, node_id: str) -> str:
        data = self.get(node_id) or {}
        return str(data.get("qualname") or data.get("name") or node_id)

    def lookup(self, name: str) -> list[str]:
        """The nodes a name (case-insensitive) may mean: a symbol's name or qualified name, a file's
        path, stem or module name."""
        key, g = name.lower(), self._g
        if not isinstance(g, OverlayGraph):
            return list(_names_of(g).get(key, ()))
        found = self._looked_up.get(key)
        if found is None:  # the base's nodes of that name, less those gone or replaced: once per name
            live = [n for n in _names_of(g.base).get(key, ()) if g.in_base(n) and not g.in_delta(n)]
            found = tuple(sorted(live + _names_of(g.delta).get(key, [])))
            if len(self._looked_up) >= LOOKUPS_KEPT:
                self._looked_up.clear()
            self._looked_up[key] = found
        return list(found)

    def near_names(self, name: str, limit: int = 3) -> list[str]:
        """Names (as :meth:`lookup` takes them) spelled close to ``name``, closest first: what a typo
        meant. Only names within three characters of its length are compared (a miss costs ~0.1 s at
        60k names, and only a miss asks)."""
        key, g = name.lower(), self._g
        tables = [_names_of(g.base), _names_of(g.delta)] if isinstance(g, OverlayGraph) else [_names_of(g)]
        near = sorted({k for table in tables for k in table if abs(len(k) - len(key)) <= 3})
        return difflib.get_close_matches(key, near, n=limit, cutoff=0.75)

    @cached_property
    def _looked_up(self) -> dict[str, tuple[str, ...]]:
        """Names looked up in an overlay, with what they mean in it (a common name such as ``get``
        means thousands of base nodes, each checked against the files the generation hides)."""
        return {}

    # ---------------------------------------------------------------- edges

    def out_edges(self, node: str) -> list[GraphEdge]:
        g = self._g
        return [_edge(e) for e in g.out_edges(node, keys=True, data=True)] if _walkable(g, node) else []

    def in_edges(self, node: str) -> list[GraphEdge]:
        g = self._g
        return [_edge(e) for e in g.in_edges(node, keys=True, data=True)] if _walkable(g, node) else []

    def edges(self) -> list[GraphEdge]:
        return [_edge(e) for e in self._g.edges(keys=True, data=True)]

    def edge_chunks(self, source: str, target: str, relation: str) -> list[str]:
        """The chunks an edge is written in (none if there is no such edge)."""
        return next((e.chunk_ids for e in self.out_edges(source) if e.target == target and e.relation == relation), [])

    def degree(self, node: str) -> int:
        return int(self._g.degree(node))

    def neighbours(self, node: str) -> Iterator[str]:
        """The node's successors, then its predecessors, each once, read as they are consumed: a caller
        that stops early (a result's first 8 neighbour names) never reads the in-edges of a node whose
        out-edges gave enough (a hub has thousands)."""
        g = self._g
        if not _walkable(g, node):
            return
        seen: set[str] = set()
        for _, v in g.out_edges(node):
            if v not in seen:
                seen.add(v)
                yield v
        for u, _ in g.in_edges(node):
            if u not in seen:
                seen.add(u)
                yield u

    def _links(self, node: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
        """The node's out- and in-edges as (source, target, relation), without the chunk ids a walk
        does not read (``out_edges``/``in_edges`` copy them for every edge)."""
        g = self._g
        if not _walkable(g, node):
            return [], []
        return list(g.out_edges(node, keys=True)), list(g.in_edges(node, keys=True))

    def edges_between(self, nodes: set[str]) -> list[dict[str, Any]]:
        g = self._g
        if isinstance(g, OverlayGraph):
            edges = g.edges_among(nodes)
        else:
            edges = [e for e in g.edges(keys=True, data=True) if e[0] in nodes and e[1] in nodes]
        return [
            {"source": u, "target": v, "relation": rel, "chunk_ids": d.get("chunk_ids", [])} for u, v, rel, d in edges
        ]

    # ---------------------------------------------------------------- walks

    def neighbourhood(self, seeds: Iterable[str], depth: int) -> dict[str, Reach]:
        """Breadth-first over edges in both directions: node -> its hop and shortest paths. A node
        reached over several edges at the same hop keeps up to ``MAX_PATHS`` of them: "X imports Y"
        and "Y imports X" answer different questions. Edges are walked in sorted order, so the answer
        does not depend on the order the graph was built or patched in."""
        reached: dict[str, Reach] = {s: Reach(0, [GraphPath(s)]) for s in seeds if s in self}
        frontier = list(reached)
        for hop in range(1, depth + 1):
            nxt = []
            for node in frontier:
                out, into = self._links(node)
                if hop > 1 and len(out) + len(into) > HUB_DEGREE:  # its degree
                    continue  # a hub (a big file, a popular import) would make everything two hops apart
                path = reached[node].paths[0]
                steps = sorted((PathStep(rel, False, v) for _, v, rel in out), key=_by_node)
                steps += sorted((PathStep(rel, True, u) for u, _, rel in into), key=_by_node)
                for step in steps:
                    other = step.node
                    if other not in reached:
                        reached[other] = Reach(hop, [path.then(step)])
                        nxt.append(other)
                    elif reached[other].hop == hop and len(reached[other].paths) < MAX_PATHS:
                        reached[other].paths.append(path.then(step))
            frontier = nxt
        return reached

    # ---------------------------------------------------------------- what readers keep with the graph

    def per_base(self, key: str, build: Callable[[Iterable[tuple[str, Mapping[str, Any]]]], T]) -> T | None:
        """``build(nodes)`` over the shared base graph's nodes, made once per base and kept with it
        (every generation patched on that base reuses it); None when this graph has no base."""
        g = self._g
        if not isinstance(g, OverlayGraph):
            return None
        if key not in g.base.graph:
            g.base.graph[key] = build(g.base.nodes(data=True))
        return g.base.graph[key]

    def own_nodes(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The nodes not in the shared base (all of them when there is none), with attributes."""
        g = self._g
        graph = g.delta if isinstance(g, OverlayGraph) else g
        return [(n, d) for n, d in graph.nodes(data=True) if d]  # an edge target alone has no attributes

    def hidden_sources(self) -> set[str]:
        """The files whose nodes in the shared base are hidden (gone, or replaced by own nodes)."""
        g = self._g
        return set(g.hidden) if isinstance(g, OverlayGraph) else set()


def _walkable(g: nx.MultiDiGraph | OverlayGraph, node: str) -> bool:
    """Whether the graph can list the node's edges (an overlay answers for any node)."""
    return isinstance(g, OverlayGraph) or node in g


def _by_node(step: PathStep) -> tuple[str, str]:
    return step.node, step.relation


def _edge(e: tuple[Any, ...]) -> GraphEdge:
    u, v, rel, data = e
    return GraphEdge(u, v, rel, list(data.get("chunk_ids", [])))


def _names_of(graph: nx.MultiDiGraph | ArrayGraph) -> dict[str, list[str]]:
    """Lowercased name -> sorted node ids, kept with the graph (a base graph serves many generations)."""
    if "names" not in graph.graph:
        names: dict[str, list[str]] = defaultdict(list)
        for node, data in graph.nodes(data=True):
            for key in _lookup_keys(node, data) if data else ():
                names[key].append(node)
        graph.graph["names"] = {k: sorted(v) if len(v) > 1 else v for k, v in names.items()}
    return graph.graph["names"]


_QUALIFIER = re.compile(r"::|\.")


def _lookup_keys(node: str, data: Mapping[str, Any]) -> Collection[str]:
    """The distinct names a node is looked up by; an external type (a trait, base class or interface
    from elsewhere: ``fmt::Display``, ``models.Model``) also by its own name, as questions write it.
    A symbol (most nodes) gets a list, not a set: this runs for every node of a loaded graph."""
    name = str(data.get("name", "")).lower()
    qualname = str(data.get("qualname") or "").lower()
    keys = [k for k in (name, qualname) if k] if qualname != name else [name] if name else []
    kind = data.get("kind")
    if kind == "external":
        own = _QUALIFIER.split(str(data.get("name", "")))[-1]
        if own[:1].isupper():
            keys.append(own.lower())
    elif kind == "file":
        stem = posixpath.splitext(posixpath.basename(node))[0]
        keys += [node.lower(), stem.lower(), posixpath.splitext(node)[0].replace("/", ".").lower()]
    else:
        return keys
    return {k for k in keys if k}


def _assemble(files: GraphFiles) -> nx.MultiDiGraph | OverlayGraph:
    """The query graph: the delta alone, or the base's (loaded once per process, see
    :func:`.graph_cache.base_graph`) overlaid by the delta's, hiding the base files that left."""
    if files.base is not None and not files.delta:  # a generation right after its base was written
        return OverlayGraph(base_graph(files.base), ArrayGraph.build([], []), files.dead)  # no networkx import
    delta = graph_of({p: (file_nodes(p, f.facts).items(), f.edges, f.external) for p, f in files.delta.items()})
    if files.base is None:
        return delta
    return OverlayGraph(base_graph(files.base), delta, files.dead | set(files.delta))


Part = tuple[Iterable[tuple[str, Mapping[str, Any]]], Iterable[Sequence[Any]], Iterable[str]]  # nodes, edges, external


def graph_of(parts: Mapping[str, Part]) -> nx.MultiDiGraph:
    """A networkx graph of (nodes, edges, external names) per path, in path order: every part's
    nodes, then every part's external names and edges. Filled through its adjacency dicts (what
    ``add_edge`` does, minus its per-call overhead: 5.5 s -> 3.4 s at 500k edges)."""
    import networkx as nx  # only delta graphs are built with it (~0.3 s to import): a base graph is arrays

    g = nx.MultiDiGraph()
    attrs_of, succ, pred = g._node, g._succ, g._pred

    def node(n: str, attrs: Mapping[str, Any]) -> None:
        if n in attrs_of:
            attrs_of[n].update(attrs)
        else:
            attrs_of[n], succ[n], pred[n] = dict(attrs), {}, {}

    try:
        for path in sorted(parts):
            for n, attrs in parts[path][0]:
                node(n, attrs)
        for path in sorted(parts):
            _, edges, external = parts[path]
            for name in external:
                node(f"ext:{name}", {"kind": "external", "name": name, "source": None})
            for u, v, rel, ids in edges:
                for end in (u, v):
                    if end not in attrs_of:
                        node(end, {})
                keys = succ[u].get(v)
                if keys is None:
                    keys = succ[u][v] = pred[v][u] = {}
                keys.setdefault(rel, {})["chunk_ids"] = list(ids)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CorruptIndexFile(f"graph: a fragment is malformed ({err!r})") from None
    return g


def next_generation(
    previous: Path | None,
    removed: Iterable[str],
    added: Mapping[str, Mapping[str, Any]],
    all_facts: Callable[[], Iterable[tuple[str, Mapping[str, Any]]]],
) -> CodeGraph:
    """The graph of a new generation: the previous generation's patched, or built from ``all_facts()``
    (path, facts) when there is none or it cannot be read. Facts are what :func:`..analysis.analyze_file`
    recorded (:class:`FileFacts`), as the catalog stores them."""
    try:
        prev = GraphFiles.open(previous) if previous is not None else None
        if prev is not None:
            return CodeGraph(prev.patched(removed, cast(Mapping[str, FileFacts], added)))
    except CorruptIndexFile:
        pass
    return CodeGraph(GraphFiles.build((path, cast(FileFacts, facts)) for path, facts in all_facts()))


__all__ = [
    "FOLDER",
    "CodeGraph",
    "CorruptIndexFile",
    "GraphEdge",
    "GraphFiles",
    "GraphPath",
    "PathStep",
    "Reach",
    "next_generation",
]
