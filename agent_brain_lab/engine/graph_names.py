"""Name resolution for the code graph: a file's facts turned into its nodes and resolved edges.

The analyzers (:mod:`.graph_extract`, the chunkers) record names as written (``self.save``,
``./cart``, ``fmt::Display``); here they are resolved against the whole workspace, because a call or
a base class can point into any other file. One file's facts and resolved edges are its *fragment*;
the graph is the union of every file's fragment (see :mod:`.store.graph_files`).
"""

from __future__ import annotations

import posixpath
from bisect import insort
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple, NotRequired, TypedDict

from .workspace import CODE_LANGUAGES


class SymbolFacts(TypedDict):
    name: str
    qualname: str  # "Class.method", "outer.inner"
    kind: str
    source: str
    chunk_id: str
    start_line: int
    end_line: int


class RelationFacts(TypedDict):
    source_id: str  # a symbol's node id, or the file path for module-level facts
    relation: str  # imports | calls | extends | implements
    target: str  # the name as written
    chunk_id: str
    receiver_types: NotRequired[list[str]]  # a call's receiver types as written, most specific first


class SectionFacts(TypedDict):
    section_path: str | None
    start_line: int
    end_line: int
    chunk_id: str
    mentions: list[str]


class FileFacts(TypedDict, total=False):
    """What the analysis of one file records for the graph (see :func:`.analysis.analyze_file`)."""

    symbols: list[SymbolFacts]
    relations: list[RelationFacts]
    sections: list[SectionFacts]
    language: str  # the file's language as the workspace read it (a script's by its #! line)


class Edge(NamedTuple):
    """A resolved edge, stored as a JSON list of its four fields."""

    source: str
    target: str
    relation: str
    chunk_ids: list[str]


class Fragment(NamedTuple):
    """One file's part of the graph: its facts, its resolved edges, the external names they point at."""

    facts: FileFacts
    edges: list[Edge]
    external: list[str]


# Every suffix the workspace indexes as code (its language table), and `.R` as R scripts are often
# named: an import `./cart` or `pkg.models` resolves to whichever of them exists.
CODE_SUFFIXES = (*CODE_LANGUAGES, ".R")
PACKAGE_FILES = ("/__init__.py", "/index.ts", "/index.js", "/mod.rs")

# languages whose files name each other's entities (a JavaScript file importing TypeScript, C++ including C)
LANGUAGE_FAMILIES = {"typescript": "javascript", "tsx": "javascript", "cpp": "c"}


def language_of(path: str, language: str | None = None) -> str | None:
    """The code language (family) of a workspace file: the ``language`` the workspace read it as
    when given (an extensionless script's, by its ``#!`` line), else by its suffix; None when it is
    not code."""
    language = language or CODE_LANGUAGES.get(posixpath.splitext(path)[1].lower())
    return LANGUAGE_FAMILIES.get(language, language) if language else None


Candidates = Callable[[str], list[str]]  # a name -> the sorted ids of the entities of that name
HasFile = Callable[[str], bool]
NodeAttrs = dict[str, Any]


def node_of(path: str, qualname: str) -> str:
    return f"{path}::{qualname}"


def section_node(path: str, section: SectionFacts) -> str:
    return f"{path}#{section['section_path'] or ''}"


def file_nodes(path: str, facts: Mapping[str, Any]) -> dict[str, NodeAttrs]:
    """The file's own nodes: the file, its symbols (an impl block or overload of a known symbol adds
    its chunk to that entity) and its doc sections."""
    nodes: dict[str, NodeAttrs] = {path: {"kind": "file", "name": path, "source": path}}
    for sym in facts.get("symbols", ()):
        node = node_of(path, sym["qualname"])
        if node in nodes:
            nodes[node].setdefault("more_chunk_ids", []).append(sym["chunk_id"])
        else:
            nodes[node] = {
                "kind": sym["kind"],
                "name": sym["name"],
                "qualname": sym["qualname"],
                "source": path,
                "start_line": sym["start_line"],
                "end_line": sym["end_line"],
                "chunk_id": sym["chunk_id"],
            }
    for section in facts.get("sections", ()):
        nodes[section_node(path, section)] = {
            "kind": "section",
            "name": section["section_path"] or path,
            "source": path,
            "start_line": section["start_line"],
            "end_line": section["end_line"],
            "chunk_id": section["chunk_id"],
        }
    return nodes


def defined(path: str, facts: Mapping[str, Any]) -> dict[str, list[str]]:
    """Symbol name -> the file's entities of that name."""
    out: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for sym in facts.get("symbols", ()):
        node = node_of(path, sym["qualname"])
        if node not in seen:
            seen.add(node)
            out[sym["name"]].append(node)
    return out


def symbol_key(raw: str) -> str:
    """The name a written target is looked up by: ``self.save`` -> save, ``fmt::Display`` -> Display."""
    return raw.replace("::", ".").replace("->", ".").split("(")[0].rstrip(".").rpartition(".")[2]


def references(path: str, facts: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """(names the file's facts look up, file paths its imports may resolve to)."""
    names = {n for section in facts.get("sections", ()) for n in section["mentions"]}
    modules: set[str] = set()
    for rel in facts.get("relations", ()):
        if rel["relation"] == "imports":
            modules.update(module_candidates(path, rel["target"]))
        else:
            names.add(symbol_key(rel["target"]))
            names.update(symbol_key(t) for t in rel.get("receiver_types", ()))  # resolve() looks them up too
    return names, modules


def module_candidates(path: str, raw: str) -> list[str]:
    """The workspace paths an import written in ``path`` may mean, most likely first."""
    target = raw.strip("'\"<> ")
    if target.startswith("."):
        if "/" in target:  # ./cart, ../lib/util (JS/TS/C)
            base = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        else:  # Python relative import: .models, ..pkg.mod
            level = len(target) - len(target.lstrip("."))
            parts = posixpath.dirname(path).split("/")
            base = "/".join(parts[: len(parts) - (level - 1)] + [p for p in target.lstrip(".").split(".") if p])
    else:
        base = target.replace(".", "/") if "/" not in target else target
    return [base, *(base + s for s in CODE_SUFFIXES), *(base + f for f in PACKAGE_FILES)]


class NameTables:
    """Name tables of a set of files: who defines a name, who looks one up, who imports a path."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[str]] = defaultdict(list)  # sorted entity ids
        self.files: set[str] = set()
        self.name_users: dict[str, set[str]] = defaultdict(set)
        self.module_users: dict[str, set[str]] = defaultdict(set)

    def add(self, path: str, facts: Mapping[str, Any]) -> None:
        self.files.add(path)
        for name, nodes in defined(path, facts).items():
            for node in nodes:
                insort(self.by_name[name], node)
        names, modules = references(path, facts)
        for name in names:
            self.name_users[name].add(path)
        for module in modules:
            self.module_users[module].add(path)

    def remove(self, path: str, facts: Mapping[str, Any]) -> None:
        self.files.discard(path)
        for name, nodes in defined(path, facts).items():
            for node in nodes:
                self.by_name[name].remove(node)
        names, modules = references(path, facts)
        for name in names:
            self.name_users[name].discard(path)
        for module in modules:
            self.module_users[module].discard(path)


def resolve_fragment(path: str, facts: FileFacts, candidates: Candidates, has_file: HasFile) -> Fragment:
    """The file's fragment: its edges resolved against the workspace (``candidates(name)``: sorted
    entity ids of that name; ``has_file(path)``), and the external names they point at."""
    nodes = file_nodes(path, facts)
    edges: dict[tuple[str, str, str], list[str]] = {}
    external: dict[str, None] = {}

    def edge(u: str, v: str, relation: str, chunk_id: str) -> None:
        ids = edges.setdefault((u, v, relation), [])
        if chunk_id not in ids:
            ids.append(chunk_id)

    def outside(name: str) -> str:
        external[name] = None
        return f"ext:{name}"

    symbols, sections = facts.get("symbols", []), facts.get("sections", [])
    for sym in symbols:
        edge(node_of(path, sym["qualname"]), path, "defined_in", sym["chunk_id"])
    for section in sections:
        edge(path, section_node(path, section), "contains", section["chunk_id"])
    for sym in symbols:
        parent_q = sym["qualname"].rpartition(".")[0]
        parent = node_of(path, parent_q) if parent_q else path
        edge(parent if parent in nodes else path, node_of(path, sym["qualname"]), "contains", sym["chunk_id"])
    for section in sections:
        for name in section["mentions"]:
            for target in candidates(name)[:3]:
                edge(section_node(path, section), target, "mentions", section["chunk_id"])
    relations = facts.get("relations", [])
    imported = {
        rel["target"]: next((c for c in module_candidates(path, rel["target"]) if has_file(c)), None)
        for rel in relations
        if rel["relation"] == "imports"
    }
    scope = _Scope(path, candidates, {f for f in imported.values() if f}, language_of(path, facts.get("language")))
    for rel in relations:
        source = rel["source_id"] if rel["source_id"] in nodes else path
        kind, target, chunk = rel["relation"], rel["target"], rel["chunk_id"]
        if kind == "imports":
            edge(source, imported[target] or outside(target), kind, chunk)
        elif kind == "calls":
            found = scope.resolve(source, target, rel.get("receiver_types", ()))
            if found and found != source:
                edge(source, found, kind, chunk)
        else:  # extends / implements
            edge(source, scope.resolve(source, target) or outside(target), kind, chunk)
    return Fragment(facts, [Edge(u, v, rel, ids) for (u, v, rel), ids in edges.items()], list(external))


class _Scope(NamedTuple):
    """What a name written in one file may mean: the workspace's entities of that name, told apart
    by what the file says about them."""

    path: str
    candidates: Candidates
    imported: set[str]  # the workspace files the file imports
    language: str | None  # the file's language family

    def resolve(self, source: str, raw: str, types: Iterable[str] = ()) -> str | None:
        """The entity a name written in ``source`` means; None when none, or several and nothing
        the file writes tells them apart. Same-named entities are told apart by the receiver's
        ``types`` when the file wrote them, else by the caller's own class, else by the caller's
        file, else by the files it imports. A call on a receiver whose every written type is from
        outside the workspace (``HttpURLConnection connection``; ``connection.getInputStream()``)
        calls that type's method, not a same-named one of the workspace (but an extension of that type
        the workspace defines, Kotlin's ``fun Uri.isSAFUri``): no edge. A file's code names
        entities of its own language only (a Kotlin class extends the Kotlin ``FileSystemPath``, not the
        Swift one of the same app's iOS half)."""
        found = self.candidates(symbol_key(raw))
        if self.language is not None:
            found = [c for c in found if language_of(c.partition("::")[0]) in (self.language, None)]
        if found and types and not any(self.candidates(symbol_key(t)) for t in types):
            found = [c for c in found if _owner_name(c) in types]  # unless the workspace extends that type
        if len(found) <= 1:
            return found[0] if found else None
        mine = self.path + "::"
        for type_name in types:
            hits = [c for c in found if _owner_name(c) == type_name]
            if len(hits) > 1:
                hits = [c for c in hits if c.startswith(mine)]
            if len(hits) == 1:
                return hits[0]
        owner = source.rpartition(".")[0] if "::" in source else None
        for preferred in (lambda c: owner and c.startswith(owner + "."), lambda c: c.startswith(mine)):
            hits = [c for c in found if preferred(c)]
            if hits:
                return hits[0]
        hits = [c for c in found if c.partition("::")[0] in self.imported]
        return hits[0] if len(hits) == 1 else None  # ambiguous across files: better no edge than a wrong one


def _owner_name(node: str) -> str:
    """The simple name of the class an entity id belongs to: ``a.ts::Foo.run`` -> Foo."""
    return node.partition("::")[2].rpartition(".")[0].rpartition(".")[2]


def counts(path: str, fragment: Fragment) -> tuple[int, dict[str, int]]:
    """(entities, relations by kind) a fragment adds, external entities aside."""
    by_relation: dict[str, int] = defaultdict(int)
    for edge in fragment.edges:
        by_relation[edge.relation] += 1
    return len(file_nodes(path, fragment.facts)), by_relation


__all__ = [
    "CODE_SUFFIXES",
    "Edge",
    "FileFacts",
    "Fragment",
    "NameTables",
    "file_nodes",
    "module_candidates",
    "resolve_fragment",
]
