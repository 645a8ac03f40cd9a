"""Peak RSS and speed of embedding a workspace's chunks at several per-batch token budgets.

For a workspace ROOT: its chunks' indexed texts (the engine's scan and chunkers), a seeded sample of
``--texts`` of them, embedded as the indexer does (all texts sorted by length, groups of
``Embedder.group_size``), once per budget, each in a fresh child process so that its peak RSS
(``VmHWM``) is its own. A budget of 8192 tokens (32 texts of 256 tokens) is the old fixed batch of 32.
Every budget's vectors are compared with the first one's.

Run: ``python -m benchmarks.embed_batches ROOT --texts 1500 --budgets 8192,2048,1024``
→ results/embed-batches.json.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .first_index import peak_rss_mb

RESULTS = Path(__file__).resolve().parent / "results"


def sample_texts(root: Path, count: int, seed: int = 0) -> list[str]:
    """``count`` indexed chunk texts of ``root``, sampled with a fixed seed."""
    from agent_brain_lab.engine.analysis import ChunkSettings, analyze_file
    from agent_brain_lab.engine.workspace import ScanOptions, read_text, scan

    files, _ = scan(root, ScanOptions())
    texts = [c.indexed_text() for f in files for c in analyze_file(f, read_text(f), ChunkSettings())[0]]
    random.Random(seed).shuffle(texts)
    return texts[:count]


def _embed(texts_file: Path, budget: int, vectors_file: Path) -> dict:
    """The child: embed the texts like the indexer does, at ``budget`` tokens per batch."""
    from agent_brain_lab.engine.embedding import Embedder, resolve_model

    texts = json.loads(texts_file.read_text())
    embedder = Embedder(resolve_model())
    embedder.token_budget = budget
    embedder.load()
    loaded = peak_rss_mb()
    started = time.perf_counter()
    order = sorted(texts, key=len)
    vectors = [embedder.embed(order[i : i + embedder.group_size]) for i in range(0, len(order), embedder.group_size)]
    seconds = time.perf_counter() - started
    np.save(vectors_file, np.concatenate(vectors))
    return {
        "budget": budget,
        "seconds": round(seconds, 1),
        "texts_per_s": round(len(texts) / seconds, 1),
        "rss_loaded_mb": loaded,
        "peak_rss_mb": peak_rss_mb(),
    }


def run(root: Path, count: int, budgets: list[int]) -> dict:
    texts = sample_texts(root, count)
    rows = []
    first: np.ndarray | None = None
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts))
        for budget in budgets:
            vectors_file = Path(tmp) / f"{budget}.npy"
            cmd = [
                sys.executable,
                "-m",
                "benchmarks.embed_batches",
                "--child",
                str(texts_file),
                str(budget),
                str(vectors_file),
            ]
            row = json.loads(subprocess.check_output(cmd, text=True).strip().splitlines()[-1])
            vectors = np.load(vectors_file)
            first = vectors if first is None else first
            row["max_abs_diff_vs_first"] = float(np.abs(vectors - first).max())
            print(json.dumps(row), flush=True)
            rows.append(row)
    lengths = sorted(len(t) for t in texts)
    return {
        "root": str(root),
        "texts": len(texts),
        "chars_p50": lengths[len(lengths) // 2],
        "chars_max": lengths[-1],
        "load": subprocess.check_output(["uptime"], text=True).strip(),
        "budgets": rows,
    }


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(_embed(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--texts", type=int, default=1500)
    parser.add_argument("--budgets", default="8192,2048,1024")
    args = parser.parse_args()
    result = run(args.root, args.texts, [int(b) for b in args.budgets.split(",")])
    (RESULTS / "embed-batches.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
