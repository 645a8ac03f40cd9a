"""Watcher latency: a file written from outside the engine → its words searchable.

A generated workspace is indexed and followed by :func:`agent_brain_lab.engine.watch.follow.follow` (what
``agent-brain-lab watch`` runs, and what the server runs behind its job queue) on a thread. The
benchmark writes a file with a word no other file has, then asks BM25 for that word every 20 ms
until the file answers; the latency runs from the end of the write to that answer. It is the
batcher's quiet delay (``reindex_delay``, 1 s by default), plus watchfiles' grouping (≥ 50 ms),
plus one incremental index run. Files are created and modified in turn; every sample must be one run.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

from agent_brain_lab import Brain
from agent_brain_lab.engine.watch.follow import follow

from .metrics import latency_summary
from .sizes import Sizes
from .synth import generate

Log = Callable[[str], None]
MODULES = 20  # about 250 chunks: a small workspace
SAMPLES = 10  # per kind (create, modify) and per delay
DELAYS_S = (1.0, 0.2)  # the default reindex_delay, and the one the tests use
POLL_S = 0.02
TIMEOUT_S = 120.0


def watch(sizes: Sizes, cache: Path, log: Log) -> dict:
    root = cache / "work" / "watch"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    generate(root, MODULES)
    results: dict = {"modules": MODULES, "samples_per_kind": SAMPLES, "delays": {}}
    for delay in DELAYS_S:
        results["delays"][f"{delay:g}"] = _measure(root, delay, log)
    shutil.rmtree(root, ignore_errors=True)
    return results


def _measure(root: Path, delay: float, log: Log) -> dict:
    brain = Brain(root)
    brain.index()  # the first index, not timed: the catch-up run of `follow` then finds nothing to do
    runs: list[list[str]] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=follow,
        args=(brain,),
        kwargs={"on_report": lambda paths, _report: runs.append(paths), "delay": delay, "stop": stop},
        daemon=True,
    )
    thread.start()
    _until(lambda: bool(runs), "the catch-up run")
    chunks = brain.status().chunks["total"]
    latencies: dict[str, list[float]] = {"create": [], "modify": []}
    extra_runs = 0
    for i in range(SAMPLES):
        for kind in ("create", "modify"):
            word = _word(len(runs) + 1000 * int(delay * 10))
            path = root / "probe" / f"sample_{i}.md"
            path.parent.mkdir(exist_ok=True)
            before = len(runs)
            path.write_text(f"# Sample {i}\n\nThe {word} is here.\n")
            written = time.perf_counter()
            _until(lambda w=word: any(w in r.text for r in brain.query(w, mode="bm25", top_k=3).results), word)
            latencies[kind].append((time.perf_counter() - written) * 1000)
            _until(lambda b=before: len(runs) > b, "the run's report")  # the query may beat the callback
            extra_runs += len(runs) - before - 1
    stop.set()
    thread.join(30)
    summary = {kind: latency_summary(ms) for kind, ms in latencies.items()}
    summary.update(chunks=chunks, extra_runs=extra_runs)
    log(
        f"  delay {delay:g}s, {chunks} chunks: create p50 {summary['create']['p50_ms']:.0f} ms, "
        f"modify p50 {summary['modify']['p50_ms']:.0f} ms, extra runs {extra_runs}"
    )
    return summary


def _word(n: int) -> str:
    """A made-up word no other file holds (letters only: the tokenizer splits digits off)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters += chr(ord("a") + digit)
        if not n:
            return f"zqx{letters}probe"


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"watch benchmark: {what} not seen within {TIMEOUT_S}s")
        time.sleep(POLL_S)


def markdown(section: dict) -> list[str]:
    out = [
        "## Watcher latency (a file written from outside → searchable)",
        "",
        f"{section['modules']} generated modules; {section['samples_per_kind']} samples per kind; "
        "from the end of the write to the first BM25 answer naming the file (polled every 20 ms). "
        "The delay is `c.AgentBrain.reindex_delay`, the quiet time that closes a burst of changes.",
        "",
        "| delay | chunks | create p50 / p95 ms | modify p50 / p95 ms | extra runs |",
        "|---|---|---|---|---|",
    ]
    for delay, row in section["delays"].items():
        create, modify = row["create"], row["modify"]
        out.append(
            f"| {delay} s | {row['chunks']} | {create['p50_ms']:.0f} / {create['p95_ms']:.0f} "
            f"| {modify['p50_ms']:.0f} / {modify['p95_ms']:.0f} | {row['extra_runs']} |"
        )
    return out
