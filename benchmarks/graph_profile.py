"""Where graph and multi queries spend their time, and the same queries timed on two versions of the code.

Each run is a warmed serving process (``Brain.warm()``) on one of ``latency100k``'s generated
workspaces, timing each mode on its own slice of the query pool (a third prose, a third identifiers, a
third relation questions; 5 warm-ups), wall and CPU (process time, the model's threads included):

- ``python -m benchmarks.graph_profile ROOT [--modes graph,multi] [--queries 100]``: p50/p95 and CPU p50;
  ``--stages cpu`` adds the time of each step of a query (the calling thread's CPU; ``wall`` for wall
  time), ``--cprofile MODE`` prints a profile of one mode to stderr;
- ``--dump FILE``: no timing; every mode's whole response (less its time) to every query of the pool,
  for checking that a change leaves results unchanged (two versions must write the same file);
- ``--compare OLD_TREE --sizes 230,770,7700 --pairs 3``: fresh processes, alternating the code in
  ``OLD_TREE`` (a checkout of the version before) and this tree, the load average noted before each.

Results of ``--compare`` go to ``results/graph-speed.{json,md}`` (``--name`` to change).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks import latency100k  # absolute: a --compare child loads this file beside another tree's package
from benchmarks.metrics import latency_summary

K = 10
WARMUP = 5
HERE = Path(__file__).resolve()
RESULTS = HERE.parent / "results"
# a child run: the tree's package first on the path, this file loaded by its path
CHILD = (
    "import sys, importlib.util as u; sys.path[:0] = [sys.argv[1]]; "
    "s = u.spec_from_file_location('graph_profile', sys.argv[2]); m = u.module_from_spec(s); "
    "s.loader.exec_module(m); sys.argv = sys.argv[2:]; m.main()"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path, nargs="?")
    ap.add_argument("--queries", type=int, default=100, help="timed queries per mode")
    ap.add_argument("--modes", default="graph,multi")
    ap.add_argument("--cprofile", default="")
    ap.add_argument("--dump", type=Path, help="only write every mode's responses to the queries to this JSON file")
    ap.add_argument(
        "--stages", choices=["wall", "cpu"], help="time the steps of a query (p50 over the queries that ran it)"
    )
    ap.add_argument("--compare", type=Path, help="a tree holding the code before: time it and this one in turn")
    ap.add_argument("--sizes", default="230,770,7700", help="--compare: latency100k workspaces (modules)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--name", default="graph-speed")
    args = ap.parse_args()
    if args.compare:
        return compare(args)
    from agent_brain_lab import Brain

    brain = Brain(args.root)
    brain.warm()
    stages = _instrument(brain, args.stages == "cpu") if args.stages else None
    modes = args.modes.split(",")
    step = args.queries + WARMUP
    pool = latency100k._query_pool(args.root, len(modes) * step)
    if args.dump:
        return dump(brain, pool, args.dump)
    import agent_brain_lab

    out: dict = {"uptime": latency100k._uptime(), "chunks": len(brain._reader.view().snapshot), "modes": {}}
    out["package"] = str(Path(agent_brain_lab.__file__).parent)  # which code ran
    for i, mode in enumerate(modes):
        queries = pool[i * step : (i + 1) * step]
        wall, cpu = [], []
        per_stage: dict[str, list[float]] = defaultdict(list)
        prof = cProfile.Profile() if mode == args.cprofile else None
        for j, q in enumerate(queries):
            if prof is not None and j >= WARMUP:
                prof.enable()
            start, cpu_start = time.perf_counter(), time.process_time()
            brain.query(q, mode=mode, top_k=K)
            w, c = (time.perf_counter() - start) * 1000, (time.process_time() - cpu_start) * 1000
            if prof is not None:
                prof.disable()
            if j >= WARMUP:
                wall.append(w)
                cpu.append(c)
                if stages is not None:
                    for name, ms in stages.items():
                        per_stage[name].append(ms)
            if stages is not None:
                stages.clear()
        out["modes"][mode] = {**latency_summary(wall), "cpu_p50_ms": latency_summary(cpu)["p50_ms"]}
        if stages is not None:
            n = len(wall)
            # per step: the p50 over the queries that ran it (a mean would carry the odd full garbage
            # collection, ~0.2 s at 100k chunks, into whichever step allocated at that moment)
            out["modes"][mode]["stages"] = {
                k: {"p50_ms": round(float(np.median(v)), 3), "ran": f"{len(v)}/{n}"}
                for k, v in sorted(per_stage.items(), key=lambda kv: -float(np.median(kv[1])) * len(kv[1]))
            }
        if prof is not None:
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    out["uptime_after"] = latency100k._uptime()
    print(json.dumps(out))


def compare(args: argparse.Namespace) -> None:
    trees = {"before": args.compare.resolve(), "after": HERE.parents[1]}
    runs: list[dict] = []
    for modules in [int(m) for m in args.sizes.split(",")]:
        root = latency100k.BASE / f"m{modules}" / "ws"
        for pair in range(args.pairs):
            for label, tree in trees.items():
                cmd = [sys.executable, "-c", CHILD, str(tree), str(HERE), str(root)]
                cmd += ["--queries", str(args.queries), "--modes", args.modes]
                load = latency100k._uptime()
                result = json.loads(subprocess.check_output(cmd, text=True, cwd="/").strip().splitlines()[-1])
                runs.append({"modules": modules, "pair": pair, "code": label, "load_before": load, **result})
                print(json.dumps(runs[-1]), file=sys.stderr)
    out = {"command": " ".join(sys.argv), "trees": {k: str(v) for k, v in trees.items()}, "runs": runs}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(out, indent=1))
    (RESULTS / f"{args.name}.md").write_text(markdown(out, args.modes.split(",")))
    print(markdown(out, args.modes.split(",")))


def markdown(out: dict, modes: list[str]) -> str:
    lines = [
        f"# graph and multi, code before and after (`{out['command']}`)",
        "",
        "Fresh process per run, before/after alternating; p50 / p95 wall ms (CPU p50) over each mode's own "
        "distinct queries; load: 1-minute load average before the run (2 cores).",
        "",
        "| chunks | pair | code | " + " | ".join(modes) + " | load |",
        "|---|---|---|" + "---|" * len(modes) + "---|",
    ]
    for r in out["runs"]:
        cells = [
            f"{r['modes'][m]['p50_ms']:.2f} / {r['modes'][m]['p95_ms']:.2f} ({r['modes'][m]['cpu_p50_ms']:.2f})"
            for m in modes
        ]
        load = r["load_before"].split("average:")[-1].split(",")[0].strip()
        lines.append(f"| {r['chunks']:,} | {r['pair'] + 1} | {r['code']} | " + " | ".join(cells) + f" | {load} |")
    lines += ["", "Medians over the pairs:", "", "| chunks | code | " + " | ".join(modes) + " |"]
    lines.append("|---|---|" + "---|" * len(modes))
    for chunks in dict.fromkeys(r["chunks"] for r in out["runs"]):
        for code in ("before", "after"):
            rs = [r for r in out["runs"] if r["chunks"] == chunks and r["code"] == code]
            cells = []
            for m in modes:
                wall = float(np.median([r["modes"][m]["p50_ms"] for r in rs]))
                cpu = float(np.median([r["modes"][m]["cpu_p50_ms"] for r in rs]))
                cells.append(f"{wall:.2f} ({cpu:.2f})")
            lines.append(f"| {chunks:,} | {code} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def dump(brain, pool: list[str], path: Path) -> None:
    """Every mode's whole response (less its time) to each query of ``pool``: two runs of this on
    different code must write the same file."""
    out = {}
    for mode in ("vector", "bm25", "hybrid", "graph", "multi"):
        for q in pool:
            response = brain.query(q, mode=mode, top_k=K).to_dict()
            response.pop("query_time_ms")
            out[f"{mode}: {q}"] = response
    path.write_text(json.dumps(out, indent=1, sort_keys=True))


def _instrument(brain, cpu: bool) -> dict[str, float]:
    """Wrap the functions a graph or multi query goes through; each call adds its wall (or the process's
    CPU) ms to its stage. CPU: the embedding's threads count in whatever stage runs beside them."""
    import functools
    import importlib

    acc: dict[str, float] = defaultdict(float)
    clock = time.thread_time if cpu else time.perf_counter  # the calling thread's CPU: not the embedding's beside it

    def wrap(owner, name: str, label: str) -> None:
        fn = getattr(owner, name)

        @functools.wraps(fn)
        def timed(*a, **kw):
            start = clock()
            try:
                return fn(*a, **kw)
            finally:
                acc[label] += (clock() - start) * 1000

        setattr(owner, name, timed)

    mod = lambda m: importlib.import_module("agent_brain_lab.engine." + m)  # noqa: E731
    retrieval, graph, multi = mod("retrieval"), mod("retrieval.graph"), mod("retrieval.multi")
    context, store_graph, catalog = mod("retrieval.context"), mod("store.graph"), mod("store.catalog")
    hybrid, vectors = mod("retrieval.hybrid"), mod("store.vectors")
    vector, keywords, brain_mod = mod("retrieval.vector"), mod("store.keywords"), mod("brain")
    for owner, name in [
        (retrieval.graph, "run"),
        (multi, "graph_leg"),
        (multi, "entity_names"),
        (multi, "names_leg"),
        (multi, "blend"),
        (multi, "name_covered"),
        (multi, "tests_below"),
        (multi, "text_evidence_first"),
        (multi, "exact_names_first"),
        (multi, "rrf"),
        (multi, "beyond"),
        (retrieval, "in_code"),
        (retrieval.vector, "run"),
        (hybrid, "vector_leg"),
        (hybrid, "bm25_leg"),
        (hybrid, "similarities"),
        (vectors.VectorIndex, "search"),
        (graph, "find_entities"),
        (graph, "scaled_meaning"),
        (graph, "_evidence_chunks"),
        (graph, "_neighbours"),
        (graph, "_path_labels"),
        (store_graph.CodeGraph, "neighbourhood"),
        (keywords.KeywordIndex, "scores"),
        (vector, "vector_leg"),
        (vector, "similarities"),
        (catalog.Catalog, "keys_of_chunk_ids"),
        (catalog.Catalog, "chunks_by_key"),
        (brain_mod, "highlight_texts"),
        (retrieval, "search"),
    ]:
        wrap(owner, name, f"{getattr(owner, '__name__', '')}.{name}")
    wrap(brain._query_vectors, "_embed", "embed_query")  # bound at the brain's start: wrap its own reference
    # intent analysis (a cached property: time its function)
    intent = context.QueryContext.__dict__["intent"]
    inner = intent.func

    def analyse(self):
        start = time.perf_counter()
        try:
            return inner(self)
        finally:
            acc["intent"] += (time.perf_counter() - start) * 1000

    intent.func = analyse
    return acc


if __name__ == "__main__":
    main()
