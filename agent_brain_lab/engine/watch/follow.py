"""``agent-brain-lab watch``: index a workspace, then re-index each burst of changes until Ctrl-C.

The batcher and the watcher together, in the foreground of one process; the server runs the same
two pieces its own way (:class:`agent_brain_lab.server.watcher.DiskFollower`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ..brain import Brain
from ..types import BrainError, IndexCancelled, IndexReadOnly, IndexReport, WatchState, index_scope
from .batcher import ChangeBatcher
from .watcher import Watcher

BUSY_WAIT_S = 30.0  # a run waits this long for another process's writer before retrying later


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
