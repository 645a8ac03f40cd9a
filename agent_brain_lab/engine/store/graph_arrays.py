"""A read-only multigraph in arrays, for the base graph every generation shares.

As networkx dicts, a base graph of ~100k nodes and ~500k edges (100k chunks) held about 700 MB: a
dict per edge key, a dict and a list per edge's data, and its own copy of every node id and chunk id
string. Here edges are four numpy columns sorted by source (with a permutation sorted by target), a
node is an index into one list of ids and one attribute dict, and strings are shared.

It answers the networkx calls :class:`~.graph_view.OverlayGraph` and the name table make, in
networkx's own order: a node's out-edges grouped by target in the order each target was first linked,
then by relation in insertion order (its in-edges likewise by source); ``edges()`` in node order.
Edge data is built on each call (``{"chunk_ids": [...]}``): callers only read it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np


class ArrayGraph:
    def __init__(self) -> None:
        self.graph: dict[str, Any] = {}  # networkx's graph-level dict: the name table is kept here
        self._index: dict[str, int] = {}
        self._ids: list[str] = []
        self._attrs: list[dict] = []
        self._rels: list[str] = []
        self._chunks: list[tuple[str, ...]] = []
        self.nodes = _Nodes(self)

    @classmethod
    def build(
        cls, node_parts: Iterable[Iterable[tuple[str, Mapping]]], edge_parts: Iterable[tuple[Iterable, Iterable]]
    ) -> ArrayGraph:
        """Every part's nodes, then every part's (edges, external names), as networkx's ``_graph_of``
        adds them: a node seen again has its attributes updated, an edge end never seen is added bare,
        an edge seen again keeps its place and takes the later chunk ids. Raises what malformed parts
        raise (KeyError, TypeError, ValueError, AttributeError)."""
        g = cls()
        index, ids, attrs_of = g._index, g._ids, g._attrs
        strings: dict[str, str] = {}  # one object per distinct string (node attributes, chunk ids)
        share = strings.setdefault

        def node(n: str, attrs: Mapping) -> int:
            # inlined sharing: this runs once per node of the base (a call per string cost ~40% of a load)
            values = {share(k, k): share(v, v) if type(v) is str else v for k, v in attrs.items()}
            i = index.get(n)
            if i is None:
                n = share(n, n) if type(n) is str else n
                i = index[n] = len(ids)
                ids.append(n)
                attrs_of.append(values)
            else:
                attrs_of[i].update(values)
            return i

        for part in node_parts:
            for n, attrs in part:
                node(n, attrs)
        src, dst, rel, chunk = array("q"), array("q"), array("q"), array("q")
        rel_code: dict[str, int] = {}
        chunk_code: dict[tuple[str, ...], int] = {}
        get = index.get
        for edges, external in edge_parts:
            for name in external:
                node(f"ext:{name}", {"kind": "external", "name": name, "source": None})
            for u, v, r, chunk_ids in edges:
                ui = get(u)
                if ui is None:
                    ui = node(u, {})
                vi = get(v)
                if vi is None:
                    vi = node(v, {})
                src.append(ui)
                dst.append(vi)
                code = rel_code.get(r)
                if code is None:
                    code = rel_code[r] = len(rel_code)
                rel.append(code)
                key = tuple(chunk_ids)  # an edge's chunk ids are mostly those of an edge before it
                code = chunk_code.get(key)
                if code is None:
                    code = chunk_code[tuple([share(c, c) if type(c) is str else c for c in key])] = len(chunk_code)
                chunk.append(code)
        g._rels = list(rel_code)
        g._chunks = list(chunk_code)
        g._arrange(*(np.frombuffer(a, dtype=np.int64) for a in (src, dst, rel, chunk)))
        return g

    def _arrange(self, src: np.ndarray, dst: np.ndarray, rel: np.ndarray, chunk: np.ndarray) -> None:
        """Columns in insertion order -> deduplicated, sorted by source (and a by-target permutation)."""
        n, kinds = len(self._ids), max(len(self._rels), 1)
        triple = (src * n + dst) * kinds + rel
        order = np.lexsort((np.arange(len(triple)), triple))  # by edge, then insertion
        ordered = triple[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])[: len(ordered)]
        ends = np.r_[starts[1:], len(ordered)][: len(starts)] - 1
        keep = np.sort(order[starts])  # an edge's first place ...
        chunk = chunk.copy()
        chunk[order[starts]] = chunk[order[ends]]  # ... with its last chunk ids
        src, dst, rel, chunk = src[keep], dst[keep], rel[keep], chunk[keep]
        _, first, inverse = np.unique(src * n + dst, return_index=True, return_inverse=True)
        linked = first[inverse.ravel()]  # when the edge's (source, target) pair was first linked
        seq = np.arange(len(src))
        out = np.lexsort((seq, linked, src))
        self._src = src[out].astype(np.int32)
        self._dst = dst[out].astype(np.int32)
        self._rel = rel[out].astype(np.int16)
        self._chunk = chunk[out].astype(np.int32)
        self._out_ptr = np.r_[0, np.cumsum(np.bincount(self._src, minlength=n))].astype(np.int64)
        position = np.empty(len(out), dtype=np.int64)
        position[out] = seq
        self._in_edge = position[np.lexsort((seq, linked, dst))].astype(np.int32)
        self._in_ptr = np.r_[0, np.cumsum(np.bincount(self._dst, minlength=n))].astype(np.int64)

    # ---------------------------------------------------------------- the networkx calls

    def __contains__(self, node: object) -> bool:
        return node in self._index

    def __len__(self) -> int:
        return len(self._ids)

    def position(self, node: str) -> int:
        """The node's place in insertion order (``edges()`` goes by it)."""
        return self._index[node]

    def number_of_nodes(self) -> int:
        return len(self._ids)

    def number_of_edges(self) -> int:
        return len(self._dst)

    def out_edges(self, node: str, keys: bool = False, data: bool = False) -> list[tuple]:
        i = self._index[node]
        return self._tuples(slice(self._out_ptr[i], self._out_ptr[i + 1]), keys, data)

    def in_edges(self, node: str, keys: bool = False, data: bool = False) -> list[tuple]:
        i = self._index[node]
        return self._tuples(self._in_edge[self._in_ptr[i] : self._in_ptr[i + 1]], keys, data)

    def successors(self, node: str) -> Iterator[str]:
        return iter(dict.fromkeys(v for _, v in self.out_edges(node)))

    def predecessors(self, node: str) -> Iterator[str]:
        return iter(dict.fromkeys(u for u, _ in self.in_edges(node)))

    def edges(self, keys: bool = False, data: bool = False) -> Iterator[tuple]:
        step = 4096
        for start in range(0, len(self._dst), step):
            yield from self._tuples(slice(start, start + step), keys, data)

    def _tuples(self, which: slice | np.ndarray, keys: bool, data: bool) -> list[tuple]:
        ids = self._ids
        columns: list[list] = [[ids[i] for i in self._src[which].tolist()], [ids[i] for i in self._dst[which].tolist()]]
        if keys:
            columns.append([self._rels[r] for r in self._rel[which].tolist()])
        if data:
            columns.append([{"chunk_ids": list(self._chunks[c])} for c in self._chunk[which].tolist()])
        return list(zip(*columns))


class _Nodes:
    """``graph.nodes``: ``nodes[n]`` is n's attribute dict, ``nodes(data=True)`` yields (n, attributes)."""

    def __init__(self, graph: ArrayGraph):
        self._graph = graph

    def __getitem__(self, node: str) -> dict:
        return self._graph._attrs[self._graph._index[node]]

    def get(self, node: str, default: Any = None) -> Any:
        i = self._graph._index.get(node)
        return default if i is None else self._graph._attrs[i]

    def __call__(self, data: bool = False) -> Iterator:
        return zip(self._graph._ids, self._graph._attrs) if data else iter(self._graph._ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._graph._ids)

    def __len__(self) -> int:
        return len(self._graph._ids)

    def __contains__(self, node: object) -> bool:
        return node in self._graph._index
