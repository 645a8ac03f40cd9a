"""The one service object the handlers talk to: a Brain, its index jobs and a query thread pool."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, TypeVar

from ..engine.types import (
    BrainError,
    Doc,
    GraphNeighbourhood,
    GraphRequest,
    IndexProgress,
    IndexReport,
    IndexRequest,
    InvalidRequest,
    QueryRequest,
    QueryResponse,
    ResetReport,
    Shape,
    StatusRequest,
    WatchState,
    index_scope,
)
from .jobs import Job, JobManager, JobRunning, JobView

if TYPE_CHECKING:
    from ..engine import Brain, BrainConfig

T = TypeVar("T")

SAVE_LOCK_WAIT_S = 30.0  # a save-triggered job waits this long for another process's writer


class ServerStatus(TypedDict):
    """What ``GET status`` adds to the engine's ``IndexStatus`` (whose ``state`` turns ``indexing``
    while a job of this server runs)."""

    job: Annotated[
        JobView | None,
        Doc(
            "the running job, else the oldest pending one, else the failed job of changed files that wait to be"
            " retried (its error says what went wrong and the fix), else null"
        ),
    ]
    watch: Annotated[dict[str, Any], Doc("how the server follows changes made outside Jupyter"), Shape(WatchState)]


class BrainService:
    """Owns the server's Brain, opened on first use: a server that never uses it never loads the
    engine, and one that only follows the disk or answers ``status`` (the status bar asks at every
    page load) loads no model: the preload starts with the first query, graph or index request. A
    Brain that cannot open (no model, bad root) is kept as its error, which every route then answers
    with, instead of the extension failing to load."""

    def __init__(self, root: Path, config: BrainConfig, *, log: logging.Logger | None = None, query_threads: int = 2):
        self.root = root
        self.config = config
        self.log = log or logging.getLogger(__name__)
        self._brain: Brain | None = None
        self._error: BrainError | None = None
        self._open_lock = threading.Lock()
        self._warming = False  # the preload was started (once the brain had an index)
        self.jobs = JobManager(self._run_job, log=self.log)
        self.watch_status: Callable[[], dict[str, Any]] = lambda: {"mode": "off", "reason": "not watching"}
        self.retrying: Callable[[], Job | None] = lambda: None  # the failed job whose changes wait to be retried
        self.on_index: Callable[[], object] | None = None  # called when an index job is queued
        self._executor = ThreadPoolExecutor(query_threads, thread_name_prefix="agent-brain-query")
        self._status_executor = ThreadPoolExecutor(1, thread_name_prefix="agent-brain-status")

    @property
    def brain(self) -> Brain:
        """The brain for a request or a job: opened, and once it has an index, its model, graph and
        names preloaded once, off the request path (:meth:`_warm`)."""
        brain = self.open_brain()
        if not self._warming:
            with self._open_lock:
                if not self._warming and brain.has_index():
                    self._warming = True  # a daemon thread: a server stopped meanwhile does not wait for it
                    threading.Thread(target=self._warm, name="agent-brain-warm", daemon=True).start()
        return brain

    def open_brain(self) -> Brain:
        """The brain, opened without preloading anything: following the disk uses this, so a server
        started in an indexed workspace loads no model until someone asks or something changes."""
        if self._brain is None and self._error is None:
            with self._open_lock:
                if self._brain is None and self._error is None:
                    self._open()
        if self._brain is None:
            raise self._error or BrainError("the brain is not open")
        return self._brain

    @property
    def opened(self) -> bool:
        """Whether the brain was opened (the engine is loaded), successfully or not."""
        return self._brain is not None or self._error is not None

    def _open(self) -> None:
        from ..engine import Brain

        try:
            self._brain = Brain(self.root, config=self.config)
        except BrainError as err:
            self._error = err
            self.log.error("agent-brain: cannot open the brain of %s: %s", self.root, err)

    def _warm(self) -> None:
        try:
            self.open_brain().warm()
        except BrainError as err:  # an unreadable index: the first request reports it
            self.log.warning("agent-brain: could not preload the index: %s", err)

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run engine work (queries, graph, reset) off the IOLoop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    async def run_status(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run status work on its own thread, so slow queries never hold up ``GET status``."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._status_executor, functools.partial(fn, *args, **kwargs))

    # ------------------------------------------------------------------ indexing

    def start_index(self, body: Any) -> Job:
        """Validate a POST /index body and queue the job; raises InvalidRequest or JobRunning."""
        brain = self.brain
        request = IndexRequest.build(body)
        paths = list(dict.fromkeys(self.index_folder(p) for p in request.paths))
        if not paths or "" in paths:  # the root covers the rest
            paths = [""]
        settings = request.settings()
        # Against the configured settings (an overlap above the configured chunk size), now: a 400, not a failed job.
        brain.config.updated(**settings)
        if not self.jobs.active():
            brain.check_can_index(force=request.force)  # another process writing, a model change: 409
        job = self.jobs.submit(paths, force=request.force, **settings)
        if self.on_index is not None:
            self.on_index()  # the disk follower starts with the first index
        return job

    def index_folder(self, rel: str) -> str:
        """The root-relative POSIX form of a folder given by the client, or InvalidRequest("path")."""
        from ..engine.workspace import resolve_inside  # pathspec: with the engine, not with the server

        try:
            target = resolve_inside(self.root, rel)  # outside the root, or missing: InvalidRequest("path")
            is_dir = target.is_dir()
        except OSError as err:  # a name the file system refuses (too long, ...)
            raise InvalidRequest("path", f"cannot be opened: {err.strerror}") from None
        if not is_dir:
            raise InvalidRequest("path", f"{rel!r} is not a directory")
        relative = target.relative_to(self.root).as_posix()
        return "" if relative == "." else relative

    def reindex_files(self, paths: list[str]) -> Job:
        """Queue one incremental run of saved or changed files, behind any running job; while that
        job's run is embedding, hand them to it instead (searchable within a batch, not after it)."""
        running = self.jobs.active()
        merge_into = running if running is not None and self._brain is not None and self._brain.merging else None
        return self.jobs.submit(paths, exclusive=False, merge_into=merge_into, wait=SAVE_LOCK_WAIT_S, missing_ok=True)

    def _run_job(self, job: Job) -> IndexReport:
        brain = self.brain

        def progress(p: IndexProgress) -> None:
            job.record_progress(p)
            if p.phase == "embedding" and brain.merging:  # saves queued while it analysed: served from now on
                self.jobs.hand_over_pending(job)

        return brain.index(
            path=index_scope(job.paths), force=job.force, progress=progress, cancel=job.cancel, **job.options
        )

    # ------------------------------------------------------------------ reading

    def query(self, request: QueryRequest) -> QueryResponse:
        return self.brain.query(request)  # on a query thread: the first opens the brain off the IOLoop

    def graph_entity(self, request: GraphRequest) -> GraphNeighbourhood:
        return self.brain.graph_entity(request)

    def status(self, request: StatusRequest | None = None) -> dict[str, Any]:
        status = self.open_brain().status(request or StatusRequest()).to_dict()  # asking how it is is not using it
        job = self.jobs.active()
        if job is not None and job.status == "running":
            status["state"] = "indexing"
        job = job or self.retrying()
        extra: ServerStatus = {"job": job.to_dict() if job is not None else None, "watch": self.watch_status()}
        return {**status, **extra}

    def reset(self, drop_cache: bool = False) -> ResetReport:
        active = self.jobs.active()
        if active is not None:
            raise JobRunning(active)
        return self.open_brain().reset(drop_cache=drop_cache)

    def close(self) -> None:
        """Cancel a running job (it commits nothing) and stop the threads; returns without waiting."""
        self.jobs.close()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._status_executor.shutdown(wait=False, cancel_futures=True)
