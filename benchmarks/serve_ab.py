"""Serving latency at ~100k chunks of two source trees, back to back in one run (an A/B).

Each round runs :mod:`benchmarks.latency100k`'s ``serve`` step (a fresh process, ``Brain.warm()``,
then every mode on its own slice of distinct queries: wall p50/p95, CPU p50 of the process, the query
embedding alone) once per tree, in alternating order (before/after, then after/before), so both
share the machine's load of the moment; the load average is recorded around every process. The
saved workspace (:func:`benchmarks.latency100k.workspace`) is only read.

The "before" tree is a plain copy of another commit's files, e.g.
``git archive <commit> | tar -x -C /tmp/before``.

Run: ``python -m benchmarks.serve_ab --before /tmp/before --rounds 4 --name hybrid-100k`` (results:
``results/<name>-before.{json,md}`` and ``results/<name>-after.{json,md}``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import latency100k

RESULTS = Path(__file__).resolve().parent / "results"
HERE = Path(__file__).resolve().parents[1]
TARGETS = {"vector": 8.0, "hybrid": 10.0, "graph": 10.0, "multi": 15.0}  # issue 23, p50 ms at 100k chunks


def serve(tree: Path, root: Path, queries: int) -> dict:
    """One ``serve`` step with ``tree``'s engine (and its copy of the benchmark), in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "benchmarks.latency100k", "--child", "serve", str(root), str(queries)]
    load_before, started = latency100k._uptime(), time.perf_counter()
    out = json.loads(subprocess.check_output(cmd, text=True, cwd=tree, env=env).strip().splitlines()[-1])
    return {
        **out,
        "load_before": load_before,
        "load_after": latency100k._uptime(),
        "process_s": time.perf_counter() - started,
    }


def summary(runs: list[dict]) -> dict:
    """Per mode: the median over the rounds of each figure, and in how many rounds p50 met its target."""
    out = {}
    for mode in runs[0]["modes"]:
        figures = [r["modes"][mode] for r in runs]
        out[mode] = {
            key: statistics.median(f[key] for f in figures) for key in ("p50_ms", "p95_ms", "cpu_p50_ms", "max_ms")
        }
        out[mode]["p50_rounds_ms"] = [round(f["p50_ms"], 2) for f in figures]
        if mode in TARGETS:
            out[mode]["target_ms"] = TARGETS[mode]
            out[mode]["met"] = f"{sum(f['p50_ms'] <= TARGETS[mode] for f in figures)}/{len(figures)}"
    out["query_embedding_p50_ms"] = statistics.median(r["query_embedding"]["p50_ms"] for r in runs)
    return out


def run(before: Path, after: Path, modules: int, rounds: int, queries: int, log) -> dict[str, dict]:
    root = latency100k.BASE / f"m{modules}" / "ws"
    if not (root.parent / "build.json").exists():
        raise SystemExit(f"no saved workspace at {root}: build it with python -m benchmarks.latency100k")
    trees = {"before": before, "after": after}
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(rounds):
        for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
            runs[side].append(serve(trees[side], root, queries))
            modes = runs[side][-1]["modes"]
            log(f"round {i + 1} {side}: " + ", ".join(f"{m} {v['p50_ms']:.1f}" for m, v in modes.items()))
    chunks = json.loads((root.parent / "build.json").read_text())["build"]["chunks"]
    return {
        side: {
            "tree": str(trees[side]),
            "commit": _commit(trees[side]),
            "chunks": chunks,
            "rounds": rounds,
            "queries_per_mode": queries,
            "summary": summary(runs[side]),
            "runs": runs[side],
        }
        for side in trees
    }


def _commit(tree: Path) -> str | None:
    marker = tree / "COMMIT"  # written next to an archived tree
    if marker.exists():
        return marker.read_text().strip()
    try:
        return subprocess.check_output(["git", "-C", str(tree), "rev-parse", "HEAD"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def markdown(name: str, side: str, results: dict[str, dict]) -> str:
    mine, other = results[side], results["after" if side == "before" else "before"]
    lines = [
        f"# Serving latency at {mine['chunks']:,} chunks, {side} (python -m benchmarks.serve_ab --name {name})",
        "",
        f"Engine: `{mine['commit']}`; measured back to back with the {'after' if side == 'before' else 'before'} "
        f"tree (`{other['commit']}`) in {mine['rounds']} alternating rounds, each a fresh warmed process, "
        f"{mine['queries_per_mode']} distinct queries per mode (a third prose, identifiers, relation questions).",
        "Figures: the median over the rounds of each round's p50 / p95 / CPU p50 (process CPU time per query, all",
        "threads). 2 cores shared with other work: the load average around each process is listed below.",
        "",
        "| mode | p50 ms | p95 ms | CPU p50 ms | p50 per round | target p50 | met | "
        f"{'before' if side == 'after' else 'after'} p50 / p95 / CPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, m in mine["summary"].items():
        if mode == "query_embedding_p50_ms":
            continue
        o = other["summary"][mode]
        lines.append(
            f"| {mode} | {m['p50_ms']:.1f} | {m['p95_ms']:.1f} | {m['cpu_p50_ms']:.1f} | "
            f"{', '.join(f'{x:.1f}' for x in m['p50_rounds_ms'])} | {m.get('target_ms', '')} | {m.get('met', '')} | "
            f"{o['p50_ms']:.1f} / {o['p95_ms']:.1f} / {o['cpu_p50_ms']:.1f} |"
        )
    lines += [
        "",
        f"Query embedding alone (Embedder.embed_query, p50 median over rounds): {mine['summary']['query_embedding_p50_ms']:.1f} ms.",
        "",
        "Load average around each process:",
        "",
        *[
            f"- round {i + 1}: `{r['load_before'].split('load average: ')[-1]}` -> "
            f"`{r['load_after'].split('load average: ')[-1]}`"
            for i, r in enumerate(mine["runs"])
        ],
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="source tree of the engine before")
    parser.add_argument("--after", type=Path, default=HERE, help="source tree after (default: this one)")
    parser.add_argument("--modules", type=int, default=7700, help="saved workspace m<modules> (7700: ~100k chunks)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--queries", type=int, default=100, help="timed queries per mode and process")
    parser.add_argument("--name", default="serve-ab")
    args = parser.parse_args()
    results = run(args.before, args.after, args.modules, args.rounds, args.queries, lambda m: print(m, flush=True))
    for side, result in results.items():
        (RESULTS / f"{args.name}-{side}.json").write_text(json.dumps(result, indent=1))
        (RESULTS / f"{args.name}-{side}.md").write_text(markdown(args.name, side, results))
    print((RESULTS / f"{args.name}-after.md").read_text())


if __name__ == "__main__":
    main()
