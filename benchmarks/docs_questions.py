"""Natural questions about documentation: how people ask about a project's docs, answered by a section.

``python -m benchmarks.docs_questions``: the question files of ``benchmarks/questions/docs`` (the same
format as :mod:`benchmarks.natural`: a pinned, sha256-checked sdist, the members that make the
workspace, the split, the questions with their answers), run by :func:`benchmarks.natural.evaluate`
(every mode and plain ``bm25s`` over 40-line windows). The workspaces hold the docs tree and the README
only. Questions are asked as people type them ("how do I …", "why does …", a pasted warning, a
question naming a parent section and a subsection's words); each answer is a file and line range,
fixed by reading the docs before any query ran: grade 2 for the paragraph or section that answers,
grade 1 for related text. pyparsing (reStructuredText) and black (Markdown) are the tune split;
click (Markdown) is the report split, never looked at while tuning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import natural

QUESTIONS_DIR = Path(__file__).parent / "questions" / "docs"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.docs_questions", description=__doc__.split("\n")[0])
    parser.add_argument("--repositories", help="comma-separated (default: every question file)")
    parser.add_argument("--modes", help="comma-separated engine modes (default: all)")
    parser.add_argument("--fresh", action="store_true", help="re-index")
    parser.add_argument("--cache", type=Path, default=Path(__file__).parent / ".cache")
    parser.add_argument("--out", type=Path, help="write the JSON here (and .md beside it)")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = natural.evaluate(
        args.cache,
        log,
        fresh=args.fresh,
        repositories=natural.listed(args.repositories),
        modes=natural.listed(args.modes),
        label="docs",
        directory=QUESTIONS_DIR,
    )
    text = "\n".join(natural.markdown(result)) + "\n"
    text = text.replace("## Natural questions", "## Natural questions about docs").replace(
        "questions/natural", "questions/docs"
    )
    natural.save(result, text, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
