"""Text and HTML output for people: file names never reach a terminal or a page raw."""

from __future__ import annotations

import dataclasses

import pytest

from agent_brain_lab import render
from agent_brain_lab.engine import labels
from agent_brain_lab.engine.retrieval import Hit
from agent_brain_lab.engine.types import Chunk, IndexProgress, IndexReport, QueryResponse, QueryResult, SkippedFile

NASTY = "docs/a\nb\rc\x1b[31md\te\x7f.md"
SHOWN = "docs/a\\nb\\rc\\x1b[31md\\te\\x7f.md"


def nasty_response() -> QueryResponse:
    chunk = Chunk(NASTY, "doc", "markdown", 1, 2, "Red \x1b[31malert\x1b[0m\tcolumn", section_path="Intro")
    return QueryResponse("alert", "bm25", [QueryResult.of(chunk, Hit(0, 1.0, bm25_score=1.0))], 1, 0.5)


def assert_no_controls(text: str) -> None:
    for char in "\r\x1b\t\x7f":
        assert char not in text, repr(char)


@pytest.mark.parametrize(
    "name", ["a\nb", "a\rb", "a\x1b[31mb", "a\tb", "a\x00b", "a\x9bb", "a\u202eb", "a\u2066b", "a\u200fb", "a\u2028b"]
)
def test_printable_escapes_each_control_character_repr_style(name):
    shown = render.printable(name)
    assert shown == repr(name)[1:-1]
    assert shown.isprintable()


def test_query_text_and_html_escape_file_names_and_snippets():
    resp = nasty_response()
    text = render.response_text(resp)
    assert f"{SHOWN}:1-2" in text
    assert_no_controls(text)
    assert len(text.splitlines()) == 4  # summary, the hit, its leg, one snippet line: no line break from the name
    html = render.response_html(resp)
    assert f"<code>{SHOWN}:1-2</code>" in html
    assert_no_controls(html)


def test_report_progress_status_and_graph_escape_file_names():
    report = IndexReport(generation=1, skipped=[SkippedFile(NASTY, "binary")])
    progress = IndexProgress(phase="embedding", files_done=1, files_total=2, current_file=NASTY)
    status = {"state": "ready", "root": "/w/\x1b[2Jroot", "skipped": [{"path": NASTY, "reason": "binary"}]}
    graph = {
        "query": "x",
        "matches": ["x"],
        "nodes": [{"id": "x", "name": "x", "kind": "module", "hop": 0, "location": labels.location(NASTY, 1, 1)}],
        "edges": [],
        "chunks": [nasty_response().results[0].to_dict()],
    }
    for shown in (
        render.report_text(report),
        render.report_html(report),
        render.progress_line(progress),
        render.status_text(status),
        render.status_html(status),
        render.graph_text(graph),
        render.graph_html(graph),
    ):
        assert SHOWN in shown or "\\x1b[2Jroot" in shown
        assert_no_controls(shown)
        assert "a\nb" not in shown  # the name's newline would start a line of its own


def test_summary_counts_what_was_returned_and_explains_multi():
    weights = {"hybrid": 0.25, "graph": 0.75, "names": 0.0}
    resp = dataclasses.replace(nasty_response(), mode="multi", intent="callers", weights=weights, coverage=0.5)
    text = render.response_text(resp)
    assert "· 1 result ·" in text and " of " not in text.splitlines()[0]
    read_as = (
        "Read as: who calls a symbol. Weighed: " + "code relations 0.75 · meaning and keywords 0.25 · symbol names 0.00"
    )

    assert resp.fusion_note == read_as and read_as in text and read_as in render.response_html(resp)
    assert "semantic search: 50% of the workspace" in text


def test_status_shows_coverage_when_the_engine_reports_it():
    chunks = {"total": 100}
    assert "semantic search" not in render.status_text({"state": "ready", "chunks": chunks})
    partial = render.status_text({"state": "ready", "coverage": 0.43, "chunks": chunks})
    assert "semantic search  43% of the workspace; an index of the whole workspace embeds the rest" in partial
    assert "embeds the rest" not in render.status_text({"state": "ready", "coverage": 1.0, "chunks": chunks})
    # nothing indexed (empty, or the index unreadable): no share of the workspace to tell
    for state in ("empty", "not_a_folder"):
        assert "semantic search" not in render.status_text({"state": state, "coverage": 1.0, "chunks": {"total": 0}})


def test_skipped_files_are_counted_by_reason_and_a_few_named():
    skipped = [{"path": f"bin/{i}.dat", "reason": "binary"} for i in range(40)]
    skipped += [{"path": f"big/{i}.csv", "reason": "larger than 1.0 MB limit (3.2 MB)"} for i in range(3)]
    text = render.status_text({"state": "ready", "skipped": skipped})
    (line,) = [x for x in text.splitlines() if x.startswith("skipped")]
    assert "43: 40 binary, 3 larger than 1.0 MB limit" in line and "… 38 more" in line
    assert line.count("bin/") == render.SKIPPED_SHOWN
    # the engine's counts, when it gives them, are what is shown
    counted = {"state": "ready", "skipped": skipped[:2], "skipped_total": 9000, "skipped_by_reason": {"binary": 9000}}
    assert "9000: 9000 binary; e.g. bin/0.dat (binary), bin/1.dat (binary), … 8998 more" in render.status_text(counted)


def test_progress_says_what_each_phase_counts():
    analysing = IndexProgress("indexing", 12, 30, 80, "a.py")
    embedding = IndexProgress("embedding", 30, 30, 4000, embedded=1000, searchable=True)
    assert "indexing 12/30 files a.py" in render.progress_line(analysing)
    assert "embedding 1000/4000 chunks (keyword and graph search ready)" in render.progress_line(embedding)
    small = IndexProgress("embedding", 30, 30, 400, embedded=100)  # a small run publishes once embedded
    assert "embedding 100/400 chunks (published when embedded)" in render.progress_line(small)


def test_status_during_a_run_says_what_is_searchable_now():
    status = {
        "state": "indexing",
        "generation": 3,
        "files": {"total": 253},
        "chunks": {"total": 4074},
        "coverage": 0.25,
        "job": {"eta_s": 600},
    }
    text = render.status_text(status)
    assert (
        "searchable now  253 files, 4074 chunks: keyword and graph search ready; semantic search 25% "
        "(1018 of 4074 chunks embedded, about 10 min to go)"
    ) in text
    assert "the first index is being built" in render.status_text({"state": "indexing", "generation": 0})


def test_a_report_of_many_skips_lists_the_first_ones_and_counts_the_rest():
    from agent_brain_lab.engine.types import MAX_SKIPPED_LISTED

    report = IndexReport(
        generation=1, skipped=[SkippedFile(f"f{i:05d}.dat", "unsupported file type") for i in range(10_000)]
    )
    text = render.report_text(report)
    assert text.count("f0") == render.SKIPPED_SHOWN and len(text) < 5_000
    assert f"… {10_000 - render.SKIPPED_SHOWN} more" in text and "skipped 10000: 10000 unsupported file type" in text
    html = render.report_html(report)
    assert html.count("<li>") == MAX_SKIPPED_LISTED + 1 and len(html) < 10_000
