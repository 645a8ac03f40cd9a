"""The one service object the handlers talk to: a Brain, its index jobs and a query thread pool."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from ..engine import Brain, BrainConfig
from ..engine.types import BrainError, IndexReport, InvalidRequest
from ..engine.workspace import resolve_inside
from .jobs import Job, JobManager, JobRunning

T = TypeVar("T")

INDEX_FIELDS = ("path", "force", "include", "exclude", "chunk_size", "chunk_overlap")
SAVE_LOCK_WAIT_S = 30.0  # a save-triggered job waits this long for another process's writer


class BrainService:
    """Owns the server's Brain. A Brain that cannot open (no model, bad root) is kept as its error,
    which every route then answers with, instead of the extension failing to load."""

    def __init__(self, root: Path, config: BrainConfig, *, log: logging.Logger | None = None, query_threads: int = 2):
        self.root = root
        self.log = log or logging.getLogger(__name__)
        self._brain: Brain | None = None
        self._error: BrainError | None = None
        try:
            self._brain = Brain(root, config=config)
        except BrainError as err:
            self._error = err
            self.log.error("agent-brain: cannot open the brain of %s: %s", root, err)
        self.jobs = JobManager(self._run_job, log=self.log)
        self.watch_status: Callable[[], dict[str, Any]] = lambda: {"mode": "off", "reason": "not watching"}
        self._executor = ThreadPoolExecutor(query_threads, thread_name_prefix="agent-brain-query")
        if self._brain is not None:
            self._executor.submit(self._warm)

    def _warm(self) -> None:
        try:
            self.brain.warm()
        except BrainError as err:  # an unreadable index: the first request reports it
            self.log.warning("agent-brain: could not preload the index: %s", err)

    @property
    def brain(self) -> Brain:
        if self._brain is None:
            raise self._error
        return self._brain

    @property
    def healthy(self) -> bool:
        return self._brain is not None

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run engine work off the IOLoop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    # ------------------------------------------------------------------ indexing

    def start_index(self, body: Any) -> Job:
        """Validate a POST /index body and queue the job; raises InvalidRequest or JobRunning."""
        brain = self.brain
        options = parse_index_body(body)
        options["path"] = self.index_folder(options["path"])
        # The engine's own check of the settings, now rather than in the job: a bad value is a 400.
        brain.config.updated(**{k: v for k, v in options.items() if k not in ("path", "force")})
        if not self.jobs.active():
            brain.check_can_index(force=options["force"])  # another process writing, a model change: 409
        return self.jobs.submit(**options)

    def index_folder(self, rel: str) -> str:
        """The root-relative POSIX form of a folder given by the client, or InvalidRequest("path")."""
        target = resolve_inside(self.root, rel)  # outside the root, or missing: InvalidRequest("path")
        if not target.is_dir():
            raise InvalidRequest("path", f"{rel!r} is not a directory")
        relative = target.relative_to(self.root).as_posix()
        return "" if relative == "." else relative

    def reindex_files(self, paths: list[str]) -> Job:
        """Queue one incremental run of saved or changed files, behind any running job."""
        return self.jobs.submit(paths, exclusive=False, wait=SAVE_LOCK_WAIT_S, missing_ok=True)

    def _run_job(self, job: Job) -> IndexReport:
        return self.brain.index(
            path=job.paths, force=job.force, progress=job.record_progress, cancel=job.cancel, **job.options
        )

    # ------------------------------------------------------------------ reading

    def status(self) -> dict[str, Any]:
        status = self.brain.status().to_dict()
        job = self.jobs.active()
        if job is not None and job.status == "running":
            status["state"] = "indexing"
        status["job"] = job.to_dict() if job is not None else None
        status["watch"] = self.watch_status()
        return status

    def reset(self) -> None:
        active = self.jobs.active()
        if active is not None:
            raise JobRunning(active)
        self.brain.reset()

    def close(self) -> None:
        self.jobs.close()
        self._executor.shutdown(wait=False, cancel_futures=True)


def parse_index_body(body: Any) -> dict[str, Any]:
    """Check the shape of a POST /index body; the engine checks the values it owns."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise InvalidRequest("body", "expected a JSON object")
    unknown = sorted(set(body) - set(INDEX_FIELDS))
    if unknown:
        raise InvalidRequest(unknown[0], "unknown field")
    given = {k: v for k, v in body.items() if v is not None}
    options: dict[str, Any] = {"path": given.get("path", ""), "force": given.get("force", False)}
    if not isinstance(options["path"], str):
        raise InvalidRequest("path", "must be a string")
    if not isinstance(options["force"], bool):
        raise InvalidRequest("force", "must be true or false")
    for name in ("include", "exclude"):
        value = given.get(name, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidRequest(name, "must be a list of glob strings")
        if value:
            options[name] = tuple(value)
    for name in ("chunk_size", "chunk_overlap"):
        if name in given:
            value = given[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidRequest(name, "must be an integer")
            options[name] = value
    return options
