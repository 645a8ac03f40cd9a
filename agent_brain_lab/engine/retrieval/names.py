"""The names leg: symbols whose name the query's words spell out.

"Ensure the object exists on the context" names ``Context.ensure_object`` without writing it: every
word of the name (``ensure``, ``object``, stemmed as BM25 stems them) is in the query. BM25 sees a
symbol's name too, but as two tokens among a body's hundreds; here the name is the whole field, so
a name the query spells out completely is strong evidence. Longer names are more specific; a name
shared by many symbols (``__init__``, ``run``) counts less. A predicate's name (``isReadableNodeStream``)
is spelled out only by a question asking whether something holds: ``is`` is a stop word, and "how do I
read a readable Node stream" asks for the reader, not the test.

The index (stemmed name part -> symbols) is built once per graph (once per base for the generations
patched on it); a query walks the postings of its own tokens only, skipping parts so common they
cannot single a symbol out.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from ..store.graph import CodeGraph
from ..tokenizer import tokenize
from .context import Hit, QueryContext

MIN_PARTS = 2  # a one-word name ("render", "close") is spelled out by too many sentences
MAX_POSTING = 200  # a part shared by more symbols than this (``get``, ``init``) selects nothing; bounds the walk
_KINDS = {"function", "method", "class"}
# a predicate's name: is/has/can/should ... then a new word (``isDraft``, ``_isArrayLike``, ``has_key``,
# ``IsZero``, ``has``), not ``island`` or ``_objectIs``
PREDICATE_NAME = re.compile(r"[_$]*([iI]s|[hH]as|[cC]an|[sS]hould|[dD]oes|[hH]ave|[aA]re|[wW]as)(?=[A-Z0-9_]|$)")
# a question asking whether something holds, which a predicate answers: "whether", "check(s) if", "detect",
# "determine", "tell(s) if"; without one, a predicate's name (``isReadableNodeStream``: ``is`` is a stop
# word) is not spelled out by a question about the thing it tests ("how do I read a readable stream")
_ASKS_WHETHER = re.compile(
    r"\b(?:whether|check(?:s|ed|ing)?|detect(?:s|ed|ing)?|determin(?:e|es|ed|ing)|tells?\s+if|"
    r"returns?\s+[`'\"]?(?:true|false))\b",
    re.IGNORECASE,
)


def _name_parts(data: Mapping[str, Any]) -> frozenset[str] | None:
    """The stemmed parts of a symbol node's name; None for a node the names leg does not match."""
    if data.get("kind") not in _KINDS or not data.get("chunk_id"):
        return None
    return name_parts(str(data.get("name", ""))) or None


@lru_cache(maxsize=65_536)  # each generation's delta lists mostly the names the previous one did
def name_parts(name: str) -> frozenset[str]:
    """Stemmed parts of an identifier, without the identifier itself (``parse_line`` -> parse, line)."""
    tokens = tokenize(name)
    return frozenset(tokens) - {name.lower().strip("_")} or frozenset(tokens)


# what code shortens a word to in a name, as a question writes it in full: ``propOr`` is "property ... or",
# ``objOf`` "an object of", ``nthArg`` "the nth argument"
_ABBREVIATIONS = """
    arg:argument args:arguments arr:array attr:attribute attrs:attributes btn:button cb:callback
    cfg:configuration char:character chars:characters cmd:command concat:concatenate config:configuration
    ctx:context cur:current curr:current db:database decl:declaration def:definition del:delete
    desc:description dest:destination dict:dictionary dir:directory doc:document dst:destination el:element
    elem:element env:environment eq:equal err:error exec:execute expr:expression ext:extension fmt:format
    fn:function func:function idx:index impl:implementation info:information init:initialize iter:iterator
    lang:language lib:library msg:message num:number obj:object opt:option opts:options param:parameter
    params:parameters pkg:package pos:position pred:predicate prev:previous prop:property props:properties
    proto:prototype ref:reference repo:repository req:request res:response resp:response sep:separator
    seq:sequence spec:specification src:source str:string sync:synchronous async:asynchronous tmp:temporary
    util:utility utils:utilities val:value vals:values var:variable
"""
ABBREVIATIONS = {  # stemmed as the name's part -> the stems of the word in full
    tokenize(short)[0]: frozenset(tokenize(full))
    for short, full in (pair.split(":") for pair in _ABBREVIATIONS.split())
}
# a noun of action made from a verb by -ition or -ation ("composition", "concatenation", "addition"), whose
# stem is not the verb's (``composit``, not ``compos``)
_ACTION_NOUN = re.compile(r"\b([A-Za-z]{3,}?)(it|at)ions?\b", re.IGNORECASE)


def spelled_parts(query: str, tokens: Iterable[str]) -> set[str]:
    """The query's tokens and the name parts its words spell otherwise: the abbreviation of a word it writes
    in full ("property": ``prop`` of ``propOr``), the ``-able`` adjective of a verb ("can be drafted":
    ``draftabl`` of ``isDraftable``) and the verb of a noun of action ("function composition": ``compos`` of
    ``compose``, "concatenation": ``concaten``)."""
    held = set(tokens)
    spelled = set(held)
    spelled |= {short for short, full in ABBREVIATIONS.items() if full <= held}
    spelled |= {token + ending for token in held if len(token) >= 3 for ending in ("abl", "ibl")}
    for noun in _ACTION_NOUN.finditer(query):
        spelled.update(tokenize(noun.group(1) + ("e" if noun.group(2).lower() == "it" else "ate")))
    return spelled


def asks_whether(query: str) -> bool:
    """Whether the query asks whether something holds ("whether", "checks if", "returns true"), as a
    predicate's doc comment says anywhere in it."""
    return _ASKS_WHETHER.search(query) is not None


def is_predicate_name(name: str) -> bool:
    """Whether a name reads as a predicate's: ``is``/``has``/``can``/``should``... then a new word
    (``isDraft``, ``_isArrayLike``, ``has_key``, ``IsZero``, ``has``), in any language's casing."""
    return PREDICATE_NAME.match(name) is not None


class _Table:
    """The name parts of a set of symbol nodes, in the order given."""

    def __init__(self, nodes: Iterable[tuple[str, Mapping[str, Any]]]):
        self.postings: dict[str, list[str]] = defaultdict(list)  # stemmed part -> node ids
        self.parts: dict[str, frozenset[str]] = {}  # node id -> its name's parts
        self.same: Counter[frozenset[str]] = Counter()  # parts -> how many nodes have exactly them
        self.by_source: dict[str, list[str]] = defaultdict(list)  # file -> its node ids
        self.by_chunk: dict[str, list[str]] = defaultdict(list)  # chunk id -> the node ids it defines
        postings, by_source, by_chunk = self.postings, self.by_source, self.by_chunk
        for node, data in nodes:
            parts = _name_parts(data)
            if parts is None:
                continue
            self.parts[node] = parts
            by_source[data.get("source") or ""].append(node)
            by_chunk[str(data["chunk_id"])].append(node)
            for part in parts:
                postings[part].append(node)
        self.same.update(self.parts.values())  # counted in C, in the order the nodes came


class NameIndex:
    """Name parts of a graph's symbols. An overlay graph's index is its base's table (built once per
    base) minus the symbols of the files it hides, plus a table of its delta: a new generation costs
    what its delta holds. It matches exactly what a table of the whole graph would, in the same order."""

    def __init__(self, graph: CodeGraph):
        base = graph.per_base("name_table", _Table)  # built once per base, shared by its generations
        mine = graph.own_nodes()
        self.base, self.delta = base or _Table(()), _Table(mine)
        hidden = [n for path in graph.hidden_sources() for n in self.base.by_source.get(path, ())]
        self.removed = set(hidden) | {n for n, _ in mine if n in self.base.parts}
        gone = [self.base.parts[n] for n in self.removed]
        self._removed_same = Counter(gone)  # parts -> removed base nodes that have exactly them
        self._removed_posting = Counter(part for parts in gone for part in parts)

    def posting(self, part: str) -> list[str]:
        """Live symbols whose name has ``part``: the delta's first, as the graph lists its nodes."""
        base = self.base.postings.get(part, ())
        live = [n for n in base if n not in self.removed] if self._removed_posting[part] else list(base)
        return self.delta.postings.get(part, []) + live

    def count(self, part: str) -> int:
        """How many live symbols have ``part`` in their name."""
        return (
            len(self.delta.postings.get(part, ())) + len(self.base.postings.get(part, ())) - self._removed_posting[part]
        )

    def symbols(self) -> int:
        """How many live symbols the index holds."""
        return len(self.base.parts) - len(self.removed) + len(self.delta.parts)

    def defined_in(self, chunk_id: str) -> list[str]:
        """Live symbols (functions, methods, classes) whose definition starts in the chunk ``chunk_id``."""
        base = [n for n in self.base.by_chunk.get(chunk_id, ()) if n not in self.removed]
        return self.delta.by_chunk.get(chunk_id, []) + base

    def _parts(self, node: str) -> frozenset[str]:
        return self.delta.parts.get(node) or self.base.parts[node]

    def _shared(self, parts: frozenset[str]) -> int:
        return self.delta.same[parts] + self.base.same[parts] - self._removed_same[parts]

    def match(self, tokens: set[str]) -> dict[str, float]:
        """Symbols whose every name part is among ``tokens``, with their weight."""
        matched: dict[str, int] = defaultdict(int)
        for token in sorted(tokens):  # a set: its order changes with the hash seed, ties must not
            if self.count(token) <= MAX_POSTING:
                for node in self.posting(token):
                    matched[node] += 1
        weights = {}
        for node, count in matched.items():
            parts = self._parts(node)
            if count == len(parts) and len(parts) >= MIN_PARTS:
                weights[node] = len(parts) / self._shared(parts) ** 0.5
        return weights


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
    weights = name_index(graph).match(spelled_parts(ctx.request.query, ctx.query_tokens))
    if weights and not asks_whether(ctx.request.query):
        weights = {n: w for n, w in weights.items() if not is_predicate_name(str(graph.attrs(n).get("name", "")))}
    if not weights:
        return []
    best = sorted(weights, key=lambda n: -weights[n])[: count * 2]
    chunk_of = {n: graph.attrs(n)["chunk_id"] for n in best}
    key_of = ctx.keys_of_chunk_ids(list(chunk_of.values()))
    found = [(key_of[chunk_of[n]], weights[n]) for n in best if chunk_of[n] in key_of]
    if not found:
        return []
    keys = np.array([k for k, _ in found], dtype=np.int64)
    allowed = ctx.allowed_keys(keys)
    hits = [Hit(int(k), w) for (k, w), ok in zip(found, allowed) if ok]
    return hits[:count]
