"""Whether a change left every query's response as it was: dump, then compare byte for byte.

Dumps ``Brain.query(...).to_dict()`` (less ``query_time_ms``) of every mode for ~200 varied requests
on one workspace — the benchmark's query pool (:func:`benchmarks.latency100k._query_pool`: prose,
identifiers, relation questions) plus edge cases (question words only, stop words, dotted numbers,
one-letter words, letters outside ASCII, no match), each with a filter in turn (source type,
language, path globs, one that matches nothing) and ``top_k`` 1, 5, 10 or 50 — one JSON line each.
A request that fails is dumped as its error. The workspace is only read.

Run it with the code before a change, then after, and compare::

    PYTHONPATH=<old tree> python -m benchmarks.same_responses ROOT /tmp/before.jsonl
    PYTHONPATH=<new tree> python -m benchmarks.same_responses ROOT /tmp/after.jsonl
    python -m benchmarks.same_responses --compare /tmp/before.jsonl /tmp/after.jsonl

``ROOT`` e.g. ``/tmp/latency100k/m230/ws`` (3,105 chunks) or ``m7700/ws`` (103,950).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import latency100k

MODES = ("bm25", "vector", "hybrid", "graph", "multi")
EDGE_QUERIES = [
    "how do we compute it",
    "İstanbul parse HTTPHeader",
    "version 1.2.3 release",
    "a b c x",
    "zzzqqqnothing",
    "the",
    "parseHTTPHeader",
    "get_value_from_cache",
    "what calls main",
    "docs section overview",
    "how to",
    "__init__",
    "x",
    "Kelvin \u212a sign",
    "test_something fails",
    "where is config loaded",
    "ñandú café",
    "SCREAMING_CASE_NAME",
    "module.sub.func",
    "100 200 300",
    "error handling retry",
    "why",
    "is it",
    "self",
    "return None",
    "import os",
    "class Foo(Bar)",
    "compute total price",
    "def",
    "lambda x: x",
]
FILTERS: list[dict] = [
    {},
    {},
    {},
    {"source_types": ["code"]},
    {"source_types": ["doc"]},
    {"languages": ["python"]},
    {"languages": ["markdown"]},
    {"file_paths": ["docs/**"]},
    {"file_paths": ["pkg001/**", "**/mod0001*.py"]},
    {"source_types": ["test"]},
    {"file_paths": ["nothing/**"]},
]
TOP_KS = (1, 10, 50, 10, 5)


def requests(root: Path, pooled: int = 170) -> list[tuple[str, dict]]:
    queries = latency100k._query_pool(root, pooled) + EDGE_QUERIES
    return [(q, {**FILTERS[i % len(FILTERS)], "top_k": TOP_KS[i % len(TOP_KS)]}) for i, q in enumerate(queries)]


def dump(root: Path, out: Path, modes: tuple[str, ...] = MODES) -> int:
    from agent_brain_lab import Brain

    brain = Brain(root)
    count = 0
    with out.open("w") as fh:
        for query, fields in requests(root):
            for mode in modes:
                try:
                    response = brain.query(query, mode=mode, **fields).to_dict()
                    response.pop("query_time_ms")
                except Exception as err:  # an error is an answer too: it must stay the same
                    response = {"error": type(err).__name__, "message": str(err)}
                fh.write(json.dumps({"query": query, "mode": mode, "fields": fields, "response": response}) + "\n")
                count += 1
    return count


def compare(before: Path, after: Path) -> list[str]:
    """The requests whose responses differ (all of them when the files hold other requests)."""
    old, new = before.read_text().splitlines(), after.read_text().splitlines()
    if len(old) != len(new):
        return [f"{len(old)} responses before, {len(new)} after"]
    return [json.loads(a)["query"] + " / " + json.loads(a)["mode"] for a, b in zip(old, new) if a != b]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs=2, help="ROOT OUT (dump) or BEFORE AFTER (--compare)")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    if args.compare:
        differ = compare(Path(args.paths[0]), Path(args.paths[1]))
        print(
            f"{len(differ)} differ" + "".join(f"\n  {d}" for d in differ[:20]) if differ else "every response the same"
        )
        sys.exit(1 if differ else 0)
    count = dump(Path(args.paths[0]), Path(args.paths[1]), tuple(args.modes.split(",")))
    print(f"{count} responses written to {args.paths[1]}")


if __name__ == "__main__":
    main()
