"""The scale proofs' parts on a tiny workspace: the branch repo, the watched switch, the first-index timeline."""

import ast
import subprocess

import pytest

from benchmarks.branch_switch import BRANCH, WORD, edit_line, make_repo, measure
from benchmarks.first_index import first_time, peak_rss_mb, timeline
from benchmarks.scale_proofs import called_function, embed_rate
from benchmarks.synth import generate


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_edit_line_adds_one_call_inside_the_first_function():
    text = 'def f(x):\n    """Doc."""\n    return x\n\n\ndef g():\n    pass\n'
    edited = edit_line(text, "probe")
    assert edited.splitlines()[2] == "    probe(1)"
    assert edited.count("probe") == 1
    ast.parse(edited)


def test_make_repo_branch_changes_exactly_the_picked_files(tmp_path):
    generated = generate(tmp_path, 12)
    changed = make_repo(tmp_path, generated.files, 5)
    assert len(set(changed)) == 5 and all(c.endswith(".py") for c in changed)
    assert _git(tmp_path, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert sorted(_git(tmp_path, "diff", "--name-only", "main", BRANCH).split()) == sorted(changed)
    assert not any(WORD in f.read_text() for f in generated.files)  # main is checked out


def test_timeline_and_branch_switch_on_a_tiny_workspace(tmp_path):
    root = tmp_path / "ws"
    generated = generate(root, 4, docs_every=0)
    changed = make_repo(root, generated.files, 2)
    tl = timeline(root, generated.functions[-1], called_function(generated), lambda _m: None)
    assert tl["child"]["chunks_embedded"] == tl["chunks"] > 0
    assert tl["final_coverage"] == 1.0
    assert tl["first_bm25_s"] is not None and tl["first_graph_s"] is not None
    assert tl["samples"][0]["coverage"] == 0.0  # nothing published when the first sample is taken
    assert tl["peak_rss_mb"] > 50

    switch = measure(root, changed, delay=0.2)
    watched = switch["watched"]
    assert watched["searchable_s"] is not None and watched["runs"] == 1 and not watched["warnings"]
    assert watched["run"][0]["paths"] == 2 and watched["run"][0]["files_indexed"] == 2
    assert switch["index_after_switch"]["files_indexed"] == 0 and switch["index_after_switch"]["found"]
    assert switch["index_after_checkout"]["files_indexed"] == 2
    assert not switch["index_after_checkout"]["found"]


def test_first_time_peak_rss_and_embedding_rate():
    samples = [{"t": 0.0}, {"t": 1.0, "bm25": False}, {"t": 2.0, "bm25": True, "bm25_done_ms": 500}, {"t": 3.0}]
    assert first_time(samples, "bm25") == 2.5  # the sample's start + its queries' time until that answer
    assert first_time(samples, "graph") is None
    assert peak_rss_mb() > 10
    assert peak_rss_mb(2**22 + 12345) is None  # no such process
    tl = {
        "chunks": 1000,
        "samples": [
            {"t": 5.0, "coverage": 0.0},
            {"t": 10.0, "bm25": True, "coverage": 0.1},
            {"t": 20.0, "bm25": True, "coverage": 0.3},
            {"t": 30.0, "bm25": True, "coverage": 1.0},
        ],
    }
    assert embed_rate(tl) == pytest.approx(20.0)  # 200 chunks in the 10 s between the first and last partial samples
