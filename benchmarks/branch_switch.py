"""A branch switch that changes many files: one batched run whose cost follows the changed files.

:func:`make_repo` turns a generated workspace (benchmarks/synth.py) into a git repository with two
branches: ``main`` and ``switch``, which edits ``changed`` files (one line in each file's first
function carries a word no other file has). :func:`measure` (run in its own process, on an indexed ``main``)
follows the workspace with :func:`agent_brain_lab.engine.watch.follow.follow` (what ``agent-brain-lab watch``
runs), checks out ``switch`` and asks BM25 for the word every 50 ms until a changed file answers (or
reports that the watcher did not follow); then, unwatched, it times one ``index`` run (the CLI's
``agent-brain-lab index`` after a checkout), checks ``main`` out again and times one more.

Run alone: ``python -m benchmarks.branch_switch ROOT`` (prints JSON).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from pathlib import Path

WORD = "zqxbranchswitchprobe"  # letters only: the tokenizer splits digits off
BRANCH = "switch"
POLL_S = 0.05
TIMEOUT_S = 900.0
WATCH_TIMEOUT_S = 120.0  # a watched switch not searchable by then is reported as not followed
QUIET_S = 3.0  # after the answer: how long to wait for a second run that should not come


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def edit_line(text: str, word: str) -> str:
    """``text`` with a call to ``word`` inserted after the first function's docstring line."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())] + "    "
    lines.insert(at + 2, f"{indent}{word}(1)")
    return "\n".join(lines) + "\n"


def make_repo(root: Path, files: list[Path], changed: int) -> list[str]:
    """Commit ``root`` as ``main``; branch ``switch`` edits ``changed`` of the Python ``files`` (spread
    evenly). Leaves ``main`` checked out; returns the changed paths (relative)."""
    python = [f for f in files if f.suffix == ".py"]
    if changed > len(python):
        raise ValueError(f"{changed} files to change, the workspace has {len(python)} modules")
    picked = [python[i * len(python) // changed] for i in range(changed)]
    (root / ".gitignore").write_text(".agent-brain/\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-m", "main")
    _git(root, "checkout", "-q", "-b", BRANCH)
    for path in picked:
        path.write_text(edit_line(path.read_text(), WORD))
    _git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-q", "-am", BRANCH)
    _git(root, "checkout", "-q", "main")
    return [p.relative_to(root).as_posix() for p in picked]


def _found(brain, changed: set[str]) -> bool:
    return any(r.source in changed for r in brain.query(WORD, mode="bm25", top_k=10).results)


def _until(check, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"branch switch: {what} not seen within {timeout}s")
        time.sleep(POLL_S)


def _run_summary(paths: list[str], report) -> dict:
    keys = ("files_indexed", "files_deleted", "chunks_total", "chunks_added", "chunks_removed", "chunks_embedded")
    return {"paths": len(paths), "duration_s": report.duration_s} | {k: getattr(report, k) for k in keys}


def _watched(brain, root: Path, changed: set[str], delay: float) -> dict:
    """Follow the workspace, check out ``switch``: until BM25 finds the word, or ``WATCH_TIMEOUT_S``
    without it (the watcher's warnings are kept: a batch it could not index is dropped)."""
    from agent_brain_lab.engine.watch.follow import follow

    warnings: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: warnings.append(record.getMessage())  # type: ignore[method-assign]
    log = logging.getLogger("benchmarks.branch_switch.watch")
    log.addHandler(handler)
    runs: list[tuple[float, list[str], object]] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=follow,
        args=(brain,),
        kwargs={
            "on_report": lambda paths, report: runs.append((time.perf_counter(), paths, report)),
            "delay": delay,
            "stop": stop,
            "log": log,
        },
        daemon=True,
    )
    started = time.perf_counter()
    thread.start()
    _until(lambda: bool(runs), "the watcher's catch-up run", TIMEOUT_S)
    out: dict = {"catch_up_s": round(runs[0][0] - started, 1), "catch_up": _run_summary(runs[0][1], runs[0][2])}
    before = len(runs)
    start = time.perf_counter()
    _git(root, "checkout", "-q", BRANCH)
    out["checkout_s"] = round(time.perf_counter() - start, 2)
    out["searchable_s"] = None
    try:
        _until(lambda: _found(brain, changed) or _dropped(warnings), f"{WORD!r} after the checkout", WATCH_TIMEOUT_S)
        if not _dropped(warnings):
            out["searchable_s"] = round(time.perf_counter() - start, 2)
            _until(lambda: len(runs) > before, "the run's report", TIMEOUT_S)  # the query may beat the callback
            time.sleep(QUIET_S)
    except TimeoutError:
        pass
    stop.set()
    thread.join(60)
    out["runs"] = len(runs) - before
    out["run"] = [_run_summary(paths, report) for _, paths, report in runs[before:]]
    out["warnings"] = warnings
    return out


def _dropped(warnings: list[str]) -> bool:
    """The watcher gave up on a batch (it does not retry it)."""
    return any("could not re-index" in w for w in warnings)


def _timed_index(brain, changed: set[str]) -> dict:
    start = time.perf_counter()
    report = brain.index()
    return _run_summary([], report) | {"wall_s": round(time.perf_counter() - start, 2), "found": _found(brain, changed)}


def measure(root: Path, changed: list[str], delay: float = 1.0) -> dict:
    """The switch followed by the watcher; then, unwatched, one ``index`` run after the checkout of
    ``switch`` (a no-op when the watcher made it) and one after the checkout of ``main`` back."""
    from agent_brain_lab import Brain

    brain = Brain(root)
    wanted = set(changed)
    if _found(brain, wanted):
        raise RuntimeError(f"{WORD!r} is already indexed before the checkout")
    out: dict = {"chunks": brain.status().chunks["total"], "watched": _watched(brain, root, wanted, delay)}
    out["index_after_switch"] = _timed_index(brain, wanted)
    _git(root, "checkout", "-q", "main")
    out["index_after_checkout"] = _timed_index(brain, wanted)
    return out


def main() -> None:
    root = Path(sys.argv[1])
    changed = json.loads((root.parent / "changed.json").read_text())
    print(json.dumps(measure(root, changed)))


if __name__ == "__main__":
    main()
