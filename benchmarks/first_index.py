"""A first index watched from outside: when keyword and graph search first answer, coverage over time.

:func:`timeline` starts ``Brain(root).index()`` (real model, nothing cached) in a child process and,
from this process, every second asks ``Brain(root).status()``, a BM25 query for a function name and a
graph query (``what calls <name>``), and reads the child's peak RSS (``VmHWM``), until the index is
complete (SIGTERM cancels the child's run: what it embedded stays cached).
:func:`plot` draws coverage over time for several timelines into one PNG.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

POLL_S = 1.0


def peak_rss_mb(pid: int | str = "self") -> int | None:
    """The peak resident set size of a live process (``VmHWM``), in MB; None once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    line = next((x for x in status.splitlines() if x.startswith("VmHWM:")), None)
    return round(int(line.split()[1]) / 1024) if line else None


def first_time(samples: list[dict], key: str) -> float | None:
    """When the first answer for ``key`` arrived: the start of the first sample where ``key`` is true, plus
    its queries' time up to and including that one (a reader's first query opens the index: seconds at 100k)."""
    for s in samples:
        if s.get(key):
            done = s.get(f"{key}_done_ms", 0.0)
            return round(s["t"] + done / 1000, 2)
    return None


def first_published(samples: list[dict]) -> float | None:
    """When a sample first saw a published generation (the probes only query one)."""
    return next((s["t"] for s in samples if "bm25" in s), None)


def _probe(brain, keyword: str, caller_of: str) -> dict:
    """One poll: status, and whether a BM25 and a graph query answer (errors before the first publish)."""
    from agent_brain_lab.engine.types import BrainError

    started = time.perf_counter()
    status = brain.status()
    sample: dict = {"state": status.state, "generation": status.generation, "coverage": status.coverage}
    sample["chunks"] = status.chunks.get("total", 0)
    if not status.generation:  # nothing published yet (the default coverage is 1.0)
        sample["coverage"] = 0.0
        return sample
    for key, query, mode in (("bm25", keyword, "bm25"), ("graph", f"what calls {caller_of}", "graph")):
        try:
            response = brain.query(query, mode=mode, top_k=5)
            sample[key] = bool(response.results)
        except BrainError as err:
            sample[key] = False
            sample[f"{key}_error"] = type(err).__name__
        sample[f"{key}_done_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return sample


def timeline(root: Path, keyword: str, caller_of: str, log) -> dict:
    """Index ``root`` from scratch in a child process and sample it from here every second."""
    from agent_brain_lab import Brain

    cmd = [sys.executable, "-m", "benchmarks.first_index", str(root)]
    started = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    brain = Brain(root)
    samples: list[dict] = []
    peak = 0
    while child.poll() is None:
        tick = time.perf_counter()
        sample = {"t": round(tick - started, 2), **_probe(brain, keyword, caller_of)}
        peak = max(peak, peak_rss_mb(child.pid) or 0)
        sample["peak_rss_mb"] = peak
        samples.append(sample)
        if len(samples) % 30 == 0:
            log(f"  t={sample['t']:.0f}s coverage={sample['coverage']:.3f} rss peak {peak} MB")
        time.sleep(max(0.0, POLL_S - (time.perf_counter() - tick)))
    try:
        out, _ = child.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # a cancel not honoured within two minutes
        child.kill()
        out, _ = child.communicate()
    wall = time.perf_counter() - started
    final = {"t": round(wall, 2), **_probe(brain, keyword, caller_of)}
    samples.append(final)
    report = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
    return {
        "wall_s": round(wall, 1),
        "child": report,
        "first_published_s": first_published(samples),
        "first_bm25_s": first_time(samples, "bm25"),
        "first_graph_s": first_time(samples, "graph"),
        "chunks": final["chunks"],
        "final_coverage": final["coverage"],
        "peak_rss_mb": max(peak, report.get("peak_rss_mb", 0)),
        "samples": samples,
    }


def plot(timelines: dict[str, dict], path: Path) -> None:
    """Coverage over time, one line per timeline, the first keyword answer marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for label, tl in timelines.items():
        ts = [s["t"] / 60 for s in tl["samples"]]
        line = ax.plot(ts, [s["coverage"] * 100 for s in tl["samples"]], label=f"{label} ({tl['chunks']:,} chunks)")
        if tl["first_bm25_s"] is not None:
            ax.axvline(tl["first_bm25_s"] / 60, color=line[0].get_color(), linestyle=":", linewidth=1)
    ax.set_xlabel("minutes since the first index started")
    ax.set_ylabel("coverage: embedded chunks, %")
    ax.set_ylim(0, 102)
    ax.set_title("First index: coverage over time (dotted: first keyword answer)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _index(root: Path) -> dict:
    """The child: one first index, cancelled on SIGTERM; its report and peak RSS as JSON."""
    from agent_brain_lab import Brain
    from agent_brain_lab.engine.types import IndexCancelled

    cancel = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    started = time.perf_counter()
    try:
        report = Brain(root).index(cancel=cancel).to_dict()
        report.pop("skipped", None)
    except IndexCancelled:
        report = {"cancelled": True}
    return report | {"index_s": round(time.perf_counter() - started, 1), "peak_rss_mb": peak_rss_mb() or 0}


if __name__ == "__main__":
    print(json.dumps(_index(Path(sys.argv[1]))))
