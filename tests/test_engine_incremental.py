"""Incremental indexing, deletion, crash safety and concurrency, on real files and real processes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine import snapshot as snapshot_module
from agent_brain_lab.engine.retrieval.filters import FilterColumns
from agent_brain_lab.engine.retrieval.names import NameIndex
from agent_brain_lab.engine.store.graph import CodeGraph
from agent_brain_lab.engine.tokenizer import tokenize
from agent_brain_lab.engine.types import IndexCancelled, InvalidRequest, WorkspaceBusy


def write_module(root: Path, name: str, body: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))


@pytest.fixture
def small(tmp_path) -> Brain:
    write_module(
        tmp_path,
        "geo/shapes.py",
        """
        class Circle:
            def area(self, radius):
                return 3.14159 * radius * radius


        def perimeter_of_square(side):
            return 4 * side
    """,
    )
    write_module(
        tmp_path,
        "geo/report.py",
        """
        from .shapes import Circle


        def describe_circle(radius):
            return f"area {Circle().area(radius)}"
    """,
    )
    write_module(tmp_path, "README.md", "# Geometry\n\nUse `describe_circle` to print an area.\n")
    brain = Brain(tmp_path)
    brain.index()
    return brain


def test_unchanged_workspace_commits_nothing(small):
    gen = small.status().generation
    report = small.index()
    assert report.files_indexed == 0 and report.files_unchanged == 3 and report.generation == gen


def test_edit_rechunks_only_that_file_and_embeds_only_new_text(small):
    shapes = small.root / "geo/shapes.py"
    shapes.write_text(shapes.read_text() + "\n\ndef hexagon_corner_count():\n    return 6\n")
    report = small.index()
    assert report.files_indexed == 1 and report.files_unchanged == 2
    assert report.chunks_embedded <= 2  # the new function (and at most one neighbour), never the whole file
    hit = small.query("hexagon_corner_count", mode="bm25").results[0]
    lines = shapes.read_text().splitlines()
    assert hit.symbol_name == "hexagon_corner_count"
    assert lines[hit.start_line - 1] == "def hexagon_corner_count():" and hit.end_line == len(lines)


def test_reverting_a_file_reuses_cached_embeddings(small):
    shapes = small.root / "geo/shapes.py"
    original = shapes.read_text()
    shapes.write_text(original.replace("3.14159", "3.1416"))
    assert small.index().chunks_embedded >= 1
    shapes.write_text(original)
    os.utime(shapes, (time.time() + 5, time.time() + 5))
    report = small.index()
    assert report.files_indexed == 1 and report.chunks_embedded == 0


def test_deleted_file_leaves_no_chunks_vectors_keywords_or_edges(small):
    (small.root / "geo/shapes.py").unlink()
    report = small.index()
    assert report.files_deleted == 1 and report.chunks_removed >= 2
    for mode in ("bm25", "vector", "hybrid", "multi", "graph"):
        results = small.query("Circle area perimeter_of_square", mode=mode, top_k=20).results
        assert all(r.source != "geo/shapes.py" for r in results), mode
    snapshot = small._reader.view().snapshot
    assert len(snapshot.vectors) == len(snapshot.columns) == small.status().chunks["total"]
    assert not [n for n, d in snapshot.graph.nodes() if d.get("source") == "geo/shapes.py"]
    assert small.graph_entity("perimeter_of_square").matches == []


def test_force_rebuilds_everything_from_the_cache(small):
    report = small.index(force=True)
    assert report.files_indexed == 3 and report.chunks_embedded == 0
    assert small.query("area of a circle", mode="vector").results


def test_an_index_chunked_by_an_earlier_release_is_rechunked_whole_by_its_next_run(small, monkeypatch):
    from agent_brain_lab.engine import indexer

    unchanged = small.index()
    assert unchanged.files_indexed == 0
    # The release after this one chunks differently: its first run, even one scoped to a folder as
    # a save's is, re-chunks every file (an unchanged file keeping old chunks would mix two
    # chunkings), and every text it embedded before comes from the embedding cache.
    monkeypatch.setattr(indexer, "CHUNKER_VERSION", indexer.CHUNKER_VERSION + 1)
    upgraded = small.index(path="geo")
    assert upgraded.files_indexed == upgraded.files_total == 3
    assert upgraded.chunks_embedded == 0
    assert small.index().files_indexed == 0  # recorded: once only
    assert small.query("area of a circle", mode="vector").results


def test_subfolder_index_leaves_the_rest_alone(small):
    write_module(small.root, "geo/solids.py", "def sphere_volume(r):\n    return 4 / 3 * 3.14159 * r ** 3\n")
    (small.root / "README.md").write_text("# Geometry\n\nChanged but not re-indexed yet.\n")
    report = small.index(path="geo")
    assert report.files_indexed == 1 and report.files_total == 3
    assert not small.query("Changed but not re-indexed", mode="bm25").results
    assert "describe_circle" in small.query("Geometry", mode="bm25", file_paths=["README.md"]).results[0].text
    assert small.query("sphere_volume", mode="bm25").results[0].source == "geo/solids.py"


@pytest.mark.parametrize(
    "run, field, needle",
    [
        ({"exclude": "**"}, "exclude", "'**' leaves no file to index in the workspace, where 3 indexed files are"),
        ({"exclude": ["*.py", "*.md"]}, "exclude", "'*.py', '*.md' leave no file to index in the workspace"),
        ({"exclude": "*", "include": "geo/**"}, "exclude", "exclude '*' and include 'geo/**' leave no file"),
        ({"path": "geo", "exclude": "geo/"}, "exclude", "in 'geo', where 2 indexed files are still on disk"),
        ({"path": "geo/shapes.py", "exclude": "*.py"}, "exclude", "where 1 indexed file is still on disk"),
    ],
)
def test_globs_that_leave_no_file_where_files_are_indexed_are_refused(small, run, field, needle):
    """`index --exclude '**'` published an empty generation: every indexed file gone, exit 0. A run
    whose own globs leave nothing to index where indexed files still stand is refused; nothing is
    written and the last generation keeps answering. Globs that leave some files, and files really
    deleted from disk, go on as before."""
    before = small.status()
    with pytest.raises(InvalidRequest) as err:
        small.index(**run)
    assert err.value.field == field and needle in str(err.value), str(err.value)
    assert "the last index keeps serving as it was" in str(err.value)
    after = Brain(small.root).status()
    assert (after.generation, after.files) == (before.generation, before.files)
    assert small.query("perimeter_of_square", mode="bm25").results[0].source == "geo/shapes.py"
    report = small.index(exclude="*.md")  # leaves files: the excluded one goes, as asked
    assert report.files_deleted == 1 and Brain(small.root).status().files["total"] == 2


def test_globs_over_files_gone_from_disk_remove_them(small):
    for path in ("geo/shapes.py", "geo/report.py"):
        (small.root / path).unlink()
    report = small.index(path="geo", exclude="*.tmp")
    assert report.files_deleted == 2 and not small.query("perimeter_of_square", mode="bm25").results


def test_a_runs_exclude_adds_to_the_configured_ones(small):
    """Brain(root, exclude=["README.md"]).index(exclude=["*.log"]) indexed README.md: the run's globs
    replaced the configured ones instead of adding to them (a REST job with an exclude undid the
    server's c.AgentBrain.exclude for that run)."""
    configured = Brain(small.root, exclude=["README.md"])
    assert configured.index().files_deleted == 1
    report = configured.index(exclude=["*.log"])
    assert report.files_indexed == 0 and report.files_total == 2
    assert configured.status().files["by_language"] == {"python": 2}


def test_cancel_keeps_the_last_generation(small):
    for i in range(30):
        write_module(small.root, f"bulk/mod{i}.py", f"def handler_{i}(event):\n    return event + {i}\n")
    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append(p.phase)
        if seen.count("indexing") == 5:
            cancel.set()

    gen = small.status().generation
    with pytest.raises(IndexCancelled):
        small.index(progress=progress, cancel=cancel)
    assert small.status().generation == gen and "scanning" in seen
    assert not small.query("handler_7", mode="bm25").results
    assert small.index().files_indexed == 30


def test_cancel_is_seen_between_two_batches_of_a_group(small):
    """A stopping server cancels its job: the run must end within one model batch, not finish the
    group of chunks it was embedding (seconds on a busy machine, past the stop hook's wait)."""
    for i in range(30):
        write_module(small.root, f"bulk/mod{i}.py", f"def handler_{i}(event):\n    return event + {i}\n")
    embedder = small._embedder
    embedder.token_budget = 64  # several batches in the one group below
    cancel, batches = threading.Event(), []
    real_embed = embedder.embed

    def embed(texts, progress=None):
        def batch_done(n):
            batches.append(n)
            cancel.set()  # the server stops while the first batch of the group is embedded
            if progress is not None:
                progress(n)

        return real_embed(texts, progress=batch_done)

    embedder.embed = embed
    with pytest.raises(IndexCancelled):
        small.index(cancel=cancel)
    assert len(batches) == 1


def test_progress_reports_files_and_phases(small):
    write_module(small.root, "extra.py", "def extra_function():\n    return 1\n")
    events = []
    small.index(progress=events.append)
    phases = [e.phase for e in events]
    assert phases[0] == "scanning" and phases[-1] == "done"
    assert any(e.current_file == "extra.py" for e in events)
    assert events[-1].files_done == events[-1].files_total == 4


def test_reader_picks_up_a_new_generation_from_another_brain(small):
    reader = Brain(small.root)
    assert not reader.query("zanzibar_lighthouse", mode="bm25").results
    write_module(small.root, "light.py", "def zanzibar_lighthouse():\n    return 'beam'\n")
    Brain(small.root).index()
    assert reader.query("zanzibar_lighthouse", mode="bm25").results[0].source == "light.py"


def test_reset_removes_the_index(small):
    small.reset()
    assert small.status().state == "empty" and not small.has_index()


# ------------------------------------------------------------------ real processes

INDEXER = """
import json, os, sys, time
from agent_brain_lab import Brain
root, gate = sys.argv[1], sys.argv[2]
def progress(p):
    if p.phase == "embedding":
        print(json.dumps({"files_done": p.files_done}), flush=True)
        while os.path.exists(gate):  # the test holds the writer here, mid-index, as long as it likes
            time.sleep(0.05)
try:
    report = Brain(root).index(progress=progress)
    print(json.dumps({"generation": report.generation}), flush=True)
except Exception as err:
    print(json.dumps({"error": type(err).__name__, "message": str(err)}), flush=True)
"""


def big_workspace(root: Path, files: int) -> None:
    for i in range(files):
        body = "\n\n".join(
            f"def step_{i}_{j}(value):\n    '''Step {j} of pipeline {i}.'''\n    return value * {j}" for j in range(12)
        )
        write_module(root, f"pipeline/p{i:03d}.py", body + "\n")


def spawn_indexer(root: Path, gate: Path) -> subprocess.Popen:
    """An indexer in another process; it pauses after each embedded group while ``gate`` exists."""
    return subprocess.Popen([sys.executable, "-c", INDEXER, str(root), str(gate)], stdout=subprocess.PIPE, text=True)


def test_killed_indexer_leaves_last_generation_serving_and_next_run_finishes(small):
    big_workspace(small.root, 30)
    gate = small.root.parent / "hold"
    gate.touch()
    proc = spawn_indexer(small.root, gate)
    first = json.loads(proc.stdout.readline())  # it has embedded (and cached) at least one group
    assert "files_done" in first
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert small.status().generation == 1
    assert small.query("describe_circle", mode="bm25").results  # the last good generation answers
    report = small.index()
    assert report.generation == 2 and report.files_indexed == 30
    assert report.chunks_embedded < 30 * 12  # what the killed run embedded was kept
    assert small.query("step_17_7", mode="bm25").results[0].source == "pipeline/p017.py"


def test_two_processes_indexing_at_once_the_second_is_refused_and_queries_keep_answering(small):
    big_workspace(small.root, 25)
    gate = small.root.parent / "hold"
    gate.touch()
    first = spawn_indexer(small.root, gate)
    assert "files_done" in json.loads(first.stdout.readline())
    second = spawn_indexer(small.root, small.root.parent / "no-gate")
    refused = json.loads(second.stdout.readline())
    assert refused["error"] == "WorkspaceBusy" and "another indexer" in refused["message"]
    with pytest.raises(WorkspaceBusy):
        small.index()
    assert small.query("describe_circle", mode="hybrid").results  # readers are never blocked
    assert small.status().state == "indexing"
    gate.unlink()
    lines = first.stdout.read().splitlines()
    assert first.wait(timeout=300) == 0 and json.loads(lines[-1])["generation"] == 2
    second.wait()
    assert small.query("step_13_5", mode="bm25").results[0].source == "pipeline/p013.py"


def test_several_paths_in_one_pass(small):
    write_module(small.root, "geo/solids.py", "def sphere_volume(r):\n    return 4 / 3 * 3.14159 * r ** 3\n")
    (small.root / "README.md").write_text("# Geometry\n\nNow with solids.\n")
    write_module(small.root, "untouched/later.py", "def not_yet_indexed():\n    return 0\n")
    report = small.index(path=["geo/solids.py", "README.md"])
    assert report.files_indexed == 2 and report.generation == 2
    assert small.query("solids", mode="bm25").results[0].source == "README.md"
    assert not small.query("not_yet_indexed", mode="bm25").results


def test_embedding_cache_stays_bounded(small):
    catalog = small._reader.view().catalog
    model = small.status().model["key"]  # what the embedding cache is keyed by: the identity and the file's hash

    def cached():
        return catalog.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]

    live = cached()
    one_dead = [(f"gone-{i}", np.zeros(384, np.float32)) for i in range(live + 1)]
    catalog.cache_vectors(model, one_dead[:1])
    assert catalog.prune_vectors(model) == 0  # a few dead texts (a revert away) are kept
    catalog.cache_vectors(model, one_dead)
    catalog.cache_vectors("some/old-model", [("x", np.zeros(384, np.float32))])
    assert catalog.prune_vectors(model) == live + 2  # more dead than live: the dead and the old model go
    assert cached() == live
    assert small.index(force=True).chunks_embedded == 0  # every live text is still cached


def test_a_reindex_serves_the_graph_it_built_without_reading_it_back(tmp_path, monkeypatch):
    (tmp_path / "shop.py").write_text("def total(items):\n    return sum(items)\n")
    brain = Brain(tmp_path)
    brain.index()
    (tmp_path / "report.py").write_text("from shop import total\n\n\ndef monthly(rows):\n    return total(rows)\n")

    def read_from_disk(cls, gen_dir):
        raise AssertionError("the writer's own graph was loaded again from disk")

    monkeypatch.setattr(CodeGraph, "open", classmethod(read_from_disk))
    brain.index()
    response = brain.query("what calls total", mode="graph")
    assert response.results[0].relationship_path == ["total", "<-calls-", "monthly"]


def test_warm_loads_the_graph_before_the_first_query(tmp_path, monkeypatch):
    (tmp_path / "shop.py").write_text(
        "def total(items):\n    return sum(items)\n\n\ndef report(r):\n    return total(r)\n"
    )
    Brain(tmp_path).index()
    brain = Brain(tmp_path)  # a new process's view: nothing loaded yet
    brain.warm()

    def read_from_disk(cls, gen_dir):
        raise AssertionError("the graph was loaded on the query path")

    monkeypatch.setattr(CodeGraph, "open", classmethod(read_from_disk))
    assert brain.query("what calls total", mode="graph").results[0].symbol_name == "report"


NAME_QUERIES = ["perimeter of a square", "describe the circle", "hexagon corner count", "sphere volume"]


def _assert_equals_a_rebuild(brain: Brain, copy: Path) -> None:
    """The current generation, patched edit by edit, against what a from-scratch build of the same
    files holds: manifest digests, filter columns, counts, graph and name index."""
    view = brain._reader.view()
    snapshot, catalog = view.snapshot, view.catalog
    for name, entry in snapshot.manifest["contents"].items():
        data = (snapshot.dir / name).read_bytes()
        assert entry == {"bytes": len(data), "sha1": hashlib.sha1(data).hexdigest()}, name
    rows = catalog.live_chunk_rows(snapshot.gen)
    built = FilterColumns.build([(r.key, r.source, r.source_type, r.language) for r in rows])
    assert (snapshot.columns.files, snapshot.columns.languages) == (built.files, built.languages)
    for column in ("keys", "file_idx", "type_idx", "lang_idx"):
        assert np.array_equal(getattr(snapshot.columns, column), getattr(built, column)), column
    shutil.copytree(brain.root, copy)
    rebuilt = Brain(copy)
    assert rebuilt.index(force=True).chunks_embedded == 0
    ours, theirs = brain.status(), rebuilt.status()
    assert (ours.files, ours.chunks, ours.graph) == (theirs.files, theirs.chunks, theirs.graph)
    names, fresh = NameIndex(snapshot.graph), NameIndex(rebuilt._reader.view().snapshot.graph)
    for query in NAME_QUERIES:
        assert names.match(set(tokenize(query))) == fresh.match(set(tokenize(query))), query


def test_a_patched_generation_equals_a_rebuild_after_edits_deletes_and_adds(small, tmp_path_factory):
    root, work = small.root, tmp_path_factory.mktemp("rebuilt")
    shapes = root / "geo/shapes.py"
    shapes.write_text(shapes.read_text() + "\n\ndef hexagon_corner_count():\n    return 6\n")
    small.index(path="geo/shapes.py")
    _assert_equals_a_rebuild(small, work / "edit")
    write_module(root, "geo/solids.py", "def sphere_volume(r):\n    return 4 / 3 * 3.14159 * r ** 3\n")
    (root / "notes.md").write_text("# Notes\n\nSquares have four sides.\n")
    small.index()
    _assert_equals_a_rebuild(small, work / "add")
    (root / "geo/report.py").unlink()
    shapes.write_text(shapes.read_text().replace("perimeter_of_square", "perimeter_of_a_square"))
    small.index(path=["geo"])
    _assert_equals_a_rebuild(small, work / "delete")
    (root / "notes.md").unlink()
    (root / "README.md").write_text("# Geometry\n\nSee `sphere_volume`.\n")
    small.index()
    _assert_equals_a_rebuild(small, work / "delete-and-edit")


def test_damage_to_a_file_a_new_generation_shares_is_still_diagnosed(small):
    shapes = small.root / "geo/shapes.py"
    shapes.write_text(shapes.read_text() + "\n\ndef hexagon_corner_count():\n    return 6\n")
    gen = small.index(path="geo/shapes.py").generation
    gen_dir = small.root / ".agent-brain" / f"gen-{gen}"
    shared = sorted(p for p in gen_dir.rglob("*") if p.is_file() and p.stat().st_nlink > 1)
    assert "graph" in {p.parent.name for p in shared}  # the graph's base at least is linked, not rewritten
    for path in shared:
        st = path.stat()
        assert (st.st_dev, st.st_ino) in snapshot_module._known  # its digest was not computed again
        original = path.read_bytes()
        path.write_bytes(bytes((b + 1) % 256 for b in original))  # the same size
        status = Brain(small.root).status()
        assert status.state == "corrupt" and path.name in status.problem, path
        path.write_bytes(original)
        assert Brain(small.root).status().state == "ready"


def test_an_index_that_matches_its_manifest_but_cannot_be_read_is_rebuilt_by_the_next_edit(small, tmp_path_factory):
    """The writer checks the current generation's digests only; an index file that matches them and
    still cannot be loaded (written wrong, or planted with its digest) is built from the catalog."""
    gen_dir = small.root / ".agent-brain" / f"gen-{small.status().generation}"
    manifest = json.loads((gen_dir / "manifest.json").read_text())
    for name in ("columns.npz", "vectors.usearch", "keywords/keywords.json", "graph/graph.json"):
        (gen_dir / name).unlink()  # a new file: the generations' shared inode is left alone
        (gen_dir / name).write_bytes(b"not an index")
        manifest["contents"][name] = {"bytes": 12, "sha1": hashlib.sha1(b"not an index").hexdigest()}
    (gen_dir / "manifest.json").write_text(json.dumps(manifest))
    assert Brain(small.root).status().state == "corrupt"
    shapes = small.root / "geo/shapes.py"
    shapes.write_text(shapes.read_text() + "\n\ndef hexagon_corner_count():\n    return 6\n")
    assert small.index(path="geo/shapes.py").chunks_embedded >= 1
    brain = Brain(small.root)
    assert brain.status().state == "ready"
    assert brain.query("hexagon_corner_count", mode="bm25").results[0].source == "geo/shapes.py"
    snapshot = brain._reader.view().snapshot
    assert len(snapshot.vectors) == len(snapshot.columns) == brain.status().chunks["total"]
    _assert_equals_a_rebuild(brain, tmp_path_factory.mktemp("rebuilt") / "copy")
