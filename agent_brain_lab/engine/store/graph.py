"""The code graph: entities and relations built from per-file facts, no LLM.

Per-file facts are what the analyzers extract (symbols, raw relations as written, identifiers a doc
chunk mentions). Names are resolved here, against the whole workspace, because a call or a base class
can point into any other file. Every edge keeps the chunk ids it was seen in.

Every edge starts at a node of the file whose facts produced it, so the graph is the union of one
fragment per file (its facts and its resolved edges). A new generation recomputes the fragments of
the changed files and of the files whose resolution may change: those that name a symbol whose
definitions changed, and those whose imports may point at an added or deleted file. Fragments are
stored as JSON (a base shared between generations by hard links, and a delta of what changed since).
"""

from __future__ import annotations

import json
import posixpath
import re
from bisect import insort
from collections import defaultdict
from collections.abc import Iterable, Mapping
from functools import cached_property
from pathlib import Path

import networkx as nx

from .datafiles import CorruptIndexFile, link_or_copy, load_json, require

FOLDER = "graph"
META = "graph.json"
DELTA = "delta.json"
FORMAT = 1
MERGE_MIN = 256  # a delta of up to this many files (or an 8th of the base) is rewritten, not merged
HUB_DEGREE = 60
MAX_PATHS = 4
CODE_SUFFIXES = (
    ".py",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".mjs",
    ".go",
    ".rs",
    ".java",
    ".rb",
    ".php",
    ".kt",
    ".scala",
    ".swift",
    ".cs",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".lua",
    ".jl",
    ".r",
    ".R",
    ".sh",
)
_BASE = re.compile(r"b\d{1,12}\.json")

Edge = tuple[str, str, str, list[str]]  # source, target, relation, chunk ids


class CodeGraph:
    """The read side: a networkx graph of every fragment, built when first used."""

    def __init__(self, files: GraphFiles):
        self.files = files

    @cached_property
    def g(self) -> nx.MultiDiGraph:
        return self.files.assemble()

    @cached_property
    def names(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = defaultdict(list)
        for node, data in self.g.nodes(data=True):
            for key in _lookup_keys(node, data):
                names[key].append(node)
        return {k: sorted(v) for k, v in names.items()}

    @classmethod
    def open(cls, gen_dir: Path) -> CodeGraph | None:
        """The generation's graph, loaded now; None when it has none (:class:`CorruptIndexFile` if damaged)."""
        files = GraphFiles.open(gen_dir)
        if files is None:
            return None
        graph = cls(files)
        graph.names  # noqa: B018  building it now checks every fragment
        return graph

    def save(self, gen_dir: Path) -> None:
        self.files.save(gen_dir)

    # ---------------------------------------------------------------- reading

    def stats(self) -> dict:
        """Entity and relation counts, from the fragments (the writer never needs the networkx graph)."""
        by_relation: dict[str, int] = defaultdict(int)
        nodes: set[str] = set()
        for path, (facts, edges, external) in self.files.fragments.items():
            nodes.update(file_nodes(path, facts))
            nodes.update(f"ext:{n}" for n in external)
            for edge in edges:
                by_relation[edge[2]] += 1
        return {
            "entities": len(nodes),
            "relations": sum(by_relation.values()),
            "by_relation": dict(sorted(by_relation.items())),
        }

    def lookup(self, name: str) -> list[str]:
        return list(self.names.get(name.lower(), ()))

    def node(self, node_id: str) -> dict:
        return {"id": node_id, **self.g.nodes[node_id]}

    def neighbourhood(self, seeds: Iterable[str], depth: int) -> dict[str, tuple[int, list[list[str]]]]:
        """Breadth-first over edges in both directions: node -> (hop, its shortest paths of node ids and
        relations). A node reached over several edges at the same hop keeps up to ``MAX_PATHS`` of them:
        "X imports Y" and "Y imports X" answer different questions. Edges are walked in sorted order,
        so the answer does not depend on the order the graph was built or patched in."""
        reached: dict[str, tuple[int, list[list[str]]]] = {s: (0, [[s]]) for s in seeds if s in self.g}
        frontier = list(reached)
        for hop in range(1, depth + 1):
            nxt = []
            for node in frontier:
                if hop > 1 and self.g.degree(node) > HUB_DEGREE:
                    continue  # a hub (a big file, a popular import) would make everything two hops apart
                path = reached[node][1][0]
                steps = sorted((other, f"-{rel}->") for _, other, rel in self.g.out_edges(node, keys=True))
                steps += sorted((other, f"<-{rel}-") for other, _, rel in self.g.in_edges(node, keys=True))
                for other, step in steps:
                    if other not in reached:
                        reached[other] = (hop, [[*path, step, other]])
                        nxt.append(other)
                    elif reached[other][0] == hop and len(reached[other][1]) < MAX_PATHS:
                        reached[other][1].append([*path, step, other])
            frontier = nxt
        return reached

    def edges_between(self, nodes: set[str]) -> list[dict]:
        return [
            {"source": u, "target": v, "relation": rel, "chunk_ids": data.get("chunk_ids", [])}
            for u, v, rel, data in self.g.edges(keys=True, data=True)
            if u in nodes and v in nodes
        ]

    def label(self, node_id: str) -> str:
        data = self.g.nodes.get(node_id, {})
        return data.get("qualname") or data.get("name") or node_id


def _lookup_keys(node: str, data: dict) -> set[str]:
    keys = {str(data.get("name", "")).lower()}
    if data.get("qualname"):
        keys.add(data["qualname"].lower())
    if data.get("kind") == "file":
        stem = posixpath.splitext(posixpath.basename(node))[0]
        keys |= {node.lower(), stem.lower(), posixpath.splitext(node)[0].replace("/", ".").lower()}
    keys.discard("")
    return keys


# -------------------------------------------------------------------- one file's part


def file_nodes(path: str, facts: Mapping) -> dict[str, dict]:
    """The file's own nodes: the file, its symbols (an impl block or overload of a known symbol adds
    its chunk to that entity) and its doc sections."""
    nodes: dict[str, dict] = {path: {"kind": "file", "name": path, "source": path}}
    for sym in facts.get("symbols", ()):
        node = f"{path}::{sym['qualname']}"
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
        nodes[f"{path}#{section['section_path'] or ''}"] = {
            "kind": "section",
            "name": section["section_path"] or path,
            "source": path,
            "start_line": section["start_line"],
            "end_line": section["end_line"],
            "chunk_id": section["chunk_id"],
        }
    return nodes


def _defined(path: str, facts: Mapping) -> dict[str, list[str]]:
    """Symbol name -> the file's entities of that name."""
    out: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for sym in facts.get("symbols", ()):
        node = f"{path}::{sym['qualname']}"
        if node not in seen:
            seen.add(node)
            out[sym["name"]].append(node)
    return out


def _symbol_key(raw: str) -> str:
    return raw.replace("::", ".").replace("->", ".").split("(")[0].rstrip(".").rpartition(".")[2]


def _references(path: str, facts: Mapping) -> tuple[set[str], set[str]]:
    """(names the file's facts look up, file paths its imports may resolve to)."""
    names = {n for section in facts.get("sections", ()) for n in section["mentions"]}
    modules: set[str] = set()
    for rel in facts.get("relations", ()):
        if rel["relation"] == "imports":
            modules.update(_module_candidates(path, rel["target"]))
        else:
            names.add(_symbol_key(rel["target"]))
    return names, modules


def _module_candidates(path: str, raw: str) -> list[str]:
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
    return [
        base,
        *(base + s for s in CODE_SUFFIXES),
        base + "/__init__.py",
        base + "/index.ts",
        base + "/index.js",
        base + "/mod.rs",
    ]


class _Names:
    """Workspace-wide tables for resolving names, and who looks up what (to know whom a change affects)."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[str]] = defaultdict(list)  # sorted entity ids
        self.files: set[str] = set()
        self.name_users: dict[str, set[str]] = defaultdict(set)
        self.module_users: dict[str, set[str]] = defaultdict(set)

    def add(self, path: str, facts: Mapping) -> None:
        self.files.add(path)
        for name, nodes in _defined(path, facts).items():
            for node in nodes:
                insort(self.by_name[name], node)
        names, modules = _references(path, facts)
        for name in names:
            self.name_users[name].add(path)
        for module in modules:
            self.module_users[module].add(path)

    def remove(self, path: str, facts: Mapping) -> None:
        self.files.discard(path)
        for name, nodes in _defined(path, facts).items():
            for node in nodes:
                self.by_name[name].remove(node)
        names, modules = _references(path, facts)
        for name in names:
            self.name_users[name].discard(path)
        for module in modules:
            self.module_users[module].discard(path)

    def fragment(self, path: str, facts: Mapping) -> tuple[list[Edge], list[str]]:
        """The file's edges, resolved against the workspace, and the external names they point at."""
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

        symbols, sections = facts.get("symbols", ()), facts.get("sections", ())
        for sym in symbols:
            edge(f"{path}::{sym['qualname']}", path, "defined_in", sym["chunk_id"])
        for section in sections:
            edge(path, f"{path}#{section['section_path'] or ''}", "contains", section["chunk_id"])
        for sym in symbols:
            parent_q = sym["qualname"].rpartition(".")[0]
            parent = f"{path}::{parent_q}" if parent_q else path
            edge(parent if parent in nodes else path, f"{path}::{sym['qualname']}", "contains", sym["chunk_id"])
        for section in sections:
            for name in section["mentions"]:
                for target in self.by_name.get(name, ())[:3]:
                    edge(f"{path}#{section['section_path'] or ''}", target, "mentions", section["chunk_id"])
        for rel in facts.get("relations", ()):
            source = rel["source_id"] if rel["source_id"] in nodes else path
            kind, target, chunk = rel["relation"], rel["target"], rel["chunk_id"]
            if kind == "imports":
                resolved = next((c for c in _module_candidates(path, target) if c in self.files), None)
                edge(source, resolved or outside(target), kind, chunk)
            elif kind == "calls":
                resolved = self._resolve_symbol(path, source, target)
                if resolved and resolved != source:
                    edge(source, resolved, kind, chunk)
            else:  # extends / implements
                edge(source, self._resolve_symbol(path, source, target) or outside(target), kind, chunk)
        return [(u, v, rel, ids) for (u, v, rel), ids in edges.items()], list(external)

    def _resolve_symbol(self, path: str, source: str, raw: str) -> str | None:
        candidates = self.by_name.get(_symbol_key(raw), ())
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        owner = source.rpartition(".")[0] if "::" in source else None
        for preferred in (lambda c: owner and c.startswith(owner + "."), lambda c: c.startswith(path + "::")):
            hits = [c for c in candidates if preferred(c)]
            if hits:
                return hits[0]
        return None  # ambiguous across files: better no edge than a wrong one


# -------------------------------------------------------------------- the whole graph, as data


class GraphFiles:
    """Every file's fragment ``(facts, edges, external names)``: what a generation stores and patches."""

    def __init__(
        self, fragments: dict[str, tuple], base: str | None, base_paths: set[str], base_all: set[str], next_id: int
    ):
        self.fragments = fragments
        self._base, self._base_paths, self._base_all, self._next = base, base_paths, base_all, next_id
        self._origin: Path | None = None  # folder holding the base file, when it was read from disk
        self._names: _Names | None = None

    @classmethod
    def build(cls, facts: Iterable[tuple[str, Mapping]]) -> GraphFiles:
        """From scratch: every (path, facts) pair."""
        files = cls({}, None, set(), set(), 1)
        files._names = names = _Names()
        all_facts = dict(facts)
        for path, f in all_facts.items():
            names.add(path, f)
        for path, f in all_facts.items():
            files.fragments[path] = (f, *names.fragment(path, f))
        files._rebase()
        return files

    def patched(self, removed: Iterable[str], added: Mapping[str, Mapping]) -> GraphFiles:
        """The next generation: ``removed`` paths gone (or replaced), ``added`` paths' facts in, and
        re-resolved every fragment whose resolution the change may alter. This object is spent."""
        names = self._names or self._index()
        self._names = None
        fragments = dict(self.fragments)
        changed = (set(removed) & set(fragments)) | set(added)
        watched = {n for p in changed if p in fragments for n in _defined(p, fragments[p][0])}
        watched |= {n for p, f in added.items() for n in _defined(p, f)}
        before = {n: list(names.by_name.get(n, ())) for n in watched}
        moved = {p for p in changed if (p in fragments) != (p in added)}  # files that appear or disappear
        for path in changed:
            if path in fragments:
                names.remove(path, fragments.pop(path)[0])
        for path, f in added.items():
            names.add(path, f)
            fragments[path] = (f,)
        affected = set(added)
        for name in watched:
            if names.by_name.get(name, []) != before[name]:
                affected |= names.name_users.get(name, set())
        for path in moved:
            affected |= names.module_users.get(path, set())
        for path in affected:
            f = fragments[path][0]
            fragments[path] = (f, *names.fragment(path, f))
        out = GraphFiles(fragments, self._base, self._base_paths - changed - affected, self._base_all, self._next)
        out._origin, out._names = self._origin, names
        if (
            self._origin is None
            or len(out._delta()) > max(MERGE_MIN, len(self._base_all) // 8)
            or len(out._base_all - out._base_paths) > max(MERGE_MIN, len(self._base_all) // 4)
        ):
            out._rebase()
        return out

    def _index(self) -> _Names:
        names = _Names()
        for path, fragment in self.fragments.items():
            names.add(path, fragment[0])
        return names

    def _rebase(self) -> None:
        """Everything goes into a new base, written on the next save."""
        self._base, self._next = f"b{self._next}.json", self._next + 1
        self._base_paths = self._base_all = set(self.fragments)
        self._origin = None

    def _delta(self) -> dict[str, tuple]:
        return {p: f for p, f in self.fragments.items() if p not in self._base_paths}

    # ---------------------------------------------------------------- persistence

    def save(self, gen_dir: Path) -> None:
        folder = gen_dir / FOLDER
        folder.mkdir()
        if self._base is not None:
            if self._origin is not None:
                link_or_copy(self._origin / self._base, folder / self._base)
            else:
                _write(folder / self._base, {p: self.fragments[p] for p in sorted(self._base_all)})
        _write(folder / DELTA, dict(sorted(self._delta().items())))
        meta = {
            "format": FORMAT,
            "base": self._base,
            "next": self._next,
            "dead": sorted(self._base_all - self._base_paths),
        }
        _write(folder / META, meta)

    @classmethod
    def open(cls, gen_dir: Path) -> GraphFiles | None:
        folder = gen_dir / FOLDER
        if not folder.exists():
            return None
        meta = load_json(folder / META)
        base, dead, next_id = meta.get("base"), meta.get("dead"), meta.get("next")
        require(meta.get("format") == FORMAT, f"graph: format {meta.get('format')!r}, expected {FORMAT}")
        if not (base is None or (isinstance(base, str) and _BASE.fullmatch(base))):
            raise CorruptIndexFile("graph: bad base name")
        if not (isinstance(dead, list) and all(isinstance(p, str) for p in dead)):
            raise CorruptIndexFile("graph: bad list of removed files")
        if not isinstance(next_id, int):
            raise CorruptIndexFile("graph: bad counter")
        base_fragments = _fragments(folder / base) if base else {}
        delta = _fragments(folder / DELTA)
        base_paths = set(base_fragments) - set(dead)
        fragments = {p: base_fragments[p] for p in base_paths} | delta
        files = cls(fragments, base, base_paths - set(delta), set(base_fragments), next_id)
        files._origin = folder
        return files

    # ---------------------------------------------------------------- the graph

    def assemble(self) -> nx.MultiDiGraph:
        """The networkx graph of every fragment, in path order."""
        g = nx.MultiDiGraph()
        try:
            for path in sorted(self.fragments):
                g.add_nodes_from(file_nodes(path, self.fragments[path][0]).items())
            for path in sorted(self.fragments):
                _, edges, external = self.fragments[path]
                g.add_nodes_from((f"ext:{n}", {"kind": "external", "name": n, "source": None}) for n in external)
                g.add_edges_from((u, v, rel, {"chunk_ids": list(ids)}) for u, v, rel, ids in edges)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise CorruptIndexFile(f"graph: a fragment is malformed ({err!r})") from None
        return g


def _write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def _fragments(path: Path) -> dict[str, tuple]:
    data = load_json(path)
    out: dict[str, tuple] = {}
    for p, fragment in data.items():
        require(
            isinstance(fragment, list)
            and len(fragment) == 3
            and isinstance(fragment[0], dict)
            and isinstance(fragment[1], list)
            and isinstance(fragment[2], list),
            f"graph: bad fragment for {p!r} in {path.name}",
        )
        for e in fragment[1]:
            require(isinstance(e, list) and len(e) == 4 and isinstance(e[3], list), f"graph: bad edge in {path.name}")
        out[p] = (fragment[0], [tuple(e) for e in fragment[1]], fragment[2])
    return out


def next_generation(
    previous: Path | None, removed: Iterable[str], added: Mapping[str, Mapping], all_facts
) -> CodeGraph:
    """The graph of a new generation: the previous generation's patched, or built from ``all_facts()``
    (path, facts) when there is none or it cannot be read."""
    try:
        prev = GraphFiles.open(previous) if previous is not None else None
    except CorruptIndexFile:
        prev = None
    files = prev.patched(removed, added) if prev is not None else GraphFiles.build(all_facts())
    return CodeGraph(files)


__all__ = ["CodeGraph", "CorruptIndexFile", "GraphFiles", "next_generation"]
