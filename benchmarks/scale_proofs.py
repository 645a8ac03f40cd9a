"""Issue 11's proofs at ~10k and ~100k chunks: a first index watched from outside, and a 500-file branch switch.

For each size: a generated workspace (benchmarks/synth.py) under /tmp/scale_proofs/m<modules>, made a
git repository with a ``switch`` branch (benchmarks/branch_switch.py); a complete first index with the
real model and nothing cached, sampled every second (benchmarks/first_index.py; about 45 min at 100k
chunks on an idle 2-core machine); then the branch switch, watched, on the complete index.

Run: ``python -m benchmarks.scale_proofs --sizes 770,7700`` → results/scale-proofs.{json,md,png}.
``--report`` rewrites the Markdown and the plot from the saved JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import synth
from .branch_switch import make_repo
from .first_index import plot, timeline

BASE = Path("/tmp/scale_proofs")
RESULTS = Path(__file__).resolve().parent / "results"
NAME = "scale-proofs"
CHANGED = 500


def _uptime() -> str:
    return subprocess.check_output(["uptime"], text=True).strip()


def _child(log, *cmd: str) -> dict:
    started = time.perf_counter()
    out = subprocess.check_output([sys.executable, "-m", *cmd], text=True)
    result = json.loads(out.strip().splitlines()[-1])
    result["process_wall_s"] = round(time.perf_counter() - started, 1)
    log(f"  {cmd[0]} {cmd[1] if len(cmd) > 2 else ''}: {json.dumps(result)[:300]}")
    return result


def called_function(generated: synth.Generated) -> str:
    """A generated function that another module calls (so ``what calls`` it has an answer)."""
    for name in generated.functions:
        callers = (f for f in generated.files[:60] if f.suffix == ".py" and f"def {name}(" not in f.read_text())
        if any(f"{name}(" in f.read_text() for f in callers):
            return name
    raise RuntimeError("no generated function is called from another module")


def run_size(modules: int, changed_files: int, base: Path, log) -> dict:
    root = base / f"m{modules}" / "ws"
    shutil.rmtree(root.parent, ignore_errors=True)
    root.mkdir(parents=True)
    started = time.perf_counter()
    generated = synth.generate(root, modules)
    changed = make_repo(root, generated.files, changed_files)
    (root.parent / "changed.json").write_text(json.dumps(changed))
    out: dict = {"modules": modules, "files": len(generated.files), "changed": changed_files}
    out["setup_s"] = round(time.perf_counter() - started, 1)
    keyword, caller_of = generated.functions[-1], called_function(generated)
    out["probes"] = {"bm25": keyword, "graph": f"what calls {caller_of}"}
    out["load_before"] = _uptime()
    log(f"== m{modules}: first index ({out['files']} files); {out['load_before']}")
    out["first_index"] = timeline(root, keyword, caller_of, log)
    out["load_after_first_index"] = _uptime()
    log(f"== m{modules}: branch switch of {changed_files} files")
    out["branch_switch"] = _child(log, "benchmarks.branch_switch", str(root))
    out["load_after"] = _uptime()
    return out


def embed_rate(tl: dict) -> float | None:
    """Chunks embedded per second between the first published coverage and the last sample."""
    live = [s for s in tl["samples"] if s.get("bm25") and s["coverage"] < 1.0]
    if len(live) < 2:
        return None
    first, last = live[0], live[-1]
    return (last["coverage"] - first["coverage"]) * tl["chunks"] / (last["t"] - first["t"])


def _load(uptime: str) -> str:
    match = re.search(r"load average: ([\d.]+), ([\d.]+), ([\d.]+)", uptime)
    return "/".join(match.groups()) if match else "?"


def markdown(results: dict) -> str:
    sizes = dict(sorted(results["sizes"].items(), key=lambda kv: int(kv[0])))
    lines = [
        "# Scale proofs (python -m benchmarks.scale_proofs)",
        "",
        "Generated workspaces (benchmarks/synth.py), real embedding model (MiniLM-L6 int8), nothing cached.",
        "Load averages (1/5/15 min) are given per step.",
        *([results["note"]] if "note" in results else []),
        "",
        "## First index, watched from another process (sampled every second)",
        "",
        "| workspace | files | chunks | first generation published | first keyword answer | first graph answer "
        "| complete (coverage 100%) after "
        "| embedding rate | peak RSS of the indexer | load before → after |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes.values():
        tl = size["first_index"]
        rate = embed_rate(tl)
        complete = f"{tl['wall_s'] / 60:.1f} min" + (
            "" if tl["final_coverage"] == 1.0 else f" (stopped at coverage {tl['final_coverage']:.1%})"
        )
        lines.append(
            f"| m{size['modules']} | {size['files']:,} | {tl['chunks']:,} | {_secs(tl['first_published_s'])} "
            f"| {_secs(tl['first_bm25_s'])} "
            f"| {_secs(tl['first_graph_s'])} | {complete} | {f'{rate:.0f} chunks/s' if rate else '—'} "
            f"| {tl['peak_rss_mb']:,} MB | {_load(size['load_before'])} → {_load(size['load_after_first_index'])} |"
        )
    lines += [
        "",
        "Times from the start of the indexing process (imports and model load included). Published: the first",
        "second-by-second sample that saw a generation. An answer's time includes the reader's own first query,",
        "which opens the index in that process. The keyword probe asks BM25 for a function of the last",
        "generated module, the graph probe `what calls <a called function>`.",
        "A run with more than 2,000 texts to embed publishes keyword + graph search over all files first, then",
        "generations that add vectors every 5 s; `coverage` is embedded / total chunks.",
        "",
        f"![coverage over time]({results.get('name', NAME)}.png)",
        "",
    ]
    lines += [
        "",
        "## Branch switch: `git checkout` of a branch that changes many files",
        "",
        "Each changed file has one new line in its first function. Watched: `follow` (what `agent-brain-lab watch`",
        "runs) with the default 1 s quiet delay; searchable = from the start of `git checkout` until BM25 answers",
        "the new branch's word from a changed file (polled every 50 ms; given up after 120 s or a dropped batch). Unwatched: one",
        "`index` run after the checkout (a no-op when the watcher already indexed it), then `git checkout main`",
        "back and one more `index` run.",
        "",
        "| chunks | files changed | watched: searchable after | runs | watcher warnings "
        "| `index` after the switch: time / chunks embedded / word found "
        "| `index` after checking main out back: time / word gone | load after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in (s for s in sizes.values() if "branch_switch" in s):  # a run stopped before it has none
        b = size["branch_switch"]
        w, there, back = b["watched"], b["index_after_switch"], b["index_after_checkout"]
        searchable = "not followed" if w["searchable_s"] is None else f"{w['searchable_s']:.1f} s"
        lines.append(
            f"| {b['chunks']:,} | {size['changed']} | {searchable} | {w['runs']} | {'; '.join(w['warnings']) or '—'} "
            f"| {there['duration_s']:.1f} s / {there['chunks_embedded']} / {'yes' if there['found'] else 'NO'} "
            f"| {back['duration_s']:.1f} s / {'yes' if not back['found'] else 'NO'} | {_load(size['load_after'])} |"
        )
    notes = [
        f"m{size['modules']}: {size['branch_switch_note']}." for size in sizes.values() if "branch_switch_note" in size
    ]
    lines += ["", *notes] if notes else []
    return "\n".join(lines) + "\n"


def _secs(value: float | None) -> str:
    return "never" if value is None else f"{value:.0f} s"


def save(results: dict, name: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / f"{name}.md").write_text(markdown(results))
    plot({f"m{s['modules']}": s["first_index"] for s in results["sizes"].values()}, RESULTS / f"{name}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="770,7700", help="generated workspace sizes in modules (~13 chunks each)")
    parser.add_argument("--changed", type=int, default=CHANGED, help="files the branch switch changes")
    parser.add_argument("--base", type=Path, default=BASE, help="where the workspaces go")
    parser.add_argument("--name", default=NAME, help="file name of the results")
    parser.add_argument("--report", action="store_true", help="rewrite the Markdown and the plot from the JSON")
    args = parser.parse_args()
    path = RESULTS / f"{args.name}.json"
    results = json.loads(path.read_text()) if path.exists() else {"name": args.name, "sizes": {}}
    if not args.report:
        for modules in (int(m) for m in args.sizes.split(",")):
            results["sizes"][str(modules)] = run_size(modules, args.changed, args.base, lambda m: print(m, flush=True))
            save(results, args.name)
    save(results, args.name)


if __name__ == "__main__":
    main()
