"""Debounce changed paths into index runs, and keep a failed run's paths for a retry.

One batcher takes every change (the watcher's events and a server's save hook), so a save seen by
both is indexed once; a burst of changes becomes one run, and a run that fails (a full disk,
another writer) loses nothing: its paths wait for the next change or a back-off.
"""

from __future__ import annotations

import logging
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

from ..brain import Brain
from ..types import BrainError

MAX_WAIT_FACTOR = 10  # a stream of changes that never pauses is still flushed every this many delays
REMEMBERED = 10_000  # file states already handed to a run, kept to recognise a second report of the same change
FOLDER = (-1, -1, -1)  # the signature of any folder
# A failed run's paths stay queued: retried on the next change, and on their own after this back-off
# (doubling from the first to the last value while runs keep failing), until a run of them succeeds.
RETRY_FIRST_S, RETRY_MAX_S = 2.0, 60.0


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What identifies one state of a file on disk; None once it is gone. A folder has none worth
    keeping (a changed .gitignore leaves it as it was), so it is never taken for already indexed."""
    try:
        st = path.stat()
    except OSError:
        return None
    return FOLDER if stat.S_ISDIR(st.st_mode) else (st.st_ino, st.st_size, st.st_mtime_ns)


class ChangeBatcher:
    """Debounce changed paths into batches: one ``submit(paths)`` per burst of changes.

    ``brain`` decides what is worth a run (:meth:`Brain.admits` for what exists, :meth:`Brain.indexed`
    for what is gone). A file state already handed to a run is not handed again, so a save seen both
    by a post-save hook and by the watcher is indexed once.

    A batch whose ``submit`` raises (a full disk, a read-only index, another writer) is not dropped:
    its paths stay queued and are handed over again with the next change, or on their own after a
    back-off growing from ``RETRY_FIRST_S`` to ``RETRY_MAX_S``. :attr:`failure` holds the error until
    those paths themselves are settled: indexed by a run, no longer worth one, or dropped; a run of
    other paths succeeding in between only restarts the back-off.
    """

    def __init__(
        self,
        brain: Brain,
        submit: Callable[[list[str]], object],
        *,
        delay: float = 1.0,
        log: logging.Logger | None = None,
        on_failure: Callable[[list[str], BaseException, float], object] | None = None,
        settles_later: bool = False,
    ):
        self.brain = brain
        # True: ``submit`` only queues the run, and its outcome is told later (:meth:`retry`, :meth:`succeeded`,
        # :meth:`dropped`)
        self._settles_later = settles_later
        self._submit = submit
        self._on_failure = on_failure  # told each failed run: its paths, the error, seconds until the retry
        self.delay = delay
        self._log = log or logging.getLogger(__name__)
        self._pending: dict[str, None] = {}  # insertion-ordered set
        self._in_flight = 0  # paths of the batch being filtered and handed over
        self._first = self._last = 0.0
        self._covered: OrderedDict[str, tuple[int, int, int] | None] = OrderedDict()
        self._cond = threading.Condition()
        self._closed = False
        self._retry_at: float | None = None  # a failed batch waits for this (monotonic) time, or a change
        self._failures = 0  # runs failed in a row
        self._failed: set[str] = set()  # paths of failed runs not yet settled
        self.failure: BaseException | None = None  # why the last run failed, while its paths wait to be retried
        self.changes = 0  # paths received
        self._thread = threading.Thread(target=self._loop, name="agent-brain-batcher", daemon=True)
        self._thread.start()

    @property
    def pending(self) -> int:
        with self._cond:
            return len(self._pending) + self._in_flight

    def add(self, paths: Iterable[str]) -> None:
        """Queue root-relative paths ("" is the whole workspace)."""
        with self._cond:
            now = time.monotonic()
            for rel in paths:
                if not self._pending:
                    self._first = now
                self._pending[rel] = None
                self.changes += 1
                self._last = now
                self._retry_at = None  # a change retries a failed batch at once (after the debounce)
            self._cond.notify()

    def succeeded(self, paths: Iterable[str]) -> None:
        """A run of ``paths`` succeeded: the back-off starts again from its first step, and those of
        them a failed run left waiting are settled."""
        with self._cond:
            self._failures, self._retry_at = 0, None
            self._settle(paths)

    def dropped(self, paths: Iterable[str]) -> None:
        """``paths`` were handed over and will not be indexed by this batcher's run (it was cancelled,
        or they were left to another run): no retry waits on them."""
        with self._cond:
            self._settle(paths)

    def _settle(self, paths: Iterable[str]) -> None:
        """(Holding the lock.) ``paths`` no longer wait for a retry; once none does, :attr:`failure` ends."""
        self._failed.difference_update(paths)
        if not self._failed:
            self.failure = None

    def retry(self, paths: Iterable[str], err: BaseException) -> float:
        """Queue ``paths`` again after a run of them failed with ``err``: they are handed over with
        the next change, or after the back-off (returned, in seconds) grown by each failure in a row."""
        paths = list(paths)
        with self._cond:
            self._failures += 1
            self.failure = err
            self._failed.update(paths)
            wait = min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** (self._failures - 1))
            now = time.monotonic()
            self._retry_at = now + wait
            if not self._pending:
                self._first = now
            self._last = now
            for rel in paths:
                self._pending.setdefault(rel, None)
                self._covered.pop(rel, None)  # handed to a run that failed: not indexed in that state
            self._cond.notify()
        if self._on_failure is not None:
            self._on_failure(paths, err, wait)
        return wait

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    # ------------------------------------------------------------------ internals

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                while not self._closed:  # wait for the burst to end (and a failed batch's back-off)
                    due = min(self._last + self.delay, self._first + self.delay * MAX_WAIT_FACTOR)
                    if self._retry_at is not None:
                        due = max(due, self._retry_at)
                    if time.monotonic() >= due:
                        break
                    self._cond.wait(due - time.monotonic())
                if self._closed:
                    return
                batch = list(self._pending)
                self._pending.clear()
                self._in_flight = len(batch)
            wanted: dict[str, tuple[int, int, int] | None] | None = None
            try:
                wanted = self._wanted(batch)
                self.dropped(rel for rel in batch if rel not in wanted)  # not worth a run: nothing to retry
                if wanted:
                    self._submit(list(wanted))
                    self._remember(wanted)
            except Exception as err:  # the batcher outlives a failed run, and keeps its paths for the next
                failed = batch if wanted is None else list(wanted)
                wait = self.retry(failed, err)
                self._log.warning(
                    "agent-brain: could not re-index %d changed paths (retrying on the next change, or in %.0f s): %s",
                    len(failed),
                    wait,
                    err,
                    exc_info=not isinstance(err, BrainError),
                )
            else:
                if not self._settles_later:
                    self.succeeded(wanted)
            with self._cond:
                self._in_flight = 0

    def join(self, timeout: float | None = None) -> None:
        """Wait for the batcher's thread to end after :meth:`close` (a batch in hand is finished first)."""
        self._thread.join(timeout)

    def _wanted(self, batch: list[str]) -> dict[str, tuple[int, int, int] | None]:
        """The paths of ``batch`` worth a run, with the file state each is indexed in."""
        root = self.brain.root
        states = {rel: _signature(root / rel) for rel in batch}
        fresh = [rel for rel in batch if rel not in self._covered or self._covered[rel] != states[rel]]
        gone = {rel for rel in fresh if states[rel] is None}  # no stat: gone, or no longer reachable
        keep = self.brain.indexed(sorted(gone)) if gone else set()
        there = [rel for rel in fresh if rel not in gone]
        keep.update(self.brain.admitted(rel for rel in there if rel))  # one walk for the batch
        keep.update(rel for rel in there if not rel)
        return {rel: states[rel] for rel in fresh if rel in keep}

    def _remember(self, states: dict[str, tuple[int, int, int] | None]) -> None:
        for rel, state in states.items():
            if state == FOLDER:
                continue
            self._covered[rel] = state
            self._covered.move_to_end(rel)
        while len(self._covered) > REMEMBERED:
            self._covered.popitem(last=False)
