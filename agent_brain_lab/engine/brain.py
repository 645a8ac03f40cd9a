"""The Brain facade: open a workspace's index, index it, query it, describe it, reset it.

One ``Brain`` per workspace root and process. Many processes may open the same root: each reads
the generation ``CURRENT`` names (re-checked on every query) and only one writes at a time.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from . import retrieval
from .analysis import ChunkSettings
from .embedding import Embedder, resolve_model
from .indexer import Indexer, IndexSettings, count_by_kind, model_changed
from .snapshot import Snapshot
from .store.catalog import Catalog
from .store.generations import FORMAT_VERSION, INDEX_DIR, IndexDir, busy
from .store.graph import CodeGraph
from .types import (
    BrainError,
    IndexReport,
    InvalidRequest,
    NotIndexed,
    ProgressCallback,
    QueryRequest,
    QueryResponse,
    QueryResult,
)
from .workspace import ScanOptions, resolve_inside, scan


@dataclass(frozen=True)
class BrainConfig:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = 1_000_000
    include_hidden: bool = False
    chunk_size: int = 1500
    chunk_overlap: int = 200
    model: str | None = None
    model_path: str | None = None
    graph_enabled: bool = True
    bm25_k1: float = 1.2
    bm25_b: float = 0.75

    def updated(self, **overrides: Any) -> BrainConfig:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidRequest(unknown[0], "unknown setting")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items() if v is not None}
        config = replace(self, **values)
        if config.chunk_size < 100:
            raise InvalidRequest("chunk_size", "must be at least 100 characters")
        if not 0 <= config.chunk_overlap < config.chunk_size:
            raise InvalidRequest("chunk_overlap", "must be between 0 and chunk_size")
        if config.max_file_bytes < 1:
            raise InvalidRequest("max_file_bytes", "must be positive")
        return config


def find_workspace(start: str | Path) -> Path:
    """The nearest folder upward that holds an index, else ``start`` itself."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / INDEX_DIR).is_dir():
            return folder
    return start


class Brain:
    def __init__(self, root: str | Path, config: BrainConfig | None = None, **overrides: Any):
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise InvalidRequest("root", f"{self.root} is not a directory")
        self.config = (config or BrainConfig()).updated(**overrides)
        self._index_dir = IndexDir(self.root)
        self._model = resolve_model(self.config.model, self.config.model_path)
        self._embedder = Embedder(self._model)
        self._catalog: Catalog | None = None
        self._snapshot: Snapshot | None = None
        self._lock = threading.Lock()
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __repr__(self) -> str:
        return f"Brain({str(self.root)!r})"

    # ---------------------------------------------------------------- indexing

    def index(
        self,
        *,
        force: bool = False,
        path: str | Sequence[str] = "",
        include=None,
        exclude=None,
        chunk_size=None,
        chunk_overlap=None,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        wait: float = 0.0,
    ) -> IndexReport:
        """Bring the index up to date with the files (incrementally unless ``force``).

        ``path``: a file or folder relative to the root, or several; "" (the default) is everything.
        """
        config = self.config.updated(
            include=include, exclude=exclude, chunk_size=chunk_size, chunk_overlap=chunk_overlap
        )
        paths = [path] if isinstance(path, str) else list(path)
        scope = sorted({self.relative_path(p) for p in paths if p}) if paths and all(paths) else [""]
        if "" in scope:  # one of them is the root itself
            scope = [""]
        settings = IndexSettings(
            scan=_scan_options(config),
            chunks=ChunkSettings(config.chunk_size, config.chunk_overlap),
            graph_enabled=config.graph_enabled,
            bm25_k1=config.bm25_k1,
            bm25_b=config.bm25_b,
        )
        self._index_dir.ensure()
        indexer = Indexer(self.root, self._index_dir, self._open_catalog(), self._embedder)
        report = indexer.run(settings, force=force, scope=scope, progress=progress, cancel=cancel, wait=wait)
        if indexer.published_graph is not None:
            self._adopt(report.generation, indexer.published_graph)
        return report

    def check_can_index(self, force: bool = False) -> None:
        """Fail fast, before an index job is queued: another process is writing, or the model
        changed and ``force`` was not given. (``index`` checks again under the writer lock.)"""
        if self._index_dir.exists() and self._index_dir.writer_active():
            raise busy()
        if self.is_indexed():
            model_changed(self._open_catalog(), self._embedder, force)

    def admits(self, path: str) -> bool:
        """Whether the workspace rules (gitignore, excludes, hidden, type) take this file in."""
        rel = self.relative_path(path)
        files, skipped = scan(self.root, _scan_options(self.config), subpath=rel)
        return any(entry.path == rel for entry in (*files, *skipped))

    def relative_path(self, path: str) -> str:
        """A user path relative to the root, checked to stay inside it, as a POSIX path relative to the root."""
        resolved = resolve_inside(self.root, path)
        return resolved.relative_to(self.root).as_posix() if resolved != self.root else ""

    def reset(self) -> None:
        """Delete the index (waits for nobody: refuses while another writer runs)."""
        if not self._index_dir.exists():
            return
        with self._index_dir.writer_lock():
            with self._lock:
                self._snapshot = None
                if self._catalog is not None:
                    self._catalog.close()
                    self._catalog = None
            self._index_dir.remove()

    # ---------------------------------------------------------------- reading

    def warm(self) -> None:
        """Load the embedding model and the current generation's graph now, off the request path: a
        server does this at start so its first queries do not wait (about 0.6 s and, at 100k chunks, 2 s)."""
        if self.is_indexed():
            self._embedder.load()
            self._current_snapshot().graph  # noqa: B018  loading is the point

    def is_indexed(self) -> bool:
        return self._index_dir.current() > 0

    def query(self, query: str | dict | QueryRequest, **fields: Any) -> QueryResponse:
        started = time.perf_counter()
        if isinstance(query, QueryRequest):
            request = replace(query, **fields) if fields else query
        else:
            request = QueryRequest.build({**(query if isinstance(query, dict) else {"query": query}), **fields})
        snapshot = self._current_snapshot()
        catalog = self._open_catalog()
        ctx = retrieval.QueryContext(
            snapshot, request, self._embed_query, lambda ids: catalog.keys_of_chunk_ids(snapshot.gen, ids)
        )
        outcome = retrieval.search(ctx)
        rows = catalog.chunks_by_key([h.key for h in outcome.hits])
        results = [_result(rows[h.key], h) for h in outcome.hits if h.key in rows]
        return QueryResponse(
            query=request.query,
            mode=request.mode,
            results=results,
            total_results=len(results),
            query_time_ms=round((time.perf_counter() - started) * 1000, 2),
            query_entities=outcome.entities,
            fallback=outcome.fallback,
            generation=snapshot.gen,
            intent=outcome.intent,
            weights=outcome.weights,
        )

    def graph_entity(self, name: str, depth: int = 1) -> dict:
        """An entity, its neighbourhood up to ``depth`` hops, the edges among them and their chunks."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidRequest("name", "must be a non-blank entity name")
        if not isinstance(depth, int) or not 0 <= depth <= 3:
            raise InvalidRequest("depth", "must be between 0 and 3")
        snapshot = self._current_snapshot()
        graph = snapshot.graph
        name = name.strip()
        matches = ([name] if name in graph.g else graph.lookup(name)) if graph else []  # a node id, or a name
        reached = graph.neighbourhood(matches, depth) if matches else {}
        nodes = [{**graph.node(n), "hop": hop} for n, (hop, _) in reached.items()]
        chunk_ids = [n["chunk_id"] for n in nodes if n.get("chunk_id")]
        catalog = self._open_catalog()
        keys = catalog.keys_of_chunk_ids(snapshot.gen, chunk_ids)
        rows = catalog.chunks_by_key(list(keys.values()))
        return {
            "query": name,
            "matches": matches,
            "nodes": nodes,
            "edges": graph.edges_between(set(reached)) if reached else [],
            "chunks": [_result(rows[keys[c]], retrieval.Hit(keys[c], 0.0)).to_dict() for c in chunk_ids if c in keys],
        }

    def status(self) -> dict:
        state = "empty"
        info: dict[str, Any] = {
            "root": str(self.root),
            "generation": 0,
            "files": count_by_kind([]),
            "chunks": count_by_kind([]),
            "skipped": [],
            "graph": {"entities": 0, "relations": 0, "by_relation": {}},
            "model": self._model.to_dict() | {"dim": self._embedder.dim},
            "index_bytes": self._index_dir.size_bytes(),
            "last_indexed": None,
            "format_version": FORMAT_VERSION,
        }
        if self.is_indexed():
            snapshot = self._current_snapshot()
            manifest = snapshot.manifest  # written once per generation: polling status reads no index
            state = "ready"
            info.update(
                generation=snapshot.gen,
                files=manifest["files"],
                chunks=manifest["chunks"],
                graph=manifest["graph"],
                skipped=manifest["skipped"],
                last_indexed=manifest["created"],
                model=manifest["model"],
            )
        if self._index_dir.exists() and self._index_dir.writer_active():
            state = "indexing"
        return {"state": state, **info}

    # ---------------------------------------------------------------- internals

    def _open_catalog(self) -> Catalog:
        with self._lock:
            if self._catalog is None:
                self._index_dir.ensure()
                self._catalog = Catalog(self._index_dir.path / "catalog.sqlite")
            return self._catalog

    def _current_snapshot(self) -> Snapshot:
        """The generation CURRENT names, reopened only when it changed."""
        gen = self._index_dir.current()
        if not gen:
            raise NotIndexed(f"{self.root} has no index yet: index it first")
        with self._lock:
            if self._snapshot is None or self._snapshot.gen != gen:  # the format is checked once per generation
                if self._index_dir.format_version() != FORMAT_VERSION:
                    raise BrainError(
                        "this index was written by another version of Agent Brain Lab: re-index with force"
                    )
                self._snapshot = Snapshot(gen, self._index_dir.gen_path(gen))
            return self._snapshot

    def _adopt(self, gen: int, graph: CodeGraph) -> None:
        """Serve the generation this process just wrote with the graph still in memory: the first
        graph query after a re-index does not wait for the graph to load from disk."""
        with self._lock:
            if self._index_dir.current() == gen:
                self._snapshot = Snapshot(gen, self._index_dir.gen_path(gen), graph)

    def _embed_query(self, text: str) -> np.ndarray:
        """Query embeddings are cached: hybrid and multi, and users, repeat queries."""
        vector = self._query_vectors.get(text)
        if vector is None:
            vector = self._embedder.embed_query(text)
            self._query_vectors[text] = vector
            if len(self._query_vectors) > 256:
                self._query_vectors.popitem(last=False)
        return vector


def _scan_options(config: BrainConfig) -> ScanOptions:
    return ScanOptions(config.include, config.exclude, config.max_file_bytes, config.include_hidden)


def _result(chunk, hit) -> QueryResult:
    return QueryResult(
        chunk_id=chunk.chunk_id,
        text=chunk.text,
        source=chunk.source,
        source_type=chunk.source_type,
        language=chunk.language,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        score=round(hit.score, 6),
        vector_score=hit.vector_score,
        bm25_score=hit.bm25_score,
        graph_score=hit.graph_score,
        ranks=hit.ranks,
        symbol_name=chunk.symbol_name,
        symbol_type=chunk.symbol_type,
        parent_symbol=chunk.parent_symbol,
        section_path=chunk.section_path,
        cell_index=chunk.cell_index,
        related_entities=hit.related_entities,
        relationship_path=hit.relationship_path,
    )
