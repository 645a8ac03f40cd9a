"""The server follows its root on disk: file changes and Jupyter saves become batched index jobs."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..engine.store.generations import INDEX_DIR
from ..engine.types import BrainError
from .jobs import FINISHED
from .service import BrainService

if TYPE_CHECKING:
    from ..engine.watch.batcher import ChangeBatcher
    from ..engine.watch.watcher import Watcher
    from .jobs import Job


class DiskFollower:
    """One :class:`ChangeBatcher` for saves and file changes, fed by a :class:`Watcher` when ``watch``.

    Nothing runs until the workspace has an index: the follower starts with the first index job
    (:meth:`start`), or with the server when the root already holds an index, so a server whose
    brain is never used loads no engine and holds no watch. Until then saves are left to the first
    index, which sees them anyway: a watcher never makes a partial index of edited files.
    Batches become jobs of the service's JobManager, queued behind a running job (several batches
    merge into its one pending run). A job of a batch that fails hands its paths back to the batcher,
    which retries them (on the next change, or after a back-off); until those paths have been indexed
    (a job of other paths succeeding meanwhile does not count), :attr:`failed` is that job, which
    ``GET status`` shows as its ``job``. :meth:`close` is the server extension's stop hook.
    """

    def __init__(self, service: BrainService, *, watch: bool, delay: float, log: logging.Logger | None = None):
        self.service = service
        self.log = log or logging.getLogger(__name__)
        self._watch = watch
        self._delay = delay
        self._lock = threading.Lock()
        self._closed = False
        self.batcher: ChangeBatcher | None = None
        self.watcher: Watcher | None = None
        self._failed: Job | None = None  # the last failed job of a batch

    def index_exists(self) -> bool:
        """Whether the root holds an index (one stat: the engine is not loaded to know)."""
        return (self.service.root / INDEX_DIR / "CURRENT").is_file()

    def start(self) -> None:
        """Start following (idempotent): the batcher, and the watcher when ``watch``. Opens the brain."""
        with self._lock:
            if self._closed or self.batcher is not None:
                return
            from ..engine.watch.batcher import ChangeBatcher
            from ..engine.watch.watcher import Watcher

            brain = self.service.open_brain()  # not preloaded: following costs no model until a change
            self.batcher = ChangeBatcher(brain, self._submit, delay=self._delay, log=self.log, settles_later=True)
            if self._watch:
                self.watcher = Watcher(self.batcher, log=self.log)
                self.watcher.start()

    def start_in_background(self) -> None:
        """:meth:`start` on a thread (server start: the engine loads without holding up the server)."""
        threading.Thread(target=self._start_quietly, name="agent-brain-follow", daemon=True).start()

    def _start_quietly(self) -> None:
        try:
            self.start()
        except Exception as err:  # a brain that cannot open: its routes say why
            self.log.warning("agent-brain: not following the disk: %s", err)

    def add(self, paths: Iterable[str]) -> None:
        """Saved or changed paths (the save hook's way in); dropped until there is an index."""
        if self.batcher is None:
            if not self.index_exists():
                return
            self.start()
        if self.batcher is not None:
            self.batcher.add(paths)

    def _submit(self, paths: list[str]) -> None:
        brain = self.service.brain
        if not brain.has_index() and self.service.jobs.active() is None:
            self.log.debug("agent-brain: %d changes left to the first index", len(paths))
            if self.batcher is not None:
                self.batcher.dropped(paths)
            return
        job = self.service.reindex_files(paths)
        told = threading.Lock()  # held once told: a job that ended before its listener was added is told once

        def ended(job: Job) -> None:
            if told.acquire(blocking=False):
                self._ended(job, paths)

        job.on_end.append(ended)
        if job.status in FINISHED:
            ended(job)

    @property
    def failed(self) -> Job | None:
        """The last failed job of a batch, while paths of a failed job wait to be retried (the batcher's
        :attr:`~ChangeBatcher.failure` says whether they do)."""
        batcher = self.batcher
        return self._failed if batcher is not None and batcher.failure is not None else None

    def _ended(self, job: Job, paths: list[str]) -> None:
        """A job of a batch ended: a failure keeps its paths (the batcher retries them); a success
        settles them. A cancelled job's paths are dropped: someone asked."""
        if self.batcher is None:
            return
        if job.status == "failed" and not self._closed:
            self._failed = job
            wait = self.batcher.retry(paths, job.exception or BrainError(job.error or "the index job failed"))
            self.log.warning(
                "agent-brain: could not re-index %d changed paths (retrying on the next change, or in %.0f s): %s",
                len(paths),
                wait,
                job.error,
            )
        elif job.status == "done":
            self.batcher.succeeded(paths)
        elif job.status == "cancelled":
            self.batcher.dropped(paths)

    def status(self) -> dict[str, Any]:
        if self.watcher is not None:
            return self.watcher.state.to_dict()
        reason = "starts with the first index" if self._watch else "c.AgentBrain.watch is False"
        return {"mode": "off", "reason": reason}

    def close(self) -> None:
        with self._lock:
            self._closed = True
        if self.watcher is not None:
            self.watcher.stop()
        if self.batcher is not None:
            self.batcher.close()
