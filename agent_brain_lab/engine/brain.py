"""The Brain facade: open a workspace's index, index it, query it, describe it, reset it.

One ``Brain`` per workspace root and process. Many processes may open the same root: each reads
the generation ``CURRENT`` names and only one writes at a time. Every read re-checks the index's
identity (index id, generation, catalog file): when another process reset, rebuilt or restored the
index, the catalog connection and the snapshot are reopened together, so chunk keys are only ever
looked up in the catalog they came from.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import retrieval
from .analysis import ChunkSettings
from .config import BrainConfig
from .embed_dask import embedder_for
from .embedding import Embedder, resolve_model
from .highlight import highlight_ranges, query_terms
from .indexer import Indexer, IndexSettings, Scope, count_by_kind, model_changed
from .query_vectors import QueryVectors
from .retrieval.names import name_index
from .snapshot import Snapshot
from .store.catalog import Catalog, CatalogChanged, catalog_errors
from .store.generations import FIX_RESET, FORMAT_VERSION, INDEX_DIR, IndexDir, busy
from .store.graph import CodeGraph
from .types import (
    Chunk,
    GraphNeighbourhood,
    GraphRequest,
    IndexCorrupt,
    IndexReport,
    IndexRequest,
    IndexStatus,
    InvalidRequest,
    NotIndexed,
    ProgressCallback,
    QueryRequest,
    QueryResponse,
    QueryResult,
    WorkspaceBusy,
)
from .workspace import ScanOptions, resolve_inside, scan


@dataclass(frozen=True)
class _View:
    """What a reader holds open: one catalog and one generation of the same index."""

    identity: tuple
    catalog: Catalog
    snapshot: Snapshot


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
        self._view: _View | None = None
        self._lock = threading.Lock()
        self._query_vectors = QueryVectors(self._embedder.embed_query)

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
        missing_ok: bool = False,
        dask_scheduler: str | None = None,
    ) -> IndexReport:
        """Bring the index up to date with the files (incrementally unless ``force``).

        ``path``: a file or folder relative to the root, or several; "" (the default) is everything.
        ``path`` and ``include`` scope the run: only the files they cover are scanned, updated or
        removed; every other indexed file stays as it is. ``exclude`` adds to the workspace rules.
        A path gone from disk that was indexed is removed from the index; one that was never indexed
        is an error, unless ``missing_ok`` (a watcher's batch: a file created and deleted again).
        ``dask_scheduler``: embed on that Dask cluster for this run ("": locally); default: the config's.
        """
        request = IndexRequest.build(
            dict(
                path=path,
                force=force,
                include=include,
                exclude=exclude,
                chunk_size=chunk_size,
                chunk_overlap=chunk_overlap,
            )
        )
        overrides = request.settings()
        include = overrides.pop("include", ())  # narrows this run's scope, not the workspace rules
        config = self.config.updated(**overrides, dask_scheduler=dask_scheduler)
        force, paths = request.force, list(request.paths)
        subpaths = self._scope(paths, missing_ok) if paths and all(paths) else [""]
        scope = Scope(("",) if "" in subpaths else tuple(subpaths), tuple(include))
        settings = IndexSettings(
            scan=_scan_options(config),
            chunks=ChunkSettings(config.chunk_size, config.chunk_overlap),
            graph_enabled=config.graph_enabled,
            bm25_k1=config.bm25_k1,
            bm25_b=config.bm25_b,
        )
        with embedder_for(self._embedder, config.dask_scheduler, cancel) as embedder:
            indexer = Indexer(self.root, self._index_dir, embedder)
            report = indexer.run(settings, force=force, scope=scope, progress=progress, cancel=cancel, wait=wait)
        if indexer.published_graph is not None:
            self._adopt(report.generation, indexer.published_graph)
        return report

    def check_can_index(self, force: bool = False) -> None:
        """Fail fast, before an index job is queued: another process is writing, the catalog is
        unreadable, or the model or format changed and ``force`` was not given. (``index`` checks again
        under the writer lock.)"""
        self._index_dir.check_folder()
        for _ in range(3):
            identity = self._index_dir.identity()
            try:
                return self._check_can_index(force)
            except IndexCorrupt:
                if not self._replaced(identity):
                    raise  # damage, not files removed under us by a reset or publish
        raise busy()

    def _check_can_index(self, force: bool) -> None:
        if self._index_dir.exists() and self._index_dir.writer_active():
            raise busy()
        if self.is_indexed():
            if not force:
                self._index_dir.check_format()
            catalog = Catalog(self._index_dir.catalog_path)
            try:
                with catalog_errors():
                    model_changed(catalog, self._embedder, force)
            finally:
                catalog.close()

    def admits(self, path: str) -> bool:
        """Whether the workspace rules (gitignore, excludes, hidden, type) take this file in
        (a folder: any file under it)."""
        rel = self.relative_path(path)
        files, skipped = scan(self.root, _scan_options(self.config), subpath=rel)
        found = [f.path for f in files] + [s.path for s in skipped]
        return any(p == rel or p.startswith(rel + "/") for p in found)

    def indexed(self, paths: Sequence[str]) -> set[str]:
        """Those of ``paths`` (root-relative) that the current generation holds: a file, or a folder
        with files in it. Works for paths gone from disk, which is what a watcher asks about."""
        if not self.is_indexed():
            return set()
        files = sorted(self._read(lambda view: view.catalog.live_files(view.snapshot.gen)))
        found = set()
        for rel in paths:
            folder = rel.rstrip("/") + "/" if rel else ""
            at = bisect.bisect_left(files, rel)  # the file itself, else the first file under the folder
            if at < len(files) and (files[at] == rel or files[at].startswith(folder)):
                found.add(rel)
        return found

    def relative_path(self, path: str, must_exist: bool = True) -> str:
        """A user path relative to the root, checked to stay inside it, as a POSIX path relative to the root."""
        resolved = resolve_inside(self.root, path, must_exist=must_exist)
        return resolved.relative_to(self.root).as_posix() if resolved != self.root else ""

    def _scope(self, paths: list[str], missing_ok: bool) -> list[str]:
        """Root-relative paths to index: those on disk, and those gone from disk but still indexed."""
        scope: set[str] = set()
        missing: dict[str, InvalidRequest] = {}
        for path in paths:
            try:
                scope.add(self.relative_path(path))
            except InvalidRequest as err:
                missing[self.relative_path(path, must_exist=False)] = err  # raises again for a bad path
        known = self.indexed(list(missing)) if missing else set()
        for rel, error in missing.items():
            if rel in known:
                scope.add(rel)
            elif not missing_ok:
                raise error
        return sorted(scope)

    def reset(self) -> None:
        """Delete the index, whatever state it is in (refuses while another writer runs)."""
        self._forget()
        if not self._index_dir.exists():
            self._index_dir.remove()  # nothing, or garbage where the folder belongs
            return
        with self._index_dir.writer_lock():
            self._forget()
            self._index_dir.remove()

    # ---------------------------------------------------------------- reading

    def warm(self) -> None:
        """Load the embedding model, the current generation's graph and its name index now, off the
        request path: a server does this at start so its first queries do not wait (about 0.6 s and,
        at 100k chunks, several seconds)."""
        if self.is_indexed():
            self._embedder.load()
            try:
                graph = self._current_view().snapshot.graph
                if graph is not None:
                    name_index(graph)  # multi's names leg: built once per graph
            except (IndexCorrupt, NotIndexed):
                pass  # status says what is wrong; queries raise it

    def is_indexed(self) -> bool:
        """Whether there is an index (a readable one or not: ``status()`` tells which)."""
        try:
            return self._index_dir.current() > 0
        except IndexCorrupt:
            return True

    def query(self, query: str | dict | QueryRequest, **fields: Any) -> QueryResponse:
        started = time.perf_counter()
        if isinstance(query, QueryRequest):
            request = QueryRequest.build({**query.to_dict(), **fields}) if fields else query
        else:
            request = QueryRequest.build({**(query if isinstance(query, dict) else {"query": query}), **fields})
        return self._read(lambda view: self._query(view, request, started))

    def _query(self, view: _View, request: QueryRequest, started: float) -> QueryResponse:
        snapshot, catalog = view.snapshot, view.catalog
        # Modes that always rank by meaning start the query's embedding now, beside their other work;
        # bm25 never loads the model, graph only when it has chunks to order (or falls back to vector).
        always = request.mode in ("vector", "hybrid", "multi")
        vectors = self._query_vectors.soon(request.query) if always else self._query_vectors.get
        ctx = retrieval.QueryContext(
            snapshot, request, vectors, lambda ids: catalog.keys_of_chunk_ids(snapshot.gen, ids), catalog.chunks_by_key
        )
        outcome = retrieval.search(ctx)
        rows = catalog.chunks_by_key([h.key for h in outcome.hits])
        terms = query_terms(request.query)
        results = [_result(rows[h.key], h, terms) for h in outcome.hits if h.key in rows]
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
            coverage=snapshot.coverage,
        )

    def graph_entity(self, name: str | GraphRequest, depth: int = 1) -> GraphNeighbourhood:
        """An entity, its neighbourhood up to ``depth`` hops, the edges among them and their chunks
        (a ``GraphRequest`` a front door already built is used as it is)."""
        request = name if isinstance(name, GraphRequest) else GraphRequest.build({"name": name, "depth": depth})
        return self._read(lambda view: _neighbourhood(view, request.name, request.depth))

    def status(self) -> IndexStatus:
        """The index's state (ready | indexing | empty | corrupt) and what it holds. Reads only the
        current generation's manifest once it has been opened: polling status costs no index work."""
        status = IndexStatus(
            state="empty",
            root=str(self.root),
            generation=0,
            files=count_by_kind([]),
            chunks=count_by_kind([]),
            skipped=[],
            graph={"entities": 0, "relations": 0, "by_relation": {}},
            model=self._model.to_dict() | {"dim": self._embedder.dim},
            index_bytes=self._index_dir.size_bytes(),
            last_indexed=None,
            format_version=FORMAT_VERSION,
        )
        try:
            view = self._current_view()
        except NotIndexed:
            pass
        except IndexCorrupt as err:
            status.state, status.problem, status.fix = "corrupt", err.problem, err.fix
            status.index_id = self._index_dir.index_id() if self._index_dir.exists() else None
        else:
            manifest = view.snapshot.manifest
            status.state = "ready"
            status.generation = view.snapshot.gen
            status.index_id = view.catalog.index_id
            status.files, status.chunks, status.graph = manifest["files"], manifest["chunks"], manifest["graph"]
            status.skipped, status.model = manifest["skipped"], manifest["model"]
            status.last_indexed = manifest["created"]
            status.coverage = view.snapshot.coverage
        if self._index_dir.exists() and self._index_dir.writer_active():
            status.state = "indexing"
        return status

    # ---------------------------------------------------------------- internals

    def _read(self, work: Callable[[_View], Any]) -> Any:
        """Run ``work`` on the current view; a catalog replaced under it (reset and re-indexed by
        another process between the identity check and a connection) is reopened and tried again."""
        doubted = False
        for _ in range(3):
            view = self._current_view()
            try:
                with catalog_errors():
                    return work(view)
            except CatalogChanged:
                self._forget(view)
            except IndexCorrupt:
                if not self._replaced(view.identity):
                    if doubted:
                        raise  # seen twice, from two fresh opens: damage
                    doubted = True  # a connection misled by files replaced under it: a second look decides
                self._forget(view)  # files removed under a reader by a publish or reset, not damage: look again
        raise WorkspaceBusy("the index was replaced by another process while reading it: try again")

    def _current_view(self, written: tuple[int, CodeGraph] | None = None) -> _View:
        """The catalog and generation of the index on disk, reopened together when its identity
        (index id, generation, catalog file) changed since the last read.

        ``written``: (generation, graph) this process just published: served with the graph still in
        memory and without re-reading the files it just wrote."""
        self._index_dir.check_folder()
        moving = False  # whether the last attempt saw the index replaced under it
        doubted = None  # the identity under which a catalog was first found not to match INDEX_ID
        for _ in range(3):
            if doubted is not None:
                time.sleep(0.05)  # outside the lock: let a reset that replaces the catalog's files finish
            identity = self._index_dir.identity()
            index_id, gen, *_ = identity
            if not gen:
                self._forget()
                raise NotIndexed(f"{self.root} has no index yet: index it first")
            with self._lock:
                if self._view is not None and self._view.identity == identity:
                    try:
                        with catalog_errors():
                            if self._view.catalog.same_index():
                                return self._view
                    except IndexCorrupt:
                        pass  # damage, or a catalog removed by a reset since the check: a fresh open decides
                    except CatalogChanged:
                        pass  # its file was replaced since this connection opened it: reopen below
                    self._view.catalog.close()  # another catalog was copied over the file: reopen
                # a later generation of the same index: what it shares with this one is not loaded twice
                before = self._view.snapshot if self._view is not None and self._view.identity[0] == index_id else None
                self._view = None
                try:
                    self._index_dir.check_format()
                    catalog = Catalog(self._index_dir.catalog_path)
                except IndexCorrupt:
                    if self._replaced(identity):
                        continue  # a reset or publish removed files under us: look again
                    raise
                try:
                    moving = self._replaced(identity)
                    if catalog.index_id != index_id and not moving:
                        # seen twice under one identity (a connection opened while a reset replaced the
                        # catalog's files can misread once): a catalog from another index
                        if doubted == identity:
                            raise IndexCorrupt(
                                ".agent-brain/catalog.sqlite does not belong to the index INDEX_ID names", FIX_RESET
                            )
                        doubted = identity
                    if catalog.index_id != index_id or moving:
                        continue  # replaced while we opened it: look again
                    graph = written[1] if written and written[0] == gen else None
                    snapshot = Snapshot(
                        gen, self._index_dir.gen_path(gen), graph, verify=graph is None, previous=before
                    )
                    self._view = _View(identity, catalog, snapshot)
                    return self._view
                except IndexCorrupt:
                    if self._replaced(identity):
                        continue  # the generation was collected while we loaded it: look again
                    raise
                finally:
                    if self._view is None:
                        catalog.close()
        raise WorkspaceBusy("the index is being replaced by another process: try again in a moment")

    def _replaced(self, identity: tuple) -> bool:
        """Whether the index on disk is no longer the one ``identity`` describes (an unreadable
        CURRENT counts as not replaced: that is damage to report)."""
        try:
            return self._index_dir.identity() != identity
        except IndexCorrupt:
            return False

    def _forget(self, view: _View | None = None) -> None:
        """Drop the open view (only ``view``, if given: another thread may have replaced it already)."""
        with self._lock:
            if self._view is not None and (view is None or self._view is view):
                self._view.catalog.close()
                self._view = None

    def _adopt(self, gen: int, graph: CodeGraph) -> None:
        """Serve the generation this process just wrote with the graph still in memory, its name
        index built here: the first graph or multi query after a re-index does not wait for either."""
        try:
            self._current_view(written=(gen, graph))
            name_index(graph)
        except (IndexCorrupt, NotIndexed, WorkspaceBusy):
            pass  # replaced or broken since: the next read reports it


def _neighbourhood(view: _View, name: str, depth: int) -> GraphNeighbourhood:
    snapshot, catalog = view.snapshot, view.catalog
    graph = snapshot.graph
    matches = ([name] if name in graph.g else graph.lookup(name)) if graph else []  # a node id, or a name
    reached = graph.neighbourhood(matches, depth) if graph and matches else {}
    nodes = [{**graph.node(n), "hop": hop} for n, (hop, _) in reached.items()] if graph else []
    chunk_ids = [n["chunk_id"] for n in nodes if n.get("chunk_id")]
    keys = catalog.keys_of_chunk_ids(snapshot.gen, chunk_ids)
    rows = catalog.chunks_by_key(list(keys.values()))
    return GraphNeighbourhood(
        query=name,
        matches=matches,
        nodes=nodes,
        edges=graph.edges_between(set(reached)) if graph and reached else [],
        chunks=[_result(rows[keys[c]], retrieval.Hit(keys[c], 0.0)).to_dict() for c in chunk_ids if c in keys],
    )


def _scan_options(config: BrainConfig) -> ScanOptions:
    return config.scan_options()


def _result(chunk: Chunk, hit: retrieval.Hit, terms: frozenset[str] = frozenset()) -> QueryResult:
    """A hit on ``chunk``, with the characters matching the query's keyword ``terms`` marked."""
    return QueryResult.of(chunk, hit, highlight_ranges(chunk.text, terms))
