"""Trust in the index: identity across processes, empty indexes, hostile files, corruption and its
repair, garbage collection, scoped runs and kill -9 — on real folders, real processes, the real engine."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine import indexer as indexer_module
from agent_brain_lab.engine.store.generations import FORMAT_VERSION
from agent_brain_lab.engine.types import GraphNeighbourhood, IndexCorrupt, IndexStatus

MODES = ("vector", "bm25", "hybrid", "graph", "multi")
REPO = Path(__file__).resolve().parents[1]


def cli(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """The real CLI in another process, importing this tree."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "agent_brain_lab.cli", "--workspace", str(root), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def sources(brain: Brain, query: str, mode: str = "bm25") -> list[str]:
    return [r.source for r in brain.query(query, mode=mode, top_k=20).results]


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """An indexed workspace that tests copy (copying an index costs no embedding)."""
    root = tmp_path_factory.mktemp("template")
    write(root, "shop/cart.py", "class Cart:\n    def total(self, items):\n        return sum(items)\n")
    write(root, "shop/report.py", "from shop.cart import Cart\n\n\ndef monthly(rows):\n    return Cart().total(rows)\n")
    write(root, "docs/guide.md", "# Guide\n\nThe zebra stripes section explains `monthly` reports.\n")
    Brain(root).index()
    return root


@pytest.fixture
def ws(template, tmp_path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(template, root)
    return root


def gen_dir(root: Path) -> Path:
    return root / ".agent-brain" / f"gen-{(root / '.agent-brain' / 'CURRENT').read_text().strip()}"


# ------------------------------------------------------------------ identity


def test_a_reader_follows_an_index_reset_and_rebuilt_by_another_process(ws):
    reader = Brain(ws)
    assert sources(reader, "zebra stripes") == ["docs/guide.md"]
    assert reader.status().index_id
    old_id = reader.status().index_id
    cli(ws, "reset")
    for rel in ("shop/cart.py", "shop/report.py", "docs/guide.md"):
        (ws / rel).unlink()
    write(ws, "notes/animals.md", "# Animals\n\nHorses gallop across the plain.\n")
    cli(ws, "index")
    write(ws, "notes/plants.md", "# Plants\n\nFerns grow in the shade.\n")
    cli(ws, "index")  # generation 2 of the new index: chunk keys of the old one are reused
    assert reader.status().index_id != old_id and reader.status().generation == 2
    for mode in MODES:
        got = reader.query("zebra stripes monthly Cart horses ferns", mode=mode, top_k=20).results
        assert {r.source for r in got} <= {"notes/animals.md", "notes/plants.md"}, mode
        assert all("zebra" not in r.text and "Cart" not in r.text for r in got), mode
    assert sources(reader, "horses gallop") == ["notes/animals.md"]
    assert reader.graph_entity("Cart").matches == []


def test_a_reader_follows_an_index_restored_from_a_backup(ws, tmp_path):
    reader = Brain(ws)
    backup = tmp_path / "backup"
    shutil.copytree(ws / ".agent-brain", backup)
    write(ws, "docs/later.md", "# Later\n\nQuokkas smile for photographs.\n")
    Brain(ws).index()
    assert sources(reader, "quokkas smile") == ["docs/later.md"]
    shutil.rmtree(ws / ".agent-brain")
    shutil.copytree(backup, ws / ".agent-brain")  # the same index id, an older generation, a new catalog file
    assert sources(reader, "quokkas smile") == []
    assert sources(reader, "zebra stripes") == ["docs/guide.md"]


def test_a_catalog_from_another_index_is_never_read(ws, tmp_path):
    other = tmp_path / "other"
    write(other, "x.md", "# X\n\nSomething else entirely about walruses.\n")
    Brain(other).index()
    reader = Brain(ws)
    assert sources(reader, "zebra stripes") == ["docs/guide.md"]
    shutil.copy(other / ".agent-brain" / "catalog.sqlite", ws / ".agent-brain" / "catalog.sqlite")
    status = reader.status()
    assert status.state == "corrupt" and status.fix == "agent-brain-lab reset"
    with pytest.raises(IndexCorrupt):
        reader.query("walruses", mode="bm25")


# ------------------------------------------------------------------ empty is a valid state


def test_an_empty_workspace_indexes_and_answers_nothing(tmp_path):
    brain = Brain(tmp_path)
    report = brain.index()
    assert report.generation == 1 and report.chunks_total == 0
    assert brain.status().state == "ready" and brain.status().chunks["total"] == 0
    for mode in MODES:
        assert brain.query("anything at all", mode=mode).results == [], mode
    assert brain.graph_entity("Anything").matches == []
    assert report.warnings == []  # nothing there: nothing to explain


def test_a_run_whose_rules_leave_every_file_out_says_so(tmp_path):
    """'Indexed 0 of 0 files' was all a run said when a .gitignore of '*' (or an include matching
    nothing, a path in an excluded folder) left out every file there: the same words as an empty folder."""
    write(tmp_path, "src/app.py", "def app():\n    return 1\n")
    write(tmp_path, "build/out.py", "def out():\n    return 1\n")
    brain = Brain(tmp_path)
    assert brain.index().warnings == []
    for run in ({"include": ["*.rs"]}, {"path": "build"}):
        report = brain.index(**run)
        assert report.files_total == 0 and len(report.warnings) == 1, run
        assert "leave every file there out" in report.warnings[0], report.warnings
    write(tmp_path, ".gitignore", "*\n")
    report = brain.index()
    assert report.files_deleted == 1 and report.chunks_total == 0
    assert report.warnings == [
        "nothing to index in the workspace: .gitignore, the built-in excludes, the hidden-file rule"
        " or this run's include/exclude globs leave every file there out"
    ]
    assert "warning: nothing to index in the workspace" in cli(tmp_path, "index").stdout


def test_deleting_every_file_leaves_nothing_searchable(ws):
    brain = Brain(ws)
    shutil.rmtree(ws / "shop")
    shutil.rmtree(ws / "docs")
    report = brain.index()
    assert report.generation == 2 and report.files_deleted == 3 and report.chunks_total == 0
    for mode in MODES:
        assert brain.query("zebra stripes Cart total monthly", mode=mode).results == [], mode
    assert brain.status().files["total"] == 0 and brain.status().graph["entities"] == 0


def test_files_without_a_single_keyword_and_an_empty_scope_still_index(tmp_path):
    write(tmp_path, "README.md", "the a an\n")  # stopwords only: the keyword corpus has no word
    brain = Brain(tmp_path)
    assert brain.index().generation == 1
    assert brain.query("the", mode="bm25").results == []
    assert brain.query("anything", mode="vector").results  # the chunk is there
    report = brain.index(include=["nothing/**"])
    assert report.files_total == 0 and brain.status().files["total"] == 1


# ------------------------------------------------------------------ one bad file never stops a run


def test_a_file_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(tmp_path):
    write(tmp_path, "good.md", "# Good\n\nPelicans fish at dawn.\n")
    with open(os.path.join(os.fsencode(tmp_path), b"bad_\xff_name.md"), "wb") as fh:
        fh.write(b"# Bad\n\nPelicans too.\n")
    os.makedirs(os.path.join(os.fsencode(tmp_path), b"dir_\xfe"))
    with open(os.path.join(os.fsencode(tmp_path), b"dir_\xfe", b"inner.md"), "wb") as fh:
        fh.write(b"# Inner\n")
    brain = Brain(tmp_path)
    report = brain.index()
    assert report.files_indexed == 1 and sources(brain, "pelicans") == ["good.md"]
    reasons = {s.path: s.reason for s in report.skipped}
    assert reasons == {
        "bad_\\xff_name.md": "file name is not valid UTF-8",
        "dir_\\xfe": "folder name is not valid UTF-8",
    }
    assert json.dumps(brain.status().to_dict(), ensure_ascii=False).encode("utf-8")  # printable everywhere
    assert cli(tmp_path, "status").returncode == 0


def test_text_that_is_not_unicode_and_an_analyser_crash_skip_one_file_each(tmp_path, monkeypatch):
    notebook = {
        "cells": [{"cell_type": "markdown", "source": ["broken \\ud800 surrogate"], "metadata": {}}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "lone.ipynb").write_text(json.dumps(notebook).replace("\\\\ud800", "\\ud800"))
    write(tmp_path, "crashes.py", "def fine():\n    return 1\n")
    write(tmp_path, "good.py", "def pelican_count():\n    return 3\n")
    real = indexer_module.analyze_file

    def parser_bug(file, text, settings, check):  # fault injection: a parser that fails on one file
        if file.path == "crashes.py":
            raise RuntimeError("parser exploded")
        return real(file, text, settings, check)

    monkeypatch.setattr(indexer_module, "analyze_file", parser_bug)
    brain = Brain(tmp_path)
    report = brain.index()
    reasons = {s.path: s.reason for s in report.skipped}
    assert "not valid Unicode" in reasons["lone.ipynb"]
    assert reasons["crashes.py"] == "could not be analysed (RuntimeError: parser exploded)"
    assert report.files_indexed == 1 and sources(brain, "pelican_count") == ["good.py"]
    assert {s["path"] for s in brain.status().skipped} == {"lone.ipynb", "crashes.py"}


# ------------------------------------------------------------------ corruption: diagnosed and repaired


# the modes reading a part a snapshot loads on first use: the others answer from files that are whole
READING = {"vectors": {"vector", "hybrid", "graph", "multi"}, "graph": {"graph", "multi"}}


def _expect_corrupt(root: Path, fix: str, damaged: str = "") -> None:
    """Status says the index is damaged; a query fails with the fix, unless ``damaged`` (a file whose
    size is right) belongs to a part it never reads: it answers (a bm25 query never hashes the vectors)."""
    part = "graph" if damaged.startswith("graph/") else "vectors" if damaged.startswith("vectors.") else ""
    status = Brain(root).status()
    assert status.state == "corrupt" and status.fix == fix and status.problem, status
    for mode in MODES:
        brain = Brain(root)
        if part and mode not in READING[part]:
            assert sources(brain, "zebra stripes", mode)[0] == "docs/guide.md", (damaged, mode)
            continue
        with pytest.raises(IndexCorrupt) as err:
            brain.query("zebra stripes", mode=mode)
        assert err.value.fix == fix and f"`{fix}`" in str(err.value)
    assert Brain(root).status().state == "corrupt"  # also after the queries


def _expect_repaired_by_plain_index(root: Path) -> None:
    report = cli(root, "index", "--json")
    assert json.loads(report.stdout)["chunks_embedded"] == 0  # rebuilt from the catalog's vectors
    brain = Brain(root)
    assert brain.status().state == "ready"
    assert sources(brain, "zebra stripes") == ["docs/guide.md"]
    assert brain.query("sum of the items in a cart", mode="vector").results
    assert brain.graph_entity("Cart").matches


def test_every_damaged_derived_file_is_diagnosed_and_rebuilt_by_a_plain_index(template, tmp_path):
    names = sorted(p.relative_to(gen_dir(template)).as_posix() for p in gen_dir(template).rglob("*") if p.is_file())
    assert "vectors.usearch" in names and "manifest.json" in names and any(n.startswith("keywords/") for n in names)
    assert any(n.startswith("graph/") for n in names)
    for damage in ("truncate", "garbage", "same-size garbage", "delete"):
        for name in names:
            root = tmp_path / f"{damage}-{name.replace('/', '-')}"
            shutil.copytree(template, root)
            target = gen_dir(root) / name
            size = target.stat().st_size
            if damage == "truncate":
                target.write_bytes(target.read_bytes()[: size // 2])
            elif damage == "garbage":
                target.write_bytes(b"garbage\n")
            elif damage == "same-size garbage":
                target.write_bytes(bytes((b + 1) % 256 for b in target.read_bytes()))
            else:
                target.unlink()
            if name != "manifest.json" or damage != "same-size garbage":  # a manifest may stay valid JSON
                # a file of another size is damage seen at open; the same size, when its part loads
                _expect_corrupt(root, "agent-brain-lab index", name if damage == "same-size garbage" else "")
            if damage == "garbage":  # each repair costs a CLI start: repair one damage per file
                _expect_repaired_by_plain_index(root)


def test_a_manifest_that_is_json_but_not_a_manifest_is_diagnosed(ws):
    (gen_dir(ws) / "manifest.json").write_text('{"contents": {}}')
    _expect_corrupt(ws, "agent-brain-lab index")


def test_current_naming_a_missing_or_no_generation_is_repaired_by_a_plain_index(template, tmp_path):
    for current in ("7\n", "not a number\n", "9" * 4000):  # 4000 digits: was a raw 'File name too long'
        root = tmp_path / f"current-{len(current)}"
        shutil.copytree(template, root)
        (root / ".agent-brain" / "CURRENT").write_text(current)
        _expect_corrupt(root, "agent-brain-lab index")
        _expect_repaired_by_plain_index(root)


def test_a_reader_follows_a_generation_republished_under_the_same_number(ws):
    reader = Brain(ws)
    assert sources(reader, "zebra stripes") == ["docs/guide.md"]
    (ws / ".agent-brain" / "CURRENT").write_text("garbage\n")
    assert reader.status().state == "corrupt"
    write(ws, "docs/guide.md", "# Guide\n\nLemurs leap between trees.\n")
    assert Brain(ws).index().generation == 1  # started over from the cache: generation 1 again
    assert sources(reader, "lemurs leap") == ["docs/guide.md"] and sources(reader, "zebra stripes") == []


def test_a_deleted_catalog_is_rebuilt_without_mixing_old_chunk_keys(ws):
    (ws / ".agent-brain" / "catalog.sqlite").unlink()
    assert Brain(ws).status().state == "corrupt"
    report = Brain(ws).index()  # a new catalog: its keys start again at 1, the old vectors must not stay
    assert report.files_indexed == 3
    brain = Brain(ws)
    assert brain.status().state == "ready" and sources(brain, "zebra stripes") == ["docs/guide.md"]
    snapshot = brain._reader.view().snapshot
    assert len(snapshot.vectors) == len(snapshot.columns) == report.chunks_total


def test_a_garbage_catalog_says_reset_and_reset_always_works(ws):
    (ws / ".agent-brain" / "catalog.sqlite").write_bytes(b"this is not a database" * 100)
    for wal in ("catalog.sqlite-wal", "catalog.sqlite-shm"):
        (ws / ".agent-brain" / wal).unlink(missing_ok=True)
    _expect_corrupt(ws, "agent-brain-lab reset")
    for args in (("index",), ("index", "--force")):
        proc = cli(ws, *args, check=False)
        assert proc.returncode == 1 and "agent-brain-lab reset" in proc.stderr and "Traceback" not in proc.stderr
    cli(ws, "reset")
    cli(ws, "index")
    assert sources(Brain(ws), "zebra stripes") == ["docs/guide.md"]


@pytest.mark.parametrize("make", ["file", "fifo"])
def test_a_file_where_the_index_folder_belongs_is_said_to_be_one_and_never_deleted(tmp_path, make):
    """`.agent-brain` a file (someone's notes, a download saved under that name) or a named pipe: status
    called the index "corrupt" and advised `reset`, which deleted the file. Every door now says what sits
    there, nothing deletes it (reset refuses too), and once it is moved aside indexing works."""
    place = tmp_path / ".agent-brain"
    if make == "file":
        place.write_text("my notes, not an index")
    else:
        os.mkfifo(place)
    write(tmp_path, "a.md", "# Avocet\n\nThe avocet sweeps its bill through the mud.\n")
    status = Brain(tmp_path).status()
    what = "a file of 22 bytes" if make == "file" else "a named pipe"
    assert (status.state, status.problem) == (
        "not_a_folder",
        f".agent-brain is {what}, not the index folder: Agent Brain Lab keeps its index in a folder of that name",
    )
    assert status.fix == "move or rename it (Agent Brain Lab never deletes it), then `agent-brain-lab index`"
    for args in (("index",), ("index", "--force"), ("query", "avocet"), ("reset",), ("reset", "--drop-cache")):
        proc = cli(tmp_path, *args, check=False)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr == f"agent-brain-lab: {status.problem} — fix: {status.fix}\n"
        assert "corrupt" not in proc.stderr
    assert json.loads(cli(tmp_path, "status", "--json").stdout)["state"] == "not_a_folder"
    if make == "file":
        assert place.read_text() == "my notes, not an index"
    place.rename(tmp_path / "moved-aside")
    cli(tmp_path, "index")
    assert sources(Brain(tmp_path), "avocet") == ["a.md"]


def test_reset_works_on_whatever_sits_in_the_index_folder(tmp_path):
    write(tmp_path, "a.md", "# A\n")
    Brain(tmp_path).index()
    for junk in ("gen-3", "gen-x", "CURRENT", "INDEX_ID", "FORMAT"):
        path = tmp_path / ".agent-brain" / junk
        shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
        path.write_bytes(b"\xff\x00junk")
    cli(tmp_path, "reset")  # the catalog (emptied, holding the embedding cache) stays; all else goes
    left = {p.name for p in (tmp_path / ".agent-brain").iterdir()}
    assert (
        {"writer.lock", "catalog.sqlite"}
        <= left
        <= {"writer.lock", "catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"}
    )
    cli(tmp_path, "reset", "--drop-cache")
    assert sorted(p.name for p in (tmp_path / ".agent-brain").iterdir()) == ["writer.lock"]


def test_a_run_that_only_changes_the_skips_publishes_them(ws):
    """A new file too large to index (or a skipped file removed) changes no chunk, yet status must list
    the skips of the last run, not those of the last run that changed a chunk."""
    with open(ws / "docs" / "huge.md", "wb") as fh:
        fh.truncate(5 << 20)  # sparse: over the 1 MB limit at no cost
    brain = Brain(ws)
    before = brain.status().generation
    report = brain.index()
    assert report.generation == before + 1 and [s.path for s in report.skipped] == ["docs/huge.md"]
    status = Brain(ws).status()
    assert [s["path"] for s in status.skipped] == ["docs/huge.md"] and status.skipped_total == 1
    assert brain.index().generation == before + 1  # nothing changed since: nothing published
    (ws / "docs" / "huge.md").unlink()
    assert brain.index().generation == before + 2
    assert Brain(ws).status().skipped == [] and sources(Brain(ws), "zebra") == ["docs/guide.md"]


def test_an_index_folder_that_is_a_symlink_out_of_the_root_is_never_written_read_or_reset(template, tmp_path):
    """`.agent-brain` a link to a folder elsewhere (here: another workspace's index, beside a file of
    its owner's): no run writes, tightens or deletes there, no query answers from it, and reset removes
    the link alone."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(template / ".agent-brain", elsewhere)
    (elsewhere / "notes.txt").write_text("keep me")
    (elsewhere / "notes.txt").chmod(0o644)
    before = {p.name: (p.stat().st_mode, p.stat().st_mtime_ns) for p in elsewhere.rglob("*")}
    root = tmp_path / "ws"
    write(root, "docs/heron.md", "# Heron\n\nThe heron waits by the river.\n")
    (root / ".agent-brain").symlink_to(elsewhere, target_is_directory=True)
    status = Brain(root).status()
    assert (status.state, status.problem) == (
        "not_a_folder",
        ".agent-brain is a symlink, not the index folder: an index is never read or written through a link",
    )
    assert status.fix == (
        "remove the link (what it points to stays as it is; `agent-brain-lab reset` removes the link alone)"
        " or replace it with a folder, then `agent-brain-lab index`"
    )
    for args in (("index",), ("query", "zebra", "--mode", "bm25")):
        proc = cli(root, *args, check=False)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr == f"agent-brain-lab: {status.problem} — fix: {status.fix}\n"
    cli(root, "reset")
    assert not (root / ".agent-brain").exists() and not (root / ".agent-brain").is_symlink()
    assert {p.name: (p.stat().st_mode, p.stat().st_mtime_ns) for p in elsewhere.rglob("*")} == before
    assert (elsewhere / "notes.txt").read_text() == "keep me"
    Brain(root).index()
    assert (root / ".agent-brain").is_dir() and not (root / ".agent-brain").is_symlink()
    assert sources(Brain(root), "heron") == ["docs/heron.md"] and sources(Brain(root), "zebra") == []


def test_another_format_asks_for_force_and_force_rewrites_it(ws):
    (ws / ".agent-brain" / "FORMAT").write_text("1\n")
    _expect_corrupt(ws, "agent-brain-lab index --force")
    proc = cli(ws, "index", check=False)
    assert proc.returncode == 1 and "agent-brain-lab index --force" in proc.stderr
    cli(ws, "index", "--force")
    assert (ws / ".agent-brain" / "FORMAT").read_text().strip() == str(FORMAT_VERSION)
    brain = Brain(ws)
    assert brain.status().state == "ready" and sources(brain, "zebra stripes") == ["docs/guide.md"]


def test_a_sqlite_error_on_the_query_path_is_a_brain_error(ws):
    brain = Brain(ws)
    assert sources(brain, "zebra stripes")
    db = sqlite3.connect(ws / ".agent-brain" / "catalog.sqlite")
    db.execute("DROP TABLE chunks")
    db.commit()
    db.close()
    with pytest.raises(IndexCorrupt, match="agent-brain-lab reset"):
        brain.query("zebra stripes", mode="bm25")


def test_a_chunk_row_missing_under_an_unchanged_index_is_damage_not_a_shorter_answer(ws):
    """A generation's chunk whose catalog row is gone: under an index that did not move it is damage
    (said with the command that rebuilds the rows), never a page quietly short of that result; under
    one replaced meanwhile the reader reads the new one (tests/test_trust_races.py)."""
    brain = Brain(ws)
    found = brain.query("zebra stripes", mode="bm25", top_k=3).results
    assert found
    db = sqlite3.connect(ws / ".agent-brain" / "catalog.sqlite")
    db.execute("DELETE FROM chunks WHERE chunk_id = ?", (found[0].chunk_id,))
    db.commit()
    db.close()
    with pytest.raises(IndexCorrupt, match="agent-brain-lab index --force"):
        brain.query("zebra stripes", mode="bm25", top_k=3)


# ------------------------------------------------------------------ garbage collection


def test_strangers_in_the_index_folder_are_left_alone_and_staging_is_cleared(ws):
    folder = ws / ".agent-brain"
    (folder / "gen-foo").mkdir()
    (folder / "gen-20.bak").mkdir()
    (folder / "gen-20.bak" / "keep.txt").write_text("mine")
    (folder / "notes.txt").write_text("mine")
    (folder / "staging-9").mkdir()  # a killed writer's leftover
    (folder / "staging-9" / "vectors.usearch").write_bytes(b"half")
    brain = Brain(ws)
    assert brain.index().generation == 1  # nothing changed: nothing published, leftovers still cleared
    assert not (folder / "staging-9").exists()
    write(ws, "docs/more.md", "# More\n\nOtters hold hands.\n")
    assert brain.index().generation == 2
    assert (folder / "gen-foo").is_dir() and (folder / "gen-20.bak" / "keep.txt").read_text() == "mine"
    assert (folder / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in folder.glob("gen-[0-9]*")) == ["gen-1", "gen-2", "gen-20.bak"]


# ------------------------------------------------------------------ scoped runs


def test_an_include_run_touches_only_what_it_includes(ws):
    brain = Brain(ws)
    (ws / "shop" / "report.py").unlink()  # outside the scope: stays indexed until a run covers it
    write(ws, "docs/guide.md", "# Guide\n\nNow about giraffes.\n")
    report = brain.index(include=["docs/**"])
    assert report.files_total == 1 and report.files_indexed == 1 and report.files_deleted == 0
    assert sources(brain, "giraffes") == ["docs/guide.md"]
    assert "shop/cart.py" in sources(brain, "Cart total") and "shop/report.py" in sources(brain, "monthly")
    report = brain.index(include=["*.py"])
    assert report.files_deleted == 1 and "shop/report.py" not in sources(brain, "monthly")
    assert sources(brain, "giraffes") == ["docs/guide.md"]


def test_a_path_run_deletes_only_inside_its_path(ws):
    brain = Brain(ws)
    (ws / "docs" / "guide.md").unlink()
    write(ws, "docs/new.md", "# New\n\nFlamingos stand on one leg.\n")
    (ws / "shop" / "report.py").unlink()
    report = brain.index(path="docs")
    assert report.files_deleted == 1 and sources(brain, "flamingos") == ["docs/new.md"]
    assert sources(brain, "zebra stripes") == [] and "shop/report.py" in sources(brain, "monthly")


# ------------------------------------------------------------------ status and graph as dataclasses


def test_status_and_graph_entity_are_dataclasses_with_documented_keys(ws):
    brain = Brain(ws)
    status = brain.status()
    assert isinstance(status, IndexStatus)
    assert set(status.to_dict()) >= {
        "state",
        "root",
        "generation",
        "files",
        "chunks",
        "skipped",
        "graph",
        "model",
        "index_bytes",
        "last_indexed",
        "format_version",
        "index_id",
        "problem",
        "fix",
    }
    assert status.problem is None and status.fix is None
    graph = brain.graph_entity("Cart")
    assert isinstance(graph, GraphNeighbourhood) and graph.to_dict()["matches"] == graph.matches
    assert any(c["source"] == "shop/cart.py" for c in graph.chunks)


# ------------------------------------------------------------------ kill -9


def test_an_indexer_killed_mid_embedding_leaves_a_working_index_and_the_next_run_is_right(ws):
    for i in range(30):
        body = "\n\n".join(
            f"def task_{i}_{j}(v):\n    '''Task {j} of batch {i}.'''\n    return v + {j}" for j in range(12)
        )
        write(ws, f"batch/b{i:02d}.py", body + "\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_brain_lab.cli", "--workspace", str(ws), "index"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    catalog = ws / ".agent-brain" / "catalog.sqlite"
    before = _cached(catalog)
    deadline = time.monotonic() + 300
    while _cached(catalog) == before:  # wait until it has embedded (and cached) a group
        assert proc.poll() is None and time.monotonic() < deadline, "the indexer finished or stalled"
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    brain = Brain(ws)
    assert brain.status().state == "ready" and brain.status().generation == 1
    assert sources(brain, "zebra stripes") == ["docs/guide.md"]
    report = brain.index()
    assert report.generation == 2 and report.files_indexed == 30
    assert report.chunks_embedded < 30 * 12  # what the killed run cached was kept
    assert sources(brain, "task_17_7")[0] == "batch/b17.py"
    assert brain.status().chunks["total"] == len(brain._reader.view().snapshot.vectors)


def _cached(catalog: Path) -> int:
    db = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    finally:
        db.close()
