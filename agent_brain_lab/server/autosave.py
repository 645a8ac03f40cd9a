"""Re-index a file shortly after Jupyter saves it (a contents-manager post-save hook)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path


class SaveReindexer:
    """Post-save hook: debounce saves per file, then ``submit(relative_path)``.

    ``accepts(relative_path)`` decides, on the timer thread (not the IOLoop), whether the file
    is worth a job. A failure here is logged and never reaches the save itself.
    """

    def __init__(
        self,
        root: Path,
        accepts: Callable[[str], bool],
        submit: Callable[[str], object],
        *,
        delay: float = 1.0,
        log: logging.Logger | None = None,
    ):
        self._root = root
        self._accepts = accepts
        self._submit = submit
        self._delay = delay
        self._log = log or logging.getLogger(__name__)
        self._timers: dict[str, threading.Timer] = {}
        self._lock = threading.Lock()

    def __call__(self, model=None, os_path: str | None = None, contents_manager=None, **kwargs) -> None:
        try:
            rel = self._relative(os_path)
            if rel is not None:
                self._schedule(rel)
        except Exception:  # a broken hook must never break saving
            self._log.warning("agent-brain: could not queue re-index of %s", os_path, exc_info=True)

    def _relative(self, os_path: str | None) -> str | None:
        if not os_path:
            return None
        path = Path(os.path.realpath(os_path))
        try:
            return path.relative_to(self._root).as_posix()
        except ValueError:
            return None  # saved outside the indexed workspace

    def _schedule(self, rel: str) -> None:
        with self._lock:
            old = self._timers.pop(rel, None)
            if old is not None:
                old.cancel()
            timer = threading.Timer(self._delay, self._fire, args=(rel,))
            timer.daemon = True
            self._timers[rel] = timer
            timer.start()

    def _fire(self, rel: str) -> None:
        with self._lock:
            if self._timers.get(rel) is threading.current_thread():  # not superseded meanwhile
                del self._timers[rel]
        try:
            if self._accepts(rel):
                self._submit(rel)
        except Exception:
            self._log.warning("agent-brain: could not re-index %s", rel, exc_info=True)
