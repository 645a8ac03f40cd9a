"""One watch over a set of folders: file-system events, or polling where events cannot be had.

A thin hold on watchfiles' own engine (``RustNotify``, what ``watchfiles.watch`` runs) rather than
``watchfiles.watch``: a restart needs two watches overlapping for a moment, and each folder is
watched on its own (not recursively) so excluded folders cost no watch.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Protocol

import watchfiles
from watchfiles._rust_notify import (
    RustNotify,  # watchfiles.watch's own engine: two can overlap at a restart
    WatchfilesRustInternalError,
)

DEBOUNCE_MS, STEP_MS = 1_600, 50  # as watchfiles.watch: a batch ends after a quiet step, or at the latest the debounce
DRAIN_MS = 200  # a closing watch's last look waits this long for a change (a restart's cost)


class Flag(Protocol):
    def is_set(self) -> bool: ...


class WatchLost(Exception):
    """A watch that can hand out no more changes: its engine met a file name that is not valid UTF-8
    (watchfiles cannot make it a Python string, and raises so on every later call, the name staying in
    its queue). The changes it held since ``since`` (a ``time.time()``) are lost with it: a new watch
    must replace it and look at what changed from then on."""

    def __init__(self, reason: str, since: float):
        super().__init__(reason)
        self.since = since


class FolderWatch:
    """One watchfiles watch over some folders, each on its own (not recursively). Set up (the event
    watches added, or the poller's first listing taken) when made; closed by :meth:`close`."""

    def __init__(self, watched: list[Path], polling: bool, poll_delay_ms: int):
        self.folders = watched
        self.paths = {str(f) for f in watched}
        self.polling = polling
        self.closed = False
        self.since = time.time()  # a poller sees what changes after this (its first listing follows)
        self.handed = self.since  # changes after this have not been handed out yet ...
        self.lag = 2 * poll_delay_ms / 1000 if polling else 0.0  # ... nor those a poller had not listed yet
        self._notify = RustNotify(
            [str(f) for f in watched],
            False,
            polling,
            poll_delay_ms,
            False,  # not recursive
            # With events, a folder that cannot be watched (the watch limit, no permission) must fail
            # the start, not leave a silent hole: the watcher polls instead, which skips what it cannot read.
            polling,
        )

    def changes(self, timeout_ms: int, stop: Flag | None) -> set[tuple[watchfiles.Change, str]] | None:
        """The next batch of changes (empty after ``timeout_ms`` without any), or None once ``stop`` is set;
        :class:`WatchLost` once the watch can hand out no more."""
        asked = time.time()
        try:
            raw = self._notify.watch(DEBOUNCE_MS, STEP_MS, timeout_ms, stop)
        except WatchfilesRustInternalError as err:
            raise WatchLost(first_line(err), self.handed - self.lag) from None
        self.handed = asked
        if isinstance(raw, str):
            return set() if raw == "timeout" else None  # "stop", or "signal" (Ctrl-C on the main thread)
        return {(watchfiles.Change(change), path) for change, path in raw}

    def drain(self) -> set[tuple[watchfiles.Change, str]]:
        """What this watch saw and has not handed out yet, waiting up to ``DRAIN_MS`` for a first change
        (its thread may not have read the last events yet); empty once closed."""
        return set() if self.closed else self.changes(DRAIN_MS, None) or set()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._notify.close()


def inotify_watches(pid: int | str = "self") -> int | None:
    """How many inotify watches a process holds (Linux: counted from ``/proc/<pid>/fdinfo``), or None."""
    proc = Path("/proc") / str(pid)
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:
        return None
    count = 0
    for fd in fds:
        try:
            if os.readlink(fd) == "anon_inode:inotify":
                count += (proc / "fdinfo" / fd.name).read_text().count("inotify wd:")
        except OSError:  # closed meanwhile
            continue
    return count


def polling_default(force_polling: bool | None) -> tuple[bool, str | None]:
    if force_polling is not None:
        return force_polling, "polling asked for" if force_polling else None
    value = os.environ.get("WATCHFILES_FORCE_POLLING", "")
    if value and value.lower() not in ("false", "disable", "disabled"):
        return True, "WATCHFILES_FORCE_POLLING is set"
    return False, None


def first_line(err: BaseException) -> str:
    """The first sentence of an error (watchfiles appends a debug dump of the paths)."""
    text = str(err).strip()
    return re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".") if text else type(err).__name__
