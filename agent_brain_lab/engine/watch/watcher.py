"""Keep a watch on the folders the workspace rules walk into, and feed their changes to a batcher.

The set of folders changes (a folder comes or goes, a .gitignore changes): the watch is set up anew
with a hand-over that loses no change, and a stretch no watch saw (a poller's restart, a watch
that failed) is caught up from the folders' times. Events that cannot be had mean polling.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

import watchfiles

from ..types import WatchState
from ..workspace import folders
from .batcher import ChangeBatcher
from .sieve import relevant
from .source import FolderWatch, WatchLost, first_line, polling_default

POLL_DELAY_MS = 2_000  # between two walks of the tree when polling
RUST_TIMEOUT_MS = 500  # an empty batch twice a second: `stopped` is asked
OPEN_TRIES = 3  # a watch is set up again this many times when a folder it lists goes meanwhile
# File times come from the kernel's coarse clock, up to a tick behind time.time(): a change this much
# before the unwatched stretch began is looked at too. More would look again at what the previous watch
# saw (a root .gitignore among it would queue the whole workspace).
CLOCK_SLACK_S = 0.05


class Watcher:
    """Watch a Brain's root and feed every relevant change to a :class:`ChangeBatcher`, on a thread.

    ``force_polling``: None follows watchfiles (the ``WATCHFILES_FORCE_POLLING`` variable); when
    events cannot be had (inotify limit, unsupported file system) the watcher polls instead and
    says why in :attr:`state`. ``stopped`` is asked often: True ends the watch (e.g. a closed loop).
    """

    def __init__(
        self,
        batcher: ChangeBatcher,
        *,
        force_polling: bool | None = None,
        poll_delay_ms: int = POLL_DELAY_MS,
        stopped: Callable[[], bool] | None = None,
        log: logging.Logger | None = None,
    ):
        self.batcher = batcher
        self.root = batcher.brain.root
        self._include_hidden = batcher.brain.config.include_hidden
        self._force_polling = force_polling
        self._poll_delay_ms = poll_delay_ms
        self._stopped = stopped
        self._stop = threading.Event()
        self._started = threading.Event()
        self._log = log or logging.getLogger(__name__)
        self.state = WatchState("off", "starting")
        self.watched = 0  # folders under watch (one inotify watch each with events)
        self.restarts = 0  # times the set of folders changed and the watch was set up again
        self._unseen: float | None = None  # changes from this time on may have been seen by no watch
        self._thread = threading.Thread(target=self._run, name="agent-brain-watch", daemon=True)

    def start(self) -> None:
        """Start watching, on a thread; :attr:`state` says ``starting`` until the watch is set up."""
        self._thread.start()

    def ready(self, timeout: float | None = None) -> WatchState:
        """Wait until the watch is set up (or has failed) and return its state."""
        self._started.wait(timeout)
        return self.state

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self.batcher.close()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def is_set(self) -> bool:
        """The stop flag watchfiles polls (it takes any object with ``is_set``)."""
        return self._stop.is_set() or bool(self._stopped and self._stopped())

    def _run(self) -> None:
        polling, reason = polling_default(self._force_polling)
        ended = WatchState("off", "stopped")
        watch: FolderWatch | None = None
        lost: set[str] | None = None  # the folders of a watch lost (WatchLost): those not watched again are new
        try:
            while not self.is_set():
                try:
                    if watch is None:
                        watch = self._open(self.folders(), polling)
                        fresh = [] if lost is None else [f for f in watch.folders if str(f) not in lost]
                        lost = None
                        self._catch_up_unseen(watch, fresh)
                        self.state = WatchState("polling" if polling else "events", reason)  # also after a fallback
                        if not self._started.is_set():
                            self._started.set()
                            self._log.info(
                                "agent-brain: following %s (%s, %d folders)", self.root, self.state.mode, self.watched
                            )
                    reshaped = self._follow(watch)
                    if reshaped is None:
                        break
                    watch = self._handover(watch, *reshaped)
                    self.restarts += 1  # the set of folders changed: the new set is watched
                except WatchLost as err:  # a name that is not UTF-8: a new watch, and a look at what changed
                    self._log.warning("agent-brain: the watch was set up again (%s)", err)
                    if watch is not None:
                        lost = watch.paths
                        watch.close()
                        watch = None
                    self._unseen = min(self._unseen or err.since, err.since)
                except OSError as err:  # watch limit reached, no inotify, an unwatchable folder
                    if watch is not None:
                        self._close(watch)
                        watch = None
                    if polling:
                        ended = WatchState("off", f"cannot watch {self.root}: {first_line(err)}")
                        self._log.error("agent-brain: %s", ended.reason)
                        break
                    polling, reason = True, f"file events unavailable ({first_line(err)}): polling instead"
                    self._log.warning("agent-brain: %s", reason)
        except Exception as err:  # not a stop: the state must not say "stopped" while nothing follows the disk
            ended = WatchState("off", f"the watch failed: {type(err).__name__}; see the log")
            self._log.exception("agent-brain: the watch of %s failed", self.root)
        finally:
            if watch is not None:
                watch.close()
            self.state = ended
            self._started.set()
            self.batcher.close()

    def folders(self) -> list[Path]:
        """The folders watched: those the workspace rules walk into, each watched on its own (not
        recursively), so excluded, ignored and hidden folders cost no watch and raise no event."""
        return folders(self.root, self.batcher.brain.config.scan_options())

    def _open(self, watched: list[Path], polling: bool) -> FolderWatch:
        """A watch of ``watched``, or of the folders to watch now if one of them went meanwhile."""
        for _ in range(OPEN_TRIES - 1):
            try:
                return self._opened(FolderWatch(watched, polling, self._poll_delay_ms))
            except FileNotFoundError:  # a folder removed since it was listed: its parent's watch says so
                watched = self.folders()
        return self._opened(FolderWatch(watched, polling, self._poll_delay_ms))

    def _opened(self, watch: FolderWatch) -> FolderWatch:
        self.watched = len(watch.folders)
        return watch

    def _follow(self, watch: FolderWatch) -> tuple[list[Path], set[str]] | None:
        """Follow ``watch`` until stopped (None) or until the folders to watch are no longer its own:
        a folder appeared, went, was made anew or changed its ignore rules. Returns the folders to
        watch now, and those of them made anew under a name the watch held (its watch was on the
        folder deleted: an event watch follows a folder, not a name)."""
        while True:
            batch = watch.changes(RUST_TIMEOUT_MS, self)
            if batch is None:
                return None
            self._feed(batch)
            if any(self._reshapes(change, path, watch.paths) for change, path in batch):
                now = self.folders()  # a gitignored folder, or an ignore rule that moved nothing, changes none
                paths = {str(f) for f in now}
                renewed = {p for c, p in batch if c == watchfiles.Change.deleted and p in watch.paths and p in paths}
                if paths != watch.paths or renewed:
                    return now, renewed

    def _feed(self, batch: Iterable[tuple[watchfiles.Change, str]]) -> None:
        paths = [relevant(self.root, path, self._include_hidden) for _change, path in batch]
        wanted = [p for p in paths if p is not None]
        if wanted:
            self.batcher.add(wanted)

    def _handover(self, old: FolderWatch, watched: list[Path], renewed: set[str]) -> FolderWatch:
        """Watch ``watched`` instead of ``old``'s folders, losing no change: the new watch is set up
        while the old one still runs, then what the old one saw meanwhile is fed and it is closed, so
        each change is seen by one of them (or both: the batcher takes a path once). A folder new to
        the watch (or ``renewed``: made anew under a watched name) is queued whole: what was written
        in it before its watch began. Polling cannot hand over so (a change between the old poller's
        last listing and the new one's first is seen by neither): the watched folders' entries changed
        since the old watch began are looked at too (:meth:`_catch_up_unseen`)."""
        try:
            new = self._open(watched, old.polling)
        except OSError:
            if old.polling:
                raise
            # Two event watches of the same folders may pass the inotify limit where one fits: close
            # the old one first, and look at what changed from then on once the new one runs.
            self._close(old)
            new = self._open(watched, old.polling)
        else:
            try:
                self._feed(old.drain())
            except WatchLost as err:  # what it held is looked at with the rest (below)
                self._unseen = min(self._unseen or err.since, err.since)
            old.close()
            if old.polling:
                self._unseen = min(self._unseen or old.since, old.since)
        self._catch_up_unseen(new, [f for f in new.folders if str(f) not in old.paths or str(f) in renewed])
        return new

    def _close(self, watch: FolderWatch) -> None:
        """Close a watch no other watch overlaps: what changes from now on until the next watch runs
        is looked at by :meth:`_catch_up_unseen`."""
        since = watch.since if watch.polling else time.time()
        try:
            self._feed(watch.drain())
        except WatchLost as err:  # what it had not handed out is looked at with the rest
            since = min(since, err.since)
        except OSError:  # the watch failed: what it had not handed out is looked at with the rest
            pass
        watch.close()
        self._unseen = min(self._unseen or since, since)

    def _catch_up_unseen(self, watch: FolderWatch, fresh: list[Path]) -> None:
        """Queue what may have changed while no watch saw it, now that ``watch`` runs: the ``fresh``
        folders (none of the previous watch's), whole; and,
        when a stretch went unwatched (:attr:`_unseen`), the entries of the other folders changed
        since then, and the indexed files gone from a folder changed since then. No whole-workspace
        run: that could not be handed to a running first index, and a save would wait behind it."""
        self._feed((watchfiles.Change.added, str(f)) for f in fresh)
        since, self._unseen = self._unseen, None
        if since is None:
            return
        since -= CLOCK_SLACK_S
        skip = {str(f) for f in fresh}
        changed: list[str] = []
        for folder in watch.folders:
            if str(folder) in skip:
                continue
            try:
                with os.scandir(folder) as scan:
                    entries = {e.name: e for e in scan}
                own = folder.stat()
            except OSError:  # gone meanwhile: its deletion is an event of its parent's watch
                continue
            for entry in entries.values():
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISDIR(st.st_mode) and max(st.st_mtime, st.st_ctime) >= since:
                    changed.append(entry.path)
            if max(own.st_mtime, own.st_ctime) >= since:  # entries came or went: which indexed ones went
                rel = folder.relative_to(self.root).as_posix() if folder != self.root else ""
                gone = [p for p in self.batcher.brain.indexed_in(rel) if PurePosixPath(p).name not in entries]
                changed += [str(self.root / p) for p in gone]
        self._feed((watchfiles.Change.modified, path) for path in changed)

    def _reshapes(self, change: watchfiles.Change, path: str, watched: set[str]) -> bool:
        """Whether a change alters which folders are watched: a folder added (a new folder, or one
        renamed in) that the workspace may walk into, a watched folder gone, or a .gitignore changed.
        A hidden or excluded folder (the index's own, ``__pycache__``, ``.ipynb_checkpoints``) is
        never watched, so its coming costs no restart."""
        if Path(path).name == ".gitignore":
            return True
        if change == watchfiles.Change.added:
            return (
                path not in watched
                and relevant(self.root, path, self._include_hidden) is not None
                and os.path.isdir(path)
            )
        return change == watchfiles.Change.deleted and path in watched
