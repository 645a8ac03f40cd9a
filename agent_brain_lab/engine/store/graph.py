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

import ctypes
import json
import posixpath
import re
import sqlite3
import sys
import uuid
from bisect import insort
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .datafiles import CorruptIndexFile, link_or_copy, load_json, require
from .graph_arrays import ArrayGraph
from .graph_view import OverlayGraph

if TYPE_CHECKING:
    import networkx as nx

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
_BASE = re.compile(r"b\d{1,12}\.sqlite")

Edge = tuple[str, str, str, list[str]]  # source, target, relation, chunk ids


class CodeGraph:
    """The read side: a networkx graph of every fragment, built when first used."""

    def __init__(self, files: GraphFiles):
        self.files = files

    @cached_property
    def g(self) -> nx.MultiDiGraph | OverlayGraph:
        return self.files.assemble()

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

    # ---------------------------------------------------------------- reading

    def stats(self) -> dict:
        return self.files.stats()

    def lookup(self, name: str) -> list[str]:
        key, g = name.lower(), self.g
        if not isinstance(g, OverlayGraph):
            return list(_names_of(g).get(key, ()))
        found = [n for n in _names_of(g.base).get(key, ()) if g._in_base(n) and not g._in_delta(n)]
        return sorted(found + _names_of(g.delta).get(key, []))

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
        g = self.g
        if isinstance(g, OverlayGraph):
            edges = g.edges_among(nodes)
        else:
            edges = [e for e in g.edges(keys=True, data=True) if e[0] in nodes and e[1] in nodes]
        return [
            {"source": u, "target": v, "relation": rel, "chunk_ids": d.get("chunk_ids", [])} for u, v, rel, d in edges
        ]

    def label(self, node_id: str) -> str:
        data = self.g.nodes.get(node_id, {})
        return data.get("qualname") or data.get("name") or node_id


def _names_of(graph: nx.MultiDiGraph | ArrayGraph) -> dict[str, list[str]]:
    """Lowercased name -> sorted node ids, kept with the graph (a base graph serves many generations)."""
    if "names" not in graph.graph:
        names: dict[str, list[str]] = defaultdict(list)
        for node, data in graph.nodes(data=True):
            for key in _lookup_keys(node, data) if data else ():
                names[key].append(node)
        graph.graph["names"] = {k: sorted(v) for k, v in names.items()}
    return graph.graph["names"]


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
    """Name tables of a set of files: who defines a name, who looks one up, who imports a path."""

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


def _fragment(path: str, facts: Mapping, candidates, has_file) -> tuple[list[Edge], list[str]]:
    """The file's edges, resolved against the workspace (``candidates(name)``: sorted entity ids of
    that name; ``has_file(path)``), and the external names they point at."""
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

    def resolve(source: str, raw: str) -> str | None:
        found = candidates(_symbol_key(raw))
        if len(found) <= 1:
            return found[0] if found else None
        owner = source.rpartition(".")[0] if "::" in source else None
        for preferred in (lambda c: owner and c.startswith(owner + "."), lambda c: c.startswith(path + "::")):
            hits = [c for c in found if preferred(c)]
            if hits:
                return hits[0]
        return None  # ambiguous across files: better no edge than a wrong one

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
            for target in candidates(name)[:3]:
                edge(f"{path}#{section['section_path'] or ''}", target, "mentions", section["chunk_id"])
    for rel in facts.get("relations", ()):
        source = rel["source_id"] if rel["source_id"] in nodes else path
        kind, target, chunk = rel["relation"], rel["target"], rel["chunk_id"]
        if kind == "imports":
            resolved = next((c for c in _module_candidates(path, target) if has_file(c)), None)
            edge(source, resolved or outside(target), kind, chunk)
        elif kind == "calls":
            resolved = resolve(source, target)
            if resolved and resolved != source:
                edge(source, resolved, kind, chunk)
        else:  # extends / implements
            edge(source, resolve(source, target) or outside(target), kind, chunk)
    return [(u, v, rel, ids) for (u, v, rel), ids in edges.items()], list(external)


def _counts(path: str, fragment: tuple) -> tuple[int, dict[str, int]]:
    """(entities, relations by kind) a fragment adds, external entities aside."""
    by_relation: dict[str, int] = defaultdict(int)
    for edge in fragment[1]:
        by_relation[edge[2]] += 1
    return len(file_nodes(path, fragment[0])), by_relation


# -------------------------------------------------------------------- the whole graph, as data

_BASE_SCHEMA = """
CREATE TABLE fragments (
    path TEXT PRIMARY KEY, facts TEXT, nodes TEXT, edges TEXT, ext TEXT, node_count INTEGER, relations TEXT);
CREATE TABLE defines (name TEXT, node TEXT, path TEXT);
CREATE TABLE uses (name TEXT, path TEXT);
CREATE TABLE imports (module TEXT, path TEXT);
CREATE TABLE external (name TEXT, path TEXT);
CREATE TABLE totals (nodes INTEGER, relations TEXT, external INTEGER, id TEXT);
"""
_BASE_INDEXES = """
CREATE INDEX defines_name ON defines (name);
CREATE INDEX uses_name ON uses (name);
CREATE INDEX imports_module ON imports (module);
CREATE INDEX external_name ON external (name);
"""


class _Base:
    """An immutable SQLite file of fragments and their name tables, shared by generations through hard links."""

    def __init__(self, path: Path):
        self.path = path
        try:
            self.db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            nodes, relations, external, self.id = self.db.execute(
                "SELECT nodes, relations, external, id FROM totals"
            ).fetchone()
            self.size = self.db.execute("SELECT COUNT(*) FROM fragments").fetchone()[0]
        except (sqlite3.Error, TypeError, ValueError) as err:
            raise CorruptIndexFile(f"graph: {path.name} unreadable ({err})") from None
        require(isinstance(self.id, str) and isinstance(nodes, int) and isinstance(external, int), "graph: bad totals")
        self.totals = (nodes, _relation_counts(relations), external)

    def rows(self, sql: str, *args) -> list[tuple]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as err:
            raise CorruptIndexFile(f"graph: {self.path.name} unreadable ({err})") from None

    def each(self, sql: str) -> Iterator[tuple]:
        """Rows one at a time (a whole base's fragments at once would be hundreds of MB of text)."""
        try:
            yield from self.db.execute(sql)
        except sqlite3.Error as err:
            raise CorruptIndexFile(f"graph: {self.path.name} unreadable ({err})") from None

    def fragment(self, path: str) -> tuple | None:
        rows = self.rows("SELECT facts, edges, ext FROM fragments WHERE path=?", path)
        return _decoded(path, *rows[0]) if rows else None

    @staticmethod
    def write(target: Path, fragments: Iterable[tuple[str, tuple]]) -> None:
        db = sqlite3.connect(target)
        try:
            db.executescript(_BASE_SCHEMA)
            nodes, external = 0, set()
            relations: dict[str, int] = defaultdict(int)
            for path, fragment in fragments:
                facts, edges, ext = fragment
                n, rel = _counts(path, fragment)
                nodes += n
                external.update(ext)
                for kind, count in rel.items():
                    relations[kind] += count
                db.execute(
                    "INSERT INTO fragments VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        path,
                        _dumps(facts),
                        _dumps(list(file_nodes(path, facts).items())),
                        _dumps(edges),
                        _dumps(ext),
                        n,
                        _dumps(rel),
                    ),
                )
                defined = _defined(path, facts)
                db.executemany(
                    "INSERT INTO defines VALUES (?, ?, ?)", ((k, v, path) for k in defined for v in defined[k])
                )
                names, modules = _references(path, facts)
                db.executemany("INSERT INTO uses VALUES (?, ?)", ((n, path) for n in names))
                db.executemany("INSERT INTO imports VALUES (?, ?)", ((m, path) for m in modules))
                db.executemany("INSERT INTO external VALUES (?, ?)", ((e, path) for e in ext))
            db.execute(
                "INSERT INTO totals VALUES (?, ?, ?, ?)", (nodes, _dumps(relations), len(external), uuid.uuid4().hex)
            )
            db.executescript(_BASE_INDEXES)
            db.commit()
        finally:
            db.close()


class GraphFiles:
    """Every file's fragment ``(facts, edges, external names)``: a base (SQLite, shared between
    generations) overlaid by a delta of the files changed or re-resolved since, and the base files
    that are gone. What a generation stores and patches."""

    def __init__(self, base: _Base | None, delta: dict[str, tuple], dead: set[str], next_id: int):
        self.base, self.delta, self.dead, self._next = base, delta, dead, next_id
        self._names = _Names()
        for path, fragment in delta.items():
            self._names.add(path, fragment[0])

    @classmethod
    def build(cls, facts: Iterable[tuple[str, Mapping]]) -> GraphFiles:
        """From scratch: every (path, facts) pair (written as a new base on save)."""
        files = cls(None, {p: (f,) for p, f in facts}, set(), 1)
        for path, fragment in files.delta.items():
            files.delta[path] = (fragment[0], *_fragment(path, fragment[0], files.candidates, files.has_file))
        return files

    # ---------------------------------------------------------------- the overlaid view

    def _in_base(self, path: str) -> bool:
        return self.base is not None and path not in self.dead and path not in self.delta

    def has_file(self, path: str) -> bool:
        return path in self.delta or (
            self._in_base(path) and bool(self.base and self.base.rows("SELECT 1 FROM fragments WHERE path=?", path))
        )

    def facts(self, path: str) -> Mapping | None:
        if path in self.delta:
            return self.delta[path][0]
        fragment = self.base.fragment(path) if self._in_base(path) and self.base else None
        return fragment[0] if fragment else None

    def candidates(self, name: str) -> list[str]:
        found = list(self._names.by_name.get(name, ()))
        if self.base is not None:
            found += [
                n for n, p in self.base.rows("SELECT node, path FROM defines WHERE name=?", name) if self._in_base(p)
            ]
        return sorted(found)

    def _users(self, table: str, column: str, key: str, mine: dict[str, set[str]]) -> set[str]:
        found = set(mine.get(key, ()))
        if self.base is not None:
            found |= {
                p for (p,) in self.base.rows(f"SELECT path FROM {table} WHERE {column}=?", key) if self._in_base(p)
            }
        return found

    @property
    def fragments(self) -> dict[str, tuple]:
        """Every live fragment (reads the whole base: for the query side and tests)."""
        out: dict[str, tuple] = {}
        if self.base is not None:
            for path, facts, edges, ext in self.base.rows("SELECT path, facts, edges, ext FROM fragments"):
                if self._in_base(path):
                    out[path] = _decoded(path, facts, edges, ext)
        return out | self.delta

    # ---------------------------------------------------------------- patching

    def patched(self, removed: Iterable[str], added: Mapping[str, Mapping]) -> GraphFiles:
        """The next generation: ``removed`` paths gone (or replaced), ``added`` paths' facts in, and
        every fragment whose resolution the change may alter re-resolved. Updates this object in place."""
        changed = {p for p in removed if self.has_file(p)} | set(added)
        old = {p: self.facts(p) for p in changed}
        watched = {n for p, f in old.items() if f is not None for n in _defined(p, f)}
        watched |= {n for p, f in added.items() for n in _defined(p, f)}
        before = {n: self.candidates(n) for n in watched}
        moved = {p for p in changed if (old[p] is not None) != (p in added)}  # files that appear or disappear
        for path in changed:
            self._drop(path)
        for path, f in added.items():
            self._put(path, f)
        affected = set(added)
        for name in watched:
            if self.candidates(name) != before[name]:
                affected |= self._users("uses", "name", name, self._names.name_users)
        for path in moved:
            affected |= self._users("imports", "module", path, self._names.module_users)
        for path in affected - set(added):
            facts = self.facts(path)
            assert facts is not None
            self._drop(path)
            self._put(path, facts)
        for path in affected:
            facts = self.delta[path][0]
            self.delta[path] = (facts, *_fragment(path, facts, self.candidates, self.has_file))
        return self

    def _drop(self, path: str) -> None:
        if path in self.delta:
            self._names.remove(path, self.delta.pop(path)[0])
        if self.base is not None:
            self.dead.add(path)

    def _put(self, path: str, facts: Mapping) -> None:
        self.delta[path] = (facts,)
        self._names.add(path, facts)

    # ---------------------------------------------------------------- counts

    def stats(self) -> dict:
        """Entity and relation counts of the overlaid graph, reading only what the delta touches."""
        nodes, external = 0, 0
        by_relation: dict[str, int] = defaultdict(int)
        ext_touched: set[str] = set()
        if self.base is not None:
            nodes, relations, external = self.base.totals
            by_relation.update(relations)
            gone = [p for p in self.dead if p not in self.delta] + [p for p in self.delta if p in self.dead]
            for path in gone:
                for n, rel, ext in self.base.rows(
                    "SELECT node_count, relations, ext FROM fragments WHERE path=?", path
                ):
                    nodes -= n
                    for kind, count in _relation_counts(rel).items():
                        by_relation[kind] -= count
                    ext_touched.update(_loads(ext))
        mine = {e for fragment in self.delta.values() for e in fragment[2]}
        for path, fragment in self.delta.items():
            n, rel = _counts(path, fragment)
            nodes += n
            for kind, count in rel.items():
                by_relation[kind] += count
        for name in ext_touched | mine:
            in_base = self.base is not None and any(
                p not in self.dead for (p,) in self.base.rows("SELECT path FROM external WHERE name=?", name)
            )
            was_counted = self.base is not None and bool(self.base.rows("SELECT 1 FROM external WHERE name=?", name))
            external += int(in_base or name in mine) - int(was_counted)
        relations = {k: v for k, v in sorted(by_relation.items()) if v}
        return {"entities": nodes + external, "relations": sum(relations.values()), "by_relation": relations}

    # ---------------------------------------------------------------- persistence

    def save(self, gen_dir: Path) -> None:
        folder = gen_dir / FOLDER
        folder.mkdir()
        size = self.base.size if self.base is not None else 0
        if (
            self.base is None
            or len(self.delta) > max(MERGE_MIN, size // 8)
            or len(self.dead) > max(MERGE_MIN, size // 4)
        ):
            name = f"b{self._next}.sqlite"
            _Base.write(folder / name, sorted(self.fragments.items()))
            base, self._next = _Base(folder / name), self._next + 1
            self.base, self.delta, self.dead, self._names = base, {}, set(), _Names()
        else:
            link_or_copy(self.base.path, folder / self.base.path.name)
        _write(folder / DELTA, {p: list(f) for p, f in sorted(self.delta.items())})
        meta = {"format": FORMAT, "base": self.base.path.name, "next": self._next, "dead": sorted(self.dead)}
        _write(folder / META, meta)

    @classmethod
    def open(cls, gen_dir: Path) -> GraphFiles | None:
        folder = gen_dir / FOLDER
        if not folder.exists():
            return None
        meta = load_json(folder / META)
        base, dead, next_id = meta.get("base"), meta.get("dead"), meta.get("next")
        require(meta.get("format") == FORMAT, f"graph: format {meta.get('format')!r}, expected {FORMAT}")
        if not (isinstance(base, str) and _BASE.fullmatch(base)):
            raise CorruptIndexFile("graph: bad base name")
        if not (isinstance(dead, list) and all(isinstance(p, str) for p in dead)):
            raise CorruptIndexFile("graph: bad list of removed files")
        if not isinstance(next_id, int):
            raise CorruptIndexFile("graph: bad counter")
        require((folder / base).is_file(), f"graph: {base} is missing")
        delta = load_json(folder / DELTA)
        fragments = {p: _decoded(p, *f) if isinstance(f, list) and len(f) == 3 else _bad(p) for p, f in delta.items()}
        return cls(_Base(folder / base), fragments, set(dead), next_id)

    # ---------------------------------------------------------------- the graph

    def assemble(self) -> nx.MultiDiGraph | OverlayGraph:
        """The query graph: the delta alone, or the base's (loaded once per process, see
        :func:`_base_graph`) overlaid by the delta's, hiding the base files that left."""
        delta = _graph_of({p: (file_nodes(p, f[0]).items(), f[1], f[2]) for p, f in self.delta.items()})
        if self.base is None:
            return delta
        return OverlayGraph(_base_graph(self.base), delta, self.dead | set(self.delta))


_BASE_GRAPHS: dict[str, ArrayGraph] = {}  # id of a base file (random, written with it) -> its graph
KEEP_BASE_GRAPHS = 2


def _base_graph(base: _Base) -> ArrayGraph:
    """The graph of every fragment in a base file, in arrays (see :mod:`.graph_arrays`). Base files
    never change and generations share them by hard links, so one load serves every generation built
    on the same base. Fragments are decoded one at a time, in path order like :func:`_graph_of`."""
    key = base.id
    if key not in _BASE_GRAPHS:
        nodes = (_loads(n) for (n,) in base.each("SELECT nodes FROM fragments ORDER BY path"))
        edges = ((_loads(e), _loads(x)) for e, x in base.each("SELECT edges, ext FROM fragments ORDER BY path"))
        try:
            graph = ArrayGraph.build(nodes, edges)
        except CorruptIndexFile:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise CorruptIndexFile(f"graph: a fragment is malformed ({err!r})") from None
        while len(_BASE_GRAPHS) >= KEEP_BASE_GRAPHS:
            _BASE_GRAPHS.pop(next(iter(_BASE_GRAPHS)))
        _BASE_GRAPHS[key] = graph
        _return_freed_memory()
    return _BASE_GRAPHS[key]


def _return_freed_memory() -> None:
    """Give the pages the build freed back to the system: glibc keeps freed heap pages below live
    objects, which left a serving process 30-100 MB larger at 100k chunks, by chance of layout."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).malloc_trim(0)
        except (OSError, AttributeError):  # a libc without malloc_trim (musl)
            pass


def _graph_of(parts: Mapping[str, tuple]) -> nx.MultiDiGraph:
    """A networkx graph of (nodes, edges, external names) per path, in path order. Filled through
    its adjacency dicts (what ``add_edge`` does, minus its per-call overhead: 5.5 s -> 3.4 s at 500k edges)."""
    import networkx as nx  # only delta graphs are built with it (~0.3 s to import): a base graph is arrays

    g = nx.MultiDiGraph()
    attrs_of, succ, pred = g._node, g._succ, g._pred

    def node(n: str, attrs: Mapping) -> None:
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


def _dumps(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def _loads(text: str):
    try:
        return json.loads(text)
    except (TypeError, ValueError) as err:
        raise CorruptIndexFile(f"graph: a fragment is unreadable ({err})") from None


def _relation_counts(text: str) -> dict[str, int]:
    counts = _loads(text)
    require(isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values()), "graph: bad counts")
    return counts


def _write(path: Path, data: dict) -> None:
    path.write_text(_dumps(data), encoding="utf-8")


def _bad(path: str):
    raise CorruptIndexFile(f"graph: bad fragment for {path!r}")


def _decoded(path: str, facts, edges, ext) -> tuple:
    """A fragment checked for shape: a facts object, edges of four fields, external names."""
    facts, edges, ext = (_loads(x) if isinstance(x, str) else x for x in (facts, edges, ext))
    require(
        isinstance(facts, dict) and isinstance(edges, list) and isinstance(ext, list),
        f"graph: bad fragment for {path!r}",
    )
    for e in edges:
        require(isinstance(e, list) and len(e) == 4 and isinstance(e[3], list), f"graph: bad edge in {path!r}")
    try:
        file_nodes(path, facts)
        _references(path, facts)
    except (KeyError, TypeError, AttributeError) as err:
        raise CorruptIndexFile(f"graph: bad facts for {path!r} ({err!r})") from None
    return facts, [tuple(e) for e in edges], ext


def next_generation(
    previous: Path | None, removed: Iterable[str], added: Mapping[str, Mapping], all_facts
) -> CodeGraph:
    """The graph of a new generation: the previous generation's patched, or built from ``all_facts()``
    (path, facts) when there is none or it cannot be read."""
    try:
        prev = GraphFiles.open(previous) if previous is not None else None
        if prev is not None:
            return CodeGraph(prev.patched(removed, added))
    except CorruptIndexFile:
        pass
    return CodeGraph(GraphFiles.build(all_facts()))


__all__ = ["CodeGraph", "CorruptIndexFile", "GraphFiles", "next_generation"]
