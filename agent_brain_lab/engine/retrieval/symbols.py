"""Symbol evidence for prose queries: what the blend's best candidates *are*, not what they say.

A docstring-like query ("Close the stream and release its buffers") describes one function; the blend
matches it against that function's body, where the function's own name and class are two tokens
among hundreds. Two cheap pieces of evidence about the top candidates, read from the code graph:

- the name field: how much of the candidate's name (and, less, its class's name) the query's words
  cover, rarer name parts counting more ("close" covers ``IOStream.close`` fully; ``_read_to_buffer``
  is covered by "read ... buffer" for two of its three parts);
- graph proximity: a method whose class ranks near the top, or a function called by or calling one
  of the very best hits, is a neighbour of what the query is about.

Only the ``DEPTH`` best candidates are re-scored, so a query costs a dictionary walk of that many
symbols. The key -> symbol map is built once per snapshot (one catalog look-up of every symbol's
chunk id).
"""

from __future__ import annotations

import math
import threading
import weakref
from dataclasses import dataclass

from ..snapshot import Snapshot
from ..store.graph import CodeGraph
from ..tokenizer import tokenize
from .context import Hit, QueryContext
from .names import name_index

_KINDS = {"function", "method", "class"}
_BATCH = 900


@dataclass(frozen=True)
class Symbol:
    node: str
    own: frozenset[str]  # the stemmed parts of its own name
    parent: frozenset[str]  # the stemmed parts of its class's name (empty for a top-level function)
    parent_node: str | None


def name_parts(name: str) -> frozenset[str]:
    """Stemmed parts of an identifier, without the identifier itself (``parse_line`` -> parse, line)."""
    tokens = tokenize(name)
    parts = frozenset(tokens) - {name.lower().strip("_")}
    return parts or frozenset(tokens)


class SymbolMap:
    """key -> the function, method or class whose chunk it is, and how rare each name part is."""

    def __init__(self, graph: CodeGraph, keys_of_chunk_ids):
        nodes = graph.g.nodes
        by_chunk: dict[str, str] = {}
        for node, data in nodes(data=True):
            if data.get("kind") in _KINDS and data.get("chunk_id"):
                by_chunk[str(data["chunk_id"])] = node
        ids = list(by_chunk)
        self.symbols: dict[int, Symbol] = {}
        for start in range(0, len(ids), _BATCH):
            for chunk_id, key in keys_of_chunk_ids(ids[start : start + _BATCH]).items():
                node = by_chunk[chunk_id]
                qualname = str(nodes[node].get("qualname") or nodes[node].get("name", ""))
                owner, _, name = qualname.rpartition(".")
                parent_node = f"{node.split('::', 1)[0]}::{owner}" if owner else None
                self.symbols[int(key)] = Symbol(
                    node,
                    name_parts(name),
                    name_parts(owner.rpartition(".")[2]) if owner else frozenset(),
                    parent_node if parent_node in nodes else None,
                )
        postings = name_index(graph).parts
        total = max(len(self.symbols), 1)
        self.idf = {part: math.log(1 + total / (1 + len(nodes_))) for part, nodes_ in postings.items()}
        self.default_idf = math.log(1 + total)

    def weight(self, part: str) -> float:
        return self.idf.get(part, self.default_idf)

    def cover(self, parts: frozenset[str], query: set[str]) -> float:
        """The idf-weighted share of ``parts`` the query holds (0 for no parts)."""
        if not parts:
            return 0.0
        total = sum(self.weight(p) for p in parts)
        return sum(self.weight(p) for p in parts & query) / total


_maps: weakref.WeakKeyDictionary[Snapshot, SymbolMap] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def symbol_map(ctx: QueryContext) -> SymbolMap | None:
    graph = ctx.snapshot.graph
    if graph is None:
        return None
    with _lock:
        found = _maps.get(ctx.snapshot)
        if found is None:
            found = _maps[ctx.snapshot] = SymbolMap(graph, ctx.keys_of_chunk_ids)
        return found


import os  # noqa: E402  scratch tuning

NAME_W = float(os.environ.get("ABL_NAME_W", "0.1"))
PARENT_W = float(os.environ.get("ABL_PARENT_W", "0.0"))
NEAR_W = float(os.environ.get("ABL_NEAR_W", "0.0"))
DEPTH = int(os.environ.get("ABL_DEPTH", "30"))
SEEDS = int(os.environ.get("ABL_SEEDS", "3"))


def rescored(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    smap = symbol_map(ctx)
    if smap is None or not ranked:
        return ranked
    query = set(ctx.query_tokens)
    top = ranked[:DEPTH]
    syms = {h.key: smap.symbols.get(h.key) for h in top}
    near: dict[str, float] = {}
    if NEAR_W:
        g = ctx.snapshot.graph.g
        for h in top[:SEEDS]:
            sym = syms[h.key]
            if sym is None:
                continue
            near[sym.node] = max(near.get(sym.node, 0.0), h.score)
    for h in top:
        sym = syms[h.key]
        if sym is None:
            continue
        bonus = NAME_W * smap.cover(sym.own, query) + PARENT_W * smap.cover(sym.parent, query)
        if near:
            best = near.get(sym.parent_node or "", 0.0)
            for _, other, rel in g.out_edges(sym.node, keys=True):
                if rel == "calls" and other in near:
                    best = max(best, near[other])
            for other, _, rel in g.in_edges(sym.node, keys=True):
                if rel == "calls" and other in near:
                    best = max(best, near[other])
            bonus += NEAR_W * best
        h.score += bonus
    return sorted(top, key=lambda h: -h.score) + ranked[DEPTH:]
