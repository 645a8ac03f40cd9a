"""What a new process pays to load an index's graph, on two versions of the code, and whether they answer alike.

- ``python -m benchmarks.graph_load --compare OLD_TREE ROOT [ROOT ...] --pairs 3``: fresh processes,
  alternating the code in ``OLD_TREE`` (a checkout of the version before; e.g. ``git archive``) and this
  tree on each ``ROOT`` (an indexed workspace; nothing is written to it): the load stages in one process
  (imports, checking the generation's files, the base graph, the look-up names, the names leg's table),
  CPU and wall seconds, then CLI queries in graph and multi mode (``python -m agent_brain_lab query``,
  one process each). The load average is noted before each run. Medians go to
  ``results/graph-load.{json,md}`` (``--name`` to change).
- ``--dump FILE ROOT``: no timing; graph and multi responses (less their time) to 500 queries made from
  the index's own symbol, file and external names, and 90 neighbourhoods (``Brain.graph_entity``), one
  JSON line each: two versions of the code must write the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
RESULTS = HERE.parent / "results"
QUERIES = [
    ("graph", "QuerySet.filter calls"),
    ("multi", "how does the CSRF middleware check the token"),
    ("graph", "what calls get_object_or_404"),
    ("multi", "Paginator page range"),
]


def stages(root: Path) -> dict[str, tuple[float, float]]:
    """(wall, CPU) seconds of each step of a graph's first load, in this process (the code on sys.path)."""
    out: dict[str, tuple[float, float]] = {}
    clock = [time.perf_counter(), time.process_time()]

    def lap(name: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        out[name] = (round(wall - clock[0], 3), round(cpu - clock[1], 3))
        clock[:] = [wall, cpu]

    index = root / ".agent-brain"
    gen_dir = index / f"gen-{(index / 'CURRENT').read_text().strip()}"
    import agent_brain_lab.engine.brain  # noqa: F401  (the engine's modules in their import order)
    from agent_brain_lab.engine import snapshot
    from agent_brain_lab.engine.retrieval.names import name_index
    from agent_brain_lab.engine.store.graph import CodeGraph
    from agent_brain_lab.engine.store.graph_cache import base_graph
    from agent_brain_lab.engine.store.graph_files import GraphFiles

    lap("imports")
    manifest = snapshot.read_manifest(gen_dir)
    snapshot._verify(gen_dir, manifest, set())
    lap("check files")
    files = GraphFiles.open(gen_dir)
    assert files is not None and files.base is not None
    base_graph(files.base)
    lap("base graph")
    graph = CodeGraph(files)
    graph.lookup("")
    lap("look-up names")
    name_index(graph)
    lap("names leg table")
    return out


def dump(root: Path, target: Path) -> None:
    from agent_brain_lab.engine import Brain

    brain = Brain(root)
    graph = brain._reader.view().snapshot.graph
    assert graph is not None
    nodes = list(graph.nodes())
    symbols = sorted(n for n, d in nodes if d.get("kind") in ("class", "function", "method"))
    files = sorted(n for n, d in nodes if d.get("kind") == "file")
    external = sorted(n for n, d in nodes if d.get("kind") == "external")

    def pick(names: list[str], k: int) -> list[str]:
        return names[:: max(1, len(names) // k)][:k]

    queries = []
    for node in pick(symbols, 70):
        data = graph.attrs(node)
        name = data.get("qualname") or data.get("name")
        queries += [name, f"what calls {data.get('name')}", f"how does {name} work"]
    queries += [f"what imports {f}" for f in pick(files, 20)]
    queries += [f"{graph.attrs(e).get('name')} subclasses" for e in pick(external, 10)]
    queries += [
        "how do I add a custom template filter",
        "ensure the object exists in the cache",
        "QuerySet filter exclude",
        "where is the CSRF token checked",
        "validate email address",
        "model field choices",
        "database router allow migrate",
        "parse the http accept header",
        "get the current timezone",
        "render a form field widget",
    ]
    lines = []
    for query in queries:
        for mode in ("graph", "multi"):
            response = brain.query(query, mode=mode, top_k=10).to_dict()
            response.pop("query_time_ms", None)
            lines.append(json.dumps({"q": query, "mode": mode, "r": response}, sort_keys=True, default=str))
    for node in pick(symbols, 60) + pick(files, 20) + pick(external, 10):
        name = graph.attrs(node).get("qualname") or graph.attrs(node).get("name") or node
        lines.append(json.dumps({"entity": name, "r": brain.graph_entity(name, depth=2).to_dict()}, sort_keys=True))
    target.write_text("\n".join(lines) + "\n")
    print(f"{len(queries) * 2} responses and {len(lines) - len(queries) * 2} neighbourhoods -> {target}")


def _run(tree: Path, args: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of one child process, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def compare(old: Path, roots: list[Path], pairs: int, name: str) -> None:
    trees = {"before": old.resolve(), "after": HERE.parent.parent}
    rows = []
    for pair in range(pairs):
        for root in roots:
            for version, tree in trees.items():
                load = os.getloadavg()[0]
                _, _, out = _run(tree, [str(HERE), "--stages", str(root)], root)
                rows.append(
                    {"pair": pair, "root": str(root), "version": version, "load": load, "stages": json.loads(out)}
                )
                for mode, query in QUERIES:
                    load = os.getloadavg()[0]
                    cli = ["-m", "agent_brain_lab", "query", "--mode", mode, query, "--top-k", "10", "--json"]
                    wall, cpu, out = _run(tree, cli, root)
                    row = {"pair": pair, "root": str(root), "version": version, "load": load, "mode": mode}
                    rows.append(
                        row | {"query": query, "wall": wall, "cpu": cpu, "engine_ms": json.loads(out)["query_time_ms"]}
                    )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(rows, indent=1))
    lines = [
        f"Fresh processes, {pairs} pairs alternating before/after per root; load average "
        f"{min(r['load'] for r in rows):.1f}-{max(r['load'] for r in rows):.1f}. Medians, seconds (CPU; wall).",
        "",
        "| root | code | "
        + " | ".join(next(r for r in rows if "stages" in r)["stages"])
        + " | CLI graph | CLI multi |",
        "|---|---|" + "---|" * (len(next(r for r in rows if "stages" in r)["stages"]) + 2),
    ]
    for root in roots:
        for version in trees:
            mine = [r for r in rows if r["root"] == str(root) and r["version"] == version]
            staged = [r["stages"] for r in mine if "stages" in r]
            cells = [
                f"{statistics.median(s[k][1] for s in staged):.2f} ({statistics.median(s[k][0] for s in staged):.2f})"
                for k in staged[0]
            ]
            for mode in ("graph", "multi"):
                runs = [r for r in mine if r.get("mode") == mode]
                cpu = statistics.median(r["cpu"] for r in runs)
                cells.append(f"{cpu:.2f} ({statistics.median(r['wall'] for r in runs):.2f})")
            lines.append(f"| {root.name} | {version} | " + " | ".join(cells) + " |")
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", type=Path, nargs="+")
    ap.add_argument("--compare", type=Path, help="a tree holding the code before")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--name", default="graph-load")
    ap.add_argument("--dump", type=Path)
    ap.add_argument("--stages", action="store_true", help="(a child) time the load stages in this process")
    args = ap.parse_args()
    if args.stages:
        print(json.dumps(stages(args.roots[0])))
    elif args.dump:
        dump(args.roots[0], args.dump)
    elif args.compare:
        compare(args.compare, args.roots, args.pairs, args.name)
    else:
        ap.error("--compare OLD_TREE or --dump FILE")


if __name__ == "__main__":
    main()
