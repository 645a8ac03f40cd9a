"""Heading queries on real documentation: each section heading of a package's docs is a query, its section the answer.

``python -m benchmarks.headings --packages pyparsing,black --held-out attrs``: the source distribution of
each package (``pip download --no-binary :all: --no-deps``) gives its ``.md`` and ``.rst`` files, copied
into a workspace of their own and indexed by the engine. The headings and their sections are found by
the small parser here (Markdown ATX headings outside code fences, reStructuredText titles with an
underline and optional overline), not by the engine's chunker. A heading used more than once, of fewer
than two words, or in a changelog is left out. A result answers when it lies in the section's file and
overlaps its lines; "strict" also requires it to span at most max(3 x the section, 60) lines. Each query
has one answer: nDCG@10 is 1 / log2(rank + 1) of the first answering result.

The baseline a user could pick instead: plain ``bm25s`` (its README's tokenizer, English stop words) over
non-overlapping 40-line windows of the same files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .metrics import found_ranks, query_scores, summarize
from .peers import Bm25sShipped, windows

HERE = Path(__file__).parent
K = 10
MODES = ["vector", "bm25", "hybrid", "graph", "multi"]
DOCS = (".md", ".rst")
CHANGELOGS = re.compile(r"change|history|whats_new|news|release", re.IGNORECASE)
_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ADORN = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


@dataclass(frozen=True)
class Section:
    query: str
    path: str
    start: int
    end: int
    parent: str = field(default="", compare=False)  # the enclosing section's title ("" at the top)


def sections_of(path: str, text: str) -> list[Section]:
    """Every heading of one file with its own lines (up to the next heading of any level) and the title
    of the heading it is nested in (Markdown: fewer #s; reStructuredText: an adornment style first
    seen earlier, as docutils ranks them)."""
    lines = text.splitlines()
    heads: list[tuple[int, str, int]] = []  # (0-based line of the heading's first line, title, level)
    styles: list[tuple[str, bool]] = []
    fence = None
    markdown = path.endswith(".md")
    i = 0
    while i < len(lines):
        line = lines[i]
        if markdown:
            opened = _FENCE.match(line)
            if opened and (fence is None or opened.group(1)[0] == fence):
                fence = None if fence else opened.group(1)[0]
            elif fence is None and (m := _ATX.match(line)):
                heads.append((i, m.group(2), len(m.group(1))))
        elif _rst_title(lines, i):
            over = i > 0 and _ADORN.match(lines[i - 1]) is not None
            style = (lines[i + 1][0], over)
            if style not in styles:
                styles.append(style)
            heads.append((i - 1 if over else i, line.strip(), styles.index(style) + 1))
            i += 1
        i += 1
    out = []
    stack: list[tuple[int, str]] = []
    for n, (at, title, level) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        out.append(Section(clean(title), path, at + 1, max(at + 1, end), stack[-1][1] if stack else ""))
        stack.append((level, clean(title)))
    return out


def _rst_title(lines: list[str], i: int) -> bool:
    """A text line underlined by an adornment at least as long."""
    line = lines[i]
    return (
        i + 1 < len(lines)
        and bool(line.strip())
        and _ADORN.match(lines[i + 1]) is not None
        and _ADORN.match(line) is None
        and len(lines[i + 1].rstrip()) >= len(line.rstrip())
    )


def clean(title: str) -> str:
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # [text](link)
    title = re.sub(r":[a-z:]+:`([^`<]*)(?:<[^>]*>)?`", r"\1", title)  # :func:`name`
    title = re.sub(r"`([^`<]*?)\s*(?:<[^>]*>)?`_*", r"\1", title)
    title = re.sub(r"[*_]{1,2}([^*_]+)[*_]{1,2}", r"\1", title)
    return " ".join(title.replace("`", "").split()).strip(" :.")


def questions(root: Path) -> list[Section]:
    found = [
        s
        for f in sorted(root.rglob("*"))
        if f.suffix in DOCS and f.is_file()
        for s in sections_of(f.relative_to(root).as_posix(), f.read_text(encoding="utf-8", errors="replace"))
    ]
    counts = Counter(s.query.lower() for s in found)
    return [
        s
        for s in found
        if counts[s.query.lower()] == 1 and len(s.query.split()) >= 2 and not CHANGELOGS.search(Path(s.path).name)
    ]


def parent_questions(root: Path) -> list[Section]:
    """The headings used more than once in the package's docs ("Usage", "Formats", "With ALE"), each
    asked with its parent's title first ("Vim With ALE"): how a person names one of several sections
    of the same title. Left out when that pair is still not unique."""
    found = [
        s
        for f in sorted(root.rglob("*"))
        if f.suffix in DOCS and f.is_file() and not CHANGELOGS.search(f.name)
        for s in sections_of(f.relative_to(root).as_posix(), f.read_text(encoding="utf-8", errors="replace"))
    ]
    counts = Counter(s.query.lower() for s in found)
    asked = [
        Section(f"{s.parent} {s.query}", s.path, s.start, s.end, s.parent)
        for s in found
        if counts[s.query.lower()] > 1 and s.parent and s.query
    ]
    pairs = Counter(s.query.lower() for s in asked)
    return [s for s in asked if pairs[s.query.lower()] == 1]


def workspace(package: str, cache: Path) -> Path:
    """The package's documentation files, from its source distribution."""
    home = cache / "headings" / package
    root = home / "workspace"
    if root.is_dir():
        return root
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    found = sorted(sdists.glob(f"{package}-*.tar.gz"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", package, "-d", str(sdists)],
            check=True,
            capture_output=True,
        )
        found = sorted(sdists.glob(f"{package}-*.tar.gz"))
    with tarfile.open(found[-1]) as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if member.isfile() and name.suffix in DOCS and ".github" not in name.parts:
                out = root / Path(*name.parts[1:])
                out.parent.mkdir(parents=True, exist_ok=True)
                data = tar.extractfile(member)
                if data is not None:
                    out.write_bytes(data.read())
    return root


def hit(result: tuple[str, int, int], section: Section, strict: bool) -> bool:
    path, start, end = result
    if path != section.path or end < section.start or start > section.end:
        return False
    return not strict or end - start + 1 <= max(3 * (section.end - section.start + 1), 60)


def score(found: list[tuple[str, int, int]], section: Section, strict: bool) -> dict:
    ranks = found_ranks([0 if hit(r, section, strict) else None for r in found], K)
    return query_scores(ranks, 1, K)


def evaluate(package: str, cache: Path, log=print) -> dict:
    from agent_brain_lab import Brain

    root = workspace(package, cache)
    qs = questions(root)
    asked = parent_questions(root)
    brain = Brain(root)
    report = brain.index()
    log(
        f"[headings] {package}: {len(qs)} headings, {len(asked)} repeated ones with their parent, {report.chunks_total} chunks"
    )
    files = [f for f in sorted(root.rglob("*")) if f.suffix in DOCS and f.is_file()]
    wins = [w for f in files for w in windows(f.relative_to(root).as_posix(), f.read_text(errors="replace"))]
    bm25s = Bm25sShipped([w[3] for w in wins])

    def baseline(query: str) -> list[tuple[str, int, int]]:
        return [wins[i][:3] for i in bm25s.search(query, K)]

    intents: dict[str, int] = {}
    modes, per_query = measure(brain, qs, baseline, intents)
    out: dict = {"queries": len(qs), "chunks": report.chunks_total, "modes": modes, "intents": intents}
    parent_modes, parent_details = measure(brain, asked, baseline, {})
    out["with_parent"] = {"queries": len(asked), "modes": parent_modes}
    (cache / "headings" / f"details-{package}.json").write_text(json.dumps(per_query + parent_details, indent=1))
    for label, found, n in (
        ("headings", modes, len(qs)),
        ("repeated headings with their parent", parent_modes, len(asked)),
    ):
        if not n:
            continue
        log(f"[headings]   {label} ({n}):")
        for mode, m in found.items():
            log(f"[headings]   {mode:24s} nDCG@10 {m['ndcg']:.3f}  strict {m['strict']:.3f}")
    log(f"[headings]   multi intents: {intents}")
    return out


def measure(brain, qs: list[Section], baseline, intents: dict[str, int]) -> tuple[dict, list[dict]]:
    """nDCG@10 (lenient and strict) of every mode and the baseline on ``qs``; multi's intents counted
    into ``intents``."""
    modes: dict = {}
    per_query: list[dict] = [{"query": s.query, "path": s.path, "lines": [s.start, s.end]} for s in qs]
    searches = {mode: None for mode in MODES} | {"bm25s, 40-line windows": baseline}
    for name, search in searches.items():
        lenient, strict = [], []
        for s, detail in zip(qs, per_query):
            if search is None:
                response = brain.query(s.query, mode=name, top_k=K)
                found = [(r.source, r.start_line, r.end_line) for r in response.results]
                if name == "multi":
                    intents[response.intent] = intents.get(response.intent, 0) + 1
            else:
                found = search(s.query)
            lenient.append(score(found, s, False))
            strict.append(score(found, s, True))
            detail[name] = lenient[-1]["ndcg"]
        modes[name] = {"ndcg": summarize(lenient)["ndcg"], "strict": summarize(strict)["ndcg"]}
    return modes, per_query


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--packages", default="pyparsing,black")
    parser.add_argument("--held-out", default="attrs")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "headings.json")
    parser.add_argument("--fresh", action="store_true", help="rebuild the workspaces' indexes from scratch")
    args = parser.parse_args(argv)
    tuned = [p for p in args.packages.split(",") if p]
    held = [p for p in args.held_out.split(",") if p]
    if args.fresh:
        for p in tuned + held:
            shutil.rmtree(args.cache / "headings" / p / "workspace" / ".agent-brain", ignore_errors=True)
    results = {p: {**evaluate(p, args.cache), "held_out": p in held} for p in tuned + held}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
