"""Symbol evidence for prose queries: what the blend's best candidates are named, not what they say.

A docstring-like query ("Flush the pending writes to the socket") describes one function; the blend
matches it against that function's body, where the function's own name is two tokens among hundreds.
Here each of the ``DEPTH`` best candidates that is a function, method or class gains up to
``NAME_COVER_BOOST`` (on the blend's [0, 1] scale) by the share of its name's parts the query's words
hold, rarer parts counting more: "flush ... writes" covers ``_flush_writes`` fully, ``flush`` alone half
of it. The names leg (:mod:`.names`) rewards only names spelled out completely and of two parts or
more; this partial, idf-weighted cover is the evidence it leaves out.

Measured on the tuning packages' docstring questions (tornado, jinja2, click): a boost of 0.1-0.2
helps all three; the class's name as a second field, and graph proximity to the best hits (a method
whose class, caller or callee ranks near the top), helped tornado and hurt jinja2, so neither is used.

The key -> symbol map is built once per snapshot (a catalog look-up of every symbol's chunk id); a
query then costs ``DEPTH`` dictionary look-ups.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable

from ..snapshot import Snapshot
from ..store.graph import CodeGraph
from ..tokenizer import tokenize
from .context import Hit, QueryContext
from .names import name_index

NAME_COVER_BOOST = 0.15
DEPTH = 30  # candidates re-scored: the answer is rarely below the blend's 30th
_KINDS = {"function", "method", "class"}
_BATCH = 900  # chunk ids per catalog look-up (SQLite's host-parameter limit)


def name_parts(name: str) -> frozenset[str]:
    """Stemmed parts of an identifier, without the identifier itself (``parse_line`` -> parse, line)."""
    tokens = tokenize(name)
    parts = frozenset(tokens) - {name.lower().strip("_")}
    return parts or frozenset(tokens)


class SymbolMap:
    """key -> the name parts of the function, method or class whose chunk it is; how rare each part is."""

    def __init__(self, graph: CodeGraph, keys_of_chunk_ids: Callable[[list[str]], dict[str, int]]):
        by_chunk = {
            str(data["chunk_id"]): str(data.get("name", ""))
            for _, data in graph.g.nodes(data=True)
            if data.get("kind") in _KINDS and data.get("chunk_id")
        }
        ids = list(by_chunk)
        self.parts: dict[int, frozenset[str]] = {}
        for start in range(0, len(ids), _BATCH):
            for chunk_id, key in keys_of_chunk_ids(ids[start : start + _BATCH]).items():
                self.parts[int(key)] = name_parts(by_chunk[chunk_id])
        total = max(len(self.parts), 1)
        self.idf = {part: math.log(1 + total / (1 + len(nodes))) for part, nodes in name_index(graph).parts.items()}
        self.rarest = math.log(1 + total)

    def cover(self, key: int, query: set[str]) -> float:
        """The idf-weighted share of the key's name parts the query holds (0 when it is no symbol)."""
        parts = self.parts.get(key)
        if not parts:
            return 0.0
        weights = {p: self.idf.get(p, self.rarest) for p in parts}
        return sum(w for p, w in weights.items() if p in query) / sum(weights.values())


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


def name_covered(ctx: QueryContext, ranked: list[Hit], boost: float = NAME_COVER_BOOST) -> list[Hit]:
    """``ranked`` with its ``DEPTH`` best re-ordered after adding ``boost`` x each one's name cover."""
    smap = symbol_map(ctx)
    if smap is None or not ranked:
        return ranked
    query = set(ctx.query_tokens)
    top = ranked[:DEPTH]
    for hit in top:
        cover = smap.cover(hit.key, query)
        if cover:
            hit.score += boost * cover
    return sorted(top, key=lambda h: -h.score) + ranked[DEPTH:]
