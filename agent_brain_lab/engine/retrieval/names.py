"""The names leg: symbols whose name the query's words spell out.

"Ensure the object exists on the context" names ``Context.ensure_object`` without writing it: every
word of the name (``ensure``, ``object``, stemmed as BM25 stems them) is in the query. BM25 sees a
symbol's name too, but as two tokens among a body's hundreds; here the name is the whole field, so
a name the query spells out completely is strong evidence. Longer names are more specific; a name
shared by many symbols (``__init__``, ``run``) counts less.

The index (stemmed name part -> symbols) is built once per graph; a query walks the postings of its
own tokens only, skipping parts so common they cannot single a symbol out.
"""

from __future__ import annotations

import threading
import weakref
from collections import defaultdict

import numpy as np

from ..store.graph import CodeGraph
from ..tokenizer import tokenize
from .context import Hit, QueryContext

MIN_PARTS = 2  # a one-word name ("render", "close") is spelled out by too many sentences
MAX_POSTING = 200  # a part shared by more symbols than this (``get``, ``init``) selects nothing; bounds the walk
_KINDS = {"function", "method", "class"}


class NameIndex:
    def __init__(self, graph: CodeGraph):
        self.parts: dict[str, list[str]] = defaultdict(list)  # stemmed part -> node ids
        self.size: dict[str, int] = {}  # node id -> how many distinct parts its name has
        same: dict[frozenset[str], int] = defaultdict(int)
        node_parts: dict[str, frozenset[str]] = {}
        for node, data in graph.g.nodes(data=True):
            if data.get("kind") not in _KINDS or not data.get("chunk_id"):
                continue
            name = str(data.get("name", ""))
            parts = frozenset(tokenize(name)) - {name.lower().strip("_")} or frozenset(tokenize(name))
            if not parts:
                continue
            node_parts[node] = parts
            same[parts] += 1
            for part in parts:
                self.parts[part].append(node)
        self.size = {n: len(p) for n, p in node_parts.items()}
        self.shared = {n: same[p] for n, p in node_parts.items()}

    def match(self, tokens: set[str]) -> dict[str, float]:
        """Symbols whose every name part is among ``tokens``, with their weight."""
        matched: dict[str, int] = defaultdict(int)
        for token in tokens:
            posting = self.parts.get(token, ())
            if len(posting) <= MAX_POSTING:
                for node in posting:
                    matched[node] += 1
        return {
            n: self.size[n] / self.shared[n] ** 0.5
            for n, count in matched.items()
            if count == self.size[n] and self.size[n] >= MIN_PARTS
        }


_indexes: weakref.WeakKeyDictionary[CodeGraph, NameIndex] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def name_index(graph: CodeGraph) -> NameIndex:
    with _lock:
        index = _indexes.get(graph)
        if index is None:
            index = _indexes[graph] = NameIndex(graph)
        return index


def names_leg(ctx: QueryContext, count: int) -> list[Hit]:
    """Chunks of the symbols the query spells out, most specific first."""
    graph = ctx.snapshot.graph
    if graph is None:
        return []
    weights = name_index(graph).match(set(ctx.query_tokens))
    if not weights:
        return []
    best = sorted(weights, key=lambda n: -weights[n])[: count * 2]
    chunk_of = {n: graph.g.nodes[n]["chunk_id"] for n in best}
    key_of = ctx.keys_of_chunk_ids(list(chunk_of.values()))
    found = [(key_of[chunk_of[n]], weights[n]) for n in best if chunk_of[n] in key_of]
    if not found:
        return []
    keys = np.array([k for k, _ in found], dtype=np.int64)
    allowed = ctx.allowed_keys(keys)
    hits = [Hit(int(k), w) for (k, w), ok in zip(found, allowed) if ok]
    return hits[:count]
