"""The Brain facade: open a workspace's index, index it, query it, describe it, reset it.

One ``Brain`` per workspace root and process. Many processes may open the same root: each reads
the generation ``CURRENT`` names and only one writes at a time. Reads go through the Brain's
:class:`~agent_brain_lab.engine.reader.IndexReader`, which reopens catalog and snapshot together
when another process reset, rebuilt or restored the index (see ``engine/reader.py``).
"""

from __future__ import annotations

import bisect
import gc
import os
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import retrieval
from .analysis import ChunkSettings
from .config import BrainConfig
from .embed_dask import embedder_for
from .embedding import Embedder, resolve_model
from .explore import explore
from .highlight import highlight_texts, query_terms
from .indexer import Indexer, IndexSettings, Scope, count_by_kind, model_changed
from .merges import Merges
from .native import release_free_memory
from .query_vectors import QueryVectors
from .reader import IndexReader, View
from .retrieval.names import name_index
from .snapshot import Snapshot
from .store.catalog import Catalog, catalog_errors
from .store.generations import CATALOG, FIX_FORCE, FORMAT_VERSION, INDEX_DIR, IndexDir, busy
from .store.graph import CodeGraph
from .store.storage import disk_full_problem, read_only_problem
from .types import (
    CHUNK_TEXT,
    GraphNeighbourhood,
    GraphRequest,
    IndexCorrupt,
    IndexProblem,
    IndexReport,
    IndexRequest,
    IndexStatus,
    InvalidRequest,
    NotIndexed,
    ProgressCallback,
    QueryRequest,
    QueryResponse,
    QueryResult,
    ResetReport,
    ResetRequest,
    StatusRequest,
    WorkspaceBusy,
    no_entity_note,
)
from .workspace import ScanOptions, resolve_inside, scan


def find_workspace(start: str | Path) -> Path:
    """The nearest folder upward that holds an index, else ``start`` itself."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if os.path.isdir(folder / INDEX_DIR):  # False (not an error) for a folder one may not look into
            return folder
    return start


class Brain:
    def __init__(self, root: str | Path, config: BrainConfig | None = None, **overrides: Any):
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise InvalidRequest("root", f"{Path(root).name or 'the workspace root'!r} is not a directory")
        self.config = (config or BrainConfig()).updated(**overrides)
        self._index_dir = IndexDir(self.root, shared=bool(self.config.share_index_with_group))
        self._model = resolve_model(self.config.model, self.config.model_path)
        self._embedder = Embedder(self._model)
        self._reader = IndexReader(self._index_dir)
        self._query_vectors = QueryVectors(self._embedder.embed_query)
        self._merges = Merges()  # requests handed to this Brain's run while it embeds

    def __repr__(self) -> str:
        return f"Brain({str(self.root)!r})"

    # ---------------------------------------------------------------- indexing

    def index(
        self,
        *,
        force: bool = False,
        path: str | Sequence[str] = "",
        include: str | Sequence[str] | None = None,
        exclude: str | Sequence[str] | None = None,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
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

        While a run of this Brain is embedding (a first index can take an hour), a plain request for
        some paths is handed to it (see :attr:`merging`): it publishes them for keyword and graph
        search between two embedding batches, queues their embedding, and this call returns as soon
        as they are published (the report of that step).
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
        if "exclude" in overrides:  # on top of the configured excludes: a run's own never lets those files in
            overrides["exclude"] = tuple(dict.fromkeys((*self.config.exclude, *overrides["exclude"])))
        config = self.config.updated(**overrides, dask_scheduler=dask_scheduler)
        force, paths = request.force, list(request.paths)
        subpaths = self._scope(paths, missing_ok) if paths and all(paths) else [""]
        scope = Scope(("",) if "" in subpaths else tuple(subpaths), tuple(include), request.exclude or ())
        if not (force or scope.everything or include or overrides or dask_scheduler):
            ticket = self._merges.offer(scope.paths)  # None: no run of this Brain is embedding
            merged = ticket.wait(cancel) if ticket is not None else None
            if merged is not None:
                return merged
            # no run took it (or it ended first): run on our own below, waiting for the writer lock
        settings = IndexSettings(
            scan=_scan_options(config),
            chunks=ChunkSettings(config.chunk_size, config.chunk_overlap),
            graph_enabled=config.graph_enabled,
            bm25_k1=config.bm25_k1,
            bm25_b=config.bm25_b,
        )
        with embedder_for(self._embedder, config.dask_scheduler, cancel) as embedder:
            indexer = Indexer(self.root, self._index_dir, embedder, self._merges)
            report = indexer.run(settings, force=force, scope=scope, progress=progress, cancel=cancel, wait=wait)
        if indexer.published_graph is not None:
            self._adopt(report.generation, indexer.published_graph)
        return report

    @property
    def merging(self) -> bool:
        """Whether a run of this Brain is embedding and takes plain path requests (``index(path=...)``)
        into its queue: they are searchable by keyword and graph within a batch, not after the run."""
        return self._merges.accepting

    def check_can_index(self, force: bool = False) -> None:
        """Fail fast, before an index job is queued: another process is writing, the catalog is
        unreadable, or the model or format changed and ``force`` was not given. (``index`` checks again
        under the writer lock.) A folder this process cannot write is :class:`IndexReadOnly` at once."""
        self._index_dir.check_folder()
        problem = read_only_problem(self._index_dir.path)
        if problem is not None:
            raise problem
        self._reader.settled(lambda: self._check_can_index(force))

    def _check_can_index(self, force: bool) -> None:
        if self._index_dir.exists() and self._index_dir.writer_active():
            raise busy()
        if self.has_index():
            if not force:
                self._index_dir.check_format()
            catalog = Catalog(self._index_dir.catalog_path)
            try:
                with catalog_errors(self._index_dir.path, reading=True):
                    model_changed(catalog, self._embedder, force)
            finally:
                catalog.close()

    def admits(self, path: str) -> bool:
        """Whether the workspace rules (gitignore, excludes, hidden, type) take this file in
        (a folder: any file under it)."""
        rel = self.relative_path(path)
        return rel in self._admitted([rel])

    def admitted(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` :meth:`admits`, in one walk (a watcher's batch may name thousands in one
        folder: a walk each listed that folder each time); one that cannot be looked at (gone
        meanwhile, out of the root) is not."""
        given: dict[str, list[str]] = {}  # two spellings of one path ("./a.md", "a.md") are one
        for path in paths:
            try:
                given.setdefault(self.relative_path(path), []).append(path)
            except InvalidRequest:
                continue
        return {path for rel in self._admitted(list(given)) for path in given[rel]}

    def _admitted(self, rels: list[str]) -> set[str]:
        if not rels:
            return set()
        files, skipped = scan(self.root, _scan_options(self.config), subpath=rels)
        found = sorted([f.path for f in files] + [s.path for s in skipped])
        admitted = set()
        for rel in rels:  # the file itself, else the first one under the folder
            at = bisect.bisect_left(found, rel)
            if at < len(found) and (found[at] == rel or found[at].startswith(rel + "/" if rel else "")):
                admitted.add(rel)
        return admitted

    def indexed(self, paths: Sequence[str]) -> set[str]:
        """Those of ``paths`` (root-relative) that the current generation holds: a file, or a folder
        with files in it. Works for paths gone from disk, which is what a watcher asks about."""
        if not self.has_index():
            return set()
        files = sorted(self._reader.read(lambda view: view.catalog.live_files(view.snapshot.gen)))
        found = set()
        for rel in paths:
            folder = rel.rstrip("/") + "/" if rel else ""
            at = bisect.bisect_left(files, rel)  # the file itself, else the first file under the folder
            if at < len(files) and (files[at] == rel or files[at].startswith(folder)):
                found.add(rel)
        return found

    def indexed_in(self, folder: str) -> list[str]:
        """The files the current generation holds directly in ``folder`` (root-relative, "" the root),
        sorted: what a watcher compares with a folder's entries to find files gone unseen."""
        if not self.has_index():
            return []
        under = self._reader.read(lambda view: view.catalog.live_files(view.snapshot.gen, under=(folder,)))
        prefix = folder.rstrip("/") + "/" if folder else ""
        return sorted(p for p in under if p.startswith(prefix) and "/" not in p[len(prefix) :])

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

    def reset(self, drop_cache: bool = False) -> ResetReport:
        """Delete the index, whatever state it is in (refuses while another writer runs), keeping the
        embedding cache (the vectors of every text embedded so far, hours of work on a large
        workspace) unless ``drop_cache``: the catalog is emptied of files, chunks and its index id in
        place. A catalog that cannot be read as a database goes whole, cache included.

        Returns ``{"status": "reset", "cache": "kept" | "dropped" | "none", "note": why, or None}``."""
        drop_cache = ResetRequest.build({"drop_cache": drop_cache}).drop_cache
        self._reader.forget()
        if not self._index_dir.exists():
            self._index_dir.remove()  # nothing, or a link (removed alone); a file there is refused, kept
            return {"status": "reset", "cache": "none", "note": None}
        with self._index_dir.writer_lock():
            self._reader.forget()
            kept = () if drop_cache else (CATALOG, f"{CATALOG}-wal", f"{CATALOG}-shm")
            self._index_dir.remove(keep=kept)  # first: frees the space a full disk needs
            if drop_cache:
                return {"status": "reset", "cache": "dropped", "note": None}
            note = self._keep_cache()
            return {"status": "reset", "cache": "none" if note else "kept", "note": note}

    def _keep_cache(self) -> str | None:
        """Empty the catalog but for its embedding cache; when that fails the catalog goes (returns why)."""
        path = self._index_dir.catalog_path
        if not path.exists():
            return "there was no catalog"
        folder = self._index_dir.path
        try:
            catalog = Catalog(path, create=True, file_mode=self._index_dir.file_mode)
            try:
                with catalog_errors(folder):
                    catalog.empty_for_reset()
            finally:
                catalog.close()
            return None
        except IndexProblem as err:
            if not isinstance(err, IndexCorrupt):
                raise  # a read-only folder, a disk still full: nothing is deleted that could be kept
            note = f"the embedding cache could not be kept: {err.problem}"
        self._index_dir.remove()
        return note

    # ---------------------------------------------------------------- reading

    def warm(self) -> None:
        """Load the embedding model, the current generation's graph and its name index now, off the
        request path: a server does this at start so its first queries do not wait (about 0.6 s and,
        at 100k chunks, several seconds). Everything alive then is frozen (``gc.freeze``): a serving
        process keeps it, and the garbage collector's full passes no longer walk it."""
        if self.has_index():
            self._embedder.load()
            try:
                _prepare_queries(self._reader.view().snapshot)
            except (IndexProblem, NotIndexed):
                pass  # status says what is wrong; queries raise it
            release_free_memory()  # the temporaries of all that loading
            # what was loaded lives as long as the index: out of the cyclic collector's full passes,
            # which at 100k chunks walked it for ~0.3 s each, now and then on a save (~30-50 ms now);
            # collected first, so no garbage of before is frozen with it
            gc.collect()
            gc.freeze()

    def has_index(self) -> bool:
        """Whether there is an index on disk, readable or not (a damaged one too: ``status()`` tells
        which, a read raises its problem)."""
        try:
            return self._index_dir.current() > 0
        except IndexProblem:  # damaged, or not readable by this user: there is one
            return True

    def query(self, query: str | dict | QueryRequest, **fields: Any) -> QueryResponse:
        started = time.perf_counter()
        if isinstance(query, QueryRequest):
            request = QueryRequest.build({**query.to_dict(), **fields}) if fields else query
        else:
            request = QueryRequest.build({**(query if isinstance(query, dict) else {"query": query}), **fields})
        return self._reader.read(lambda view: self._query(view, request, started))

    def _query(self, view: View, request: QueryRequest, started: float) -> QueryResponse:
        snapshot, catalog = view.snapshot, view.catalog
        if request.languages:
            request.check_languages(snapshot.manifest["chunks"]["by_language"])
        # The query's embedding runs beside a mode's other work (onnxruntime releases the GIL). vector, multi,
        # and graph (which orders its neighbourhood by meaning or falls back to vector) whenever the index
        # has vectors, start it now on the query pool (graph and multi walk the graph here meanwhile);
        # hybrid embeds here while its keyword leg is scored on the pool (hybrid.start). bm25 never loads
        # the model. (vector embedding here instead: no clear difference, benchmarks/README.md.)
        mode = request.mode
        beside = mode in ("vector", "multi") or (mode == "graph" and bool(snapshot.vectors))
        vectors = self._query_vectors.soon(request.query) if beside else self._query_vectors.get
        ctx = retrieval.QueryContext(
            snapshot, request, vectors, lambda ids: catalog.keys_of_chunk_ids(snapshot.gen, ids), catalog.chunks_by_key
        )
        if mode == "hybrid":
            retrieval.hybrid.start(ctx, self._query_vectors.beside)
        outcome = retrieval.search(ctx)
        hits = outcome.hits
        rows = _rows_of(catalog, [h.key for h in hits])
        chunks = [rows[h.key] for h in hits]  # each chunk's values, in its fields' order
        marks = highlight_texts([c[CHUNK_TEXT] for c in chunks], query_terms(request.query))  # the page in one pass
        results = [QueryResult.from_values(c, h, m, mode) for c, h, m in zip(chunks, hits, marks)]
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
            coverage=snapshot.coverage if outcome.vectors else None,
            filter_note=None if results else snapshot.columns.empty_note(request, ctx.mask),
        )

    def graph_entity(
        self, name: str | GraphRequest, depth: int = 1, *, per_relation: int | None = None, all_relations: bool = False
    ) -> GraphNeighbourhood:
        """An entity, its neighbourhood up to ``depth`` hops grouped by relation (at most
        ``per_relation`` neighbours shown per relation, 0: all; ``contains``/``defined_in`` only with
        ``all_relations``), the edges among them and their chunks (a ``GraphRequest`` a front door
        already built is used as it is). See ``engine/explore.py``."""
        if isinstance(name, GraphRequest):
            request = name
        else:
            given = {"name": name, "depth": depth, "per_relation": per_relation, "all_relations": all_relations}
            request = GraphRequest.build(given)
        return self._reader.read(lambda view: _neighbourhood(view, request))

    def status(self, all_skipped: bool | StatusRequest = False) -> IndexStatus:
        """The index's state and what it holds. Reads only the current generation's manifest once it
        has been opened: polling status costs no index work.

        ``state``: ``ready``, ``indexing``, ``empty``; ``corrupt`` (damage), ``io_error``, ``no_access``
        and ``not_a_folder`` (a file or a link where its folder belongs) when the index cannot be read;
        ``read_only`` and ``disk_full`` when it answers queries but cannot be written (each of these with
        ``problem`` and ``fix``). Skipped files are counted by reason and the first ``MAX_SKIPPED_LISTED``
        listed; all of them with ``all_skipped=True`` (or a ``StatusRequest`` a front door built)."""
        request = (
            all_skipped if isinstance(all_skipped, StatusRequest) else StatusRequest.build({"all_skipped": all_skipped})
        )
        folder = self._index_dir.path
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
            writable=read_only_problem(folder) is None,
        )
        try:
            view = self._reader.read(_every_file_checked)
        except NotIndexed:
            full = disk_full_problem(folder)  # no index yet, and no room to write the first one: say so
            if full is not None:
                status.state, status.problem, status.fix = full.state, full.problem, full.fix
        except IndexProblem as err:
            status.state, status.problem, status.fix = err.state, err.problem, err.fix
            status.index_id = self._index_dir.index_id() if self._index_dir.exists() else None
        else:
            manifest = view.snapshot.manifest
            status.state = "ready"
            status.generation = view.snapshot.gen
            status.index_id = view.catalog.index_id
            status.files, status.chunks, status.graph = manifest["files"], manifest["chunks"], manifest["graph"]
            status.model = manifest["model"]
            listed = request.listed(manifest["skipped"])
            status.skipped, status.skipped_total = listed["skipped"], listed["skipped_total"]
            status.skipped_by_reason = listed["skipped_by_reason"]
            status.last_indexed = manifest["created"]
            status.coverage = view.snapshot.coverage
            cannot_write = read_only_problem(folder) if not status.writable else disk_full_problem(folder)
            if cannot_write is not None:  # answers, but the next run cannot write
                status.state, status.problem, status.fix = cannot_write.state, cannot_write.problem, cannot_write.fix
        if self._index_dir.exists() and self._index_dir.writer_active():
            status.state = "indexing"
        return status

    # ---------------------------------------------------------------- internals

    def _adopt(self, gen: int, graph: CodeGraph) -> None:
        """Serve the generation this process just wrote with the graph still in memory, its name
        index and keyword impacts computed here: the first query after a re-index waits for none of
        them (the impacts are ~0.1 s of CPU at 100k chunks)."""
        try:
            _prepare_queries(self._reader.view(written=(gen, graph)).snapshot)
        except (IndexProblem, NotIndexed, WorkspaceBusy):
            pass  # replaced or broken since: the next read reports it


def _every_file_checked(view: View) -> View:
    """The view, once the files of its parts no query has loaded yet match the manifest too."""
    view.snapshot.check_all()
    return view


def _prepare_queries(snapshot: Snapshot) -> None:
    """What a generation's first queries would otherwise compute: multi's name index (once per graph)
    and the keyword impacts (~0.1 s of CPU at 100k chunks)."""
    if snapshot.graph is not None:
        name_index(snapshot.graph)
    if snapshot.keywords is not None:
        snapshot.keywords.prepare()


def _rows_of(catalog: Catalog, keys: Sequence[int]) -> dict[int, tuple]:
    """The catalog rows of chunk keys the generation being read holds, as their chunks' values
    (``Catalog.chunk_values_by_key``). One missing means a writer
    collected it after a newer generation replaced this one (the reader sees the index moved and
    reads again) or, seen again from a fresh open, damage: never an answer short of a result."""
    rows = catalog.chunk_values_by_key(keys)
    if len(rows) < len(set(keys)):
        raise IndexCorrupt("a chunk of the generation being read is missing from the catalog", FIX_FORCE)
    return rows


def _neighbourhood(view: View, request: GraphRequest) -> GraphNeighbourhood:
    snapshot, catalog = view.snapshot, view.catalog
    graph, name = snapshot.graph, request.name
    matches = ([name] if name in graph else graph.lookup(name)) if graph else []  # a node id, or a name
    found = (
        explore(graph, matches, request.depth, request.per_relation, request.all_relations)
        if graph and matches
        else {"nodes": [], "edges": [], "groups": [], "hidden_relations": {}}
    )
    chunk_ids = [n["chunk_id"] for n in found["nodes"] if n.get("chunk_id")]
    keys = catalog.keys_of_chunk_ids(snapshot.gen, chunk_ids)
    rows = _rows_of(catalog, list(keys.values()))
    return GraphNeighbourhood(
        query=name,
        matches=matches,
        chunks=[
            QueryResult.from_values(rows[keys[c]], retrieval.Hit(keys[c], 0.0)).to_dict()
            for c in chunk_ids
            if c in keys
        ],
        per_relation=request.per_relation,
        all_relations=request.all_relations,
        note=None if matches else no_entity_note(name, graph.near_names(name) if graph else []),
        **found,
    )


def _scan_options(config: BrainConfig) -> ScanOptions:
    return config.scan_options()
