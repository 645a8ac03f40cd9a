"""A file saved while a long run embeds is searchable by keyword and graph before that run ends: the
run serves the request between two embedding batches (engine/merges.py), its texts join the queue.

The engine is real; "long" is made small by lowering the indexer's early-publish threshold and
holding the run at a progress report (the documented knobs of tests/test_early_publish.py)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from agent_brain_lab import Brain, render
from agent_brain_lab.engine import indexer
from agent_brain_lab.engine.types import IndexCancelled
from tests.test_early_publish import FILES, brain, workspace

SAVED = "books/ledger03.py"
NEW_BODY = '''
def zebra_quartz_total(entries):
    """Sum the quartz entries of the zebra ledger."""
    return reconcile_quartz(entries)


def reconcile_quartz(entries):
    return sum(entries)
'''


@pytest.fixture
def early(monkeypatch):
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    monkeypatch.setattr(indexer, "PUBLISH_EVERY", 0.0)


def wait_for(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class HeldRun:
    """A first index on a thread, held at its first embedding report until a request is handed to it,
    then held again once it has served that request, until ``release()``."""

    def __init__(self, writer: Brain):
        self.writer, self.reports, self.errors = writer, [], []
        self.served, self.released = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._index)

    def _progress(self, p) -> None:
        if p.phase != "embedding" or not p.embedded:
            return
        if not self.served.is_set():
            assert wait_for(lambda: self.writer._merges.waiting > 0 or self.served.is_set())
        else:
            self.released.wait(60)

    def _index(self) -> None:
        try:
            self.reports.append(self.writer.index(progress=self._progress))
        except Exception as err:
            self.errors.append(err)

    def release(self) -> None:
        self.released.set()
        self.thread.join(120)
        assert not self.errors, self.errors


def test_a_save_during_embedding_is_found_by_keyword_and_graph_before_the_run_ends(tmp_path, early):
    root = workspace(tmp_path)
    writer, reader = brain(root), Brain(root)
    run = HeldRun(writer)
    run.thread.start()
    try:
        assert wait_for(lambda: writer.merging)
        (root / SAVED).write_text(NEW_BODY)
        report = writer.index(path=SAVED)  # handed to the run: returns once published
        run.served.set()
        assert not run.reports and run.thread.is_alive()  # the first index is still embedding
        assert report.files_indexed == 1 and report.chunks_added >= 2 and report.chunks_removed == 4
        status = reader.status()
        assert status.state == "indexing" and status.generation == report.generation and status.coverage < 1
        assert "keyword and graph search ready; semantic search" in render.status_text(status.to_dict())
        hit = reader.query("zebra_quartz_total", mode="bm25", top_k=1).results[0]
        assert (hit.source, hit.symbol_name) == (SAVED, "zebra_quartz_total")
        assert all(r.source != SAVED for r in reader.query("ledger_3_2", mode="bm25").results)  # old chunks gone
        assert reader.graph_entity("reconcile_quartz").matches
    finally:
        run.release()
    final = run.reports[0]
    status = reader.status()
    assert final.generation == status.generation and final.chunks_total == status.chunks["total"]
    assert status.coverage == 1.0  # the saved file's texts were embedded in the same run, retired keys were not
    vector = reader.query("sum the quartz entries of the zebra ledger", mode="vector", top_k=1)
    assert vector.results[0].symbol_name == "zebra_quartz_total"
    by_file = {}
    for r in reader.query("ledger", mode="bm25", top_k=100).results:
        by_file[r.source] = by_file.get(r.source, 0) + 1
    assert len(by_file) >= FILES - 1


def test_a_request_the_run_cannot_serve_runs_on_its_own(tmp_path):
    """No run embedding: nothing is handed over and the request runs as before."""
    root = workspace(tmp_path)
    writer = brain(root)
    writer.index()
    assert not writer.merging
    (root / SAVED).write_text(NEW_BODY)
    report = writer.index(path=SAVED)
    assert report.files_indexed == 1 and Brain(root).status().coverage == 1.0


def test_a_deleted_file_handed_to_the_run_leaves_search(tmp_path, early):
    root = workspace(tmp_path)
    writer, reader = brain(root), Brain(root)
    run = HeldRun(writer)
    run.thread.start()
    try:
        assert wait_for(lambda: writer.merging)
        Path(root / SAVED).unlink()
        report = writer.index(path=SAVED, missing_ok=True)
        run.served.set()
        assert report.files_deleted == 1 and run.thread.is_alive()
        assert all(r.source != SAVED for r in reader.query("ledger_3_2", mode="bm25").results)
    finally:
        run.release()
    assert reader.status().coverage == 1.0 and reader.status().files["total"] == FILES


def test_after_a_cancel_a_save_embeds_its_own_file_and_the_rest_waits_for_an_index_of_everything(tmp_path, early):
    """Cancel holds: a later save (or a request the cancelled run refused) indexes its file fully,
    vectors included, but does not quietly resume the cancelled run's embedding; a run of the whole
    workspace does."""
    root = workspace(tmp_path)
    writer, cancel = brain(root), threading.Event()

    def progress(p) -> None:
        if p.phase == "embedding" and p.embedded:
            cancel.set()

    with pytest.raises(IndexCancelled):
        writer.index(progress=progress, cancel=cancel)
    reader = Brain(root)
    cancelled = reader.status().coverage
    assert 0 < cancelled < 1
    # A request for files the run published as they are (a watcher batch it refused): nothing to embed.
    unchanged = writer.index(path="books")
    assert unchanged.files_indexed == 0 and unchanged.chunks_embedded == 0 and reader.status().coverage == cancelled
    (root / SAVED).write_text(NEW_BODY)
    report = writer.index(path=SAVED)
    assert report.files_indexed == 1 and report.chunks_added >= 2
    assert report.chunks_embedded == report.chunks_added  # its own texts, none of the backlog
    status = reader.status()
    assert status.generation == report.generation and status.coverage < 1
    vector = reader.query("sum the quartz entries of the zebra ledger", mode="vector", top_k=1)
    assert vector.results[0].symbol_name == "zebra_quartz_total"  # the saved file is fully searchable
    assert writer.index().chunks_embedded > 0 and reader.status().coverage == 1.0
