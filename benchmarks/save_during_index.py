"""Saved during a first index → searchable: files written while a large first index embeds.

A generated workspace (never indexed, nothing cached) is followed by
:func:`agent_brain_lab.engine.watch.follow.follow` (what ``agent-brain-lab watch`` runs; the server's save
hook and watcher feed the same batcher, and its save jobs are handed over the same way): its
catch-up run is the first index. Once that run is embedding, the benchmark writes files in turn —
an existing module modified, a new doc created — each with a word no other file has, and asks BM25
(through the same Brain, as the server does) for that word every 20 ms until the file answers. The
latency runs from the end of the write to that answer: the watcher's grouping, the batcher's quiet
delay (1 s, the server's ``reindex_delay``), the end of the embedding batch in flight, and one
analyse + publish of the file by the embedding run (engine/merges.py). Every sample must be
answered while the first index is still embedding; the run is then cancelled (what it embedded
stays cached).
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
from .watch_bench import _word

Log = Callable[[str], None]
MODULES = {"quick": 200, "full": 800}  # about 2.6k and 10k chunks: both publish early, then embed
SAMPLES = {"quick": 6, "full": 20}
DELAY_S = 1.0  # the batcher's quiet delay: the server's default reindex_delay
POLL_S = 0.02
TIMEOUT_S = 900.0  # the first index's analysis at 10k chunks on a loaded machine


def save_during_index(sizes: Sizes, cache: Path, log: Log) -> dict:
    modules, samples = MODULES.get(sizes.name, MODULES["quick"]), SAMPLES.get(sizes.name, SAMPLES["quick"])
    root = cache / "work" / "save-during-index"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    generate(root, modules)
    try:
        return _measure(root, modules, samples, log)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _measure(root: Path, modules: int, samples: int, log: Log) -> dict:
    brain = Brain(root)
    stop = threading.Event()
    started = time.perf_counter()
    thread = threading.Thread(target=follow, args=(brain,), kwargs={"delay": DELAY_S, "stop": stop}, daemon=True)
    thread.start()
    try:
        _until(lambda: brain.merging, "the first index's embedding phase")
        embedding_after = time.perf_counter() - started
        status = brain.status()
        chunks, coverage_start = status.chunks["total"], status.coverage
        targets = sorted(p for p in root.rglob("*.py"))
        latencies: dict[str, list[float]] = {"modify": [], "create": []}
        during = 0
        for i in range(samples):
            kind = "modify" if i % 2 == 0 else "create"
            word = _word(5000 + i)
            if kind == "modify":
                path = targets[(i * 7) % len(targets)]
                path.write_text(path.read_text() + f"\n\ndef {word}_total(items):\n    return len(items)\n")
            else:
                path = root / "notes" / f"saved_{i}.md"
                path.parent.mkdir(exist_ok=True)
                path.write_text(f"# Saved {i}\n\nThe {word} is written here.\n")
            written = time.perf_counter()
            _until(lambda w=word: any(w in r.text for r in brain.query(w, mode="bm25", top_k=3).results), word)
            latencies[kind].append((time.perf_counter() - written) * 1000)
            during += brain.merging  # answered while the first index still embeds
            time.sleep(0.3 * (i % 4))  # saves land at different points of an embedding batch
        status = brain.status()
    finally:
        stop.set()
        thread.join(120)
    every = latencies["modify"] + latencies["create"]
    summary = {
        "modules": modules,
        "chunks": chunks,
        "embedding_after_s": round(embedding_after, 1),
        "coverage_at_first_save": round(coverage_start, 3),
        "coverage_at_last_answer": round(status.coverage, 3),
        "answered_while_embedding": during,
        "delay_s": DELAY_S,
        "all": latency_summary(every),
        **{kind: latency_summary(ms) for kind, ms in latencies.items()},
    }
    log(
        f"  {chunks} chunks, embedding from {embedding_after:.0f} s: saved → bm25 p50 "
        f"{summary['all']['p50_ms']:.0f} ms, p95 {summary['all']['p95_ms']:.0f} ms "
        f"({during}/{samples} while embedding, coverage {coverage_start:.2f} → {status.coverage:.2f})"
    )
    if during < samples:
        raise RuntimeError("save-during-index benchmark: the first index ended before every sample was answered")
    return summary


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_S
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"save-during-index benchmark: {what} not seen within {TIMEOUT_S}s")
        time.sleep(POLL_S)


def markdown(section: dict) -> list[str]:
    s = section
    return [
        "## Saved during a first index → searchable",
        "",
        f"{s['modules']} generated modules ({s['chunks']} chunks), never indexed: `follow` runs the first index; "
        f"from {s['embedding_after_s']} s on it embeds, and files are written in turn (a module modified, a doc "
        f"created), each with a new word. Latency: end of the write → the first BM25 answer naming the file "
        f"(polled every 20 ms), with the batcher's {s['delay_s']:g} s quiet delay included. "
        f"{s['answered_while_embedding']}/{s['all']['n']} answered while the first index was still embedding "
        f"(coverage {s['coverage_at_first_save']} → {s['coverage_at_last_answer']}).",
        "",
        "| saves | p50 ms | p95 ms |",
        "|---|---|---|",
        *(
            f"| {kind} ({s[kind]['n']}) | {s[kind]['p50_ms']:.0f} | {s[kind]['p95_ms']:.0f} |"
            for kind in ("all", "modify", "create")
        ),
    ]
