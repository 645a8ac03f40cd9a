"""Work per hostile file: ``python -m benchmarks.chunk_bounds [--old]``.

Times the analysis of files built to blow up a chunker (a 1 MB Markdown heading line, a 1 MB line
of ``[a](``, 100k tiny headings, notebooks of 10k cells, a module of 3,000 functions) and counts
their chunks. ``--old`` also times the heading expression the chunker used before on short lines
(it is quadratic: 1 MB would take hours). Writes results/chunk-bounds.json.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from agent_brain_lab.engine.analysis import ChunkSettings, analyze_file
from agent_brain_lab.engine.workspace import WorkspaceFile

OUT = Path(__file__).parent / "results" / "chunk-bounds.json"
OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


def _notebook(cells: list[tuple[str, str]]) -> str:
    body = [{"cell_type": kind, "source": text, "metadata": {}} for kind, text in cells]
    return json.dumps({"cells": body, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


CASES = {
    "1 MB heading line of spaces": ("a.md", "doc", "markdown", lambda: "# a" + " " * 1_000_000 + "b"),
    "1 MB heading line of [a](": ("a.md", "doc", "markdown", lambda: "# " + "[a](" * 250_000),
    "100k tiny headings (0.8 MB)": ("a.md", "doc", "markdown", lambda: "".join(f"# h{i}\n" for i in range(100_000))),
    "1 MB rst adornment look-alikes": ("a.rst", "doc", "rst", lambda: ("=" * 999 + " x\n") * 1000),
    "notebook, 10k small cells": (
        "a.ipynb",
        "notebook",
        "python",
        lambda: _notebook([("markdown" if i % 2 else "code", f"x{i} = {i}") for i in range(10_000)]),
    ),
    "notebook, 10k function cells": (
        "a.ipynb",
        "notebook",
        "python",
        lambda: _notebook([("code", f"def f{i}():\n    return {i}\n") for i in range(10_000)]),
    ),
    "module of 3,000 functions": (
        "a.py",
        "code",
        "python",
        lambda: "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(3000)),
    ),
}


def run(old: bool) -> dict:
    results: dict = {"cases": {}}
    for name, (path, source_type, language, make) in CASES.items():
        text = make()
        f = WorkspaceFile(path, Path(path), len(text), 0.0, source_type, language, 0, 0, Path("/"))
        started = time.perf_counter()
        chunks, _ = analyze_file(f, text, ChunkSettings())
        seconds = time.perf_counter() - started
        results["cases"][name] = {"bytes": len(text.encode()), "chunks": len(chunks), "seconds": round(seconds, 3)}
        print(f"{name:34} {len(text.encode()):>10,} bytes  {len(chunks):>6} chunks  {seconds:7.3f} s")
    if old:
        results["old_heading_regex"] = {}
        for n in (2_000, 4_000, 8_000):
            line = "# a" + " " * n + "b"
            started = time.perf_counter()
            OLD_ATX.match(line)
            seconds = time.perf_counter() - started
            results["old_heading_regex"][n] = round(seconds, 3)
            print(f"old heading expression, {n:,}-char line: {seconds:.3f} s")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", action="store_true", help="also time the old heading expression")
    args = parser.parse_args()
    results = run(args.old)
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
