"""TypeScript and JavaScript docstring questions: a JSDoc summary is the query, its declaration the answer.

``python -m benchmarks.tsjs_docstrings``: each package below is fetched with ``npm pack`` (pinned
version and sha256, :func:`.natural.fetch`), the listed members unpacked, and
``benchmarks/ts_docstrip.js`` (the TypeScript compiler's parser) writes a copy of every source file
with each ``/** ... */`` comment blanked to spaces (newlines kept: line numbers unchanged) and lists
each documented function, method, constructor, accessor, function-valued variable or field, and
class, with its line span (an overloaded function: first signature to implementation). The query is
the comment's summary: its first paragraph without tags (``@summary``/``@description`` when the
comment has no text before its tags), inline ``{@link X}`` as ``X``, HTML tags removed, at least
four words and used by one declaration only. A result answers as in :func:`.codesearch.is_hit`
(same file and overlapping lines, or the same qualified name).

Packages are for tuning (``tune``) or only for reporting (``report``, never looked at while
tuning). Per package and mode: nDCG@10, MRR@10, strict nDCG@10; plus plain ``bm25s`` over
non-overlapping 40-line windows of the same stripped files (what a user could pick instead).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .codesearch import _unique_queries, sample
from .docstrip import Target, query_for
from .metrics import summarize
from .natural import Package, fetch, unpack
from .quality import _judge
from .report import load_average

HERE = Path(__file__).parent
TYPESCRIPT = HERE.parent / "node_modules/typescript"  # jlpm install puts it there
K = 10
LIMIT = 200
BASELINE = "bm25s, 40-line windows"


@dataclass(frozen=True)
class Corpus:
    name: str
    language: str
    split: str  # tune | report
    package: Package
    include: tuple[str, ...]  # members below the archive's top folder
    exclude: str = ""  # a regex on the unpacked path: left out of the workspace


def _npm(name: str, version: str, sha256: str) -> Package:
    return Package("npm", name, version, f"{name.replace('@', '').replace('/', '-')}-{version}.tgz", sha256)


CORPORA = (
    Corpus(
        "immer",
        "typescript",
        "tune",
        _npm("immer", "11.1.3", "732a41d2b00a31397a6d689ec06df95e1a1dccfe58a34b17c7723cf8308349c7"),
        ("src",),
    ),
    Corpus(
        "mobx",
        "typescript",
        "tune",
        _npm("mobx", "6.13.7", "064d4b73517da929eb985ac320e150ec7302a74786f9092b4f2b2e7ac7844d9f"),
        ("src",),
    ),
    Corpus(
        "ramda",
        "javascript",
        "tune",
        _npm("ramda", "0.30.1", "76a1e5c64d5e46c58067f90fb556f7e803bcc741228312ce8bb88035a2157d9a"),
        ("src",),
    ),
    Corpus(
        "async",
        "javascript",
        "tune",
        _npm("async", "3.2.6", "6bb45cfba08cd2eea39eb3ce6eaa94113070fe137ec0bd4a9f122be9a0250e6f"),
        (".",),
        r"^dist/",
    ),
    Corpus(
        "redux-toolkit",  # added in the round of issue 22's TS/JS quality: a third TypeScript package to tune on
        "typescript",
        "tune",
        _npm("@reduxjs/toolkit", "2.14.0", "1e5a0946e81e9c365141d18c7067221b48ba66c6858d0a6e23296a31b095f82b"),
        ("src",),
    ),
    Corpus(
        "rxjs",
        "typescript",
        "report",
        _npm("rxjs", "7.8.2", "2312f8ffd9726ffd7bd53ea12c5f13663d09a3dc3326f448c70b88f5ef6fac82"),
        ("src",),
    ),
    Corpus(
        "lodash",  # the per-method modules: lodash.js and core.js repeat their comments (no single answer)
        "javascript",
        "report",
        _npm("lodash", "4.17.21", "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804"),
        (".",),
        r"^(fp/|fp\.js$|lodash\.js$|core\.js$)",
    ),
)

_LINK = re.compile(r"\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[\s|]+([^}]*))?\}")
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def summary(doc: str) -> str | None:
    """The query a JSDoc comment's text gives: its first paragraph, links as their text, no HTML
    tags, or ``None`` when it says too little (:func:`.docstrip.query_for`)."""
    text = _LINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), doc)
    return query_for(_TAG.sub("", text))


def strip_tree(source: Path, out: Path, typescript: Path) -> dict:
    """Run ``ts_docstrip.js``: the blanked copy of ``source`` in ``out``, and the documented declarations."""
    done = subprocess.run(
        ["node", str(HERE / "ts_docstrip.js"), str(source), str(out)],
        env={"TS": str(typescript), "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def targets_of(docs: list[dict]) -> list[Target]:
    """One target per usable summary; a summary several declarations share is dropped."""
    found = []
    for d in docs:
        query = summary(d["doc"])
        if query:
            found.append(Target(query, d["source"], d["qualname"], d["start"], d["end"]))
    return _unique_queries(found)


def build(corpus: Corpus, cache: Path, typescript: Path, log=print) -> tuple[Path, list[Target], int]:
    """The corpus's stripped workspace (built once), its targets and file count."""
    home = cache / "tsjs-docstrings" / f"{corpus.name}-{corpus.package.version}"
    manifest = home / "targets.json"
    if not manifest.is_file():
        shutil.rmtree(home, ignore_errors=True)
        source = home / "source"
        source.mkdir(parents=True)
        unpack(fetch(corpus.package, cache, log), corpus.include, source)
        if corpus.exclude:
            for path in sorted(source.rglob("*")):
                if path.is_file() and re.search(corpus.exclude, path.relative_to(source).as_posix()):
                    path.unlink()
        facts = strip_tree(source, home / "workspace", typescript)
        targets = targets_of(facts["docs"])
        manifest.write_text(json.dumps({"files": facts["files"], "targets": [t.to_dict() for t in targets]}))
    data = json.loads(manifest.read_text())
    return home / "workspace", [Target(**t) for t in data["targets"]], data["files"]


def evaluate(
    corpus: Corpus,
    cache: Path,
    typescript: Path,
    limit: int | None,
    fresh: bool,
    log=print,
    modes: tuple[str, ...] | None = None,
) -> dict:
    root, targets, files = build(corpus, cache, typescript, log)
    meta = {
        "language": corpus.language,
        "split": corpus.split,
        "package": f"npm:{corpus.package.name}=={corpus.package.version}",
        "files": files,
    }
    return ask(root, targets, meta, limit, fresh, log, modes, tag="tsjs", label=corpus.name)


def ask(
    root: Path,
    targets: list[Target],
    meta: dict,
    limit: int | None,
    fresh: bool,
    log=print,
    modes: tuple[str, ...] | None = None,
    tag: str = "tsjs",
    label: str = "",
) -> dict:
    """Index ``root`` (again when the chunking changed) and ask a sample of ``targets`` in every mode
    and of the baseline; the per-question ranks go to ``details.json`` beside the workspace."""
    from agent_brain_lab import Brain
    from agent_brain_lab.engine.types import MODES

    from .engine_view import chunking_fingerprint
    from .peers import Bm25sShipped, windows

    asked = sample(targets, limit)
    key_file = root.parent / "index-key"
    stale = not key_file.is_file() or key_file.read_text() != chunking_fingerprint()
    report = Brain(root).index(force=fresh or stale)
    key_file.write_text(chunking_fingerprint())
    brain = Brain(root)
    out: dict = {
        **meta,
        "documented": len(targets),
        "queries": len(asked),
        "chunks": report.chunks_total,
        "modes": {},
    }
    log(f"[{tag}] {label}: {meta['files']} files, {len(targets)} usable summaries, {report.chunks_total} chunks")
    details = [{"query": t.query, "source": t.source, "qualname": t.qualname, "ranks": {}} for t in asked]
    for mode in modes or MODES:
        judged = []
        for t, d in zip(asked, details):
            found = [r.to_dict() for r in brain.query(t.query, mode=mode, top_k=K).results]
            lenient, strict, d["ranks"][mode] = _judge(found, (t,))
            judged.append((lenient, strict))
        out["modes"][mode] = _tally(judged)
    win = [
        w
        for path in sorted(p for p in root.rglob("*") if p.is_file() and ".agent-brain" not in p.parts)
        for w in windows(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8", errors="replace"))
    ]
    peer = Bm25sShipped([text for *_, text in win])
    rows = [{"source": p, "start_line": a, "end_line": b} for p, a, b, _ in win]
    judged = []
    for t, d in zip(asked, details):
        lenient, strict, d["ranks"][BASELINE] = _judge([rows[i] for i in peer.search(t.query, K)], (t,))
        judged.append((lenient, strict))
    out["modes"][BASELINE] = _tally(judged)
    for mode, m in out["modes"].items():
        log(f"[{tag}]   {mode:24} nDCG@10 {m['ndcg']:.3f}  MRR@10 {m['mrr']:.3f}  strict {m['strict']:.3f}")
    (root.parent / "details.json").write_text(json.dumps(details, indent=1))
    return out


def _tally(judged: list[tuple[dict, dict]]) -> dict:
    lenient = summarize([j[0] for j in judged])
    return {
        "ndcg": round(lenient["ndcg"], 3),
        "mrr": round(lenient["mrr"], 3),
        "strict": round(summarize([j[1] for j in judged])["ndcg"], 3),
    }


def markdown(result: dict, title: str = "TypeScript/JavaScript docstring questions") -> str:
    modes = list(next(iter(result["corpora"].values()))["modes"]) if result["corpora"] else []
    lines = [
        f"# {title} (nDCG@10, up to {result['limit']} per package)",
        "",
        f"load average (1 min) at start {_load(result['load_start'])}, at end {_load(result['load_end'])}",
        "",
        "| package | language | split | queries | " + " | ".join(modes) + " |",
        "|---|---|---|---|" + "---|" * len(modes),
    ]
    for name, c in result["corpora"].items():
        best = max(m["ndcg"] for mode, m in c["modes"].items() if mode != BASELINE)
        cells = [f"**{m['ndcg']:.3f}**" if m["ndcg"] == best else f"{m['ndcg']:.3f}" for m in c["modes"].values()]
        lines.append(
            f"| {name} ({c['package']}) | {c['language']} | {c['split']} | {c['queries']} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def _load(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", help="comma-separated names (default: all)")
    parser.add_argument("--split", choices=("tune", "report"), help="only the corpora of one split")
    parser.add_argument("--limit", type=int, default=LIMIT, help="queries per package (0: all)")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache")
    parser.add_argument("--typescript", type=Path, default=TYPESCRIPT, help="the npm typescript package")
    parser.add_argument("--name", default="tsjs-docstrings", help="results/<name>.json and .md")
    parser.add_argument("--fresh", action="store_true", help="re-index from scratch")
    parser.add_argument("--modes", help="engine modes, comma-separated (default: all)")
    args = parser.parse_args(argv)
    wanted = set(args.corpora.split(",")) if args.corpora else None
    chosen = [c for c in CORPORA if (wanted is None or c.name in wanted) and (args.split in (None, c.split))]
    modes = tuple(args.modes.split(",")) if args.modes else None
    result = {"k": K, "limit": args.limit or None, "load_start": load_average(), "corpora": {}}
    for corpus in chosen:
        result["corpora"][corpus.name] = evaluate(
            corpus, args.cache, args.typescript, args.limit or None, args.fresh, modes=modes
        )
    result["load_end"] = load_average()
    out = HERE / "results"
    (out / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / f"{args.name}.md").write_text(markdown(result))


if __name__ == "__main__":
    main()
