"""TypeScript relation questions with the TypeScript compiler's answers: "what does X call", "what calls X".

``python -m benchmarks.ts_relations WORKSPACE [WORKSPACE ...]`` indexes each folder of TypeScript
sources (e.g. an npm package's ``src/`` from ``npm pack rxjs``) and asks every engine mode relation
questions about its functions and methods. The answers come from ``benchmarks/ts_oracle.js``: the
compiler's type checker resolves every call and ``new`` in a function's own body (nested functions
answer for their own calls, as in ``benchmarks/relations.py``) to the declaration it means — not
from the engine's tree-sitter graph. X is a name declared once in the tree, with 1 to
``MAX_ANSWERS`` answers; questions are phrased from the tuned and held-out templates of
:mod:`.relations`. Needs ``node`` and the ``typescript`` package (``--typescript PATH``, default the
repo's ``node_modules``).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from collections import defaultdict
from pathlib import Path

from agent_brain_lab import Brain

from .docstrip import Target
from .metrics import summarize
from .quality import K, _judge
from .relations import MAX_ANSWERS, MIN_NAME, TEMPLATES, Question

HERE = Path(__file__).parent
MODES = ("graph", "multi", "bm25")
KINDS = {"callees": "callees", "callers": "callers"}


def compiler_facts(root: Path, typescript: Path) -> dict:
    """``{"defs": [{id, source, qualname, name, kind, start, end}], "calls": [[caller id, callee id]]}``."""
    out = subprocess.run(
        ["node", str(HERE / "ts_oracle.js"), str(root)],
        env={"TS": str(typescript), "PATH": "/usr/bin:/bin:/usr/local/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def questions(facts: dict, seed: int = 0) -> dict[str, list[Question]]:
    """Callee and caller questions, both phrasing groups, about names declared once."""
    defs = facts["defs"]
    count = defaultdict(int)
    for d in defs:
        count[d["name"]] += 1
    target = {d["id"]: Target("", d["source"], d["qualname"], d["start"], d["end"]) for d in defs}
    callees: dict[int, set[int]] = defaultdict(set)
    callers: dict[int, set[int]] = defaultdict(set)
    for caller, callee in facts["calls"]:
        callees[caller].add(callee)
        callers[callee].add(caller)
    rng = random.Random(seed)
    out: dict[str, list[Question]] = {}
    for kind, answers in (("callees", callees), ("callers", callers)):
        out[kind] = []
        for d in sorted(defs, key=lambda d: (d["source"], d["qualname"])):
            found = sorted(answers.get(d["id"], ()))
            if d["kind"] != "function" and kind == "callees":
                continue
            if count[d["name"]] != 1 or len(d["name"]) < MIN_NAME or not 1 <= len(found) <= MAX_ANSWERS:
                continue
            group = rng.choice(("tuned", "held-out"))
            query = rng.choice(TEMPLATES[group][kind]).format(name=d["name"])
            out[kind].append((query, tuple(target[i] for i in found)))
    return out


def evaluate(root: Path, typescript: Path, force: bool = False) -> dict:
    facts = compiler_facts(root, typescript)
    asked = questions(facts)
    report = Brain(root).index(force=force)
    brain = Brain(root)
    result: dict = {"chunks": report.chunks_total, "definitions": len(facts["defs"]), "calls": len(facts["calls"])}
    for kind, qs in asked.items():
        result[kind] = {"queries": len(qs)}
        for mode in MODES:
            judged = [
                _judge([r.to_dict() for r in brain.query(q, mode=mode, top_k=K).results], rel)[0] for q, rel in qs
            ]
            result[kind][mode] = round(summarize(judged)["ndcg"], 3) if judged else None
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workspaces", nargs="+", type=Path)
    parser.add_argument("--typescript", type=Path, default=HERE.parent / "node_modules" / "typescript")
    parser.add_argument("--force", action="store_true", help="re-index from scratch (embeddings stay cached)")
    args = parser.parse_args()
    for root in args.workspaces:
        print(json.dumps({str(root.name): evaluate(root, args.typescript, args.force)}), flush=True)


if __name__ == "__main__":
    main()
