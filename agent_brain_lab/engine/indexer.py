"""The write path: scan, diff against the last generation, chunk, embed, stage, publish.

Only new or changed files are re-chunked and only chunk texts never seen by this model are
embedded (vectors are cached by text hash and persisted batch by batch, so an indexer killed
mid-way loses nothing it already paid for). The new generation becomes visible in one atomic step.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .analysis import ChunkSettings, analyze_file
from .embedding import Embedder
from .retrieval.filters import FilterColumns
from .snapshot import MANIFEST, read_manifest
from .store import graph as graph_store
from .store import keywords
from .store.catalog import Catalog, FileState
from .store.generations import IndexDir
from .store.graph import CodeGraph
from .store.vectors import VectorIndex
from .tokenizer import tokenize
from .types import Chunk, IndexCancelled, IndexProgress, IndexReport, ModelMismatch, ProgressCallback, SkippedFile
from .workspace import ScanOptions, Unreadable, decode_text, read_bytes, scan

EMBED_WAVE = 2048  # chunks gathered before embedding: sorted by length together, batches pad less
EMBED_GROUP = 256  # chunks embedded (and cached) between progress reports and cancel checks
PRUNE_EVERY = 16  # generations between embedding-cache clean-ups (it scans the cache)


@dataclass(frozen=True)
class IndexSettings:
    scan: ScanOptions
    chunks: ChunkSettings
    graph_enabled: bool
    bm25_k1: float
    bm25_b: float


class Indexer:
    def __init__(self, root: Path, index_dir: IndexDir, catalog: Catalog, embedder: Embedder):
        self.root = root
        self.index_dir = index_dir
        self.catalog = catalog
        self.embedder = embedder
        self.published_graph: CodeGraph | None = None  # the graph of the generation this run published

    def run(
        self,
        settings: IndexSettings,
        *,
        force: bool,
        scope: list[str],
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        wait: float,
    ) -> IndexReport:
        started = time.monotonic()
        notify = progress or (lambda p: None)
        with self.index_dir.writer_lock(wait):
            gen = self.index_dir.current()
            self.catalog.discard_after(gen)
            if self._needs_rebuild(gen, settings, force):
                force, scope = True, [""]  # a new model or chunking makes every old chunk stale
            report = IndexReport(generation=gen)
            notify(IndexProgress("scanning"))
            files, skipped = _scan_scope(self.root, settings, scope)
            previous = self.catalog.live_files(gen) if gen else {}
            seen = {f.path for f in files}
            deleted = sorted(p for p in previous if _under(p, scope) and p not in seen)
            report.files_total = len(files)
            report.files_deleted = len(deleted)

            staged, chunks, vectors = self._analyze_and_embed(
                files, previous, force, settings, skipped, report, notify, cancel
            )
            deleted += [s.path for s in skipped if s.path in previous]  # indexed before, unreadable now
            if gen and not (staged or deleted or force):  # nothing to commit: the current count stands
                current = read_manifest(self.index_dir.gen_path(gen))["chunks"]["total"]
                return self._finish(report, current, skipped, started, notify)

            notify(IndexProgress("writing", len(files), len(files), len(chunks)))
            removed_paths = sorted(set(deleted) | ({s.path for s, _ in staged} & set(previous)))
            retired, added = self.catalog.stage(gen + 1, removed_paths, staged, chunks)
            new_vectors = np.stack([vectors[h] for _, h, _ in chunks]) if chunks else None
            total = self._publish(
                gen,
                settings,
                rebuild=force and scope == [""],
                retired=retired,
                added=added,
                tokens=[t for _, _, t in chunks],
                changes=(removed_paths, {s.path: facts for s, facts in staged if facts is not None}),
                new_vectors=new_vectors,
                scope=scope,
                skipped=skipped,
            )
            report.generation = gen + 1
            report.chunks_added = len(added)
            report.chunks_removed = len(retired)
            return self._finish(report, total, skipped, started, notify)

    def _finish(
        self, report: IndexReport, chunks_total: int, skipped: list[SkippedFile], started: float, notify
    ) -> IndexReport:
        report.chunks_total = chunks_total
        report.skipped = skipped
        report.duration_s = round(time.monotonic() - started, 3)
        notify(IndexProgress("done", report.files_total, report.files_total, report.chunks_total))
        return report

    # ---------------------------------------------------------------- steps

    def _needs_rebuild(self, gen: int, settings: IndexSettings, force: bool) -> bool:
        """A different model needs an explicit force; different chunking just triggers a rebuild."""
        if not gen:
            return False
        if model_changed(self.catalog, self.embedder, force):
            return True
        return self.catalog.get_meta("chunking") != _chunking_key(settings)

    def _analyze_and_embed(self, files, previous, force, settings, skipped, report, notify, cancel):
        """Chunk new and changed files and embed their new chunk texts, a group at a time."""
        model = self.embedder.spec.identity
        staged: list[tuple[FileState, dict | None]] = []
        chunks: list[tuple[Chunk, str, str]] = []
        vectors: dict[str, np.ndarray] = {}
        pending: list[tuple[Chunk, str, str]] = []
        total = len(files)

        settled = 0  # files whose chunks are all embedded

        def flush(done: int, current: str | None) -> None:
            """Embed what the pending chunks need, in length order across the whole wave (the model
            pads every batch to its longest text); cache and report every group."""
            nonlocal settled
            missing = {h: c.indexed_text() for c, h, _ in pending if h not in vectors}
            vectors.update(self.catalog.cached_vectors(model, list(missing)))
            texts = {h: t for h, t in missing.items() if h not in vectors}
            hashes = sorted(texts, key=lambda h: len(texts[h]))
            for start in range(0, len(hashes), EMBED_GROUP):
                _check(cancel)
                part = hashes[start : start + EMBED_GROUP]
                embedded = self.embedder.embed([texts[h] for h in part])
                self.catalog.cache_vectors(model, zip(part, embedded))
                vectors.update(zip(part, embedded))
                report.chunks_embedded += len(part)
                notify(IndexProgress("embedding", settled, total, len(chunks) + start + len(part), current))
            chunks.extend(pending)
            pending.clear()
            settled = done

        for done, f in enumerate(files, 1):
            _check(cancel)
            old = previous.get(f.path)
            if not force and old and old.size == f.size and old.mtime == f.mtime:
                report.files_unchanged += 1
                continue
            notify(IndexProgress("indexing", settled, total, len(chunks) + len(pending), f.path))
            try:
                data = read_bytes(f)
                digest = hashlib.blake2b(data, digest_size=16).hexdigest()
                if not force and old and old.hash == digest:  # touched, not changed
                    report.files_unchanged += 1
                    continue
                file_chunks, facts = analyze_file(f, decode_text(data), settings.chunks)
            except Unreadable as err:
                skipped.append(SkippedFile(f.path, str(err)))
                continue
            state = FileState(f.path, digest, f.size, f.mtime, f.source_type, f.language)
            staged.append((state, facts if settings.graph_enabled else None))
            report.files_indexed += 1
            for chunk in file_chunks:
                indexed = chunk.indexed_text()
                h = hashlib.blake2b(indexed.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
                pending.append((chunk, h, " ".join(tokenize(indexed))))
            if len(pending) >= EMBED_WAVE:
                flush(done, f.path)
        flush(total, None)
        return staged, chunks, vectors

    def _publish(self, gen, settings, *, rebuild, retired, added, tokens, changes, new_vectors, scope, skipped) -> int:
        """Build generation ``gen + 1`` beside ``gen``, make it current; returns its chunk count."""
        new = gen + 1
        staging = self.index_dir.staging(new)
        rows = self.catalog.live_chunk_columns(new, "key, source, source_type, language")
        columns = FilterColumns.build(rows)
        columns.save(staging)
        previous = None if rebuild or not gen else self.index_dir.gen_path(gen)
        keywords.next_generation(
            previous,
            columns.keys,
            retired,
            added,
            tokens,
            lambda: self.catalog.live_chunk_columns(new, "key, tokens"),
            settings.bm25_k1,
            settings.bm25_b,
        ).save(staging)
        vectors = None if rebuild or not gen else VectorIndex.open(self.index_dir.gen_path(gen), writable=True)
        if vectors is None:
            dim = new_vectors.shape[1] if new_vectors is not None else (self.embedder.dim or 384)
            vectors, retired = VectorIndex.empty(dim), []
        if new_vectors is not None or retired:
            vectors.update(retired, added, new_vectors)
        vectors.save(staging)
        graph_stats = {"entities": 0, "relations": 0, "by_relation": {}}
        if settings.graph_enabled:
            removed_paths, added_facts = changes
            graph = graph_store.next_generation(
                previous, removed_paths, added_facts, lambda: self.catalog.live_facts(new)
            )
            graph.save(staging)
            graph_stats = graph.stats()
            self.published_graph = graph
        previous_skips = _previous_skips(self.index_dir.gen_path(gen), scope) if gen and not rebuild else []
        manifest = {
            "generation": new,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "model": self.embedder.spec.to_dict() | {"dim": vectors.dim},
            "files": count_by_kind((f.source_type, f.language) for f in self.catalog.live_files(new).values()),
            "chunks": count_by_kind((r[2], r[3]) for r in rows),
            "graph": graph_stats,
            "skipped": previous_skips + [{"path": s.path, "reason": s.reason} for s in skipped],
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
        self.index_dir.publish(new, staging)
        self.catalog.set_meta(model=self.embedder.spec.identity, chunking=_chunking_key(settings))
        self.catalog.forget_before(gen)
        self.index_dir.collect_garbage({gen, new})
        if rebuild or new % PRUNE_EVERY == 0:
            self.catalog.prune_vectors(self.embedder.spec.identity)
        return len(rows)


def model_changed(catalog: Catalog, embedder: Embedder, force: bool) -> bool:
    """Whether the index was built with another model; without ``force`` that is an error."""
    recorded = catalog.get_meta("model")
    if not recorded or recorded == embedder.spec.identity:
        return False
    if not force:
        raise ModelMismatch(
            f"this index was built with {recorded}, the configured model is "
            f"{embedder.spec.identity}: re-index with force to rebuild it"
        )
    return True


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise IndexCancelled("indexing was cancelled; the last generation keeps serving")


def _scan_scope(root: Path, settings: IndexSettings, scope: list[str]):
    """Files and skips under any of the scope's paths (each file once)."""
    files, skipped = {}, {}
    for subpath in scope:
        found, skips = scan(root, settings.scan, subpath)
        files.update((f.path, f) for f in found)
        skipped.update((s.path, s) for s in skips)
    return sorted(files.values(), key=lambda f: f.path), sorted(skipped.values(), key=lambda s: s.path)


def _under(path: str, scope: list[str]) -> bool:
    return any(not sub or path == sub or path.startswith(sub.rstrip("/") + "/") for sub in scope)


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


def _previous_skips(gen_dir: Path, scope: list[str]) -> list[dict]:
    try:
        skipped = read_manifest(gen_dir).get("skipped", [])
    except (OSError, ValueError):
        return []
    return [s for s in skipped if not _under(s["path"], scope)]
