"""The write path: scan, diff against the last generation, chunk, embed, stage, publish.

Only new or changed files are re-chunked and only chunk texts never seen by this model are
embedded (vectors are cached by text hash and persisted batch by batch, so an indexer killed
mid-way loses nothing it already paid for). A run with at most ``EARLY_PUBLISH_MIN`` texts to embed
becomes visible in one atomic step. A larger one (a first index, a forced one) publishes early: once
every file is analysed, a generation with keywords, graph and filter columns over all files and the
vectors the cache already holds; then the missing texts are embedded and a generation that only
adds vectors is published every ``PUBLISH_EVERY`` seconds. ``coverage`` (embedded / total chunks)
says how far it got. Any run first completes the vectors its generation lacks (a run killed or
cancelled while embedding is resumed by the next one).

A run may be scoped (a few paths, include globs): it scans and updates only what its scope covers
and leaves every other indexed file as it is. The content of one file is untrusted input: whatever
goes wrong while analysing it makes that file a skip with a reason, never a failed run. A current
generation whose derived files are damaged or missing is rebuilt from the catalog (vectors from the
embedding cache, nothing re-embedded).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

import numpy as np
import pathspec

from .analysis import ChunkSettings, analyze_file, file_budget
from .chunking import CHUNKER_VERSION
from .embedding import Embedder
from .labels import printable
from .merges import Merges
from .retrieval.filters import FilterColumns
from .snapshot import MANIFEST, check_generation, describe_contents, read_manifest
from .store import graph as graph_store
from .store import keywords
from .store.catalog import Catalog, ChunkRow, FileState, catalog_errors
from .store.datafiles import CorruptIndexFile, link_or_copy
from .store.generations import FIX_FORCE, FORMAT_VERSION, READS_FORMATS, IndexDir
from .store.graph import CodeGraph
from .store.storage import full_disk_behind, storage_errors
from .store.vectors import VectorIndex, is_vector_file
from .tokenizer import tokenize
from .types import (
    Chunk,
    IndexCancelled,
    IndexCorrupt,
    IndexProblem,
    IndexProgress,
    IndexReport,
    InvalidRequest,
    ModelMismatch,
    ProgressCallback,
    SkippedFile,
    folders_above,
)
from .workspace import ScanOptions, Unreadable, WorkspaceFile, decode_text, in_flux, read_bytes, scan

Cancel = threading.Event | None  # set: the run stops at its next check

EARLY_PUBLISH_MIN = 2000  # more texts to embed than this: publish keyword/graph search first, vectors as they come
PUBLISH_EVERY = 5.0  # seconds between the generations that only add vectors
PRUNE_EVERY = 16  # generations between embedding-cache clean-ups (it scans the cache)
KEPT = "the version indexed before is kept"  # said of a file that changed under the run (_keep_in_flux)


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
    # This run's own exclude globs (on top of the workspace rules): they leave files out of the scan,
    # so a run whose globs leave no file where indexed files still stand is refused (_check_globs).
    exclude: tuple[str, ...] = ()

    @property
    def everything(self) -> bool:
        return "" in self.paths and not self.include

    def widened(self) -> Scope:
        """The whole workspace, this run's globs kept (a rebuild still leaves out what they exclude)."""
        return Scope(exclude=self.exclude)

    @cached_property
    def _folders(self) -> frozenset[str]:
        return frozenset(p.rstrip("/") for p in self.paths)

    def covers(self, path: str) -> bool:
        """O(depth of ``path``): a watcher's batch may name hundreds of paths."""
        folders = self._folders
        under = "" in folders or path in folders or any(folder in folders for folder in folders_above(path))
        return under and (not self.include or _spec(self.include).match_file(path))


EVERYTHING = Scope()


@dataclass
class _Run:
    """The state of one run, filled in as it goes."""

    report: IndexReport
    scope: Scope
    skipped: list[SkippedFile]
    staged: list[tuple[FileState, dict | None]] = field(default_factory=list)
    chunks: list[tuple[Chunk, str, str]] = field(default_factory=list)  # (chunk, text hash, tokens), analysed
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # text hash -> vector
    retired: list[int] = field(default_factory=list)  # chunk keys the published generation dropped
    added: set[int] = field(default_factory=set)  # chunk keys the published generation added
    # (key, text hash, text) of the chunks a deferred run published without a vector
    unembedded: list[tuple[int, str, str]] = field(default_factory=list)


class _Skip(Exception):
    """One file cannot be indexed; str() is the reason."""


class Indexer:
    def __init__(self, root: Path, index_dir: IndexDir, embedder: Embedder, merges: Merges | None = None):
        self.root = root
        self.index_dir = index_dir
        self.embedder = embedder
        self.merges = merges  # requests this run serves while it embeds (engine/merges.py)
        self.published_graph: CodeGraph | None = None  # the graph of the generation this run published
        self.published: int | None = None  # the last generation this run published

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
        folder = self.index_dir.path
        with self.index_dir.writer_lock(wait), catalog_errors(folder), storage_errors(folder):
            self.index_dir.clear_staging()
            found = self.index_dir.format_version()
            if found not in READS_FORMATS:
                if not force:
                    self.index_dir.check_format()  # raises, naming --force
                self.index_dir.write_format()  # the old generation is now unreadable: rebuilt below
                scope = scope.widened()
            elif found != FORMAT_VERSION:
                self.index_dir.write_format()  # read as it is; this run's generation is written in this format
            catalog = Catalog(self.index_dir.catalog_path, create=True, file_mode=self.index_dir.file_mode)
            try:
                fresh = catalog.index_id is None  # a new catalog: whatever a generation holds is not from it
                catalog.claim(self.index_dir.index_id() or "")
                return self._run(catalog, settings, force, scope, notify, cancel, started, fresh)
            finally:
                catalog.close()

    def _run(
        self,
        catalog: Catalog,
        settings: IndexSettings,
        force: bool,
        scope: Scope,
        notify: ProgressCallback,
        cancel: Cancel,
        started: float,
        fresh: bool,
    ) -> IndexReport:
        gen, damaged = self._current_generation()
        damaged = damaged or (fresh and gen > 0)
        catalog.discard_after(gen)
        if self._needs_rebuild(catalog, gen, settings, force):
            force, scope = True, scope.widened()  # a new model or chunking makes every old chunk stale
        run, gen, current, complete = self._update(catalog, gen, settings, scope, force, damaged, notify, cancel)
        if not complete:
            with self._after_publish(run):  # run.report.generation stands if completing fails on a full disk
                gen, current = self._complete(catalog, gen, run, settings, notify, cancel)
                run.report.generation = gen
        return self._finish(run, current, started, notify)

    def _update(
        self,
        catalog: Catalog,
        gen: int,
        settings: IndexSettings,
        scope: Scope,
        force: bool,
        damaged: bool,
        notify: ProgressCallback,
        cancel: Cancel,
        *,
        defer: bool = False,
    ) -> tuple[_Run, int, int, bool]:
        """Scan ``scope``, analyse what changed in it and publish that as generation ``gen + 1`` (or
        nothing, when nothing changed). Returns the run, the current generation, its chunk count and
        whether every chunk of it is known to have a vector. ``defer``: embed nothing now (a request
        served while embedding: its texts join that queue)."""
        notify(IndexProgress("scanning"))
        files, skipped = _scan_scope(self.root, settings, scope)
        run = _Run(IndexReport(generation=gen), scope, skipped)
        if not files and not skipped:
            run.report.warnings += _all_left_out(self.root, scope)
        previous = catalog.live_files(gen, scope.paths) if gen else {}  # a scoped run reads its scope's files only
        if not files:
            _check_globs(self.root, scope, previous)
        seen = {f.path for f in files}
        deleted = sorted(p for p in previous if scope.covers(p) and p not in seen)
        run.report.files_total = len(files)

        self._analyze_changed(run, files, previous, force, settings, notify, cancel)
        early = self._embed_before_publish(catalog, run, notify, cancel, defer)
        kept = _keep_in_flux(run, previous)
        deleted = [p for p in deleted if p not in kept]
        run.report.files_deleted = len(deleted)
        deleted += [s.path for s in run.skipped if s.path in previous and s.path not in kept]  # unreadable now
        complete = False  # whether every live chunk of ``gen`` is known to have its vector
        if gen and not (run.staged or deleted or force or damaged or self._skips_changed(gen, run)):
            current = read_manifest(self.index_dir.gen_path(gen))["chunks"]["total"]  # nothing to commit
        else:
            notify(IndexProgress("writing", len(files), len(files), len(run.chunks)))
            removed_paths = sorted(set(deleted) | ({s.path for s, _ in run.staged} & set(previous)))
            retired, added = catalog.stage(gen + 1, removed_paths, run.staged, run.chunks)
            rebuild = (force and scope.everything) or damaged
            current, embedded = self._publish(
                catalog, gen, settings, run, rebuild=rebuild, retired=retired, added=added, removed_paths=removed_paths
            )
            complete = embedded >= current
            gen = gen + 1
            run.retired, run.added = retired, set(added)
            if defer:
                run.unembedded = [
                    (k, h, c.indexed_text()) for k, (c, h, _) in zip(added, run.chunks) if h not in run.vectors
                ]
            run.chunks.clear()  # staged: _complete reads what it still needs from the catalog
            run.report.chunks_added = len(added)
            run.report.chunks_removed = len(retired)
            if early and not defer:
                notify(IndexProgress("embedding", len(files), len(files), current, embedded=embedded, searchable=True))
        run.report.generation = gen
        return run, gen, current, complete

    def _skips_changed(self, gen: int, run: _Run) -> bool:
        """Whether this run's skips differ from those ``gen`` lists (a file newly too large or
        unreadable, a skipped file gone): status must say so, so the run publishes."""
        gen_dir = self.index_dir.gen_path(gen)
        return _skip_set(read_manifest(gen_dir).get("skipped")) != _skip_set(_skips(gen_dir, run, rebuild=False))

    @contextmanager
    def _after_publish(self, run: _Run) -> Iterator[None]:
        """Work after this run published (clean-up, embedding the rest): a storage problem there (a
        full disk) does not make the run a failure — what it published answers — but a warning in
        its report, with the fix. (Damage and cancel still end the run as they would anywhere.)"""
        folder = self.index_dir.path
        try:
            with catalog_errors(folder), storage_errors(folder):
                yield
        except IndexProblem as err:
            if isinstance(err, IndexCorrupt) or self.published is None:
                raise
            run.report.generation = self.published
            run.report.warnings.append(f"generation {self.published} was published and answers; then {err}")

    def _finish(self, run: _Run, chunks_total: int, started: float, notify: ProgressCallback) -> IndexReport:
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
            check_generation(gen, self.index_dir.gen_path(gen))
        except IndexCorrupt:
            return gen, True
        return gen, False

    def _needs_rebuild(self, catalog: Catalog, gen: int, settings: IndexSettings, force: bool) -> bool:
        """A different model needs an explicit force; different chunking just triggers a rebuild."""
        if not gen:
            return False
        adopt_unhashed_model(catalog, self.embedder)
        if model_changed(catalog, self.embedder, force):
            return True
        return catalog.get_meta("chunking") != _chunking_key(settings)

    def _analyze_changed(
        self,
        run: _Run,
        files: list[WorkspaceFile],
        previous: dict[str, FileState],
        force: bool,
        settings: IndexSettings,
        notify: ProgressCallback,
        cancel: Cancel,
    ) -> None:
        """Chunk new and changed files (phase 1: no embedding yet)."""
        for done, f in enumerate(files):
            _check(cancel)
            old = previous.get(f.path)
            if not force and old and old.size == f.size and old.mtime == f.mtime:
                run.report.files_unchanged += 1
                continue
            notify(IndexProgress("indexing", done, len(files), len(run.chunks), f.path))
            try:
                data = read_bytes(f)
                digest = hashlib.blake2b(data, digest_size=16).hexdigest()
                if not force and old and old.hash == digest:  # touched, not changed
                    run.report.files_unchanged += 1
                    continue
                file_chunks, facts = _prepare_file(f, data, settings, file_budget(lambda: _check(cancel)))
            except (Unreadable, _Skip) as err:
                run.skipped.append(SkippedFile(f.path, str(err)))
                continue
            state = FileState(f.path, digest, f.size, f.mtime, f.source_type, f.language)
            run.staged.append((state, facts if settings.graph_enabled else None))
            run.report.files_indexed += 1
            run.chunks += file_chunks

    def _embed_before_publish(
        self, catalog: Catalog, run: _Run, notify: ProgressCallback, cancel: Cancel, defer: bool = False
    ) -> bool:
        """Take the analysed chunks' vectors from the cache and embed the rest now, unless there are
        more than ``EARLY_PUBLISH_MIN`` of them (or ``defer``): then they are left to :meth:`_complete` (True)."""
        uses = Counter(h for _, h, _ in run.chunks)
        run.vectors.update(catalog.cached_vectors(self.embedder.spec.key, list(uses)))
        texts = {h: c.indexed_text() for c, h, _ in run.chunks if h not in run.vectors}
        if defer or len(texts) > EARLY_PUBLISH_MIN:
            return True
        files = run.report.files_total
        embedded = sum(n for h, n in uses.items() if h in run.vectors)

        def reported(part: list[str]) -> None:
            nonlocal embedded
            embedded += sum(uses[h] for h in part)
            notify(IndexProgress("embedding", files, files, len(run.chunks), embedded=embedded))

        self._embed(catalog, texts, run, reported, cancel)
        return False

    def _embed(
        self,
        catalog: Catalog,
        texts: dict[str, str],
        run: _Run,
        reported: Callable[[list[str]], None],
        cancel: Cancel,
        between: Callable[[], list[str]] | None = None,
    ) -> None:
        """Embed ``texts`` (hash -> text, none of them cached) into ``run.vectors``, shortest first
        (the model pads every batch to its longest text), caching each group; ``reported`` gets the
        hashes of every group done. ``between()``, called between two batches, may add texts to
        ``texts`` and returns their hashes: they are embedded next."""
        model = self.embedder.spec.key
        order = sorted(texts, key=lambda h: len(texts[h]))
        group = self.embedder.group_size  # chunks embedded (and cached) between progress reports
        added: list[str] = []  # texts ``between`` added while a group was embedding

        def batch_done(_n: int) -> None:
            # A cancel is seen between two batches, not after a whole group (seconds on a busy
            # machine): a stopping server's job ends before the server does.
            _check(cancel)
            if between is not None:
                added.extend(between())

        at = 0
        while at < len(order):
            _check(cancel)
            if between is not None:
                added.extend(between())
                order[at:at] = sorted(added, key=lambda h: len(texts[h]))
                added.clear()
            part = order[at : at + group]
            at += len(part)
            embedded = self.embedder.embed([texts[h] for h in part], progress=batch_done)
            catalog.cache_vectors(model, zip(part, embedded))
            run.vectors.update(zip(part, embedded))
            run.report.chunks_embedded += len(part)
            reported(part)

    def _embedded(self, gen: int) -> int:
        vectors = VectorIndex.open(self.index_dir.gen_path(gen))
        return len(vectors) if vectors is not None else 0

    def _complete(
        self,
        catalog: Catalog,
        gen: int,
        run: _Run,
        settings: IndexSettings,
        notify: ProgressCallback,
        cancel: Cancel,
    ) -> tuple[int, int]:
        """Give every live chunk of generation ``gen`` in this run's scope its vector (phase 2): from
        the cache, else embedded, publishing a generation that only adds vectors every
        ``PUBLISH_EVERY`` seconds and at the end. Between batches it serves the requests handed to it
        (:mod:`.merges`): their files published at once for keyword and graph search, their texts
        embedded next. A scoped run (a save, the watcher, ``path=``) embeds only the chunks it added:
        what a cancelled or killed run left without a vector waits for the next run of the whole
        workspace, so a save (or a request that run refused) does not quietly resume it.
        Returns the last generation published and its chunk count."""
        total = read_manifest(self.index_dir.gen_path(gen))["chunks"]["total"] if gen else 0
        if not gen or self._embedded(gen) >= total:
            return gen, total
        opened = VectorIndex.open(self.index_dir.gen_path(gen))
        if opened is None:
            return gen, total
        vectors: VectorIndex = opened  # replaced by each generation a served request publishes
        rows = catalog.live_chunk_rows(gen)
        lacking: dict[str, list[int]] = {}
        everything = run.scope.everything
        for row, has in zip(rows, vectors.contains([r.key for r in rows])):
            if not has and (everything or row.key in run.added):
                lacking.setdefault(row.text_hash, []).append(row.key)
        if not lacking:
            return gen, total
        run.vectors.update(catalog.cached_vectors(self.embedder.spec.key, list(lacking)))
        ready = [h for h in lacking if h in run.vectors]
        firsts = [keys[0] for h, keys in lacking.items() if h not in run.vectors]
        texts = {_text_hash(c): c.indexed_text() for c in catalog.chunks_by_key(firsts).values()}
        files = run.report.files_total
        last, unpublished = time.monotonic(), False

        def add(part: list[str]) -> None:
            nonlocal gen, last, unpublished
            keys = [k for h in part for k in lacking[h]]
            if keys:
                vectors.update([], keys, np.stack([run.vectors[h] for h in part for _ in lacking[h]]))
            for h in part:  # in the index now: a 100k-chunk run holds each vector once
                del run.vectors[h]
            unpublished = True
            if time.monotonic() - last >= PUBLISH_EVERY:
                gen, last, unpublished = self._publish_vectors(gen, vectors), time.monotonic(), False
            notify(IndexProgress("embedding", files, files, total, embedded=len(vectors), searchable=True))

        def serve() -> list[str]:
            """Publish the files requested meanwhile; the hashes of their texts still to embed."""
            nonlocal gen, total, vectors, last, unpublished
            tickets = self.merges.take() if self.merges is not None else []
            if not tickets:
                return []
            before = gen
            try:
                if unpublished:  # the merge builds on the vectors embedded so far
                    gen, last, unpublished = self._publish_vectors(gen, vectors), time.monotonic(), False
                paths = tuple(sorted({p for t in tickets for p in t.paths}))
                started = time.monotonic()
                merged, gen, total, _ = self._update(
                    catalog, gen, settings, Scope(paths), False, False, lambda p: None, cancel, defer=True
                )
            except BaseException as err:
                for ticket in tickets:
                    ticket.error = err
                    ticket.done.set()
                raise
            merged.report.chunks_total = total
            merged.report.skipped = merged.skipped
            merged.report.duration_s = round(time.monotonic() - started, 3)
            for ticket in tickets:
                ticket.report = merged.report
                ticket.done.set()
            reopened = VectorIndex.open(self.index_dir.gen_path(gen)) if gen != before else None
            if reopened is not None:  # the merge's generation: its vectors patched by what it retired and added
                vectors = reopened
            retired = set(merged.retired)
            if retired:
                for keys in lacking.values():
                    keys[:] = [k for k in keys if k not in retired]
            first = []
            for key, h, text in merged.unembedded:
                if h not in lacking:
                    lacking[h], texts[h] = [], text
                    first.append(h)
                lacking[h].append(key)
            notify(IndexProgress("embedding", files, files, total, embedded=len(vectors), searchable=True))
            return first

        if self.merges is not None:
            self.merges.open()
            # Said at once (not after the first group): a requester queued while the run analysed
            # hands its paths over from now on (server/service.py, on this report).
            notify(IndexProgress("embedding", files, files, total, embedded=len(vectors), searchable=True))
        try:
            if ready:
                add(ready)
            self._embed(catalog, texts, run, add, cancel, between=serve if self.merges is not None else None)
        finally:
            if self.merges is not None:
                self.merges.close()
        return (self._publish_vectors(gen, vectors) if unpublished else gen), total

    def _publish_vectors(self, gen: int, vectors: VectorIndex) -> int:
        """Publish generation ``gen + 1``: ``gen`` with another vector index (every other file is
        hard-linked, its recorded digest kept). Returns the new generation."""
        old, new = self.index_dir.gen_path(gen), gen + 1
        manifest = read_manifest(old)
        staging = self.index_dir.staging(new)
        try:
            contents = {n: entry for n, entry in manifest["contents"].items() if not is_vector_file(n)}
            for name in contents:
                (staging / name).parent.mkdir(parents=True, exist_ok=True)
                link_or_copy(old / name, staging / name)
            manifest["contents"] = contents | describe_contents(staging, vectors.save(staging))
            manifest.update(
                generation=new, created=datetime.now(timezone.utc).isoformat(timespec="seconds"), vectors=len(vectors)
            )
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
        except BaseException:
            self.index_dir.discard(staging)
            raise
        self.index_dir.publish(new, staging)
        self.published = new
        vectors.moved(self.index_dir.gen_path(new))
        self.index_dir.collect_garbage({gen, new})
        return new

    def _publish(
        self,
        catalog: Catalog,
        gen: int,
        settings: IndexSettings,
        run: _Run,
        *,
        rebuild: bool,
        retired: list[int],
        added: list[int],
        removed_paths: list[str],
    ) -> tuple[int, int]:
        """Build generation ``gen + 1`` beside ``gen``, make it current; returns its chunk count and
        how many of its chunks have a vector.

        ``rebuild``: every derived index is built from the catalog's live rows instead of patching
        the previous generation's (filter columns, keywords, vectors, graph and counts are patched by
        what changed: ``retired`` and ``added`` chunk keys, ``removed_paths`` and this run's staged
        files), so a small change costs what it changes, not what the index holds."""
        new = gen + 1
        staging = self.index_dir.staging(new)
        try:
            chunks, vectors = self._stage_generation(
                catalog, gen, staging, settings, run, rebuild, retired, added, removed_paths
            )
        except BaseException as err:
            full = full_disk_behind(err, staging)  # before the partial files are removed
            self.index_dir.discard(staging)  # a full disk gets its space back; CURRENT still names ``gen``
            if full is not None:
                raise full from err
            raise
        self.index_dir.publish(new, staging)
        self.published = new
        with self._after_publish(run):
            catalog.set_meta(model=self.embedder.spec.key, chunking=_chunking_key(settings))
            catalog.forget_before(gen)
            self.index_dir.collect_garbage({gen, new})
            if rebuild or new % PRUNE_EVERY == 0:
                catalog.prune_vectors(self.embedder.spec.key)
        return chunks, len(vectors)

    def _stage_generation(
        self,
        catalog: Catalog,
        gen: int,
        staging: Path,
        settings: IndexSettings,
        run: _Run,
        rebuild: bool,
        retired: list[int],
        added: list[int],
        removed: list[str],
    ) -> tuple[int, VectorIndex]:
        """Write generation ``gen + 1``'s derived indexes and manifest into ``staging``; returns its
        chunk count and its vectors."""
        new = gen + 1
        previous = None if rebuild or not gen else self.index_dir.gen_path(gen)  # None: build from every row
        rows = _Rows(catalog, new)
        columns = self._columns(previous, rows, run, retired, added)
        columns.save(staging)
        keywords.next_generation(
            previous,
            columns.keys,
            retired,
            added,
            [tokens for _, _, tokens in run.chunks],
            lambda: [(r.key, r.tokens) for r in rows.all],
            settings.bm25_k1,
            settings.bm25_b,
        ).save(staging)
        vectors = self._vectors(catalog, previous, rows, run, retired, added)
        vectors.save(staging)
        graph_stats = {"entities": 0, "relations": 0, "by_relation": {}}
        if settings.graph_enabled:
            added_facts = {state.path: facts for state, facts in run.staged if facts is not None}
            graph = graph_store.next_generation(previous, removed, added_facts, lambda: catalog.live_facts(new))
            graph.save(staging)
            graph_stats = graph.stats()
            self.published_graph = graph
        files, chunks = _kind_counts(catalog, previous, new, run, rows, len(columns))
        manifest = {
            "generation": new,
            "format": FORMAT_VERSION,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "model": self.embedder.spec.to_dict() | {"dim": vectors.dim},
            "files": files,
            "chunks": chunks,
            "graph": graph_stats,
            "vectors": len(vectors),  # chunks with a vector: coverage without loading the vector index
            "skipped": _skips(self.index_dir.gen_path(gen), run, rebuild),
            "contents": describe_contents(staging, settle=True),
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
        return len(columns), vectors

    def _columns(
        self, previous: Path | None, rows: _Rows, run: _Run, retired: list[int], added: list[int]
    ) -> FilterColumns:
        """The previous generation's filter columns patched, else built from every live row."""
        if previous is not None:
            new_rows = [(k, c.source, c.source_type, c.language) for k, (c, _, _) in zip(added, run.chunks)]
            try:
                columns = FilterColumns.open(previous).patched(retired, new_rows)
            except Exception:  # removed or damaged since it was checked: built from the catalog
                columns = None
            if columns is not None:
                return columns
        return FilterColumns.build([(r.key, r.source, r.source_type, r.language) for r in rows.all])

    def _vectors(
        self, catalog: Catalog, previous: Path | None, rows: _Rows, run: _Run, retired: list[int], added: list[int]
    ) -> VectorIndex:
        """The vector index of the new generation: the previous one updated, or (no ``previous``) one
        built from every live chunk's vector, taken from the embedding cache."""
        try:
            index = VectorIndex.open(previous) if previous is not None else None
        except CorruptIndexFile:
            index = None  # its file matches the manifest but cannot be read: built from the cache
        if index is None:
            missing = [r.text_hash for r in rows.all if r.text_hash not in run.vectors]
            run.vectors.update(catalog.cached_vectors(self.embedder.spec.key, missing))
            index = VectorIndex.empty(self._dim(run))
            ready = [r for r in rows.all if r.text_hash in run.vectors]  # the rest: embedded by _complete
            if ready:
                index.update([], [r.key for r in ready], np.stack([run.vectors[r.text_hash] for r in ready]))
            return index
        fresh = [(k, run.vectors[h]) for k, (_, h, _) in zip(added, run.chunks) if h in run.vectors]
        matrix = np.stack([v for _, v in fresh]) if fresh else np.zeros((0, index.dim))
        index.update(retired, [k for k, _ in fresh], matrix)
        return index

    def _dim(self, run: _Run) -> int:
        some = next(iter(run.vectors.values()), None)
        return len(some) if some is not None else (self.embedder.dim or 384)


def model_changed(catalog: Catalog, embedder: Embedder, force: bool) -> bool:
    """Whether the index was built with another model, or another file under the same name (the
    recorded key carries the file's hash); without ``force`` that is an error. An index recorded
    before model files were hashed (the identity alone) is taken to be built with this file."""
    recorded = catalog.get_meta("model")
    if not recorded or recorded in (embedder.spec.key, embedder.spec.identity):
        return False
    if not force:
        raise ModelMismatch(
            f"this index was built with {recorded}, the configured model is "
            f"{embedder.spec.key}: re-index with force to rebuild it ({FIX_FORCE})"
        )
    return True


def adopt_unhashed_model(catalog: Catalog, embedder: Embedder) -> None:
    """An index recorded before model files were hashed: its cached vectors move to the hashed key."""
    spec = embedder.spec
    if spec.key != spec.identity and catalog.get_meta("model") == spec.identity:
        catalog.rename_vectors(spec.identity, spec.key)
        catalog.set_meta(model=spec.key)


def _keep_in_flux(run: _Run, previous: dict[str, FileState]) -> set[str]:
    """The indexed files this run could not read because they changed under it (``in_flux``): they
    are there, so the version indexed before stays searchable (its recorded size and time make the
    next run read them again), and their skip says so."""
    kept: set[str] = set()
    for i, s in enumerate(run.skipped):
        if s.path in previous and in_flux(s.reason):
            kept.add(s.path)
            run.skipped[i] = SkippedFile(s.path, f"{s.reason} ({KEPT})")
    return kept


def _prepare_file(
    f: WorkspaceFile, data: bytes, settings: IndexSettings, check: Callable[[], None]
) -> tuple[list[tuple[Chunk, str, str]], dict]:
    """One file's (chunk, text hash, tokens) and graph facts; _Skip (or Unreadable) when it cannot
    be indexed. Analysers run third-party parsers on untrusted text: any exception they raise is
    this file's problem only. ``check`` (cancel, the file's time budget) is called along the way."""
    text = decode_text(data)
    try:
        chunks, facts = analyze_file(f, text, settings.chunks, check)
        out = [(chunk, _text_hash(chunk), " ".join(tokenize(chunk.indexed_text()))) for chunk in chunks]
        _storable(f.path, chunks, facts)
    except (Unreadable, IndexCancelled):
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


def _check(cancel: Cancel) -> None:
    if cancel is not None and cancel.is_set():
        raise IndexCancelled("indexing was cancelled; the last generation keeps serving")


def _scan_scope(root: Path, settings: IndexSettings, scope: Scope) -> tuple[list[WorkspaceFile], list[SkippedFile]]:
    """Files and skips the scope covers (each file once)."""
    # gone from disk (os.path.exists is False, not an error, when it cannot be looked at): what was
    # indexed under it counts as deleted
    there = [p for p in scope.paths if not p or os.path.exists(root / p)]
    if not there:
        return [], []
    found, skips = scan(root, settings.scan, there)  # one walk for every path of the scope
    return [f for f in found if scope.covers(f.path)], [s for s in skips if scope.covers(s.path)]


def _check_globs(root: Path, scope: Scope, previous: Iterable[str]) -> None:
    """InvalidRequest when this run's include/exclude globs leave no file to index where indexed files
    are still on disk: the run would delete every one of them from the index (``--exclude '**'``
    emptied it without a word). Nothing is written; the last generation keeps serving. A run without
    globs of its own (a watcher's, a plain ``index``) and files gone from disk go on as before."""
    globs = [("exclude", scope.exclude), ("include", scope.include)]
    given = [(name, patterns) for name, patterns in globs if patterns]
    if not given:
        return
    standing = [p for p in previous if scope.covers(p) and os.path.lexists(root / p)]
    if not standing:
        return
    field_name = given[0][0]
    listed = [(name, ", ".join(repr(g) for g in patterns)) for name, patterns in given]
    shown = listed[0][1] if len(given) == 1 else " and ".join(f"{name} {globs}" for name, globs in listed)
    one = len(given) == 1 and len(given[0][1]) == 1
    where = "the workspace" if "" in scope.paths else ", ".join(repr(p) for p in scope.paths)
    some = f"{len(standing)} indexed files are" if len(standing) > 1 else "1 indexed file is"
    first = printable(min(standing)) + (", …" if len(standing) > 1 else "")
    raise InvalidRequest(
        field_name,
        f"{printable(shown)} leave{'s' if one else ''} no file to index in {printable(where)}, where"
        f" {some} still on disk ({first}): the run would remove every one from the index, so it was refused"
        " and the last index keeps serving as it was. Narrow the globs; to empty the index on purpose,"
        " `agent-brain-lab reset`",
    )


def _all_left_out(root: Path, scope: Scope) -> list[str]:
    """Why a run that found nothing to index or skip found nothing, when its scope is not empty: the
    rules left every file out (a .gitignore of ``*``, an include that matches nothing); else nothing."""
    for sub in scope.paths:
        target = root / sub
        try:
            if target.is_dir():
                with os.scandir(target) as entries:
                    there = any(e.name != ".agent-brain" for e in entries)
            else:
                there = target.exists()
        except OSError:  # cannot look: the scan said so, if it matters
            continue
        if there:
            where = repr(sub) if sub else "the workspace"
            return [
                f"nothing to index in {where}: .gitignore, the built-in excludes, the hidden-file rule"
                " or this run's include/exclude globs leave every file there out"
            ]
    return []


def _spec(globs: tuple[str, ...]) -> pathspec.PathSpec:
    return pathspec.PathSpec.from_lines("gitignore", globs)


def _chunking_key(settings: IndexSettings) -> str:
    chunks = settings.chunks
    return f"{chunks.chunk_size}/{chunks.chunk_overlap}/graph={settings.graph_enabled}/chunker={CHUNKER_VERSION}"


class _Rows:
    """The live chunk rows of a generation, read from the catalog only if something needs them all."""

    def __init__(self, catalog: Catalog, gen: int):
        self.catalog, self.gen = catalog, gen

    @cached_property
    def all(self) -> list[ChunkRow]:
        return self.catalog.live_chunk_rows(self.gen)


def count_by_kind(pairs: Iterable[tuple[str, str]]) -> dict:
    """Totals by source type and by language of (source_type, language) pairs."""
    return _adjusted({"total": 0, "by_source_type": {}, "by_language": {}}, list(pairs), [])


def _adjusted(counts: dict, added: list[tuple[str, str]], removed: list[tuple[str, str]]) -> dict:
    """``counts`` (of :func:`count_by_kind`) with ``added`` pairs counted in and ``removed`` ones out
    (ValueError if that leaves a count below zero: ``counts`` did not hold them)."""
    by_type, by_lang = Counter(counts["by_source_type"]), Counter(counts["by_language"])
    by_type.update(t for t, _ in added)
    by_lang.update(lang for _, lang in added)
    by_type.subtract(t for t, _ in removed)
    by_lang.subtract(lang for _, lang in removed)
    total = counts["total"] + len(added) - len(removed)
    if total < 0 or any(v < 0 for v in (*by_type.values(), *by_lang.values())):
        raise ValueError("the counts do not hold what was removed")
    return {
        "total": total,
        "by_source_type": {k: v for k, v in sorted(by_type.items()) if v},
        "by_language": {k: v for k, v in sorted(by_lang.items()) if v},
    }


def _kind_counts(
    catalog: Catalog, previous: Path | None, new: int, run: _Run, rows: _Rows, chunks: int
) -> tuple[dict, dict]:
    """The files and chunks of generation ``new`` by kind: the previous generation's counts adjusted by
    what this run retired and added, or (no ``previous``, or counts that do not add up to the
    ``chunks`` the new generation holds) counted over every live row."""
    if previous is not None:
        try:
            before = read_manifest(previous)
            files_out, chunks_out = catalog.retired_kinds(new)
            files = _adjusted(before["files"], [(s.source_type, s.language) for s, _ in run.staged], files_out)
            counted = _adjusted(before["chunks"], [(c.source_type, c.language) for c, _, _ in run.chunks], chunks_out)
            if counted["total"] == chunks:
                return files, counted
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # counted afresh below
    files = count_by_kind((f.source_type, f.language) for f in catalog.live_files(new).values())
    return files, count_by_kind((r.source_type, r.language) for r in rows.all)


def _skip_set(skips: object) -> set[tuple[str, str]]:
    """Skips as comparable (path, reason) pairs; what is not a list of skips counts as none."""
    if not isinstance(skips, list):
        return set()
    return {(str(s.get("path")), str(s.get("reason"))) for s in skips if isinstance(s, dict)}


def _skips(previous_gen: Path, run: _Run, rebuild: bool) -> list[dict]:
    """The new generation's skips: this run's, plus the previous generation's outside its scope."""
    kept: list[dict] = []
    if not rebuild:
        try:
            kept = [s for s in read_manifest(previous_gen).get("skipped", []) if not run.scope.covers(s["path"])]
        except (OSError, ValueError, KeyError, TypeError):
            kept = []
    return kept + [{"path": s.path, "reason": s.reason} for s in run.skipped]
