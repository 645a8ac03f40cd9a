"""The write path: scan, diff against the last generation, chunk, embed, stage, publish.

Only new or changed files are re-chunked and only chunk texts never seen by this model are
embedded (vectors are cached by text hash and persisted batch by batch, so an indexer killed
mid-way loses nothing it already paid for). The new generation becomes visible in one atomic step.

A run may be scoped (a few paths, include globs): it scans and updates only what its scope covers
and leaves every other indexed file as it is. The content of one file is untrusted input: whatever
goes wrong while analysing it makes that file a skip with a reason, never a failed run. A current
generation whose derived files are damaged or missing is rebuilt from the catalog (vectors from the
embedding cache, nothing re-embedded).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

import numpy as np
import pathspec

from .analysis import ChunkSettings, analyze_file
from .embedding import Embedder
from .retrieval.filters import FilterColumns
from .snapshot import MANIFEST, Snapshot, describe_contents, read_manifest
from .store import graph as graph_store
from .store import keywords
from .store.catalog import Catalog, ChunkRow, FileState, catalog_errors
from .store.generations import FIX_FORCE, FORMAT_VERSION, IndexDir
from .store.graph import CodeGraph
from .store.vectors import VectorIndex
from .tokenizer import tokenize
from .types import (
    Chunk,
    IndexCancelled,
    IndexCorrupt,
    IndexProgress,
    IndexReport,
    ModelMismatch,
    ProgressCallback,
    SkippedFile,
)
from .workspace import ScanOptions, Unreadable, WorkspaceFile, decode_text, read_bytes, scan

EMBED_WAVE = 2048  # chunks gathered before embedding: sorted by length together, batches pad less
PRUNE_EVERY = 16  # generations between embedding-cache clean-ups (it scans the cache)


@dataclass(frozen=True)
class IndexSettings:
    scan: ScanOptions
    chunks: ChunkSettings
    graph_enabled: bool
    bm25_k1: float
    bm25_b: float


@dataclass(frozen=True)
class Scope:
    """What one run may scan and change: files under one of ``paths`` ("" is the root) that match
    ``include`` (gitignore-style globs; none means all). Files outside stay indexed as they are."""

    paths: tuple[str, ...] = ("",)
    include: tuple[str, ...] = ()

    @property
    def everything(self) -> bool:
        return "" in self.paths and not self.include

    @cached_property
    def _folders(self) -> frozenset[str]:
        return frozenset(p.rstrip("/") for p in self.paths)

    def covers(self, path: str) -> bool:
        """O(depth of ``path``): a watcher's batch may name hundreds of paths."""
        folders = self._folders
        under = "" in folders or path in folders or any(path[:i] in folders for i, c in enumerate(path) if c == "/")
        return under and (not self.include or _spec(self.include).match_file(path))


EVERYTHING = Scope()


@dataclass
class _Run:
    """The state of one run, filled in as it goes."""

    report: IndexReport
    scope: Scope
    skipped: list[SkippedFile]
    staged: list[tuple[FileState, dict | None]] = field(default_factory=list)
    chunks: list[tuple[Chunk, str, str]] = field(default_factory=list)  # (chunk, text hash, tokens), embedded
    pending: list[tuple[Chunk, str, str]] = field(default_factory=list)  # analysed, not embedded yet
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # text hash -> vector
    settled: int = 0  # files whose chunks are all embedded


class _Skip(Exception):
    """One file cannot be indexed; str() is the reason."""


class Indexer:
    def __init__(self, root: Path, index_dir: IndexDir, embedder: Embedder):
        self.root = root
        self.index_dir = index_dir
        self.embedder = embedder
        self.published_graph: CodeGraph | None = None  # the graph of the generation this run published

    def run(
        self,
        settings: IndexSettings,
        *,
        force: bool,
        scope: Scope,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        wait: float,
    ) -> IndexReport:
        started = time.monotonic()
        notify = progress or (lambda p: None)
        with self.index_dir.writer_lock(wait), catalog_errors():
            self.index_dir.clear_staging()
            if self.index_dir.format_version() != FORMAT_VERSION:
                if not force:
                    self.index_dir.check_format()  # raises, naming --force
                self.index_dir.write_format()  # the old generation is now unreadable: rebuilt below
                scope = EVERYTHING
            catalog = Catalog(self.index_dir.catalog_path, create=True)
            try:
                fresh = catalog.index_id is None  # a new catalog: whatever a generation holds is not from it
                catalog.claim(self.index_dir.index_id() or "")
                return self._run(catalog, settings, force, scope, notify, cancel, started, fresh)
            finally:
                catalog.close()

    def _run(self, catalog, settings, force, scope, notify, cancel, started, fresh: bool) -> IndexReport:
        gen, damaged = self._current_generation()
        damaged = damaged or (fresh and gen > 0)
        catalog.discard_after(gen)
        if self._needs_rebuild(catalog, gen, settings, force):
            force, scope = True, EVERYTHING  # a new model or chunking makes every old chunk stale
        notify(IndexProgress("scanning"))
        files, skipped = _scan_scope(self.root, settings, scope)
        run = _Run(IndexReport(generation=gen), scope, skipped)
        previous = catalog.live_files(gen) if gen else {}
        seen = {f.path for f in files}
        deleted = sorted(p for p in previous if scope.covers(p) and p not in seen)
        run.report.files_total = len(files)
        run.report.files_deleted = len(deleted)

        self._analyze_and_embed(catalog, run, files, previous, force, settings, notify, cancel)
        deleted += [s.path for s in run.skipped if s.path in previous]  # indexed before, unreadable now
        if gen and not (run.staged or deleted or force or damaged):  # nothing to commit: the count stands
            current = read_manifest(self.index_dir.gen_path(gen))["chunks"]["total"]
            return self._finish(run, current, started, notify)

        notify(IndexProgress("writing", len(files), len(files), len(run.chunks)))
        removed_paths = sorted(set(deleted) | ({s.path for s, _ in run.staged} & set(previous)))
        retired, added = catalog.stage(gen + 1, removed_paths, run.staged, run.chunks)
        rebuild = (force and scope.everything) or damaged
        total = self._publish(
            catalog, gen, settings, run, rebuild=rebuild, retired=retired, added=added, removed_paths=removed_paths
        )
        run.report.generation = gen + 1
        run.report.chunks_added = len(added)
        run.report.chunks_removed = len(retired)
        return self._finish(run, total, started, notify)

    def _finish(self, run: _Run, chunks_total: int, started: float, notify) -> IndexReport:
        report = run.report
        report.chunks_total = chunks_total
        report.skipped = run.skipped
        report.duration_s = round(time.monotonic() - started, 3)
        notify(IndexProgress("done", report.files_total, report.files_total, report.chunks_total))
        return report

    # ---------------------------------------------------------------- steps

    def _current_generation(self) -> tuple[int, bool]:
        """(the generation to build on, whether its derived files must be rebuilt from the catalog).

        An unreadable CURRENT is started over from generation 0 (the embedding cache makes that cheap)."""
        try:
            gen = self.index_dir.current()
        except IndexCorrupt:
            return 0, False
        if not gen:
            return 0, False
        try:
            Snapshot(gen, self.index_dir.gen_path(gen))
        except IndexCorrupt:
            return gen, True
        return gen, False

    def _needs_rebuild(self, catalog: Catalog, gen: int, settings: IndexSettings, force: bool) -> bool:
        """A different model needs an explicit force; different chunking just triggers a rebuild."""
        if not gen:
            return False
        if model_changed(catalog, self.embedder, force):
            return True
        return catalog.get_meta("chunking") != _chunking_key(settings)

    def _analyze_and_embed(self, catalog, run: _Run, files, previous, force, settings, notify, cancel) -> None:
        """Chunk new and changed files and embed their new chunk texts, a wave at a time."""
        for done, f in enumerate(files, 1):
            _check(cancel)
            old = previous.get(f.path)
            if not force and old and old.size == f.size and old.mtime == f.mtime:
                run.report.files_unchanged += 1
                continue
            notify(IndexProgress("indexing", run.settled, len(files), len(run.chunks) + len(run.pending), f.path))
            try:
                data = read_bytes(f)
                digest = hashlib.blake2b(data, digest_size=16).hexdigest()
                if not force and old and old.hash == digest:  # touched, not changed
                    run.report.files_unchanged += 1
                    continue
                file_chunks, facts = _analyze(f, data, settings)
            except (Unreadable, _Skip) as err:
                run.skipped.append(SkippedFile(f.path, str(err)))
                continue
            state = FileState(f.path, digest, f.size, f.mtime, f.source_type, f.language)
            run.staged.append((state, facts if settings.graph_enabled else None))
            run.report.files_indexed += 1
            run.pending += file_chunks
            if len(run.pending) >= EMBED_WAVE:
                self._flush(catalog, run, done, len(files), f.path, notify, cancel)
        self._flush(catalog, run, len(files), len(files), None, notify, cancel)

    def _flush(self, catalog, run: _Run, done: int, total: int, current: str | None, notify, cancel) -> None:
        """Embed what the pending chunks need, in length order across the whole wave (the model pads
        every batch to its longest text); cache and report every group."""
        missing = {h: c.indexed_text() for c, h, _ in run.pending if h not in run.vectors}

        def reported(chunks: int) -> None:
            notify(IndexProgress("embedding", run.settled, total, len(run.chunks) + chunks, current))

        self._embed(catalog, missing, run, reported, cancel)
        run.chunks.extend(run.pending)
        run.pending.clear()
        run.settled = done

    def _embed(self, catalog: Catalog, texts: dict[str, str], run: _Run, reported, cancel=None) -> None:
        """Vectors of ``texts`` (hash -> text) into ``run.vectors``: from the cache, else embedded
        and cached a group at a time (``reported`` gets the count embedded so far)."""
        model = self.embedder.spec.identity
        run.vectors.update(catalog.cached_vectors(model, list(texts)))
        todo = {h: t for h, t in texts.items() if h not in run.vectors}
        hashes = sorted(todo, key=lambda h: len(todo[h]))
        group = self.embedder.group_size  # chunks embedded (and cached) between progress reports and cancel checks
        for start in range(0, len(hashes), group):
            _check(cancel)
            part = hashes[start : start + group]
            embedded = self.embedder.embed([todo[h] for h in part])
            catalog.cache_vectors(model, zip(part, embedded))
            run.vectors.update(zip(part, embedded))
            run.report.chunks_embedded += len(part)
            reported(start + len(part))

    def _publish(
        self, catalog: Catalog, gen: int, settings, run: _Run, *, rebuild: bool, retired, added, removed_paths
    ) -> int:
        """Build generation ``gen + 1`` beside ``gen``, make it current; returns its chunk count.

        ``rebuild``: every derived index is built from the catalog's live rows instead of patching
        the previous generation's (keywords and graph are patched by what changed: ``retired`` and
        ``added`` chunk keys, ``removed_paths`` and this run's staged files)."""
        new = gen + 1
        staging = self.index_dir.staging(new)
        rows = catalog.live_chunk_rows(new)
        columns = FilterColumns.build([(r.key, r.source, r.source_type, r.language) for r in rows])
        columns.save(staging)
        previous = None if rebuild or not gen else self.index_dir.gen_path(gen)  # None: build from every row
        keywords.next_generation(
            previous,
            columns.keys,
            retired,
            added,
            [tokens for _, _, tokens in run.chunks],
            lambda: [(r.key, r.tokens) for r in rows],
            settings.bm25_k1,
            settings.bm25_b,
        ).save(staging)
        vectors = self._vectors(catalog, gen, rows, run, rebuild, retired, added)
        vectors.save(staging)
        graph_stats = {"entities": 0, "relations": 0, "by_relation": {}}
        if settings.graph_enabled:
            added_facts = {state.path: facts for state, facts in run.staged if facts is not None}
            graph = graph_store.next_generation(previous, removed_paths, added_facts, lambda: catalog.live_facts(new))
            graph.save(staging)
            graph_stats = graph.stats()
            self.published_graph = graph
        manifest = {
            "generation": new,
            "format": FORMAT_VERSION,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "model": self.embedder.spec.to_dict() | {"dim": vectors.dim},
            "files": count_by_kind((f.source_type, f.language) for f in catalog.live_files(new).values()),
            "chunks": count_by_kind((r.source_type, r.language) for r in rows),
            "graph": graph_stats,
            "skipped": _skips(self.index_dir.gen_path(gen), run, rebuild),
            "contents": describe_contents(staging),
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
        self.index_dir.publish(new, staging)
        catalog.set_meta(model=self.embedder.spec.identity, chunking=_chunking_key(settings))
        catalog.forget_before(gen)
        self.index_dir.collect_garbage({gen, new})
        if rebuild or new % PRUNE_EVERY == 0:
            catalog.prune_vectors(self.embedder.spec.identity)
        return len(rows)

    def _vectors(self, catalog, gen: int, rows: list[ChunkRow], run: _Run, rebuild: bool, retired, added):
        """The vector index of the new generation: the previous one updated, or (``rebuild``) one
        built from every live chunk's vector, taken from the embedding cache."""
        previous = None if rebuild or not gen else VectorIndex.open(self.index_dir.gen_path(gen), writable=True)
        if previous is None:
            missing = {r.text_hash: r.key for r in rows if r.text_hash not in run.vectors}
            run.vectors.update(catalog.cached_vectors(self.embedder.spec.identity, list(missing)))
            keys = [k for h, k in missing.items() if h not in run.vectors]  # cached vectors pruned: embed again
            texts = {h: c.indexed_text() for c in catalog.chunks_by_key(keys).values() for h in [_text_hash(c)]}
            self._embed(catalog, texts, run, _ignore)
            index = VectorIndex.empty(self._dim(run))
            if rows:
                index.update([], [r.key for r in rows], np.stack([run.vectors[r.text_hash] for r in rows]))
            return index
        fresh = [run.vectors[h] for _, h, _ in run.chunks]
        previous.update(retired, added, np.stack(fresh) if fresh else np.zeros((0, previous.dim)))
        return previous

    def _dim(self, run: _Run) -> int:
        some = next(iter(run.vectors.values()), None)
        return len(some) if some is not None else (self.embedder.dim or 384)


def model_changed(catalog: Catalog, embedder: Embedder, force: bool) -> bool:
    """Whether the index was built with another model; without ``force`` that is an error."""
    recorded = catalog.get_meta("model")
    if not recorded or recorded == embedder.spec.identity:
        return False
    if not force:
        raise ModelMismatch(
            f"this index was built with {recorded}, the configured model is "
            f"{embedder.spec.identity}: re-index with force to rebuild it ({FIX_FORCE})"
        )
    return True


def _analyze(f: WorkspaceFile, data: bytes, settings: IndexSettings) -> tuple[list[tuple[Chunk, str, str]], dict]:
    """One file's (chunk, text hash, tokens) and graph facts; _Skip (or Unreadable) when it cannot
    be indexed. Analysers run third-party parsers on untrusted text: any exception they raise is
    this file's problem only."""
    text = decode_text(data)
    try:
        chunks, facts = analyze_file(f, text, settings.chunks)
        out = [(chunk, _text_hash(chunk), " ".join(tokenize(chunk.indexed_text()))) for chunk in chunks]
        _storable(f.path, chunks, facts)
    except Unreadable:
        raise
    except UnicodeEncodeError:
        raise _Skip("contains text that is not valid Unicode (lone surrogates)") from None
    except RecursionError:
        raise _Skip("too deeply nested to analyse") from None
    except Exception as err:  # untrusted input: one file's failure must not stop the run
        raise _Skip(f"could not be analysed ({type(err).__name__}: {err})") from None
    return out, facts


def _text_hash(chunk: Chunk) -> str:
    return hashlib.blake2b(chunk.indexed_text().encode("utf-8"), digest_size=16).hexdigest()


def _storable(path: str, chunks: list[Chunk], facts: dict) -> None:
    """UnicodeEncodeError unless every string that goes to the catalog is valid UTF-8 (a notebook's
    JSON can carry lone surrogates; SQLite and the tokenizer cannot take them)."""
    path.encode("utf-8")
    for chunk in chunks:
        for value in (chunk.text, chunk.symbol_name, chunk.parent_symbol, chunk.section_path):
            if value:
                value.encode("utf-8")
    json.dumps(facts, ensure_ascii=False).encode("utf-8")


def _ignore(_: int) -> None:
    """No progress to report (vectors taken from the cache)."""


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise IndexCancelled("indexing was cancelled; the last generation keeps serving")


def _scan_scope(root: Path, settings: IndexSettings, scope: Scope):
    """Files and skips the scope covers (each file once)."""
    files: dict[str, WorkspaceFile] = {}
    skipped: dict[str, SkippedFile] = {}
    for subpath in scope.paths:
        if subpath and not (root / subpath).exists():
            continue  # gone from disk: what was indexed under it counts as deleted
        found, skips = scan(root, settings.scan, subpath)
        files.update((f.path, f) for f in found if scope.covers(f.path))
        skipped.update((s.path, s) for s in skips if scope.covers(s.path))
    return sorted(files.values(), key=lambda f: f.path), sorted(skipped.values(), key=lambda s: s.path)


def _spec(globs: tuple[str, ...]) -> pathspec.PathSpec:
    return pathspec.PathSpec.from_lines("gitignore", globs)


def _chunking_key(settings: IndexSettings) -> str:
    return f"{settings.chunks.chunk_size}/{settings.chunks.chunk_overlap}/graph={settings.graph_enabled}"


def count_by_kind(pairs: Iterable[tuple[str, str]]) -> dict:
    """Totals by source type and by language of (source_type, language) pairs."""
    pairs = list(pairs)
    return {
        "total": len(pairs),
        "by_source_type": dict(Counter(t for t, _ in pairs)),
        "by_language": dict(Counter(lang for _, lang in pairs)),
    }


def _skips(previous_gen: Path, run: _Run, rebuild: bool) -> list[dict]:
    """The new generation's skips: this run's, plus the previous generation's outside its scope."""
    kept: list[dict] = []
    if not rebuild:
        try:
            kept = [s for s in read_manifest(previous_gen).get("skipped", []) if not run.scope.covers(s["path"])]
        except (OSError, ValueError, KeyError, TypeError):
            kept = []
    return kept + [{"path": s.path, "reason": s.reason} for s in run.skipped]
