"""A read-only multigraph in arrays, for the base graph every generation shares.

As networkx dicts, a base graph of ~100k nodes and ~500k edges (100k chunks) held about 700 MB: a
dict per edge key, a dict and a list per edge's data, and its own copy of every node id and chunk id
string. Here edges are four numpy columns sorted by source (with a permutation sorted by target), a
node is an index into one list of ids and one attribute dict, and strings are shared.

It answers the networkx calls :class:`~.graph_view.OverlayGraph` and the name table make, in
networkx's own order: a node's out-edges grouped by target in the order each target was first linked,
then by relation in insertion order (its in-edges likewise by source); ``edges()`` in node order.
Edge data is built on each call (``{"chunk_ids": [...]}``): callers only read it.

Building one from a base's fragments decodes every fragment's JSON (0.5-1 s CPU at 50k chunks); the
writer of a base also stores the built graph in it (:meth:`ArrayGraph.tables`: the ids, attributes,
relation and chunk-id tables as one JSON text and the columns as little-endian bytes), which a reader
loads in a fraction of that, checked for type, shape and range (:meth:`ArrayGraph.from_tables`).
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

import numpy as np

from .datafiles import CorruptIndexFile, require

# the stored graph's version: bump it when :meth:`ArrayGraph.build` changes what it makes of the same
# fragments (order, attributes, deduplication), so that a base stored before is built again, not trusted
STORED_VERSION = 1
# the stored columns and their types (fixed byte order: the file may be read on another machine)
COLUMNS = {
    "src": "<i4",
    "dst": "<i4",
    "rel": "<i2",
    "chunk": "<i4",
    "out_ptr": "<i8",
    "in_edge": "<i4",
    "in_ptr": "<i8",
}


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

    # ---------------------------------------------------------------- stored form

    def tables(self) -> list[tuple[str, bytes]]:
        """The built graph as (name, bytes) pairs for :meth:`from_tables`: ``tables`` (JSON: ids,
        attributes, relations, chunk-id tuples) and one entry per column of :data:`COLUMNS`."""
        text = json.dumps(
            {
                "version": STORED_VERSION,
                "ids": self._ids,
                "attrs": self._attrs,
                "rels": self._rels,
                "chunks": self._chunks,
            },
            separators=(",", ":"),
        )
        columns = [(name, getattr(self, f"_{name}").astype(dtype).tobytes()) for name, dtype in COLUMNS.items()]
        return [("tables", text.encode("utf-8")), *columns]

    @staticmethod
    def stored_version(stored: Mapping[str, bytes]) -> int | None:
        """The version of :meth:`tables` that stored ``stored`` (None if unreadable)."""
        head = bytes(stored.get("tables", b""))[:40]
        found = re.match(rb'\{"version":(\d{1,9}),', head)
        return int(found.group(1)) if found else None

    @classmethod
    def from_tables(cls, stored: Mapping[str, bytes]) -> ArrayGraph:
        """The graph :meth:`tables` stored; :class:`CorruptIndexFile` unless every part has the type,
        length and range the graph's calls rely on (edges sorted by source, a by-target permutation)."""
        try:
            tables = json.loads(bytes(stored["tables"]).decode("utf-8"))
            require(tables.get("version") == STORED_VERSION, "graph: stored arrays of another version")
            ids, attrs, rels, chunks = tables["ids"], tables["attrs"], tables["rels"], tables["chunks"]
            columns = {name: np.frombuffer(stored[name], dtype=dtype) for name, dtype in COLUMNS.items()}
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise CorruptIndexFile(f"graph: stored arrays unreadable ({err!r})") from None
        require(
            isinstance(ids, list)
            and _only(str, ids)
            and isinstance(attrs, list)
            and len(attrs) == len(ids)
            and _only(dict, attrs)
            and isinstance(rels, list)
            and _only(str, rels)
            and isinstance(chunks, list)
            and _only(list, chunks)
            and _only(str, chain.from_iterable(chunks)),
            "graph: stored tables of the wrong type",
        )
        g = cls()
        strings: dict[str, str] = {}  # one object per distinct attribute value and chunk id, as build() shares them
        share = strings.setdefault
        g._ids, g._rels = ids, rels
        for a in attrs:
            for k, v in a.items():
                if type(v) is str:
                    a[k] = share(v, v)  # a value replaced in place: the dict keeps its size and order
        g._attrs = attrs
        g._chunks = [tuple([share(i, i) for i in c]) for c in chunks]
        g._index = dict(zip(ids, range(len(ids))))
        require(len(g._index) == len(ids), "graph: a node id stored twice")
        n, edges = len(ids), len(columns["src"])
        require(
            all(len(columns[c]) == edges for c in ("dst", "rel", "chunk", "in_edge"))
            and len(columns["out_ptr"]) == len(columns["in_ptr"]) == n + 1,
            "graph: stored columns of the wrong length",
        )
        src, dst, rel, chunk, in_edge = (columns[c] for c in ("src", "dst", "rel", "chunk", "in_edge"))
        require(np.array_equal(np.sort(in_edge), np.arange(edges)), "graph: stored edges out of range")
        require(
            not edges
            or (
                0 <= int(dst.min()) <= int(dst.max()) < n
                and 0 <= int(rel.min()) <= int(rel.max()) < len(rels)
                and 0 <= int(chunk.min()) <= int(chunk.max()) < len(chunks)
            ),
            "graph: stored edges out of range",
        )
        nodes = np.arange(n)
        for ptr, ends in ((columns["out_ptr"], src), (columns["in_ptr"], dst[in_edge])):
            require(
                int(ptr[0]) == 0
                and int(ptr[-1]) == edges
                and bool(np.all(np.diff(ptr) >= 0))
                and np.array_equal(np.repeat(nodes, np.diff(ptr)), ends),
                "graph: stored edges out of order",
            )
        g._src, g._dst = src.astype(np.int32), dst.astype(np.int32)
        g._rel, g._chunk = rel.astype(np.int16), chunk.astype(np.int32)
        g._out_ptr, g._in_ptr = columns["out_ptr"].astype(np.int64), columns["in_ptr"].astype(np.int64)
        g._in_edge = in_edge.astype(np.int32)
        return g

    # ---------------------------------------------------------------- the networkx calls

    def __contains__(self, node: object) -> bool:
        return node in self._index

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

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


def _only(kind: type, values: Iterable[Any]) -> bool:
    """Whether every value is exactly of type ``kind`` (the types gathered in C: 50k values in ~1 ms)."""
    return set(map(type, values)) <= {kind}


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
