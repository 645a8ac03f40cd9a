"""Re-index a file shortly after Jupyter saves it (a contents-manager post-save hook)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


class SaveHook:
    """Post-save hook: hands the saved file to ``add`` (the disk follower's, which the watcher feeds
    too, so a save seen by both is indexed once). A failure here is logged and never reaches the save."""

    def __init__(self, root: Path, add: Callable[[Iterable[str]], object], *, log: logging.Logger | None = None):
        self._root = root
        self._add = add
        self._log = log or logging.getLogger(__name__)

    def __call__(
        self, model: Any = None, os_path: str | None = None, contents_manager: Any = None, **kwargs: Any
    ) -> None:
        try:
            rel = self._relative(os_path)
            if rel is not None:
                self._add([rel])
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
