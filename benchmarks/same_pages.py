"""Whether a change to the query path left every answer as it was: run once on the code before
(``--save``), once on the code after (``--compare``), on the same index.

Each query of :mod:`benchmarks.keyword_speed`'s pool (the generated workspaces of
:mod:`benchmarks.latency100k`) is answered in bm25 mode (``--modes`` for others) with ``top_k=10``,
and its whole response is kept as ``to_dict()`` gives it, but for ``query_time_ms``: every result's
fields, scores, order, highlights and labels. ``--compare`` reports how many responses are equal and
shows the first that differ; it exits with status 1 when any does.

Run: ``python -m benchmarks.same_pages --modules 230,770 --save /tmp/before.json`` with the old code
on the path, then ``... --compare /tmp/before.json`` with the new.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import latency100k

QUERIES = 1000


def answers(modules: list[int], modes: list[str], queries: int) -> dict[str, list[dict]]:
    """Every response, keyed by workspace size and mode, in the pool's order."""
    from agent_brain_lab import Brain

    out: dict[str, list[dict]] = {}
    for m in modules:
        root, _ = latency100k.workspace(m, lambda _: None)
        brain = Brain(root)
        pool = latency100k._query_pool(root, queries)
        for mode in modes:
            pages = []
            for q in pool:
                page = brain.query(q, mode=mode, top_k=10).to_dict()
                page.pop("query_time_ms")
                pages.append(page)
            out[f"m{m}/{mode}"] = pages
    return out


def _first_difference(old: object, new: object, where: str = "") -> str:
    """Where two JSON values first differ, and the two values there."""
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        return next(_first_difference(old[k], new[k], f"{where}.{k}") for k in old if old[k] != new[k])
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return next(_first_difference(a, b, f"{where}[{i}]") for i, (a, b) in enumerate(zip(old, new)) if a != b)
    return f"{where or 'the response'}: {json.dumps(old)[:200]} -> {json.dumps(new)[:200]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modules", default="230,770", help="workspace sizes in modules (~13.5 chunks each)")
    parser.add_argument("--modes", default="bm25")
    parser.add_argument("--queries", type=int, default=QUERIES)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--save", type=Path)
    what.add_argument("--compare", type=Path)
    args = parser.parse_args()
    got = answers([int(m) for m in args.modules.split(",")], args.modes.split(","), args.queries)
    # through JSON both ways: what was saved and what is compared are the same kinds of values
    got = json.loads(json.dumps(got))
    if args.save:
        args.save.write_text(json.dumps(got))
        print(f"saved {sum(map(len, got.values()))} responses to {args.save}")
        return
    saved = json.loads(args.compare.read_text())
    differ = 0
    for key, pages in got.items():
        before = saved.get(key)
        if before is None or len(before) != len(pages):
            print(f"{key}: not in the saved run (or another number of queries)")
            differ += 1
            continue
        wrong = [(old, new) for old, new in zip(before, pages) if old != new]
        print(f"{key}: {len(pages) - len(wrong)}/{len(pages)} responses equal")
        for old, new in wrong[:2]:
            print(f"  {old['query']!r}: {_first_difference(old, new)}")
        differ += len(wrong)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
