"""Re-index a file shortly after Jupyter saves it (a contents-manager post-save hook)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ..engine.watch import ChangeBatcher


class SaveHook:
    """Post-save hook: hands the saved file to the batcher the disk watcher feeds too, so a save
    seen by both is indexed once. A failure here is logged and never reaches the save itself."""

    def __init__(self, root: Path, batcher: ChangeBatcher, *, log: logging.Logger | None = None):
        self._root = root
        self._batcher = batcher
        self._log = log or logging.getLogger(__name__)

    def __call__(self, model=None, os_path: str | None = None, contents_manager=None, **kwargs) -> None:
        try:
            rel = self._relative(os_path)
            if rel is not None:
                self._batcher.add([rel])
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
