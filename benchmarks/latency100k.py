"""Query latency per mode, one-file-edit cost and RSS at ~100k chunks, without an hour of embedding.

Latency does not depend on embedding quality, so the generated workspace (benchmarks/synth.py) gets
its chunk vectors from a pre-filled embedding cache: every chunk text's hash (the indexer's own
``_text_hash`` of ``chunk.indexed_text()``) maps to a deterministic pseudo-random unit vector under
the real model's identity, and ``Brain.index()`` embeds nothing. Everything else is the real engine:
queries embed with the real model, an edit's new chunk texts are embedded for real.

Each step runs in a fresh process (peak RSS needs one): ``prefill`` (analyse + cache vectors),
``build`` (first index, peak RSS), ``serve`` (warm, query latency per mode, RSS), ``edit`` (edit one
file, re-index it, first query per mode; cProfile of one more edit). The workspace and its index stay
under /tmp/latency100k/m<modules> and are reused by the next run.

Run: ``python -m benchmarks.latency100k --modules 7700 --small-modules 370`` (``--edits-only``: the edit
step alone, on the saved workspaces, its figures replaced in the saved results).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from . import synth
from .metrics import latency_summary

BASE = Path(os.environ.get("LATENCY100K_BASE", "/tmp/latency100k"))  # where the workspaces are kept
RESULTS = Path(__file__).resolve().parent / "results"
MODES = ("vector", "bm25", "hybrid", "graph", "multi")
K = 10
WARMUP = 5


def _rss_mb() -> dict:
    """Current and peak RSS of this process since exec (MB)."""
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            out["rss_mb" if line.startswith("VmRSS") else "peak_rss_mb"] = round(int(line.split()[1]) / 1024)
    return out


# ---------------------------------------------------------------- steps (each in its own process)


def prefill(root: Path) -> dict:
    """Cache a unit vector for every chunk text the indexer will produce, under the real model identity."""
    from agent_brain_lab import Brain
    from agent_brain_lab.engine.analysis import ChunkSettings, analyze_file
    from agent_brain_lab.engine.brain import _scan_options
    from agent_brain_lab.engine.indexer import _text_hash
    from agent_brain_lab.engine.store.catalog import Catalog
    from agent_brain_lab.engine.workspace import decode_text, read_bytes, scan

    brain = Brain(root)
    config = brain.config
    started = time.perf_counter()
    files, _ = scan(root, _scan_options(config))
    settings = ChunkSettings(config.chunk_size, config.chunk_overlap)
    hashes = sorted({_text_hash(c) for f in files for c in analyze_file(f, decode_text(read_bytes(f)), settings)[0]})
    analysed = time.perf_counter() - started
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((len(hashes), brain._embedder.dim or 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index_dir = root / ".agent-brain"
    index_dir.mkdir(exist_ok=True)
    catalog = Catalog(index_dir / "catalog.sqlite", create=True)
    try:
        catalog.cache_vectors(brain._model.key, zip(hashes, vectors))
    finally:
        catalog.close()
    return {"files": len(files), "texts": len(hashes), "analyse_s": round(analysed, 1)}


def build(root: Path) -> dict:
    """The first index, every vector cached: wall time and peak RSS of the indexing process."""
    from agent_brain_lab import Brain

    started = time.perf_counter()
    report = Brain(root).index(force=True)
    if report.chunks_embedded:
        raise RuntimeError(f"the pre-filled cache missed {report.chunks_embedded} chunk texts")
    return {
        "files": report.files_indexed,
        "chunks": report.chunks_total,
        "index_s": round(time.perf_counter() - started, 1),
        **_rss_mb(),
    }


def _query_pool(root: Path, count: int) -> list[str]:
    """Distinct queries, a third each: docstring-like prose, identifiers, relation questions on real names."""
    generated = _generated(root)
    rng = random.Random(2)
    prose = [q for q in synth.queries(count * 2, generated) if q.startswith(("how to", "where is"))]
    relation = ("what calls {}", "who calls {}?", "callers of {}", "where is {} called", "what does {} call")
    out: dict[str, None] = {}
    while len(out) < count:
        kind = len(out) % 3
        if kind == 0:
            out[prose[len(out) // 3]] = None
        elif kind == 1:
            out[rng.choice(generated.functions)] = None
        else:
            out[rng.choice(relation).format(rng.choice(generated.functions))] = None
    return list(out)


def serve(root: Path, per_mode: int) -> dict:
    """A warmed serving process: latency per mode (a disjoint slice of queries each, so no mode reuses
    another's cached query embedding), query embedding alone, RSS."""
    from agent_brain_lab import Brain
    from agent_brain_lab.engine.embedding import Embedder

    started = time.perf_counter()
    brain = Brain(root)
    brain.warm()
    out: dict = {"warm_s": round(time.perf_counter() - started, 2), "after_warm": _rss_mb(), "modes": {}}
    step = per_mode + WARMUP
    pool = _query_pool(root, len(MODES) * step + per_mode)
    for i, mode in enumerate(MODES):
        times, cpu = [], []
        for j, q in enumerate(pool[i * step : (i + 1) * step]):
            start, cpu_start = time.perf_counter(), time.process_time()
            brain.query(q, mode=mode, top_k=K)
            if j >= WARMUP:
                times.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - cpu_start) * 1000)
        cpu_ms = latency_summary(cpu)
        out["modes"][mode] = {**latency_summary(times), "max_ms": max(times), "cpu_p50_ms": cpu_ms["p50_ms"]}
    out["after_queries"] = _rss_mb()
    embedder = Embedder(brain._model)
    embedder.embed_query("warm up")
    times = []
    for q in pool[len(MODES) * step :]:
        start = time.perf_counter()
        embedder.embed_query(q)
        times.append((time.perf_counter() - start) * 1000)
    out["query_embedding"] = latency_summary(times)
    return out


def _unique_word(i: int) -> str:
    return "zq" + "".join(chr(97 + int(d)) for d in f"{i:04d}") + "fresh"


def _edit(path: Path, word: str) -> None:
    """Insert a call carrying ``word`` into the first function's body (after its docstring)."""
    lines = path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def "))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())] + "    "
    lines.insert(at + 2, f"{indent}{word}(1)")
    path.write_text("\n".join(lines) + "\n")


def edit(root: Path, edits: int, offset: int) -> dict:
    """Edit one file, re-index just that path, then the first query per mode for the new word."""
    from agent_brain_lab import Brain

    brain = Brain(root)
    brain.warm()
    files = [f for f in _generated(root).files if f.suffix == ".py"]
    runs = []
    for i in range(edits + 1):
        target = files[((offset + i) * 7919) % len(files)]
        rel = target.relative_to(root).as_posix()
        word = _unique_word(offset + i)
        _edit(target, word)
        profile = cProfile.Profile() if i == edits else None  # the last edit is profiled, not timed
        start, cpu_start = time.perf_counter(), time.process_time()
        if profile:
            profile.enable()
        report = brain.index(path=rel)
        if profile:
            profile.disable()
            runs_profile = _top(profile)
            break
        index_s, index_cpu_s = time.perf_counter() - start, time.process_time() - cpu_start
        first: dict = {}
        for mode in MODES:
            q = f"what calls {word}" if mode == "graph" else word
            t = time.perf_counter()
            hits = brain.query(q, mode=mode, top_k=K).results
            first[mode] = {"ms": (time.perf_counter() - t) * 1000, "found": any(h.source == rel for h in hits)}
        runs.append(
            {
                "file": rel,
                "index_s": index_s,
                "index_cpu_s": index_cpu_s,
                "chunks_embedded": report.chunks_embedded,
                "searchable_s": index_s + max(v["ms"] for v in first.values()) / 1000,
                "first_query": first,
            }
        )
    summary = {
        "edits": len(runs),
        "chunks": report.chunks_total,
        "index": latency_summary([r["index_s"] * 1000 for r in runs]),
        "index_cpu": latency_summary([r["index_cpu_s"] * 1000 for r in runs]),
        "searchable": latency_summary([r["searchable_s"] * 1000 for r in runs]),
        "first_query": {
            m: {
                **latency_summary([r["first_query"][m]["ms"] for r in runs]),
                "found": sum(r["first_query"][m]["found"] for r in runs),
            }
            for m in MODES
        },
        "runs": runs,
        "profile_top": runs_profile,
        **_rss_mb(),
    }
    return summary


def _top(profile: cProfile.Profile, n: int = 30) -> list[dict]:
    """The top cumulative entries of the engine's own functions (plus sqlite/numpy/fsync callers)."""
    stats = pstats.Stats(profile, stream=io.StringIO())
    rows = []
    for (file, line, name), (_, calls, _tt, cum, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "agent_brain_lab" in file or name.startswith(("<method 'execute", "<built-in method posix.fsync")):
            where = file.split("agent_brain_lab/")[-1] if "agent_brain_lab" in file else "~"
            rows.append({"function": f"{where}:{line}({name})", "calls": calls, "cum_ms": round(cum * 1000, 1)})
    return sorted(rows, key=lambda r: -r["cum_ms"])[:n]


def _generated(root: Path) -> synth.Generated:
    """What ``synth.generate`` wrote, as :func:`workspace` saved it."""
    names = json.loads((root.parent / "names.json").read_text())
    return synth.Generated([root / f for f in names["files"]], names["functions"], names["classes"])


# ---------------------------------------------------------------- orchestration


def _child(step: str, root: Path, *extra: str) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.latency100k", "--child", step, str(root), *extra]
    started = time.perf_counter()
    out = json.loads(subprocess.check_output(cmd, text=True).strip().splitlines()[-1])
    out["process_wall_s"] = round(time.perf_counter() - started, 1)
    return out


def workspace(modules: int, log) -> tuple[Path, dict]:
    """The generated workspace with its index: built once (prefill + build), reused afterwards."""
    root = BASE / f"m{modules}" / "ws"
    done = root.parent / "build.json"
    if done.exists():
        log(f"reusing {root}")
        return root, json.loads(done.read_text())
    root.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    generated = synth.generate(root, modules)
    names = {"files": [f.relative_to(root).as_posix() for f in generated.files]}
    (root.parent / "names.json").write_text(
        json.dumps(names | {"functions": generated.functions, "classes": generated.classes})
    )
    info = {"generate_s": round(time.perf_counter() - started, 1)}
    info["prefill"] = _child("prefill", root)
    log(f"prefilled {info['prefill']}")
    info["build"] = _child("build", root)
    log(f"built {info['build']}")
    done.write_text(json.dumps(info))
    return root, info


def run(modules: int, small_modules: int, per_mode: int, edits: int, log) -> dict:
    out: dict = {"uptime_before": _uptime()}
    root, out["workspace"] = workspace(modules, log)
    out["serve"] = _child("serve", root, str(per_mode))
    log(f"serve {json.dumps(out['serve']['modes'])}")
    small, out["small_workspace"] = workspace(small_modules, log)
    out.update(_edit_steps(root, small, edits, log))
    out["uptime_after"] = _uptime()
    return out


def _edit_steps(root: Path, small: Path, edits: int, log) -> dict:
    """The edit step at both sizes; each run edits files (and words) no earlier run used."""
    out: dict = {"edit_uptime_before": _uptime()}
    for key, where in (("edit", root), ("small_edit", small)):
        offset = len(list(where.parent.glob("edits-*.json")))
        out[key] = _child("edit", where, str(edits), str(offset * (edits + 1)))
        (where.parent / f"edits-{offset}.json").write_text("{}")
        log(f"{key} at {out[key]['chunks']} chunks: index p50 {out[key]['index']['p50_ms']:.0f} ms")
    out["edit_uptime_after"] = _uptime()
    return out


def edits_again(modules: int, small_modules: int, edits: int, log) -> None:
    """Rerun only the edit step on the saved workspaces and replace its figures in the saved results."""
    path = RESULTS / "latency-100k.json"
    result = json.loads(path.read_text())
    result["edit_before"] = {k: _edit_brief(result[k]) for k in ("small_edit", "edit")}
    root, _ = workspace(modules, log)
    small, _ = workspace(small_modules, log)
    result.update(_edit_steps(root, small, edits, log))
    path.write_text(json.dumps(result, indent=1))
    (RESULTS / "latency-100k.md").write_text(markdown(result))


def markdown(r: dict) -> str:
    """The results as a short Markdown report."""
    ws = r["workspace"]
    serve, ed, sed = r["serve"], r["edit"], r["small_edit"]
    targets = {"vector": 15, "bm25": 10, "hybrid": 20, "graph": 20, "multi": 30}
    lines = [
        "# Latency at ~100k chunks (python -m benchmarks.latency100k)",
        "",
        f"Workspace: {ws['build']['files']:,} generated files, {ws['build']['chunks']:,} chunks; vectors from a",
        "pre-filled embedding cache (pseudo-random unit vectors), query embeddings by the real model.",
        f"Load before: `{r['uptime_before']}`; after: `{r['uptime_after']}` (2 cores, shared).",
        "",
        f"First index with every vector cached: {ws['build']['index_s']} s, peak RSS {ws['build']['peak_rss_mb']} MB "
        f"(prefill analysis {ws['prefill']['analyse_s']} s, separate process).",
        f"Serving process: warm() {serve['warm_s']} s, RSS after warm-up {serve['after_warm']['rss_mb']} MB, "
        f"after the queries {serve['after_queries']['rss_mb']} MB (peak {serve['after_queries']['peak_rss_mb']} MB).",
        "",
        f"## Query latency, in-process, warmed ({serve['modes']['vector']['n']} distinct queries per mode)",
        "",
        "| mode | p50 ms | p95 ms | max ms | CPU p50 ms | issue-6 target p50 |",
        "|---|---|---|---|---|---|",
    ]
    for mode, m in serve["modes"].items():
        cpu = m.get("cpu_p50_ms", float("nan"))
        lines.append(
            f"| {mode} | {m['p50_ms']:.1f} | {m['p95_ms']:.1f} | {m['max_ms']:.1f} | {cpu:.1f} | {targets[mode]} |"
        )
    qe = serve["query_embedding"]
    lines += [
        "",
        f"Query embedding alone (real model): p50 {qe['p50_ms']:.1f} ms, p95 {qe['p95_ms']:.1f} ms.",
        "Queries: a third docstring-like prose, a third identifiers, a third relation questions on existing names.",
        "",
        "## One edited file until searchable",
        "",
        *_edit_load(r),
        "| chunks | edits | index(path) p50 / p95 ms (CPU p50) | searchable p50 / p95 ms |"
        + "".join(f" first {m} p50 ms (found) |" for m in MODES),
        "|---|---|---|---|" + "---|" * len(MODES),
    ]
    for e in (sed, ed):
        row = (
            f"| {e['chunks']:,} | {e['edits']} | {e['index']['p50_ms']:.0f} / {e['index']['p95_ms']:.0f} "
            f"({e.get('index_cpu', {}).get('p50_ms', float('nan')):.0f}) "
            f"| {e['searchable']['p50_ms']:.0f} / {e['searchable']['p95_ms']:.0f} |"
        )
        row += "".join(f" {q['p50_ms']:.0f} ({q['found']}/{e['edits']}) |" for q in e["first_query"].values())
        lines.append(row)
    lines += [
        "",
        "searchable = index(path) + the slowest first query. Graph asks `what calls <new word>` (a call to a name",
        "defined nowhere), the others the word itself. With pseudo-random chunk vectors, whether vector mode ranks",
        "the edited chunk in its top 10 says nothing about freshness; bm25, hybrid and multi do.",
        "",
        f"## Where one edit's time goes at {ed['chunks']:,} chunks (cProfile of one more edit, cumulative)",
        "",
        "| function | calls | cumulative ms |",
        "|---|---|---|",
    ]
    lines += [f"| `{p['function']}` | {p['calls']} | {p['cum_ms']} |" for p in ed["profile_top"]]
    return "\n".join(lines) + "\n"


def _edit_brief(e: dict) -> dict:
    return {"chunks": e["chunks"], **{k: e[k] for k in ("index", "index_cpu", "searchable") if k in e}}


def _edit_load(r: dict) -> list[str]:
    """The load while the edit step ran, when it was measured apart from the rest."""
    if "edit_uptime_before" not in r:
        return []
    lines = [
        f"Load during the edit step: before `{r['edit_uptime_before']}`; after `{r['edit_uptime_after']}`.",
        "CPU = process time of the indexing process (all its threads); wall time grows with the load.",
    ]
    for e in r.get("edit_before", {}).values():
        cpu = e.get("index_cpu", {}).get("p50_ms", float("nan"))
        lines.append(
            f"The edit step before (the results this run replaced) at {e['chunks']:,} chunks: index(path) p50 "
            f"{e['index']['p50_ms']:.0f} ms (CPU {cpu:.0f}), searchable p50 {e['searchable']['p50_ms']:.0f} ms."
        )
    return [*lines, ""]


def _uptime() -> str:
    return subprocess.check_output(["uptime"], text=True).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modules", type=int, default=7700)
    parser.add_argument("--small-modules", type=int, default=370)
    parser.add_argument("--queries", type=int, default=100, help="timed queries per mode")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--child", nargs="+")
    parser.add_argument("--report", action="store_true", help="rewrite the .md from the saved .json")
    parser.add_argument("--edits-only", action="store_true", help="rerun the edit step only, update the saved results")
    args = parser.parse_args()
    if args.edits_only:
        edits_again(args.modules, args.small_modules, args.edits, lambda m: print(m, flush=True))
        return
    if args.report:
        (RESULTS / "latency-100k.md").write_text(markdown(json.loads((RESULTS / "latency-100k.json").read_text())))
        return
    if args.child:
        step, root, *extra = args.child
        fn = {"prefill": prefill, "build": build, "serve": serve, "edit": edit}[step]
        print(json.dumps(fn(Path(root), *(int(x) for x in extra))))
        return
    result = run(args.modules, args.small_modules, args.queries, args.edits, lambda m: print(m, flush=True))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latency-100k.json").write_text(json.dumps(result, indent=1))
    (RESULTS / "latency-100k.md").write_text(markdown(result))
    print(json.dumps({k: v for k, v in result.items() if k != "edit"}, indent=1)[:4000])


if __name__ == "__main__":
    main()
