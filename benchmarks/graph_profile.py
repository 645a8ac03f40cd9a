"""Where graph and multi queries spend their time: per-stage wall and CPU time, in one warmed process.

Run: ``python -m benchmarks.graph_profile /tmp/latency100k/m7700/ws [--queries 150] [--cprofile graph]``.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from . import latency100k
from .metrics import latency_summary

K = 10
WARMUP = 5


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--modes", default="graph,multi")
    ap.add_argument("--cprofile", default="")
    ap.add_argument("--dump", type=Path, help="only write every mode's responses to the queries to this JSON file")
    ap.add_argument("--stages", choices=["wall", "cpu"], help="time the stages of a query (inclusive ms, mean)")
    args = ap.parse_args()
    from agent_brain_lab import Brain

    brain = Brain(args.root)
    brain.warm()
    stages = _instrument(brain, args.stages == "cpu") if args.stages else None
    modes = args.modes.split(",")
    step = args.queries + WARMUP
    pool = latency100k._query_pool(args.root, len(modes) * step)
    if args.dump:
        return dump(brain, pool, args.dump)
    out: dict = {"uptime": latency100k._uptime(), "modes": {}}
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
            # per stage: the p50 over the queries that ran it (a mean would carry the odd full garbage
            # collection, ~0.2 s at 100k chunks, into whichever stage allocated at that moment)
            out["modes"][mode]["stages"] = {
                k: {"p50_ms": round(float(np.median(v)), 3), "ran": f"{len(v)}/{n}"}
                for k, v in sorted(per_stage.items(), key=lambda kv: -float(np.median(kv[1])) * len(kv[1]))
            }
        if prof is not None:
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
            pstats.Stats(prof, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    out["uptime_after"] = latency100k._uptime()
    print(json.dumps(out))


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
        (brain_mod, "_result"),
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
