"""The server follows its root on disk: file changes and Jupyter saves become batched index jobs."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..engine.watch import ChangeBatcher, Watcher, WatchState
from .service import BrainService


class DiskFollower:
    """One :class:`ChangeBatcher` for saves and file changes, fed by a :class:`Watcher` when ``watch``.

    Batches become jobs of the service's JobManager, queued behind a running job (several batches
    merge into its one pending run). Until the workspace has an index, changes are left to the
    first index, which sees them anyway: a watcher never makes a partial index of edited files.
    The watch ends with the server's event loop (function-form extensions get no stop hook).
    """

    def __init__(
        self,
        service: BrainService,
        *,
        watch: bool,
        delay: float,
        loop: asyncio.AbstractEventLoop | None = None,
        log: logging.Logger | None = None,
    ):
        self.service = service
        self.log = log or logging.getLogger(__name__)
        self.batcher = ChangeBatcher(service.brain, self._submit, delay=delay, log=self.log)
        self.watcher: Watcher | None = None
        self._off = WatchState("off", "c.AgentBrain.watch is False")
        if watch:
            stopped = loop.is_closed if loop is not None else None
            self.watcher = Watcher(self.batcher, stopped=stopped, log=self.log)
            self.watcher.start()

    def _submit(self, paths: list[str]) -> None:
        brain = self.service.brain
        if not brain.is_indexed() and self.service.jobs.active() is None:
            self.log.debug("agent-brain: %d changes left to the first index", len(paths))
            return
        self.service.reindex_files(paths)

    def status(self) -> dict[str, Any]:
        state = self.watcher.state if self.watcher is not None else self._off
        return state.to_dict()

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
        self.batcher.close()
