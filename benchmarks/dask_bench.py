"""Indexing throughput through a local Dask cluster (1 and 2 worker processes) against local embedding,
the rate per worker core, and the projected time to index 100k and 1M chunks on bigger clusters.

Each configuration indexes its own copy of one generated workspace from scratch (real embeddings):
the local run includes loading the model (about 0.6 s); the workers load it beforehand, on a tiny
workspace (a worker keeps it between runs), and the client pays its connect and model check inside
the timed run. The projection is a model, not a measurement:
time(N, cores) = N x (client seconds per chunk + 1 / (cores x measured rate per worker core)),
where the client's share (scan, chunk, write, publish; no overlap with embedding) is measured by a
rebuild with every vector cached.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent_brain_lab import Brain

from .synth import generate

Log = Callable[[str], None]
REPO = Path(__file__).resolve().parent.parent
MODULES = {"quick": 24, "full": 48}  # about 13 chunks per module: a short run on a shared machine
PROJECT_CHUNKS = (100_000, 1_000_000)
PROJECT_CORES = (1, 8, 32)


def run(size: str, cache: Path, log: Log) -> dict:
    try:
        import distributed
    except ImportError:
        return {"skipped": 'distributed is not installed (pip install "agent_brain_lab[dask]")'}
    base = cache / "work"
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="dask-", dir=base))
    try:
        template, tiny = work / "template", work / "tiny"
        generate(template, MODULES.get(size, MODULES["quick"]))
        generate(tiny, 1)
        local = Brain(_copy(template, work / "local"))
        runs = {"local": _timed(local, log, "local")}
        start = time.perf_counter()
        if local.index(force=True).chunks_embedded:  # a rebuild with every vector cached: the client's own work
            raise RuntimeError("the rebuild with a warm cache embedded chunks again")
        client_s = time.perf_counter() - start
        for workers in (1, 2):
            env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
            with distributed.LocalCluster(
                processes=True, n_workers=workers, threads_per_worker=1, dashboard_address=":0", env=env
            ) as cluster:
                address = cluster.scheduler_address
                Brain(_copy(tiny, work / f"warm{workers}"), dask_scheduler=address).index()  # workers load the model
                brain = Brain(_copy(template, work / f"dask{workers}"), dask_scheduler=address)
                runs[f"dask_{workers}"] = _timed(brain, log, f"{workers} Dask worker(s) x 1 thread")
        return _summary(runs, client_s, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _copy(template: Path, root: Path) -> Path:
    shutil.copytree(template, root)
    return root


def _timed(brain: Brain, log: Log, label: str) -> dict:
    start = time.perf_counter()
    report = brain.index()
    wall = time.perf_counter() - start
    log(f"  {label}: {report.chunks_embedded} chunks in {wall:.1f}s ({report.chunks_embedded / wall:.1f} chunks/s)")
    return {"chunks": report.chunks_embedded, "index_s": round(wall, 2), "chunks_per_s": report.chunks_embedded / wall}


def _summary(runs: dict, client_s: float, log: Log) -> dict:
    chunks = runs["local"]["chunks"]
    client_per_chunk = client_s / chunks
    # Embedding alone on one worker core: the 1-worker run minus the client's share.
    per_core = chunks / max(runs["dask_1"]["index_s"] - client_s, 1e-6)
    log(f"  client work {client_s:.1f}s; per worker core {per_core:.1f} chunks/s")
    projection = {
        str(n): {str(c): round(n * (client_per_chunk + 1 / (c * per_core)) / 3600, 2) for c in PROJECT_CORES}
        for n in PROJECT_CHUNKS
    }
    return {
        "runs": runs,
        "client_s": round(client_s, 2),
        "client_chunks_per_s": 1 / client_per_chunk,
        "per_worker_core_chunks_per_s": per_core,
        "two_worker_speedup": runs["dask_2"]["chunks_per_s"] / runs["dask_1"]["chunks_per_s"],
        "projected_hours": projection,
        "load_1min": os.getloadavg()[0],
        "cores": os.cpu_count(),
    }


def markdown(section: dict) -> list[str]:
    if "skipped" in section:
        return ["## Dask", "", f"Skipped: {section['skipped']}"]
    runs = section["runs"]
    rows = [
        f"| {label} | {runs[key]['chunks']} | {runs[key]['index_s']:.1f} | {runs[key]['chunks_per_s']:.1f} |"
        for key, label in (("local", "local (all cores)"), ("dask_1", "1 worker x 1 thread"), ("dask_2", "2 workers"))
    ]
    projected = section["projected_hours"]
    return [
        "## Dask: indexing through a local cluster (measured) and bigger ones (projected)",
        "",
        "| embedding on | chunks | index s | chunks/s |",
        "|---|---|---|---|",
        *rows,
        "",
        f"Per worker core {section['per_worker_core_chunks_per_s']:.1f} chunks/s; client work "
        f"{section['client_chunks_per_s']:.0f} chunks/s; 2 workers vs 1: {section['two_worker_speedup']:.2f}x; "
        f"load average {section['load_1min']:.1f} on {section['cores']} cores"
        + (
            " (the CPU was shared: the rates are lower bounds, and a second worker finds no free core)."
            if section["load_1min"] > section["cores"]
            else "."
        ),
        "",
        "Projected, not measured: hours = chunks x (1 / client rate + 1 / (worker cores x rate per worker core)), "
        "with this run's two rates (the client's share, measured on a few hundred chunks, includes fixed costs).",
        "",
        "| projected hours | " + " | ".join(f"{c} worker cores" for c in PROJECT_CORES) + " |",
        "|---|" + "---|" * len(PROJECT_CORES),
        *(f"| {int(n):,} chunks | " + " | ".join(f"{h:.2f}" for h in projected[n].values()) + " |" for n in projected),
    ]
