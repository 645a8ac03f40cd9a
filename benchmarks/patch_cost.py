"""What a one-file edit costs the keyword index and the code graph: patch vs rebuild, no embeddings.

A generated workspace (benchmarks/synth.py) is chunked and analysed by the real engine code; chunk
tokens and file facts stand in for the catalog's rows. The baseline is what each generation did
before (bm25s built from every live row, the graph from every file's facts); the patch is what the
indexer does now (open the previous generation's files, patch, save). Peak RSS of the patch path is
measured in a fresh process. Run: ``python -m benchmarks.patch_cost --modules 7700`` (~100k chunks).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bm25s

from agent_brain_lab.engine.analysis import ChunkSettings, analyze_file
from agent_brain_lab.engine.store.graph import CodeGraph, GraphFiles
from agent_brain_lab.engine.store.keywords import KeywordIndex
from agent_brain_lab.engine.tokenizer import tokenize
from agent_brain_lab.engine.workspace import ScanOptions, decode_text, read_bytes, scan

from . import synth


def _analyse(root: Path, files):
    chunks, facts = {}, {}
    for f in files:
        file_chunks, file_facts = analyze_file(f, decode_text(read_bytes(f)), ChunkSettings())
        chunks[f.path] = [tokenize(c.indexed_text()) for c in file_chunks]
        facts[f.path] = file_facts
    return chunks, facts


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _cpu(fn, *args) -> tuple[float, float]:
    """(wall, CPU) seconds of ``fn(*args)``: the machine may be shared, CPU time is what the work costs."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def _patch(prev: Path, new: Path, retired, added_keys, added_docs, removed, added_facts) -> None:
    new.mkdir()
    index = KeywordIndex.open(prev)
    assert index is not None
    index.patched(retired, added_keys, added_docs).save(new)
    files = GraphFiles.open(prev)
    assert files is not None
    graph = CodeGraph(files.patched(removed, added_facts))
    graph.save(new)
    graph.stats()


def run(modules: int, edits: int, work: Path) -> dict:
    root = work / "ws"
    generated = synth.generate(root, modules)
    files, _ = scan(root, ScanOptions())
    analyse_s, (chunks, facts) = _timed(lambda: _analyse(root, files))
    keys: list[int] = []
    docs: list[list[str]] = []
    owner: dict[str, list[int]] = {}
    for path in sorted(chunks):
        for tokens in chunks[path]:
            keys.append(len(keys) + 1)
            docs.append(tokens)
            owner.setdefault(path, []).append(keys[-1])
    out: dict = {"modules": modules, "files": len(files), "chunks": len(keys), "analyse_s": round(analyse_s, 1)}

    def bm25s_rebuild():
        model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        model.index(docs, show_progress=False)
        model.save(str(work / "bm25s"), show_progress=False)

    gen = work / "gen-0"
    gen.mkdir()
    for label, fn in (
        ("rebuild_bm25s", bm25s_rebuild),
        ("build_keywords", lambda: KeywordIndex.build(keys, docs, 1.5, 0.75).save(gen)),
        ("build_graph", lambda: CodeGraph(GraphFiles.build(facts.items())).save(gen)),
        ("open_graph_for_queries", lambda: CodeGraph.open(gen)),
    ):
        out[f"{label}_s"], out[f"{label}_cpu_s"] = (round(x, 3) for x in _cpu(fn))

    py = [f for f in files if f.path.endswith(".py") and not f.path.endswith("__init__.py")]
    times, next_key = [], len(keys) + 1
    for i in range(edits):
        target = py[(i * 7919) % len(py)]
        target.abs_path.write_text(target.abs_path.read_text() + f"\n\ndef edited_{i}(x):\n    return x + {i}\n")
        (updated,), _ = scan(root, ScanOptions(), target.path)
        new_chunks, new_facts = _analyse(root, [updated])
        retired = owner[target.path]
        added = list(range(next_key, next_key + len(new_chunks[target.path])))
        next_key += len(added)
        owner[target.path] = added
        new = work / f"gen-{i + 1}"
        times.append(_cpu(_patch, gen, new, retired, added, new_chunks[target.path], [target.path], new_facts))
        gen = new
    for i, label in enumerate(("patch_s", "patch_cpu_s")):
        out[f"{label}_p50"] = round(statistics.median(t[i] for t in times), 3)
        out[f"{label}_max"] = round(max(t[i] for t in times), 3)
    # a process that has the base graph loaded (the server, or the indexer that handed it over) serves
    # the edited generation's graph from the shared base plus the delta
    out["graph_after_edit_s"], out["graph_after_edit_cpu_s"] = (round(x, 3) for x in _cpu(CodeGraph.open, gen))
    index = KeywordIndex.open(gen)
    assert index is not None
    queries = [tokenize(q) for q in synth.queries(200, generated)]
    latencies = []
    for q in queries:
        start = time.process_time()
        index.scores(q)
        latencies.append(time.process_time() - start)
    out["bm25_scores_cpu_ms_p50"] = round(statistics.median(latencies) * 1000, 2)
    out["bm25_scores_cpu_ms_p95"] = round(sorted(latencies)[int(len(latencies) * 0.95)] * 1000, 2)
    child = [sys.executable, "-m", "benchmarks.patch_cost", "--child", str(gen), str(work / "gen-rss"), py[0].path]
    out["patch_peak_rss_mb"] = json.loads(subprocess.check_output(child, text=True))["peak_rss_mb"]
    return out


def _child(prev: Path, new: Path, path: str) -> None:
    """One patch in a fresh process (retire nothing, add one small document and re-add one file's facts)."""
    files = GraphFiles.open(prev)
    assert files is not None
    facts = files.facts(path)
    assert facts is not None
    del files
    _patch(prev, new, [], [10**9], [["edited"]], [path], {path: facts})
    print(json.dumps({"peak_rss_mb": _peak_rss_mb()}))


def _peak_rss_mb() -> int:
    """This process's peak RSS since exec (``ru_maxrss`` would include the forked parent's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modules", type=int, default=400)
    parser.add_argument("--edits", type=int, default=9)
    parser.add_argument("--child", nargs=3)
    args = parser.parse_args()
    if args.child:
        _child(Path(args.child[0]), Path(args.child[1]), args.child[2])
        return
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(args.modules, args.edits, Path(tmp)), indent=1))


if __name__ == "__main__":
    main()
