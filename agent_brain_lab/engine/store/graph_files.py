"""The code graph on disk: every file's fragment (its facts, resolved edges and external names).

A generation's ``graph/`` folder holds a base (an immutable SQLite file of fragments, their name
tables and the graph they make, shared between generations by hard links), ``delta.json`` (the
fragments of the files changed or re-resolved since the base was written) and ``graph.json`` (the
format, the base's name, the base files that are gone). A new generation recomputes the fragments
of the changed files and of the files whose resolution may change: those that name a symbol whose
definitions changed, and those whose imports may point at an added or deleted file. Name resolution
itself is :mod:`..graph_names`.
"""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn, cast

from ..graph_names import (
    Edge,
    FileFacts,
    Fragment,
    NameTables,
    counts,
    defined,
    file_nodes,
    references,
    resolve_fragment,
)
from .datafiles import CorruptIndexFile, link_or_copy, load_json, require
from .graph_arrays import STORED_VERSION, ArrayGraph

FOLDER = "graph"
META = "graph.json"
DELTA = "delta.json"
FORMAT = 1
MERGE_MIN = 256  # a delta of up to this many files (or an 8th of the base) is rewritten, not merged
_BASE = re.compile(r"b\d{1,12}\.sqlite")

_BASE_SCHEMA = """
CREATE TABLE fragments (
    path TEXT PRIMARY KEY, facts TEXT, nodes TEXT, edges TEXT, ext TEXT, node_count INTEGER, relations TEXT);
CREATE TABLE defines (name TEXT, node TEXT, path TEXT);
CREATE TABLE uses (name TEXT, path TEXT);
CREATE TABLE imports (module TEXT, path TEXT);
CREATE TABLE external (name TEXT, path TEXT);
CREATE TABLE totals (nodes INTEGER, relations TEXT, external INTEGER, id TEXT);
CREATE TABLE arrays (name TEXT PRIMARY KEY, data BLOB);
"""
_BASE_INDEXES = """
CREATE INDEX defines_name ON defines (name);
CREATE INDEX uses_name ON uses (name);
CREATE INDEX imports_module ON imports (module);
CREATE INDEX external_name ON external (name);
"""


class BaseFile:
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

    def rows(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.Error as err:
            raise CorruptIndexFile(f"graph: {self.path.name} unreadable ({err})") from None

    def each(self, sql: str) -> Iterator[tuple[Any, ...]]:
        """Rows one at a time (a whole base's fragments at once would be hundreds of MB of text)."""
        try:
            yield from self.db.execute(sql)
        except sqlite3.Error as err:
            raise CorruptIndexFile(f"graph: {self.path.name} unreadable ({err})") from None

    def graph(self) -> ArrayGraph:
        """Every fragment's graph in arrays: as the writer stored it, or (a base written before bases
        held it, by a version that made it otherwise, or whose writer could not store it) built from the
        fragments."""
        if self.rows("SELECT 1 FROM sqlite_master WHERE type='table' AND name='arrays'"):
            stored = dict(self.rows("SELECT name, data FROM arrays"))
            if ArrayGraph.stored_version(stored) == STORED_VERSION:  # else another version's: built again
                return ArrayGraph.from_tables(stored)
        return _fragments_graph(self.each)

    def fragment(self, path: str) -> Fragment | None:
        rows = self.rows("SELECT facts, edges, ext FROM fragments WHERE path=?", path)
        return _decoded(path, *rows[0]) if rows else None

    @staticmethod
    def write(target: Path, fragments: Iterable[tuple[str, Fragment]]) -> None:
        db = sqlite3.connect(target)
        try:
            db.executescript(_BASE_SCHEMA)
            nodes, external = 0, set[str]()
            relations: dict[str, int] = defaultdict(int)
            for path, fragment in fragments:
                facts, edges, ext = fragment
                n, rel = counts(path, fragment)
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
                names_of = defined(path, facts)
                db.executemany(
                    "INSERT INTO defines VALUES (?, ?, ?)", ((k, v, path) for k in names_of for v in names_of[k])
                )
                names, modules = references(path, facts)
                db.executemany("INSERT INTO uses VALUES (?, ?)", ((n, path) for n in names))
                db.executemany("INSERT INTO imports VALUES (?, ?)", ((m, path) for m in modules))
                db.executemany("INSERT INTO external VALUES (?, ?)", ((e, path) for e in ext))
            db.execute(
                "INSERT INTO totals VALUES (?, ?, ?, ?)", (nodes, _dumps(relations), len(external), uuid.uuid4().hex)
            )
            db.executemany("INSERT INTO arrays VALUES (?, ?)", _stored_graph(lambda sql: iter(db.execute(sql))))
            db.executescript(_BASE_INDEXES)
            db.commit()
        finally:
            db.close()


class GraphFiles:
    """Every file's fragment ``(facts, edges, external names)``: a base (SQLite, shared between
    generations) overlaid by a delta of the files changed or re-resolved since, and the base files
    that are gone. What a generation stores and patches."""

    def __init__(self, base: BaseFile | None, delta: dict[str, Fragment], dead: set[str], next_id: int):
        self.base, self.delta, self.dead, self._next = base, delta, dead, next_id
        self._names = NameTables()
        for path, fragment in delta.items():
            self._names.add(path, fragment.facts)

    @classmethod
    def build(cls, facts: Iterable[tuple[str, FileFacts]]) -> GraphFiles:
        """From scratch: every (path, facts) pair (written as a new base on save)."""
        files = cls(None, {p: _unresolved(f) for p, f in facts}, set(), 1)
        for path, fragment in files.delta.items():
            files.delta[path] = resolve_fragment(path, fragment.facts, files.candidates, files.has_file)
        return files

    # ---------------------------------------------------------------- the overlaid view

    def _in_base(self, path: str) -> bool:
        return self.base is not None and path not in self.dead and path not in self.delta

    def has_file(self, path: str) -> bool:
        return path in self.delta or (
            self._in_base(path) and bool(self.base and self.base.rows("SELECT 1 FROM fragments WHERE path=?", path))
        )

    def facts(self, path: str) -> FileFacts | None:
        if path in self.delta:
            return self.delta[path].facts
        fragment = self.base.fragment(path) if self._in_base(path) and self.base else None
        return fragment.facts if fragment else None

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
    def fragments(self) -> dict[str, Fragment]:
        """Every live fragment (reads the whole base: for the query side and tests)."""
        out: dict[str, Fragment] = {}
        if self.base is not None:
            for path, facts, edges, ext in self.base.rows("SELECT path, facts, edges, ext FROM fragments"):
                if self._in_base(path):
                    out[path] = _decoded(path, facts, edges, ext)
        return out | self.delta

    # ---------------------------------------------------------------- patching

    def patched(self, removed: Iterable[str], added: Mapping[str, FileFacts]) -> GraphFiles:
        """The next generation: ``removed`` paths gone (or replaced), ``added`` paths' facts in, and
        every fragment whose resolution the change may alter re-resolved. Updates this object in place."""
        changed = {p for p in removed if self.has_file(p)} | set(added)
        old = {p: self.facts(p) for p in changed}
        watched = {n for p, f in old.items() if f is not None for n in defined(p, f)}
        watched |= {n for p, f in added.items() for n in defined(p, f)}
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
            facts = self.delta[path].facts
            self.delta[path] = resolve_fragment(path, facts, self.candidates, self.has_file)
        return self

    def _drop(self, path: str) -> None:
        if path in self.delta:
            self._names.remove(path, self.delta.pop(path).facts)
        if self.base is not None:
            self.dead.add(path)

    def _put(self, path: str, facts: FileFacts) -> None:
        self.delta[path] = _unresolved(facts)
        self._names.add(path, facts)

    # ---------------------------------------------------------------- counts

    def stats(self) -> dict[str, Any]:
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
                    ext_touched.update(loads(ext))
        mine = {e for fragment in self.delta.values() for e in fragment.external}
        for path, fragment in self.delta.items():
            n, rel = counts(path, fragment)
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
            BaseFile.write(folder / name, sorted(self.fragments.items()))
            base, self._next = BaseFile(folder / name), self._next + 1
            self.base, self.delta, self.dead, self._names = base, {}, set(), NameTables()
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
        return cls(BaseFile(folder / base), fragments, set(dead), next_id)


def _fragments_graph(each: Callable[[str], Iterator[tuple[Any, ...]]]) -> ArrayGraph:
    """The graph of every fragment of a base (rows read by ``each(sql)``), decoded one at a time in path
    order like the delta's graph; :class:`CorruptIndexFile` if one is malformed."""
    nodes = (loads(n) for (n,) in each("SELECT nodes FROM fragments ORDER BY path"))
    edges = ((loads(e), loads(x)) for e, x in each("SELECT edges, ext FROM fragments ORDER BY path"))
    try:
        return ArrayGraph.build(nodes, edges)
    except CorruptIndexFile:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise CorruptIndexFile(f"graph: a fragment is malformed ({err!r})") from None


def _stored_graph(each: Callable[[str], Iterator[tuple[Any, ...]]]) -> list[tuple[str, bytes]]:
    """What a new base stores of its graph: the graph a reader would build from the fragments just
    written (so both ways give the same graph), read back as a reader will read it; nothing when it
    cannot be stored (then readers build it from the fragments)."""
    tables = _fragments_graph(each).tables()
    try:
        ArrayGraph.from_tables(dict(tables))
    except CorruptIndexFile:
        return []
    return tables


def _unresolved(facts: FileFacts) -> Fragment:
    """A file's facts waiting for resolution (while a patch or a build is under way)."""
    return Fragment(facts, [], [])


def _dumps(data: object) -> str:
    return json.dumps(data, separators=(",", ":"))


def loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError) as err:
        raise CorruptIndexFile(f"graph: a fragment is unreadable ({err})") from None


def _relation_counts(text: str) -> dict[str, int]:
    counts = loads(text)
    require(isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values()), "graph: bad counts")
    return counts


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(_dumps(data), encoding="utf-8")


def _bad(path: str) -> NoReturn:
    raise CorruptIndexFile(f"graph: bad fragment for {path!r}")


def _decoded(path: str, *fields: object) -> Fragment:
    """A fragment (facts, edges, external names; JSON text or decoded) checked for shape: a facts
    object, edges of four fields, external names."""
    values: list[Any] = [loads(x) if isinstance(x, str) else x for x in fields]
    facts, edges, ext = values
    require(
        isinstance(facts, dict) and isinstance(edges, list) and isinstance(ext, list),
        f"graph: bad fragment for {path!r}",
    )
    for e in edges:
        require(isinstance(e, list) and len(e) == 4 and isinstance(e[3], list), f"graph: bad edge in {path!r}")
    try:
        file_nodes(path, facts)
        references(path, facts)
    except (KeyError, TypeError, AttributeError) as err:
        raise CorruptIndexFile(f"graph: bad facts for {path!r} ({err!r})") from None
    return Fragment(cast(FileFacts, facts), [Edge(*e) for e in edges], ext)
