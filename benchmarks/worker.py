"""One measurement in a fresh process (peak memory and cold start need one); prints one JSON object.

python -m benchmarks.worker index ROOT   # full index from scratch: report, wall time, peak RSS
python -m benchmarks.worker reindex ROOT # forced rebuild with every vector cached (no embedding)
python -m benchmarks.worker embed ROOT   # embedding-only time of the indexed chunk texts
python -m benchmarks.worker open ROOT    # cold open: import, open + first bm25 query, first vector query
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def index(root: Path) -> dict:
    """Delete any index (and its embedding cache) first, then time a full index."""
    from agent_brain_lab import Brain

    Brain(root).reset()
    return _timed_index(root)


def reindex(root: Path) -> dict:
    """Rebuild everything while the index's embedding cache holds every vector: the non-embedding work."""
    return _timed_index(root)


def _timed_index(root: Path) -> dict:
    from agent_brain_lab import Brain

    start = time.perf_counter()
    report = Brain(root).index(force=True)
    return {"wall_s": time.perf_counter() - start, "report": report.to_dict(), "peak_rss_mb": _peak_rss_mb()}


def embed(root: Path) -> dict:
    """Model load plus embedding of exactly the texts the engine embedded, with the engine's batching."""
    from agent_brain_lab.engine.embedding import Embedder, resolve_model

    from .engine_view import indexed_chunks

    texts = [c.indexed_text() for c in indexed_chunks(root)[0]]
    start = time.perf_counter()
    Embedder(resolve_model()).embed(texts)
    return {"wall_s": time.perf_counter() - start, "texts": len(texts), "peak_rss_mb": _peak_rss_mb()}


def cold_open(root: Path) -> dict:
    start = time.perf_counter()
    from agent_brain_lab import Brain

    imported = time.perf_counter()
    brain = Brain(root)
    brain.query("open the configuration file", mode="bm25", top_k=10)
    opened = time.perf_counter()
    brain.query("load the user session from the cache", mode="vector", top_k=10)
    return {
        "import_s": imported - start,
        "open_and_bm25_s": opened - imported,
        "first_vector_s": time.perf_counter() - opened,
    }


COMMANDS = {"index": index, "reindex": reindex, "embed": embed, "open": cold_open}


def run(command: str, root: Path, timeout: float = 7200) -> dict:
    """Run a command in a fresh interpreter and return its JSON."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.worker", command, str(root)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"worker {command} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(json.dumps(COMMANDS[sys.argv[1]](Path(sys.argv[2]))))
