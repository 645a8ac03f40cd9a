"""The catalog: files, chunks and cached embeddings in SQLite, versioned by generation.

Every file and chunk row carries ``gen_added`` and ``gen_removed``; a reader pinned to generation G
sees the rows with ``gen_added <= G < gen_removed``. A writer stages generation G+1 in the same
tables and only the ``CURRENT`` pointer (see :mod:`.generations`) makes it visible, so a writer killed
mid-way leaves rows that :meth:`Catalog.discard_after` rolls back on the next run.

Rows added after a generation are found by ``gen_added`` (its own index, for the roll-back); reads of a
generation write ``+gen_added`` so that SQLite looks them up by ``gen_removed`` instead (every row was
added at or before the generation read, so an index on ``gen_added`` would select them all).

The meta table holds the index id (see :mod:`.generations`); every connection checks it, so a
connection never reads a catalog that replaced the one it was opened for.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..types import Chunk, IndexCorrupt, WorkspaceBusy
from .generations import FIX_RESET, create_private, writer_active
from .storage import storage_problem

NEVER = 2**62  # gen_removed of a live row
_TRANSIENT = ("locked", "busy", "locking protocol")  # SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER, mtime REAL,
    source_type TEXT, language TEXT, facts TEXT,
    gen_added INTEGER NOT NULL, gen_removed INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS files_live ON files (gen_removed, path);
CREATE INDEX IF NOT EXISTS files_added ON files (gen_added);
CREATE TABLE IF NOT EXISTS chunks (
    key INTEGER PRIMARY KEY AUTOINCREMENT, chunk_id TEXT NOT NULL, source TEXT NOT NULL,
    source_type TEXT, language TEXT, start_line INTEGER, end_line INTEGER,
    symbol_name TEXT, symbol_type TEXT, parent_symbol TEXT, section_path TEXT, cell_index INTEGER,
    text TEXT NOT NULL, text_hash TEXT NOT NULL, tokens TEXT NOT NULL,
    gen_added INTEGER NOT NULL, gen_removed INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_live ON chunks (gen_removed, source);
CREATE INDEX IF NOT EXISTS chunks_id ON chunks (chunk_id);
CREATE INDEX IF NOT EXISTS chunks_text ON chunks (text_hash);
CREATE INDEX IF NOT EXISTS chunks_added ON chunks (gen_added);
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash)) WITHOUT ROWID;
"""

CHUNK_FIELDS = (
    "chunk_id",
    "source",
    "source_type",
    "language",
    "start_line",
    "end_line",
    "symbol_name",
    "symbol_type",
    "parent_symbol",
    "section_path",
    "cell_index",
    "text",
)
# CHUNK_FIELDS in the order of Chunk's own fields: a row read in this order is Chunk(*row)
_CHUNK_ORDER = tuple(f.name for f in fields(Chunk))
if set(_CHUNK_ORDER) != set(CHUNK_FIELDS):
    raise RuntimeError("CHUNK_FIELDS must name every field of Chunk")


@functools.lru_cache(maxsize=64)
def _chunks_by_key_sql(count: int) -> str:
    """The statement reading ``count`` chunks' fields by key (sqlite3 caches its compiled form by text)."""
    return f"SELECT key, {', '.join(_CHUNK_ORDER)} FROM chunks WHERE key IN ({','.join('?' * count)})"


@dataclass(frozen=True)
class FileState:
    path: str
    hash: str
    size: int
    mtime: float
    source_type: str
    language: str


class ChunkRow(NamedTuple):
    """What the derived indexes need of a live chunk."""

    key: int
    source: str
    source_type: str
    language: str
    text_hash: str
    tokens: str


class CatalogChanged(Exception):
    """The file at the catalog's path is no longer the catalog this object was opened on."""


@contextmanager
def catalog_errors(folder: Path | None = None, *, reading: bool = False) -> Iterator[None]:
    """SQLite errors become answers, never a traceback: a full disk, a read-only or unreadable folder
    and I/O errors their own :class:`IndexProblem` (see :mod:`.storage`; ``folder``, the index folder,
    tells the vaguer codes apart); another connection holding the catalog (locked past the busy
    timeout, a WAL being recovered) :class:`WorkspaceBusy`; only the rest, damage, :class:`IndexCorrupt`."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        problem = storage_problem(err, folder, reading=reading) if folder is not None else None
        if problem is not None:
            raise problem from None
        if isinstance(err, sqlite3.OperationalError) and any(word in str(err) for word in _TRANSIENT):
            raise WorkspaceBusy(f".agent-brain/catalog.sqlite is held by another process ({err}): try again") from None
        raise IndexCorrupt(f".agent-brain/catalog.sqlite cannot be read ({err})", FIX_RESET) from None


class Catalog:
    """One SQLite database; one connection per thread (WAL: readers never wait for the writer).

    A writer opens it with ``create=True`` (a new file gets ``file_mode``); readers open an existing
    file only, read-only when they cannot write it (see :meth:`_connect_reader`). ``index_id`` is the
    id every later connection must find in the meta table.
    """

    def __init__(self, path: Path, *, create: bool = False, file_mode: int = 0o600):
        self.path = path
        self._create = create
        self._local = threading.local()
        self.read_only = False  # whether this reader fell back to a read-only (or immutable) connection
        if create and not path.exists():  # a log left beside a deleted catalog would be replayed into the new one
            for suffix in ("-wal", "-shm", "-journal"):
                path.with_name(path.name + suffix).unlink(missing_ok=True)
            create_private(path, file_mode)  # SQLite gives its -wal and -shm files the catalog's mode
        with catalog_errors(path.parent, reading=not create):
            if create:
                self.db.executescript(_SCHEMA)
            self.index_id = self.get_meta("index_id")

    # ---------------------------------------------------------------- plumbing

    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect("rwc") if self._create else self._connect_reader()
            self._local.conn = conn
            if hasattr(self, "index_id") and not self.same_index():  # a further thread opened another catalog
                self.close()
                raise CatalogChanged(str(self.path))
        return conn

    def _connect(self, mode: str, *, wal: bool = True) -> sqlite3.Connection:
        uri = f"{self.path.resolve().as_uri()}?mode={mode}"
        conn = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            if wal:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            else:  # the first read opens the WAL and its index: fail here, not in a query
                conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def _connect_reader(self) -> sqlite3.Connection:
        """A reader's connection: read-write (WAL readers share the ``-shm`` index), else, on a medium
        or folder it cannot write (or a full disk where the ``-shm`` file cannot grow), read-only
        (``mode=ro``), else ``immutable=1`` — only when no writer holds the lock and no write-ahead log
        has content (an immutable reader does not see the log)."""
        folder = self.path.parent
        try:
            return self._connect("rw")
        except sqlite3.OperationalError as err:
            if storage_problem(err, folder, reading=True) is None:
                raise
            first = err
        for mode in ("ro", "ro&immutable=1"):
            if mode.endswith("immutable=1") and not _no_writer_can_change(self.path):
                break
            try:
                conn = self._connect(mode, wal=False)
            except sqlite3.DatabaseError:
                continue
            self.read_only = True
            return conn
        raise first

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)

    def empty_for_reset(self) -> None:
        """Forget every file, chunk and the index id, keeping the embedding cache (``reset``)."""
        with self._tx() as db:
            for table in ("meta", "files", "chunks"):
                db.execute(f"DELETE FROM {table}")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # ---------------------------------------------------------------- meta

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, **values: str) -> None:
        with self._tx() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def same_index(self) -> bool:
        """Whether the file still holds the catalog this object opened (not one copied over it)."""
        row = self.db.execute("SELECT value FROM meta WHERE key='index_id'").fetchone()
        return (row[0] if row else None) == self.index_id

    def claim(self, index_id: str) -> None:
        """Stamp a new catalog with the index id; a catalog stamped with another id belongs to another
        index (a file copied or restored on its own) and cannot be trusted."""
        if self.index_id is None:
            self.set_meta(index_id=index_id)
            self.index_id = index_id
        elif self.index_id != index_id:
            raise IndexCorrupt(".agent-brain/catalog.sqlite belongs to another index than INDEX_ID names", FIX_RESET)

    # ---------------------------------------------------------------- reading a generation

    def live_files(self, gen: int, under: Iterable[str] = ("",)) -> dict[str, FileState]:
        """The files live in ``gen`` that are one of ``under`` or inside one of those folders ("": all)."""
        live = (
            "SELECT path, hash, size, mtime, source_type, language FROM files WHERE +gen_added <= ? AND gen_removed > ?"
        )
        out: dict[str, FileState] = {}
        for folder in dict.fromkeys(p.rstrip("/") for p in under):
            if not folder:
                return {r[0]: FileState(*r) for r in self.db.execute(live, (gen, gen))}
            # the paths inside folder/ sort between "folder/" and "folder0" ("0" follows "/")
            rows = self.db.execute(
                f"{live} AND (path = ? OR (path >= ? AND path < ?))", (gen, gen, folder, f"{folder}/", f"{folder}0")
            )
            out.update((r[0], FileState(*r)) for r in rows)
        return out

    def retired_kinds(self, gen: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(source type, language) of each file and of each chunk that generation ``gen`` retired."""
        sql = "SELECT source_type, language FROM {} WHERE gen_removed = ?"
        files = self.db.execute(sql.format("files"), (gen,)).fetchall()
        chunks = self.db.execute(sql.format("chunks"), (gen,)).fetchall()
        return files, chunks

    def live_facts(self, gen: int) -> Iterator[tuple[str, dict]]:
        rows = self.db.execute(
            "SELECT path, facts FROM files WHERE +gen_added <= ? AND gen_removed > ? AND facts IS NOT NULL", (gen, gen)
        )
        for path, facts in rows:
            yield path, json.loads(facts)

    def live_chunk_rows(self, gen: int) -> list[ChunkRow]:
        """The chunks live in ``gen``, in key order (the row order of every derived index)."""
        rows = self.db.execute(
            f"SELECT {', '.join(ChunkRow._fields)} FROM chunks WHERE +gen_added <= ? AND gen_removed > ? ORDER BY key",
            (gen, gen),
        )
        return [ChunkRow(*r) for r in rows]

    def chunks_by_key(self, keys: Sequence[int]) -> dict[int, Chunk]:
        return {key: Chunk(*values) for key, values in self.chunk_values_by_key(keys).items()}

    def chunk_values_by_key(self, keys: Sequence[int]) -> dict[int, tuple]:
        """The fields of each chunk, in the order of Chunk's own (``Chunk(*values)``): what a page of
        results is built from without a Chunk in between."""
        keys = [int(k) for k in keys]
        out: dict[int, tuple] = {}
        for start in range(0, len(keys), 900):
            part = keys[start : start + 900]  # a page of results: one statement, its text built once per length
            out.update({row[0]: row[1:] for row in self.db.execute(_chunks_by_key_sql(len(part)), part)})
        return out

    def keys_of_chunk_ids(self, gen: int, chunk_ids: Iterable[str]) -> dict[str, int]:
        ids = list(set(chunk_ids))
        out: dict[str, int] = {}
        for start in range(0, len(ids), 900):
            part = ids[start : start + 900]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(
                f"SELECT chunk_id, key FROM chunks WHERE chunk_id IN ({marks}) AND +gen_added <= ? AND gen_removed > ?",
                (*part, gen, gen),
            )
            out.update(rows)
        return out

    # ---------------------------------------------------------------- embeddings cache

    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        uniq = list(set(hashes))
        for start in range(0, len(uniq), 900):
            part = uniq[start : start + 900]
            marks = ",".join("?" * len(part))
            rows = self.db.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE model=? AND text_hash IN ({marks})", (model, *part)
            )
            for h, blob in rows:
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def cache_vectors(self, model: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                ((model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items),
            )

    # ---------------------------------------------------------------- writing a generation

    def discard_after(self, gen: int) -> None:
        """Roll back whatever a writer staged beyond ``gen`` and never committed."""
        with self._tx() as db:
            for table in ("files", "chunks"):
                db.execute(f"DELETE FROM {table} WHERE gen_added > ?", (gen,))
                db.execute(
                    f"UPDATE {table} SET gen_removed=? WHERE gen_removed > ? AND gen_removed < ?", (NEVER, gen, NEVER)
                )

    def stage(
        self,
        gen: int,
        removed_paths: Iterable[str],
        files: Sequence[tuple[FileState, dict | None]],
        chunks: Sequence[tuple[Chunk, str, str]],
    ) -> tuple[list[int], list[int]]:
        """Stage generation ``gen``: retire the rows of ``removed_paths``, add the new files and chunks.

        ``chunks`` holds (chunk, text_hash, tokens). Returns (retired chunk keys, new chunk keys).
        """
        removed = list(removed_paths)
        with self._tx() as db:
            retired: list[int] = []
            for start in range(0, len(removed), 900):
                part = removed[start : start + 900]
                marks = ",".join("?" * len(part))
                retired += [
                    k
                    for (k,) in db.execute(
                        f"SELECT key FROM chunks WHERE source IN ({marks}) AND gen_removed=?", (*part, NEVER)
                    )
                ]
                for table, column in (("chunks", "source"), ("files", "path")):
                    db.execute(
                        f"UPDATE {table} SET gen_removed=? WHERE {column} IN ({marks}) AND gen_removed=?",
                        (gen, *part, NEVER),
                    )
            db.executemany(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        f.path,
                        f.hash,
                        f.size,
                        f.mtime,
                        f.source_type,
                        f.language,
                        None if facts is None else json.dumps(facts),
                        gen,
                        NEVER,
                    )
                    for f, facts in files
                ),
            )
            first = db.execute("SELECT COALESCE(MAX(key), 0) FROM chunks").fetchone()[0] + 1
            db.executemany(
                f"INSERT INTO chunks ({', '.join(CHUNK_FIELDS)}, text_hash, tokens, gen_added, gen_removed)"
                f" VALUES ({', '.join('?' * (len(CHUNK_FIELDS) + 4))})",
                ((*(getattr(c, f) for f in CHUNK_FIELDS), h, toks, gen, NEVER) for c, h, toks in chunks),
            )
            added = [k for (k,) in db.execute("SELECT key FROM chunks WHERE key >= ? ORDER BY key", (first,))]
        return retired, added

    def forget_before(self, gen: int) -> None:
        """Delete rows that no generation from ``gen`` on can see."""
        with self._tx() as db:
            for table in ("files", "chunks"):
                db.execute(f"DELETE FROM {table} WHERE gen_removed <= ?", (gen,))

    def rename_vectors(self, old: str, new: str) -> None:
        """File the cached vectors of model ``old`` under ``new`` (the same model, now named by its file's hash)."""
        with self._tx() as db:
            db.execute("UPDATE OR IGNORE embeddings SET model = ? WHERE model = ?", (new, old))

    def prune_vectors(self, model: str) -> int:
        """Bound the embedding cache: drop other models' vectors, and the vectors of texts no chunk
        has any more once they outnumber the live chunks (a reverted edit within that margin is free)."""
        with self._tx() as db:
            dropped = db.execute("DELETE FROM embeddings WHERE model != ?", (model,)).rowcount
            dead = (
                "FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM chunks WHERE chunks.text_hash = embeddings.text_hash)"
            )
            live = db.execute("SELECT COUNT(*) FROM chunks WHERE gen_removed = ?", (NEVER,)).fetchone()[0]
            if db.execute(f"SELECT COUNT(*) {dead}").fetchone()[0] > live:
                dropped += db.execute(f"DELETE {dead}").rowcount
        return dropped


def _no_writer_can_change(path: Path) -> bool:
    """Whether a catalog can be read as immutable: no writer holds the lock, and its write-ahead log
    is absent or empty (everything committed is in the main file)."""
    try:
        if path.with_name(path.name + "-wal").stat().st_size > 0:
            return False
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return not writer_active(path.parent)


class _Transaction:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")
