"""Search from the first minutes: a large run publishes keyword and graph search over every file
first, then generations that only add vectors; ``coverage`` says how much is embedded; a run
killed or cancelled while embedding is completed by the next one.

The engine is real; "large" is made small by lowering the indexer's thresholds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from agent_brain_lab import Brain, render
from agent_brain_lab.engine import indexer
from agent_brain_lab.engine.types import IndexCancelled, NotIndexed

FILES = 12
GROUP = 8  # texts embedded per group: several groups, several generations
REPO = Path(__file__).resolve().parents[1]


def workspace(root: Path) -> Path:
    for i in range(FILES):
        body = "\n\n".join(
            textwrap.dedent(
                f'''
                def ledger_{i}_{j}(entries):
                    """Reconcile batch {j} of ledger {i} against the bank statement."""
                    total = sum(e.amount for e in entries)
                    return total * {j + 1}
                '''
            )
            for j in range(4)
        )
        (root / "books").mkdir(parents=True, exist_ok=True)
        (root / "books" / f"ledger{i:02d}.py").write_text(body + "\n")
    (root / "README.md").write_text("# Books\n\nLedgers reconciled against bank statements.\n")
    return root


def brain(root: Path) -> Brain:
    b = Brain(root)
    b._embedder.group_size = GROUP
    return b


@pytest.fixture
def early(monkeypatch):
    """Every run with more than 5 texts to embed publishes early; vectors are published after every group."""
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    monkeypatch.setattr(indexer, "PUBLISH_EVERY", 0.0)


def all_files_found_by_keyword(reader: Brain) -> bool:
    return all(
        reader.query(f"ledger_{i}_3", mode="bm25", top_k=1).results[0].source == f"books/ledger{i:02d}.py"
        for i in range(FILES)
    )


def test_keyword_and_graph_answer_over_every_file_while_embeddings_stream_in(tmp_path, early):
    root = workspace(tmp_path)
    writer, reader = brain(root), Brain(root)
    paused, resume, seen = threading.Event(), threading.Event(), []
    events = []

    def progress(p):
        events.append(p)
        if p.phase == "embedding" and p.embedded and not paused.is_set():
            paused.set()
            resume.wait(60)

    thread = threading.Thread(target=lambda: seen.append(writer.index(progress=progress)))
    thread.start()
    try:
        assert paused.wait(120)
        status = reader.status()
        assert status.state == "indexing" and status.chunks["total"] > GROUP
        assert 0 < status.coverage < 1
        assert all_files_found_by_keyword(reader)  # every file, embedded or not
        vector = reader.query("reconcile the bank statement", mode="vector")
        assert vector.coverage == status.coverage and 0 < len(vector.results) <= GROUP
        for mode in ("hybrid", "multi"):  # chunks without a vector still take part through bm25
            response = reader.query("ledger_11_2 bank statement", mode=mode)
            assert response.coverage < 1 and response.results[0].symbol_name == "ledger_11_2"
        # at alpha 1 the keyword leg keeps running while chunks wait for vectors: only it finds those
        pure = reader.query("ledger_11_2 bank statement", mode="hybrid", alpha=1.0).results
        assert "ledger_11_2" in [r.symbol_name for r in pure] and all(r.bm25_score is not None for r in pure)
        # hybrid: a chunk without a vector says so (None), not "similarity 0.0"; embedded ones keep theirs
        hybrid = reader.query("reconcile the bank statement ledger", mode="hybrid", top_k=40).results
        with_vector = [r for r in hybrid if r.vector_score is not None]
        assert with_vector and len(with_vector) < len(hybrid)
        assert len(with_vector) <= round(status.coverage * status.chunks["total"])
        assert reader.graph_entity("ledger_5_1").matches
        graph = reader._reader.view().snapshot.graph
    finally:
        resume.set()
        thread.join(120)
    report = seen[0]
    assert reader.status().coverage == 1.0 and reader.status().generation == report.generation > 2
    assert reader.query("reconcile the bank statement", mode="vector").coverage == 1.0
    assert reader._reader.view().snapshot.graph is graph  # the vector-only generations share its files
    phases = [e.phase for e in events]
    assert phases.index("indexing") < phases.index("embedding") and phases[-1] == "done"
    embedding = [e for e in events if e.phase == "embedding"]
    assert embedding[-1].embedded == embedding[-1].chunks == report.chunks_total
    assert embedding[-1].percent == 100.0


def test_a_small_run_stays_one_atomic_generation(tmp_path):
    root = workspace(tmp_path)
    report = brain(root).index()
    assert report.generation == 1 and Brain(root).status().coverage == 1.0


def what_each_door_says_while_embedding(root: Path) -> list[tuple[str, str]]:
    """(the progress line, what a keyword query from another brain got) at each embedding report
    of a first index."""
    said = []

    def progress(p):
        if p.phase == "embedding" and p.embedded < p.chunks:
            try:
                got = f"{len(Brain(root).query('ledger_3_1', mode='bm25', top_k=1).results)} results"
            except NotIndexed as err:
                got = str(err)
            said.append((render.progress_line(p), got))

    brain(root).index(progress=progress)
    return said


@pytest.mark.parametrize("large", [False, True])
def test_progress_and_errors_say_what_answers_while_a_first_index_embeds(tmp_path, monkeypatch, large):
    """Field sweep: a first index of 1,603 chunks (at most EARLY_PUBLISH_MIN: published only once
    embedded) printed "embedding 258/1603 chunks (keyword and graph search ready)" while every query
    was refused with "the first index is analysing the files (keyword and graph search answer once
    they are analysed ...)": both untrue, the files were analysed and nothing answered."""
    if large:
        monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
        monkeypatch.setattr(indexer, "PUBLISH_EVERY", 0.0)
    said = what_each_door_says_while_embedding(workspace(tmp_path))
    assert said
    for line, got in said:
        assert ("keyword and graph search ready" in line) == got.endswith("results"), (line, got)
        assert "analysing" not in got  # the files are analysed: the error does not say otherwise
    assert all(got == "1 results" for _, got in said) if large else all("being built" in got for _, got in said)
    status = {"generation": 0, "state": "indexing", "job": {"phase": "embedding", "chunks": 49, "embedded": 8}}
    assert render.searchable_now(status) == (
        "nothing yet: the first index is being built (embedding 8 of 49 chunks; published when embedded)"
    )


def top_k(b: Brain) -> dict:
    queries = ["reconcile the bank statement", "ledger_7_2", "what calls sum", "Books ledgers"]
    return {
        (q, mode): [(r.chunk_id, round(r.score, 5)) for r in b.query(q, mode=mode, top_k=5).results]
        for q in queries
        for mode in ("vector", "bm25", "hybrid", "graph", "multi")
    }


def test_results_equal_those_of_a_run_without_early_publishing(tmp_path, monkeypatch):
    plain = brain(workspace(tmp_path / "plain"))
    assert plain.index().generation == 1
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    monkeypatch.setattr(indexer, "PUBLISH_EVERY", 0.0)
    streamed = brain(workspace(tmp_path / "streamed"))
    assert streamed.index().generation > 2
    assert top_k(streamed) == top_k(plain)


def test_cancel_while_embedding_leaves_a_consistent_generation_and_the_next_run_completes_it(tmp_path, early):
    root = workspace(tmp_path)
    writer, cancel, reports = brain(root), threading.Event(), []

    def progress(p):
        if p.phase == "embedding":
            reports.append(p.embedded)
            if len(reports) == 3:
                cancel.set()

    with pytest.raises(IndexCancelled):
        writer.index(progress=progress, cancel=cancel)
    reader = Brain(root)
    status = reader.status()  # the snapshot opened: every file of the generation checked against its manifest
    assert status.state == "ready" and 0 < status.coverage < 1
    assert all_files_found_by_keyword(reader)
    report = writer.index()  # a plain run, nothing changed on disk
    assert report.files_indexed == 0 and report.chunks_added == 0
    assert 0 < report.chunks_embedded < report.chunks_total  # only what was missing
    assert reader.status().coverage == 1.0
    assert writer.index().generation == report.generation  # complete: nothing more to publish


HOLD = """
import json, os, sys
from agent_brain_lab import Brain
from agent_brain_lab.engine import indexer
indexer.EARLY_PUBLISH_MIN, indexer.PUBLISH_EVERY = 5, 0.0
root, gate = sys.argv[1], sys.argv[2]
brain = Brain(root)
brain._embedder.group_size = 8
def progress(p):
    if p.phase == "embedding" and p.embedded >= 16:
        print(json.dumps({"embedded": p.embedded}), flush=True)
        while os.path.exists(gate):
            pass
brain.index(progress=progress)
"""


def test_kill_9_while_embedding_then_a_plain_index_resumes_to_full_coverage(tmp_path):
    root = workspace(tmp_path / "ws")
    gate = tmp_path / "hold"
    gate.touch()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), str(gate)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert json.loads(proc.stdout.readline())["embedded"] >= 16
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    status = Brain(root).status()
    assert status.state == "ready" and 0 < status.coverage < 1
    assert all_files_found_by_keyword(Brain(root))
    cli = shutil.which("agent-brain-lab") or ""
    command = [cli] if cli else [sys.executable, "-m", "agent_brain_lab.cli"]
    done = subprocess.run([*command, "index", "--json"], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["files_indexed"] == 0 and 0 < report["chunks_embedded"] < report["chunks_total"]
    after = json.loads(
        subprocess.run([*command, "status", "--json"], cwd=root, env=env, capture_output=True, text=True).stdout
    )
    assert after["coverage"] == 1.0 and after["generation"] == report["generation"]


def test_a_large_incremental_run_patches_then_streams_its_vectors(tmp_path, monkeypatch):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# Books\n\nLedgers reconciled against bank statements.\n")
    writer = brain(root)
    assert writer.index().generation == 1
    workspace(root)
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    monkeypatch.setattr(indexer, "PUBLISH_EVERY", 0.0)
    coverages = []
    reader = Brain(root)

    def progress(p):
        if p.phase == "embedding":
            coverages.append(reader.status().coverage)

    report = writer.index(progress=progress)
    assert report.files_indexed == FILES and report.generation > 3
    assert coverages[0] < coverages[-1] == 1.0 and coverages == sorted(coverages)
    assert all_files_found_by_keyword(reader)
    hit = reader.query("ledger 4 batch 2 reconcile", mode="vector", file_paths=["books/ledger04.py"]).results[0]
    assert hit.symbol_name == "ledger_4_2" and reader.status().coverage == 1.0
