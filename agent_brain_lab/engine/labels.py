"""What a person reads about a result, written once for every front door.

The panel, the notebook widgets, the text and HTML views (CLI, ``%brain``) and the MCP tools show
these strings as they are: a result's ``location`` (``path:7`` for one line, ``path:7-9`` for more,
plus ``[cell 9]`` numbered from 1 as JupyterLab counts cells), its ``anchor`` (``method Cart.total``
or the doc section), the line that matters in it, one label per leg that scored or ranked it, and
multi's reading of the query in words. Pure functions of plain values: no engine state, no Jupyter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

from .described import Doc

# Control characters, and the characters that reorder or break the text around them where it is shown:
# bidi marks, embeddings, overrides and isolates ("Trojan Source": code or a file name that reads other
# than it is), line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")

# The legs a result of each mode can carry, in the order they are shown: the legs the mode fuses
# first, then (hybrid, multi) the vector and bm25 legs its blend heard. Graph mode answers with the
# vector leg when it falls back.
MODE_LEGS: dict[str, tuple[str, ...]] = {
    "vector": ("vector",),
    "bm25": ("bm25",),
    "hybrid": ("vector", "bm25"),
    "graph": ("graph", "vector"),
    "multi": ("hybrid", "graph", "names", "vector", "bm25"),
}
BLENDED = frozenset({"hybrid", "multi"})  # modes whose blend scores a chunk with no vector by its keywords
NOT_EMBEDDED = "not embedded yet"

# multi's intents (retrieval/intent.py ``Intent.label``) and legs in words. tests/test_labels.py
# checks that every label the query analysis can give has its words here.
INTENT_WORDS = {
    "callers": "who calls a symbol",
    "callees": "what a symbol calls",
    "importers": "modules importing something",
    "imports": "what a module imports",
    "subclasses": "subclasses of a class",
    "bases": "base classes of a class",
    "implementations": "implementations of an interface",
    "implements": "interfaces a class implements",
    "mentions": "where a name is mentioned",
    "members": "members of a class or module",
    "contains": "what contains a symbol",
    "lookup": "names to look up",
    "prose": "a question in words",
}
LEG_WORDS = {
    "hybrid": "meaning and keywords",
    "graph": "code relations",
    "names": "symbol names",
    "vector": "meaning",
    "bm25": "keywords",
}


@dataclass(frozen=True)
class Leg:
    """One retrieval leg's part in a result."""

    leg: Annotated[str, Doc("vector, bm25, graph, hybrid or names")]
    score: Annotated[
        float | None, Doc("the leg's own score; null when it ranks without one or the chunk has no vector yet")
    ]
    rank: Annotated[int | None, Doc("1-based place in the leg's own ranking; null when it scored the chunk outside it")]
    label: Annotated[str, Doc("what a person reads: 'vector 0.812 #1', 'bm25 12.3', 'hybrid #2'")]
    missing: Annotated[bool, Doc("the chunk has no vector yet: the blend ranked it by its keywords alone")] = False


def printable(text: object) -> str:
    """``text`` safe to print: control characters (newline, escape, tab, ...) and bidi controls
    (``\\u202e``) as repr-style escapes."""
    text = str(text)
    if text.isprintable():  # most texts: no control character (they are all unprintable), nothing to replace
        return text
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def cell_label(cell_index: int | None) -> str | None:
    """A notebook cell numbered from 1 as JupyterLab's status bar does (``cell_index`` 8 is "cell 9")."""
    return None if cell_index is None else f"cell {cell_index + 1}"


def location(
    source: str, start_line: int | None = None, end_line: int | None = None, cell_index: int | None = None
) -> str:
    """``path:7`` for one line, ``path:7-9`` for several, ``path`` alone without lines; a notebook's
    lines are the cell's, followed by ``[cell 9]``."""
    where = printable(source)
    if start_line is not None:
        end = start_line if end_line is None else end_line
        where += f":{start_line}" if end == start_line else f":{start_line}-{end}"
    cell = cell_label(cell_index)
    return f"{where} [{cell}]" if cell else where


def anchor(qualified_symbol: str | None, symbol_type: str | None, section_path: str | None) -> str | None:
    """``method Cart.total`` (the symbol's kind, then its qualified name), else the doc section."""
    if qualified_symbol:
        return printable(f"{symbol_type} {qualified_symbol}" if symbol_type else qualified_symbol)
    return printable(section_path) if section_path else None


def focus_line(text: str, start_line: int, end_line: int, highlights: Sequence[Sequence[int]]) -> int:
    """The line that matters (1-based, in the file or the notebook cell): the first marked one — for a
    graph hit the line its relation is written on — else the chunk's first line."""
    if not highlights:
        return start_line
    line = start_line + text.count("\n", 0, highlights[0][0])  # no copy of the text before it
    return min(line, max(end_line, start_line))


def score_text(value: float) -> str:
    """Three significant digits (``0.812``, ``12.3``), whole numbers from 100 on."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:#.3g}"


def legs(
    mode: str | None,
    vector_score: float | None,
    bm25_score: float | None,
    graph_score: float | None,
    ranks: Mapping[str, int],
) -> list[Leg]:
    """Every leg that scored or ranked a result of ``mode`` (None: any leg), each with its label."""
    out = []
    for leg in MODE_LEGS.get(mode or "", MODE_LEGS["multi"]):
        # the leg's own score: no dict of the three built per result (a page builds ten)
        score = (
            bm25_score
            if leg == "bm25"
            else vector_score
            if leg == "vector"
            else graph_score
            if leg == "graph"
            else None
        )
        rank = ranks.get(leg) if ranks else None
        if leg == "vector" and mode in BLENDED and score is None and bm25_score is not None:
            out.append(Leg(leg, None, None, f"{leg} {NOT_EMBEDDED}", missing=True))
            continue
        if score is None and rank is None:
            continue
        label = leg if score is None else f"{leg} {score_text(score)}"
        out.append(Leg(leg, score, rank, label if rank is None else f"{label} #{rank}"))
    return out


def fusion_note(intent: str | None, weights: Mapping[str, float]) -> str | None:
    """multi's reading of the query and what it weighed, in words: "Read as: who calls a symbol.
    Weighed: code relations 1.00 · meaning and keywords 0.01 · symbol names 0.00"."""
    parts = []
    if intent:
        parts.append(f"Read as: {INTENT_WORDS.get(intent, intent)}.")
    if weights:
        ranked = sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append("Weighed: " + " · ".join(f"{LEG_WORDS.get(leg, leg)} {w:.2f}" for leg, w in ranked))
    return " ".join(parts) or None


def coverage_note(coverage: float | None) -> str | None:
    """What share of the workspace vector search saw while embedding is unfinished; None when it saw
    all of it or no vector leg answered."""
    return None if coverage is None or coverage >= 1 else f"semantic search: {coverage:.0%} of the workspace"
