"""Bounded work per file on hostile text: linear-time heading parsing (work counted, not timed),
small sections and cells merged, a cap on chunks per file, cancel and a time budget inside a file."""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_brain_lab import Brain
from agent_brain_lab.engine.analysis import MAX_CHUNKS_PER_FILE, ChunkSettings, analyze_file, file_budget
from agent_brain_lab.engine.chunking import text as text_chunking
from agent_brain_lab.engine.chunking.text import CHECK_EVERY, atx_heading, chunk_document
from agent_brain_lab.engine.types import IndexCancelled, IndexProgress
from agent_brain_lab.engine.workspace import Unreadable, WorkspaceFile

OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")  # what atx_heading replaced
OLD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


# --------------------------------------------------------------------------- same answers as before


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=" \t#ab`*", max_size=24))
def test_atx_heading_agrees_with_the_regular_expression_it_replaced(line):
    old = OLD_ATX.match(line)
    new = atx_heading(line)
    assert (new is None) == (old is None)
    if old is not None and new is not None:
        assert new[0] == len(old.group(1))
        title = old.group(2) or ""
        # "# #", "#  ##": CommonMark's empty heading (only a closing sequence); the old expression kept "#"
        assert new[1] == title or (not title.strip("#") and new[1] == "")


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="[]()a ", max_size=30))
def test_link_texts_agree_with_the_regular_expression_they_replaced(title):
    assert text_chunking._link_texts(title) == OLD_LINK.sub(r"\1", title)


# --------------------------------------------------------------------------- linear work, counted

ADVERSARIAL_LINES = [
    lambda n: "# a" + " " * n + "b",  # the lazy title against the optional closing sequence (was quadratic)
    lambda n: "# a" + " \t" * n + "#" * n + "b",
    lambda n: "# " + "[a](" * n,  # the link expression rescanned from every "["
    lambda n: "## " + "[" * n + "]",
    lambda n: "#" + " #" * n,
    lambda n: "=" * n + " x",  # setext / rst adornment look-alikes
]


def _python_lines(work) -> int:
    """Python lines executed by ``work()``: the parser's own steps (the string methods it calls are
    linear C loops; what this counts would grow with the line if the parser walked it in Python)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("make", ADVERSARIAL_LINES)
@pytest.mark.parametrize("language", ["markdown", "rst"])
def test_parsing_one_long_adversarial_line_costs_the_same_steps_as_a_short_one(make, language):
    parse = text_chunking.PARSERS[language]

    def steps(n: int) -> int:
        text = f"{make(n)}\n{make(n)}\n\nbody\n"
        return _python_lines(lambda: text_chunking.build_sections(parse(text)))

    assert steps(100_000) <= steps(1_000) + 16  # 100x longer lines: a few steps more at most, not 100x


def test_a_one_megabyte_heading_line_is_one_heading_whose_title_every_chunk_carries_cut_short():
    line = "# " + "[a](" * 250_000
    [chunk, *rest] = chunk_document("a.md", line, "markdown", "doc", 1500, 200)
    assert len(rest) > 500 and {c.section_path for c in rest} == {chunk.section_path}
    assert chunk.section_path.startswith("[a](") and len(chunk.section_path) == text_chunking.MAX_TITLE_CHARS


# --------------------------------------------------------------------------- amplification


def test_a_file_of_100k_tiny_headings_becomes_a_few_hundred_chunks_and_keeps_every_line():
    text = "".join(f"# h{i}\n" for i in range(100_000))  # ~0.8 MB
    chunks = chunk_document("tiny.md", text, "markdown", "doc", 1500, 200)
    assert len(chunks) <= len(text) // 1000  # was 100,000
    assert all(len(c.text) <= 1500 for c in chunks)
    assert "\n".join(c.text for c in chunks).split("\n") == text.split("\n")[:-1]  # every heading, in order
    assert chunks[0].section_path == "h0" and chunks[1].start_line == chunks[0].end_line + 1
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_a_few_short_sections_keep_a_chunk_each():
    text = "# A\n\nalpha\n\n# B\n\nbeta\n\n# C\n\ngamma\n"
    assert [c.section_path for c in chunk_document("a.md", text, "markdown", "doc", 1500, 200)] == ["A", "B", "C"]


def _file(path: str, text: str, source_type: str, language: str) -> WorkspaceFile:
    return WorkspaceFile(path, Path(path), len(text), 0.0, source_type, language, 0, 0, Path("/"))


def test_a_code_file_of_3000_functions_is_capped_and_its_symbols_point_at_kept_chunks():
    source = "".join(f"def f{i}(x):\n    return g{i}(x)\n\n\n" for i in range(3000))
    chunks, facts = analyze_file(_file("many.py", source, "code", "python"), source, ChunkSettings())
    assert len(chunks) == MAX_CHUNKS_PER_FILE
    tail = chunks[-1]
    assert "def f1999(" in tail.text and "def f2999(" in tail.text and tail.symbol_name is None
    ids = {c.chunk_id for c in chunks}
    assert {s["chunk_id"] for s in facts["symbols"]} <= ids
    assert {r["chunk_id"] for r in facts["relations"]} <= ids
    assert any(s["name"] == "f2999" and s["chunk_id"] == tail.chunk_id for s in facts["symbols"])


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": kind, "source": body, "metadata": {}} for kind, body in cells],
            "metadata": {"kernelspec": {"language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


def test_a_notebook_of_10k_small_cells_is_merged_and_one_of_10k_functions_capped():
    small = _notebook(
        [("markdown" if i % 2 else "code", f"x{i} = {i}" if i % 2 == 0 else f"note {i}") for i in range(10_000)]
    )
    chunks, _ = analyze_file(_file("small.ipynb", small, "notebook", "python"), small, ChunkSettings())
    assert len(chunks) < 200  # was 10,000: runs of small cells (markdown and code alike) packed up to chunk_size
    joined = "\n".join(c.text for c in chunks)
    assert all(f"x{i} = {i}" in joined and f"note {i + 1}" in joined for i in range(0, 10_000, 2))
    assert chunks[0].cell_index == 0 and chunks[0].start_line == 1

    funcs = _notebook([("code", f"def f{i}():\n    return {i}\n") for i in range(10_000)])
    chunks, facts = analyze_file(_file("funcs.ipynb", funcs, "notebook", "python"), funcs, ChunkSettings())
    assert len(chunks) == MAX_CHUNKS_PER_FILE
    assert {s["chunk_id"] for s in facts["symbols"]} <= {c.chunk_id for c in chunks}


def test_a_short_notebook_keeps_a_chunk_per_cell():
    nb = _notebook([("markdown", "# Title\n\nintro"), ("code", "import os\nprint(os.sep)"), ("markdown", "the end")])
    chunks, _ = analyze_file(_file("nb.ipynb", nb, "notebook", "python"), nb, ChunkSettings())
    assert [c.cell_index for c in chunks] == [0, 1, 2]


# --------------------------------------------------------------------------- cancel and time budget inside a file


def test_check_is_called_all_along_a_long_file_and_stops_it():
    text = "".join(f"# h{i}\n\nsome words\n" for i in range(30_000))
    calls = 0

    def check() -> None:
        nonlocal calls
        calls += 1

    chunk_document("long.md", text, "markdown", "doc", 1500, 200, check)
    assert calls >= text.count("\n") // CHECK_EVERY

    class Stop(Exception):
        pass

    def stop_at_third() -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise Stop

    calls = 0
    with pytest.raises(Stop):
        chunk_document("long.md", text, "markdown", "doc", 1500, 200, stop_at_third)


def test_the_file_budget_raises_a_skip_reason_once_spent():
    check = file_budget(lambda: None, seconds=0.0)
    with pytest.raises(Unreadable, match=r"^took longer than 0 s to analyse \(the per-file limit\)$"):
        check()
    file_budget(lambda: None)()  # a fresh budget passes


def test_a_file_past_its_budget_is_a_skip_and_the_run_goes_on(tmp_path, monkeypatch):
    from agent_brain_lab.engine import indexer

    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    (tmp_path / "slow.md").write_text("".join(f"# h{i}\n" for i in range(10_000)))
    real = indexer.file_budget
    monkeypatch.setattr(indexer, "file_budget", lambda cancel: real(cancel, seconds=0.0))
    report = Brain(tmp_path).index()
    assert {s.path: s.reason for s in report.skipped} == {
        "a.md": "took longer than 0 s to analyse (the per-file limit)",
        "slow.md": "took longer than 0 s to analyse (the per-file limit)",
    }


def test_cancel_during_a_huge_file_stops_inside_it(tmp_path, monkeypatch):
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    (tmp_path / "huge.md").write_text("".join(f"# heading {i}\n\nwords {i}\n" for i in range(30_000)))  # 0.8 MB
    cancel = threading.Event()
    sectioned: list[int] = []
    real_build = text_chunking.build_sections
    monkeypatch.setattr(
        text_chunking,
        "build_sections",
        lambda units, *outline: sectioned.append(len(units)) or real_build(units, *outline),
    )

    def progress(p: IndexProgress) -> None:
        if p.current_file == "huge.md":
            cancel.set()  # after the indexer's own check before the file: only a check inside it sees this

    brain = Brain(tmp_path)
    with pytest.raises(IndexCancelled):
        brain.index(progress=progress, cancel=cancel)
    assert sectioned == [4]  # a.md was sectioned; huge.md was stopped while its lines were parsed
    assert not brain.has_index()
