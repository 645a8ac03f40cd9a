"""bm25 mode next to ``bm25s`` on the same texts, at several index sizes, in one run.

Each size is a generated workspace indexed by the real engine (:mod:`benchmarks.latency100k` builds
and keeps it, vectors from a pre-filled cache: bm25 never reads them). In a fresh process per size:
``bm25s`` (``method="lucene"``, the engine's k1 and b) is built from the very token lists the engine
indexed (the catalog's live rows), and every query is timed three ways, one after the other so the
three share the machine's load of that moment:

- ``bm25 mode``: ``Brain.query(q, mode="bm25", top_k=10)``, everything a caller waits for (the view
  check, tokens, scores, top 10, the catalog rows and highlights of the results);
- ``keyword leg``: the engine's tokenizer, ``KeywordIndex.scores`` and ``top_rows`` (what bm25s does);
- ``bm25s``: the engine's tokenizer and ``retrieve(k=10)``.

It also checks the two agree: the leg's top-10 scores equal bm25s's within float32 rounding.

Before bm25s is built, the same process serves as a server does (``Brain.warm()``) and times every
mode on its own slice of queries (wall p50/p95 and CPU p50; vector, hybrid and multi embed each query
with the real model), then records its RSS: the serving figure, without bm25s's index in it. The
load average is recorded before and after each size.

Run: ``python -m benchmarks.keyword_speed --modules 230,770,7700`` (~3k, 10k, 100k chunks).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from . import latency100k
from .metrics import latency_summary

RESULTS = Path(__file__).resolve().parent / "results"
K = 10
WARMUP = 5
MODES = latency100k.MODES
MODE_QUERIES = 100  # timed queries per mode


def measure(root: Path, queries: int) -> dict:
    """One size, in this (fresh) process."""
    import bm25s

    from agent_brain_lab import Brain
    from agent_brain_lab.engine.retrieval.context import top_rows
    from agent_brain_lab.engine.store.catalog import Catalog
    from agent_brain_lab.engine.tokenizer import tokenize

    brain = Brain(root)
    brain.warm()
    pool = latency100k._query_pool(root, queries + WARMUP + len(MODES) * (MODE_QUERIES + WARMUP))
    modes = _modes(brain, pool[queries + WARMUP :])
    serving_rss = latency100k._rss_mb()
    view = brain._reader.view()
    index = view.snapshot.keywords
    assert index is not None
    catalog = Catalog(root / ".agent-brain" / "catalog.sqlite")
    try:
        rows = catalog.live_chunk_rows(view.snapshot.gen)
    finally:
        catalog.close()
    if [r.key for r in rows] != index.keys.tolist():
        raise RuntimeError("the catalog's live rows are not the keyword index's rows")
    started = time.perf_counter()
    peer = bm25s.BM25(k1=brain.config.bm25_k1, b=brain.config.bm25_b, method="lucene")
    peer.index([r.tokens.split() for r in rows], show_progress=False)
    peer_build_s = time.perf_counter() - started
    del rows

    def leg(q: str) -> np.ndarray:
        scores = index.scores(tokenize(q))
        return scores[top_rows(scores, K)]

    def peer_search(q: str) -> np.ndarray:
        tokens = [t for t in tokenize(q) if t in peer.vocab_dict]
        if not tokens:
            return np.zeros(0, dtype=np.float32)
        _, scores = peer.retrieve([tokens], k=K, show_progress=False)
        return scores[0][scores[0] > 0]

    def bm25_mode(q: str) -> None:
        brain.query(q, mode="bm25", top_k=K)

    pool = pool[: queries + WARMUP]
    ways = {"bm25 mode": bm25_mode, "keyword leg": leg, "bm25s": peer_search}
    wall: dict[str, list[float]] = {w: [] for w in ways}
    cpu: dict[str, list[float]] = {w: [] for w in ways}
    agree = 0
    for i, q in enumerate(pool):
        for way, fn in ways.items():
            start, cpu_start = time.perf_counter(), time.process_time()
            fn(q)
            if i >= WARMUP:
                wall[way].append((time.perf_counter() - start) * 1000)
                cpu[way].append((time.process_time() - cpu_start) * 1000)
        if i < WARMUP:
            continue
        ours, theirs = leg(q), peer_search(q)
        agree += len(ours) == len(theirs) and bool(np.allclose(ours, theirs, rtol=1e-4, atol=1e-6))
    out: dict = {"chunks": len(index), "queries": len(pool) - WARMUP, "bm25s_build_s": round(peer_build_s, 2)}
    for way in ways:
        out[way] = {**latency_summary(wall[way]), "cpu_p50_ms": latency_summary(cpu[way])["p50_ms"]}
    out["top10_scores_agree"] = agree
    out["modes"] = modes
    out["serving_rss_mb"] = serving_rss
    out["rss_mb"] = latency100k._rss_mb()
    return out


def _modes(brain, pool: list[str]) -> dict:
    """Every mode on its own slice of ``pool`` (no mode reuses another's cached query embedding)."""
    out = {}
    step = MODE_QUERIES + WARMUP
    for i, mode in enumerate(MODES):
        wall, cpu = [], []
        for j, q in enumerate(pool[i * step : (i + 1) * step]):
            start, cpu_start = time.perf_counter(), time.process_time()
            brain.query(q, mode=mode, top_k=K)
            if j >= WARMUP:
                wall.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - cpu_start) * 1000)
        out[mode] = {**latency_summary(wall), "cpu_p50_ms": latency_summary(cpu)["p50_ms"]}
    return out


def run(modules: list[int], queries: int, log) -> dict:
    out: dict = {"uptime_before": latency100k._uptime(), "sizes": []}
    for m in modules:
        root, _ = latency100k.workspace(m, log)
        cmd = [sys.executable, "-m", "benchmarks.keyword_speed", "--child", str(root), str(queries)]
        before = latency100k._uptime()
        result = json.loads(subprocess.check_output(cmd, text=True).strip().splitlines()[-1])
        result["modules"] = m
        result["uptime"] = [before, latency100k._uptime()]
        log(json.dumps(result))
        out["sizes"].append(result)
    out["uptime_after"] = latency100k._uptime()
    return out


def markdown(r: dict) -> str:
    lines = [
        "# bm25 mode next to bm25s (python -m benchmarks.keyword_speed)",
        "",
        "Same generated workspaces, same token lists, same k1/b; each query timed three ways back to back",
        "(in-process, warmed, distinct queries: a third prose, a third identifiers, a third relation questions).",
        f"Load before: `{r['uptime_before']}`; after: `{r['uptime_after']}` (2 cores, shared with other work).",
        "",
        "| chunks | bm25 mode p50 / p95 ms (CPU p50) | keyword leg p50 / p95 ms (CPU p50) | bm25s p50 / p95 ms "
        "(CPU p50) | bm25 mode / bm25s p50 | leg / bm25s p50 | top-10 agree |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in r["sizes"]:
        mode, leg, peer = s["bm25 mode"], s["keyword leg"], s["bm25s"]

        def cell(x: dict) -> str:
            return f"{x['p50_ms']:.2f} / {x['p95_ms']:.2f} ({x['cpu_p50_ms']:.2f})"

        lines.append(
            f"| {s['chunks']:,} | {cell(mode)} | {cell(leg)} | {cell(peer)} | "
            f"{mode['p50_ms'] / peer['p50_ms']:.2f} | {leg['p50_ms'] / peer['p50_ms']:.2f} | "
            f"{s['top10_scores_agree']}/{s['queries']} |"
        )
    lines += [
        "",
        "bm25 mode includes what bm25s does not: reading the results' rows from the catalog and their highlights.",
        "top-10 agree: the keyword leg's ten best scores equal bm25s's (rtol 1e-4) on the same tokens.",
        "",
        "## Every mode, same processes (warmed as a server; serving RSS before bm25s was built)",
        "",
        "| chunks | "
        + " | ".join(f"{m} p50 / p95 ms (CPU p50)" for m in MODES)
        + " | serving RSS MB | load before / after |",
        "|---|" + "---|" * (len(MODES) + 2),
    ]
    for s in r["sizes"]:
        if "modes" not in s:
            continue
        cells = " | ".join(
            f"{x['p50_ms']:.2f} / {x['p95_ms']:.2f} ({x['cpu_p50_ms']:.2f})" for x in (s["modes"][m] for m in MODES)
        )
        loads = " / ".join(u.split("load average: ")[-1].split(",")[0] for u in s.get("uptime", []))
        lines.append(f"| {s['chunks']:,} | {cells} | {s['serving_rss_mb']['rss_mb']} | {loads} |")
    lines += [
        "",
        "Load: the 1-minute load average before and after the size ran (2 cores). Under load, wall times",
        "stretch with the waiting; CPU time and the ratios of ways timed back to back hold better.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modules", default="230,770,7700", help="workspace sizes in modules (~13.5 chunks each)")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per size")
    parser.add_argument("--name", default="keyword-speed", help="file name of the results")
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[0]), int(args.child[1]))))
        return
    result = run([int(m) for m in args.modules.split(",")], args.queries, lambda m: print(m, flush=True))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
