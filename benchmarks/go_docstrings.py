"""Go doc comment questions: a doc comment's summary is the query, its declaration the answer.

``python -m benchmarks.go_docstrings``: each package below is a Debian ``golang-*-dev`` package
(its Go sources under ``/usr/share/gocode/src``), fetched with ``apt-get download`` (pinned version
and sha256, :func:`.natural.fetch`) and unpacked with ``dpkg-deb``. ``benchmarks/go_docstrip.go``
(Go's own ``go/parser``, run with ``go run``) writes a copy of every non-test ``.go`` file with the
doc comment of each func, method, type and interface method blanked to spaces (newlines kept: line
numbers unchanged) and lists each documented declaration with its line span and qualified name
(``Recv.Method``, ``Interface.Method``).

The query is the comment's first sentence (Go's synopsis convention: a doc comment opens with a
sentence that starts with the declared name), with that leading name left out ("Execute uses the
args" -> "uses the args"): the name alone would make the question a lookup, and the Python and
TypeScript sets' summaries do not carry it either. At least four words, used by one declaration
only. A result answers as in :func:`.codesearch.is_hit` (same file and overlapping lines, or the
same qualified name).

Packages are for tuning (``tune``) or only for reporting (``report``, never looked at while
tuning). Per package and mode: nDCG@10, MRR@10, strict nDCG@10; plus plain ``bm25s`` over
non-overlapping 40-line windows of the same stripped files. Needs ``go`` (Debian: golang-go) and
the apt package lists (``apt-get update``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .codesearch import _unique_queries
from .docstrip import Target, first_paragraph, query_for
from .natural import Package, fetch
from .report import load_average
from .tsjs_docstrings import ask, markdown

HERE = Path(__file__).parent
LIMIT = 200
GOCODE = "usr/share/gocode/src"  # where Debian's golang-*-dev packages put the sources


@dataclass(frozen=True)
class Corpus:
    name: str
    split: str  # tune | report
    package: Package


def _deb(name: str, version: str, sha256: str) -> Package:
    return Package("debian", name, version, f"{name}_{version.replace(':', '%3a')}_all.deb", sha256)


CORPORA = (
    Corpus(
        "cobra",
        "tune",
        _deb(
            "golang-github-spf13-cobra-dev",
            "1.6.1-1",
            "4f5d20855133319beef3c5b49d3c21a0406f270bf94fb4b6f4d406b691283cb2",
        ),
    ),
    Corpus(
        "gin",
        "tune",
        _deb(
            "golang-github-gin-gonic-gin-dev",
            "1.8.1-1",
            "66d916769bcd36a6722b0c92a81719b8faca56f69662b17d1ef7ba257c85367a",
        ),
    ),
    Corpus(
        "echo",
        "report",
        _deb(
            "golang-github-labstack-echo-dev",
            "4.2.1-3",
            "3ec383b8cb239c415d9ab83b3e8871524931f6da13e75e41baf580b74b3599ef",
        ),
    ),
    Corpus(
        "chi",
        "report",
        _deb(
            "golang-github-go-chi-chi-dev",
            "5.0.7-1",
            "70beea5ca4f20af122e8083c91b56b6055df895595c7d9dcf286fadd4ad26f9b",
        ),
    ),
)


def first_sentence(text: str) -> str:
    """go/doc's synopsis rule: the text up to the first period followed by a space, unless the period
    follows a lone capital letter ("J. Smith")."""
    for i in range(1, len(text) - 1):
        initial = text[i - 1].isupper() and (i < 2 or not text[i - 2].isupper())
        if text[i] == "." and text[i + 1].isspace() and not initial:
            return text[: i + 1]
    return text


def summary(doc: str, name: str) -> str | None:
    """The query a Go doc comment gives: its first sentence (:func:`first_sentence` of its first
    paragraph) without the declared name it opens with (``A``/``An``/``The`` before it too), or ``None``
    when it says too little (:func:`.docstrip.query_for`)."""
    text = first_sentence(first_paragraph(doc))
    text = re.sub(rf"^(?:(?:A|An|The)\s+)?{re.escape(name)}\b\s*", "", text)
    return query_for(text)


def strip_tree(source: Path, out: Path) -> dict:
    """Run ``go_docstrip.go``: the blanked copy of ``source`` in ``out``, and the documented declarations."""
    go = shutil.which("go")
    if go is None:
        raise RuntimeError("needs the Go toolchain (Debian: apt-get install golang-go)")
    done = subprocess.run(
        [go, "run", str(HERE / "go_docstrip.go"), str(source.resolve()), str(out.resolve())],
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE,
    )
    if done.returncode != 0:
        raise RuntimeError(f"go_docstrip.go failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def targets_of(docs: list[dict]) -> list[Target]:
    """One target per usable summary; a summary several declarations share is dropped."""
    found = []
    for d in docs:
        query = summary(d["doc"], d["name"])
        if query:
            found.append(Target(query, d["source"], d["qualname"], d["start"], d["end"]))
    return _unique_queries(found)


def unpack_deb(archive: Path, dest: Path) -> Path:
    """The Go sources of a ``golang-*-dev`` package, extracted into ``dest``."""
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        subprocess.run(["dpkg-deb", "-x", str(archive), tmp], check=True, capture_output=True)
        shutil.move(str(Path(tmp) / GOCODE), str(dest))
    return dest


def build(corpus: Corpus, cache: Path, log=print) -> tuple[Path, list[Target], int]:
    """The corpus's stripped workspace (built once), its targets and file count."""
    home = cache / "go-docstrings" / f"{corpus.name}-{corpus.package.version}"
    manifest = home / "targets.json"
    if not manifest.is_file():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        source = unpack_deb(fetch(corpus.package, cache, log), home / "source")
        facts = strip_tree(source, home / "workspace")
        targets = targets_of(facts["docs"])
        kinds = {(d["source"], d["qualname"]): d["kind"] for d in facts["docs"]}
        manifest.write_text(
            json.dumps(
                {
                    "files": facts["files"],
                    "targets": [t.to_dict() for t in targets],
                    "kinds": [kinds[(t.source, t.qualname)] for t in targets],
                }
            )
        )
    data = json.loads(manifest.read_text())
    return home / "workspace", [Target(**t) for t in data["targets"]], data["files"]


def by_kind(home: Path) -> dict[str, dict]:
    """nDCG@10 per declaration kind (function, method, type, interface_method) and mode, from the
    last run's ``details.json`` (one answer per question: 1 / log2(1 + its rank))."""
    data = json.loads((home / "targets.json").read_text())
    kinds = {(t["source"], t["qualname"]): k for t, k in zip(data["targets"], data["kinds"])}
    sums: dict[str, dict[str, list[float]]] = {}
    for d in json.loads((home / "details.json").read_text()):
        per_mode = sums.setdefault(kinds[(d["source"], d["qualname"])], {})
        for mode, ranks in d["ranks"].items():
            per_mode.setdefault(mode, []).append(1 / math.log2(1 + ranks[0]) if ranks else 0.0)
    return {
        kind: {"queries": len(next(iter(modes.values()))), **{m: round(sum(v) / len(v), 3) for m, v in modes.items()}}
        for kind, modes in sorted(sums.items())
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", help="comma-separated names (default: all)")
    parser.add_argument("--split", choices=("tune", "report"), help="only the corpora of one split")
    parser.add_argument("--limit", type=int, default=LIMIT, help="queries per package (0: all)")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache")
    parser.add_argument("--name", default="go-docstrings", help="results/<name>.json and .md")
    parser.add_argument("--fresh", action="store_true", help="re-index from scratch")
    parser.add_argument("--modes", help="engine modes, comma-separated (default: all)")
    args = parser.parse_args(argv)
    wanted = set(args.corpora.split(",")) if args.corpora else None
    chosen = [c for c in CORPORA if (wanted is None or c.name in wanted) and (args.split in (None, c.split))]
    modes = tuple(args.modes.split(",")) if args.modes else None
    result = {"k": 10, "limit": args.limit or None, "load_start": load_average(), "corpora": {}}
    for corpus in chosen:
        root, targets, files = build(corpus, args.cache)
        meta = {
            "language": "go",
            "split": corpus.split,
            "package": f"debian:{corpus.package.name}={corpus.package.version}",
            "files": files,
        }
        result["corpora"][corpus.name] = ask(
            root, targets, meta, args.limit or None, args.fresh, modes=modes, tag="go", label=corpus.name
        )
        result["corpora"][corpus.name]["by_kind"] = by_kind(root.parent)
    result["load_end"] = load_average()
    out = HERE / "results"
    (out / f"{args.name}.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / f"{args.name}.md").write_text(markdown(result, "Go doc comment questions"))


if __name__ == "__main__":
    main()
