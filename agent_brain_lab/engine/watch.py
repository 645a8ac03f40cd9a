"""Follow the disk: turn file-system changes under a workspace into batched index runs.

:class:`ChangeBatcher` collects changed paths (from the watcher, and from a server's save hook:
one path for both), waits for a burst to end, keeps what the workspace rules take in (or what was
indexed and is now gone) and hands the survivors to ``submit`` in one call. :class:`Watcher` feeds
it from watchfiles: file-system events, or periodic polling when events cannot be had.

Nothing under ``.agent-brain/`` (the index's own writes), ``.git/`` internals or other excluded
folders, and no editor temp file, ever reaches the batcher: a watcher that reacted to its own
index writes would loop forever.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Protocol

import watchfiles
from watchfiles._rust_notify import RustNotify  # watchfiles.watch's own engine: two can overlap at a restart

from .brain import Brain
from .types import BrainError, IndexCancelled, IndexReadOnly, IndexReport, InvalidRequest, WatchState, index_scope
from .workspace import EXCLUDED_DIRS, folders

# Swap, backup, lock and atomic-write files of editors and tools (vim, emacs, JetBrains, gedit, kate, sed -i).
EDITOR_TEMP = re.compile(
    r"(~$|^\.?#|#$|\.sw[a-p]$|\.sw[x-z]$|\.tmp$|\.temp$|\.part$|\.crswap$|\.kate-swp$|___jb_(tmp|old)___$"
    r"|^\.goutputstream-|^sed[A-Za-z0-9]{6}$|^4913$)"
)
MAX_WAIT_FACTOR = 10  # a stream of changes that never pauses is still flushed every this many delays
REMEMBERED = 10_000  # file states already handed to a run, kept to recognise a second report of the same change
POLL_DELAY_MS = 2_000  # between two walks of the tree when polling
FOLDER = (-1, -1, -1)  # the signature of any folder
DEBOUNCE_MS, STEP_MS = 1_600, 50  # as watchfiles.watch: a batch ends after a quiet step, or at the latest the debounce
RUST_TIMEOUT_MS = 500  # an empty batch twice a second: `stopped` is asked
OPEN_TRIES = 3  # a watch is set up again this many times when a folder it lists goes meanwhile
DRAIN_MS = 200  # a closing watch's last look waits this long for a change (a restart's cost)
# File times come from the kernel's coarse clock, up to a tick behind time.time(): a change this much
# before the unwatched stretch began is looked at too. More would look again at what the previous watch
# saw (a root .gitignore among it would queue the whole workspace).
CLOCK_SLACK_S = 0.05
BUSY_WAIT_S = 30.0  # a run waits this long for another process's writer before retrying later
# A failed run's paths stay queued: retried on the next change, and on their own after this back-off
# (doubling from the first to the last value while runs keep failing), until a run succeeds.
RETRY_FIRST_S, RETRY_MAX_S = 2.0, 60.0


def relevant(root: Path, path: str, include_hidden: bool = False) -> str | None:
    """The root-relative POSIX path of a changed file worth a look, or None.

    A cheap first sieve run on every event: excluded folders, hidden names and editor temp files
    are dropped here; the full workspace rules (.gitignore, excludes, size, type) are applied later.
    A changed ``.gitignore`` stands for its folder, whose files it may take in or leave out.
    """
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return None
    parts = PurePosixPath(rel).parts
    if not parts or any(p in EXCLUDED_DIRS for p in parts) or EDITOR_TEMP.search(parts[-1]):
        return None
    if parts[-1] == ".gitignore":
        return "/".join(parts[:-1])
    if not include_hidden and any(p.startswith(".") for p in parts):
        return None
    return rel


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
    its paths stay queued (:attr:`failure` holds the error) and are handed over again with the next
    change, or on their own after a back-off growing from ``RETRY_FIRST_S`` to ``RETRY_MAX_S``,
    until a run succeeds.
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
        # True: ``submit`` only queues the run, and its outcome is told later (:meth:`retry`, :meth:`succeeded`)
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

    def succeeded(self) -> None:
        """A run succeeded: the back-off starts again from its first step."""
        with self._cond:
            self._failures, self.failure, self._retry_at = 0, None, None

    def retry(self, paths: Iterable[str], err: BaseException) -> float:
        """Queue ``paths`` again after a run of them failed with ``err``: they are handed over with
        the next change, or after the back-off (returned, in seconds) grown by each failure in a row."""
        paths = list(paths)
        with self._cond:
            self._failures += 1
            self.failure = err
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
                    self.succeeded()
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
        keep.update(rel for rel in fresh if rel not in gone and (not rel or self._admits(rel)))
        return {rel: states[rel] for rel in fresh if rel in keep}

    def _remember(self, states: dict[str, tuple[int, int, int] | None]) -> None:
        for rel, state in states.items():
            if state == FOLDER:
                continue
            self._covered[rel] = state
            self._covered.move_to_end(rel)
        while len(self._covered) > REMEMBERED:
            self._covered.popitem(last=False)

    def _admits(self, rel: str) -> bool:
        try:
            return self.brain.admits(rel)
        except InvalidRequest:  # deleted meanwhile: the next event says so
            return False


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
        polling, reason = _polling_default(self._force_polling)
        ended = WatchState("off", "stopped")
        watch: _Watch | None = None
        try:
            while not self.is_set():
                try:
                    if watch is None:
                        watch = self._open(self.folders(), polling)
                        self._catch_up_unseen(watch, [])
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
                except OSError as err:  # watch limit reached, no inotify, an unwatchable folder
                    if watch is not None:
                        self._close(watch)
                        watch = None
                    if polling:
                        ended = WatchState("off", f"cannot watch {self.root}: {_first_line(err)}")
                        self._log.error("agent-brain: %s", ended.reason)
                        break
                    polling, reason = True, f"file events unavailable ({_first_line(err)}): polling instead"
                    self._log.warning("agent-brain: %s", reason)
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

    def _open(self, watched: list[Path], polling: bool) -> _Watch:
        """A watch of ``watched``, or of the folders to watch now if one of them went meanwhile."""
        for _ in range(OPEN_TRIES - 1):
            try:
                return self._opened(_Watch(watched, polling, self._poll_delay_ms))
            except FileNotFoundError:  # a folder removed since it was listed: its parent's watch says so
                watched = self.folders()
        return self._opened(_Watch(watched, polling, self._poll_delay_ms))

    def _opened(self, watch: _Watch) -> _Watch:
        self.watched = len(watch.folders)
        return watch

    def _follow(self, watch: _Watch) -> tuple[list[Path], set[str]] | None:
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

    def _handover(self, old: _Watch, watched: list[Path], renewed: set[str]) -> _Watch:
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
            self._feed(old.drain())
            old.close()
            if old.polling:
                self._unseen = min(self._unseen or old.since, old.since)
        self._catch_up_unseen(new, [f for f in new.folders if str(f) not in old.paths or str(f) in renewed])
        return new

    def _close(self, watch: _Watch) -> None:
        """Close a watch no other watch overlaps: what changes from now on until the next watch runs
        is looked at by :meth:`_catch_up_unseen`."""
        since = watch.since if watch.polling else time.time()
        try:
            self._feed(watch.drain())
        except OSError:  # the watch failed: what it had not handed out is looked at with the rest
            pass
        watch.close()
        self._unseen = min(self._unseen or since, since)

    def _catch_up_unseen(self, watch: _Watch, fresh: list[Path]) -> None:
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


class _Flag(Protocol):
    def is_set(self) -> bool: ...


class _Watch:
    """One watchfiles watch over some folders, each on its own (not recursively). Set up (the event
    watches added, or the poller's first listing taken) when made; closed by :meth:`close`."""

    def __init__(self, watched: list[Path], polling: bool, poll_delay_ms: int):
        self.folders = watched
        self.paths = {str(f) for f in watched}
        self.polling = polling
        self.closed = False
        self.since = time.time()  # a poller sees what changes after this (its first listing follows)
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

    def changes(self, timeout_ms: int, stop: _Flag | None) -> set[tuple[watchfiles.Change, str]] | None:
        """The next batch of changes (empty after ``timeout_ms`` without any), or None once ``stop`` is set."""
        raw = self._notify.watch(DEBOUNCE_MS, STEP_MS, timeout_ms, stop)
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


def _polling_default(force_polling: bool | None) -> tuple[bool, str | None]:
    if force_polling is not None:
        return force_polling, "polling asked for" if force_polling else None
    value = os.environ.get("WATCHFILES_FORCE_POLLING", "")
    if value and value.lower() not in ("false", "disable", "disabled"):
        return True, "WATCHFILES_FORCE_POLLING is set"
    return False, None


def _first_line(err: BaseException) -> str:
    """The first sentence of an error (watchfiles appends a debug dump of the paths)."""
    text = str(err).strip()
    return re.split(r"(?<=\.)\s", text, maxsplit=1)[0].rstrip(".") if text else type(err).__name__


def follow(
    brain: Brain,
    *,
    on_state: Callable[[WatchState], object] | None = None,
    on_report: Callable[[list[str], IndexReport], object] | None = None,
    on_failure: Callable[[list[str], BaseException, float], object] | None = None,
    delay: float = 1.0,
    force_polling: bool | None = None,
    stop: threading.Event | None = None,
    log: logging.Logger | None = None,
) -> int:
    """Index ``brain``'s workspace (catching up on what changed while nobody watched), then re-index
    each burst of changes, until Ctrl-C (or ``stop`` is set): a run in progress is cancelled (it
    commits nothing) and the watch stops. A run that fails is told to ``on_failure`` (its paths, the
    error, the seconds until it is retried) and its paths are retried (:class:`ChangeBatcher`); but
    an index this process cannot write (:class:`IndexReadOnly`: no run could ever succeed) ends the
    watch and is raised. Returns the number of runs that finished."""
    log = log or logging.getLogger(__name__)
    cancel = threading.Event()
    fatal: list[IndexReadOnly] = []  # a run met an index it can never write: the watch ends with it
    runs = 0

    def run(paths: list[str]) -> None:
        nonlocal runs
        try:
            report = brain.index(path=index_scope(paths), cancel=cancel, wait=BUSY_WAIT_S, missing_ok=True)
        except IndexCancelled:
            return
        except IndexReadOnly as err:
            fatal.append(err)
            raise
        runs += 1
        if on_report is not None:
            on_report(paths, report)

    batcher = ChangeBatcher(brain, run, delay=delay, log=log, on_failure=on_failure)
    catch_up: threading.Thread | None = None
    watcher = Watcher(
        batcher, force_polling=force_polling, stopped=lambda: bool(fatal) or bool(stop and stop.is_set()), log=log
    )
    try:
        watcher.start()
        state = watcher.ready()
        if on_state is not None:
            on_state(state)
        # The catch-up run on its own thread: while it embeds, the batcher's runs are handed to it
        # (Brain.index merges them) instead of waiting for its end.
        catch_up = threading.Thread(
            target=_catch_up, args=(run, batcher, log), name="agent-brain-catch-up", daemon=True
        )
        catch_up.start()
        while watcher.running:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        cancel.set()
        watcher.stop()
        batcher.join()
        if catch_up is not None:
            catch_up.join()
    if fatal:
        raise fatal[0]
    return runs


def _catch_up(run: Callable[[list[str]], None], batcher: ChangeBatcher, log: logging.Logger) -> None:
    try:
        run([""])
    except Exception as err:  # busy, a full disk: the batcher retries it as it retries a failed batch
        wait = batcher.retry([""], err)
        log.warning(
            "agent-brain: could not index the workspace (retrying on the next change, or in %.0f s): %s",
            wait,
            err,
            exc_info=not isinstance(err, BrainError),
        )
