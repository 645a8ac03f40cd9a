"""A generation's code graph as a read-only view: the base graph minus the files that left it, plus
the delta graph. The base graph is loaded once per process and shared by every generation built on
it, so a new generation costs what its delta costs. It answers the part of the networkx API the
engine reads (``in``, ``nodes``, ``edges``, ``out_edges``/``in_edges``, ``successors``/``predecessors``,
``degree``, ``has_edge``, ``number_of_nodes``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .graph_arrays import ArrayGraph

if TYPE_CHECKING:
    import networkx as nx


class OverlayGraph:
    def __init__(self, base: ArrayGraph, delta: nx.MultiDiGraph | ArrayGraph, hidden: set[str]):
        self.base, self.delta, self.hidden = base, delta, hidden  # hidden: base files dead or in the delta
        self.nodes = _Nodes(self)
        self.edges = _Edges(self)

    # ---------------------------------------------------------------- who owns a node

    def in_delta(self, node: str) -> bool:
        return node in self.delta and bool(self.delta.nodes[node])  # an edge target alone has no attributes

    def in_base(self, node: str) -> bool:
        if node not in self.base:
            return False
        source = self.base.nodes[node].get("source")
        if source is not None:
            return source not in self.hidden
        return any(self._base_edge_live(u) for u in self.base.predecessors(node))  # an external name

    def _base_edge_live(self, u: str) -> bool:
        return self.base.nodes[u].get("source") not in self.hidden

    def __contains__(self, node: object) -> bool:
        return isinstance(node, str) and (self.in_delta(node) or self.in_base(node))

    def attrs(self, node: str) -> dict:
        if self.in_delta(node):
            return self.delta.nodes[node]
        if self.in_base(node):
            return self.base.nodes[node]
        raise KeyError(node)

    # ---------------------------------------------------------------- edges

    def out_edges(self, node: str, keys: bool = False, data: bool = False) -> list:
        if self.in_delta(node):
            return list(self.delta.out_edges(node, keys=keys, data=data))
        if node in self.base and self.in_base(node):
            return list(self.base.out_edges(node, keys=keys, data=data))
        return []

    def in_edges(self, node: str, keys: bool = False, data: bool = False) -> list:
        found = []
        if node in self.base:
            found = [e for e in self.base.in_edges(node, keys=keys, data=data) if self._base_edge_live(e[0])]
        if node in self.delta:
            found += list(self.delta.in_edges(node, keys=keys, data=data))
        return found

    def edges_among(self, nodes: set[str]) -> list[tuple]:
        """``edges(keys=True, data=True)`` with both ends in ``nodes``, in that order (base edges by
        base node, then delta edges by delta node), reading only the out-edges of ``nodes``."""
        delta_place = {n: i for i, n in enumerate(self.delta)}
        starts = [(1, delta_place[u], u) for u in nodes if self.in_delta(u)]
        starts += [(0, self.base.position(u), u) for u in nodes if not self.in_delta(u) and self.in_base(u)]
        return [e for *_, u in sorted(starts) for e in self.out_edges(u, keys=True, data=True) if e[1] in nodes]

    def successors(self, node: str) -> Iterator[str]:
        return iter(dict.fromkeys(v for _, v in self.out_edges(node)))

    def predecessors(self, node: str) -> Iterator[str]:
        return iter(dict.fromkeys(u for u, _ in self.in_edges(node)))

    def degree(self, node: str) -> int:
        return len(self.out_edges(node)) + len(self.in_edges(node))

    def has_edge(self, u: str, v: str, key: str | None = None) -> bool:
        return any(b == v and (key is None or k == key) for _, b, k in self.out_edges(u, keys=True))

    def number_of_nodes(self) -> int:
        return sum(1 for _ in self.nodes)


class _Nodes:
    def __init__(self, graph: OverlayGraph):
        self.graph = graph

    def __getitem__(self, node: str) -> dict[str, Any]:
        return self.graph.attrs(node)

    def get(self, node: str, default: Any = None) -> Any:
        g = self.graph  # attrs(), asking who owns the node once
        if g.in_delta(node):
            return g.delta.nodes[node]
        return g.base.nodes[node] if g.in_base(node) else default

    def __iter__(self) -> Iterator[str]:
        return (n for n, _ in self(data=True))

    def __call__(self, data: bool = False) -> list[Any]:
        g = self.graph
        delta = [(n, d) for n, d in g.delta.nodes(data=True) if d]
        mine = {n for n, _ in delta}
        base = [(n, d) for n, d in g.base.nodes(data=True) if n not in mine and g.in_base(n)]
        both = delta + base
        return both if data else [n for n, _ in both]


class _Edges:
    def __init__(self, graph: OverlayGraph):
        self.graph = graph

    def __getitem__(self, edge: tuple[str, str, str]) -> dict:
        u, v, key = edge
        for _, b, k, d in self.graph.out_edges(u, keys=True, data=True):
            if b == v and k == key:
                return d
        raise KeyError(edge)

    def __call__(self, keys: bool = False, data: bool = False) -> list[tuple[Any, ...]]:
        g = self.graph
        base = [e for e in g.base.edges(keys=keys, data=data) if g._base_edge_live(e[0])]
        return base + list(g.delta.edges(keys=keys, data=data))
