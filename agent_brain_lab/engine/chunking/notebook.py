"""Chunks of a Jupyter notebook: markdown cells as docs, code cells through the code analyzer.

Outputs and raw cells are left out. Every chunk records the index of its cell, and its lines
count from the start of that cell's source. The notebook's markdown headings make one outline across
its cells: a chunk's section path is the headings in force where it starts, whichever cell holds
them, and a code cell's chunks carry the path of the headings above the cell ("Fitting a model to
data > Results" for the cell under "## Results"), as a section of a document does.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..languages import LANGUAGE_ALIASES
from ..types import Chunk
from ..workspace import Unreadable
from .code import analyze_code
from .text import chunk_document, distinct_ids, merge_small, no_check

# Cell magics that switch a Python cell to another language.
CELL_MAGICS = {
    "bash": "bash",
    "sh": "bash",
    "sql": "sql",
    "javascript": "javascript",
    "js": "javascript",
    "ruby": "ruby",
}


def chunk_notebook(
    source: str,
    text: str,
    source_type_of_code: str,
    chunk_size: int,
    chunk_overlap: int,
    check: Callable[[], None] = no_check,
) -> tuple[list[Chunk], list, list]:
    """(chunks, symbols, relations) of the notebook at ``source``; Unreadable if it is not one.
    Long runs of small cells are merged (:func:`merge_small`); ``check`` is called before each cell."""
    notebook = _load(text)
    language = notebook_language(notebook)
    chunks: list[Chunk] = []
    symbols: list = []
    relations: list = []
    outline: list[tuple[int, str]] = []  # the headings in force, outermost first
    for index, cell in enumerate(_cells(notebook)):
        check()
        kind = cell.get("cell_type")
        body = _cell_source(cell, index)
        if not body.strip():
            continue
        if kind == "markdown":
            found = chunk_document(source, body, "markdown", "notebook", chunk_size, chunk_overlap, check, outline)
            chunks.extend(_in_cell(found, index))
        elif kind == "code":
            if brain_magics_only(body):
                continue  # a scratch cell of %brain queries would rank first for its own questions
            analysis = analyze_code(source, body, _cell_language(body, language), source_type_of_code, chunk_size)
            moved = _in_cell(analysis.chunks, index, " > ".join(t for _, t in outline) or None)
            new_id = {old.chunk_id: new.chunk_id for old, new in zip(analysis.chunks, moved)}
            chunks.extend(moved)
            symbols.extend(replace(s, chunk_id=new_id[s.chunk_id]) for s in analysis.symbols)
            relations.extend(replace(r, chunk_id=new_id[r.chunk_id]) for r in analysis.relations)
    chunks, merged_into = merge_small(chunks, chunk_size)
    relations = [replace(r, chunk_id=merged_into.get(r.chunk_id, r.chunk_id)) for r in relations]
    return chunks, symbols, relations


def brain_magics_only(body: str) -> bool:
    """Whether a code cell holds only this extension's magics: a ``%%brain`` cell, or ``%brain`` lines
    (and ``%load_ext agent_brain_lab``) among blank and comment lines."""
    lines = [line.strip() for line in body.split("\n")]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        return False
    if _magic_name(lines[0], "%%") == "brain":
        return True
    return all(_magic_name(line, "%") == "brain" or line in _LOAD_LINES for line in lines)


_LOAD_LINES = {f"%{verb} agent_brain_lab" for verb in ("load_ext", "reload_ext")}


def _magic_name(line: str, prefix: str) -> str | None:
    if not line.startswith(prefix) or line.startswith(prefix + "%"):
        return None
    return line[len(prefix) :].split(None, 1)[0] if line[len(prefix) :].strip() else None


def notebook_language(notebook: dict[str, Any]) -> str:
    """The kernel's language (kernelspec, then language_info), as a tree-sitter language name."""
    metadata = notebook.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        entry = metadata.get(key)
        name = entry.get(field) if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip():
            name = name.strip().lower()
            return LANGUAGE_ALIASES.get(name, name)
    return "python"


def _load(text: str) -> dict[str, Any]:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as err:
        raise Unreadable(f"broken notebook: invalid JSON at line {err.lineno}, column {err.colno}") from None
    except ValueError:  # an integer past the interpreter's digit limit: not a notebook anyone wrote
        raise Unreadable(f"broken notebook: a number longer than {sys.get_int_max_str_digits()} digits") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells", notebook.get("worksheets")), list):
        raise Unreadable("broken notebook: no list of cells")
    return notebook


def _cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    if "cells" in notebook:
        cells = notebook["cells"]
    else:  # nbformat 3 keeps its cells in worksheets
        cells = [c for ws in notebook["worksheets"] if isinstance(ws, dict) for c in ws.get("cells", [])]
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise Unreadable(f"broken notebook: cell {index} is not an object")
    return cells


def _cell_source(cell: dict[str, Any], index: int) -> str:
    body = cell.get("source", cell.get("input", ""))  # "input": code cells of nbformat 3
    if isinstance(body, list) and all(isinstance(line, str) for line in body):
        body = "".join(body)
    if not isinstance(body, str):
        raise Unreadable(f"broken notebook: cell {index} has no text source")
    return body.replace("\r\n", "\n").replace("\r", "\n")


def _cell_language(body: str, kernel_language: str) -> str:
    first = body.lstrip().split("\n", 1)[0]
    if kernel_language == "python" and first.startswith("%%"):
        return CELL_MAGICS.get(first[2:].split(" ", 1)[0].strip(), kernel_language)
    return kernel_language


def _in_cell(chunks: list[Chunk], index: int, section_path: str | None = None) -> list[Chunk]:
    """The chunks of one cell with their cell index set (and a code cell's the section path of the
    headings above it) and their ids recomputed to include them."""
    return distinct_ids(
        [replace(c, cell_index=index, chunk_id="", section_path=section_path or c.section_path) for c in chunks]
    )
