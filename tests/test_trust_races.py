"""Readers racing writers: while index runs publish generations (in this process and in another one),
``check_can_index``, ``status``, ``query`` and ``graph_entity`` from other threads raise nothing but
``BrainError``s — a file replaced under a reader is never a traceback (or a REST 500) — and never
report an index that is merely being replaced as corrupt."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.store.catalog import Catalog, catalog_errors
from agent_brain_lab.engine.types import BrainError, IndexCorrupt, WorkspaceBusy

REPO = Path(__file__).resolve().parents[1]
SECONDS = 20.0


def _workspace(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "cart.py").write_text("class Cart:\n    def total(self, items):\n        return sum(items)\n")
    (root / "notes.md").write_text("# Notes\n\nThe zebra stripes section explains `Cart.total`.\n")


def _other_process(root: Path, stop_after: float) -> subprocess.Popen:
    """Another process that re-indexes (force and incremental, touching a file) and resets the index
    until ``stop_after``."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from agent_brain_lab import Brain\n"
        "from agent_brain_lab.engine.types import BrainError\n"
        "root, until = Path(sys.argv[1]), float(sys.argv[2])\n"
        "brain, n = Brain(root), 0\n"
        "while time.time() < until:\n"
        "    n += 1\n"
        "    (root / 'other.md').write_text(f'# Other {n % 3}\\n\\nrun {n % 3} of the other process\\n')\n"
        "    try:\n"
        "        brain.reset() if n % 4 == 0 else brain.index(force=n % 2 == 0, wait=1.0)\n"
        "    except BrainError:\n"
        "        time.sleep(0.05)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", script, str(root), str(stop_after)], env=env)


def test_readers_never_raise_anything_but_brain_errors_while_generations_are_published(tmp_path):
    _workspace(tmp_path)
    brain = Brain(tmp_path)
    brain.index()
    deadline = time.monotonic() + SECONDS
    other = _other_process(tmp_path, time.time() + SECONDS)
    failures: list[BaseException] = []
    counts = {"reads": 0, "runs": 0}

    def reader(work) -> None:
        while time.monotonic() < deadline and not failures:
            try:
                work()
                counts["reads"] += 1
            except IndexCorrupt as err:  # nothing is damaged here: files removed under a reader are a retry
                failures.append(err)
            except BrainError:
                pass
            except BaseException as err:  # what a REST route would answer with a 500
                failures.append(err)

    def writer() -> None:
        n = 0
        while time.monotonic() < deadline and not failures:
            n += 1
            (tmp_path / "notes.md").write_text(f"# Notes\n\nThe zebra stripes, take {n % 4}.\n")
            try:
                brain.reset() if n % 5 == 0 else brain.index(force=n % 3 == 0, wait=1.0)
                counts["runs"] += 1
            except BrainError:
                time.sleep(0.05)
            except BaseException as err:
                failures.append(err)

    readers = [
        lambda: brain.check_can_index(force=True),
        lambda: brain.check_can_index(force=False),
        brain.status,
        lambda: brain.query("zebra stripes", mode="bm25"),
        lambda: brain.query("cart total", mode="multi"),
        lambda: brain.graph_entity("Cart"),
    ]
    threads = [threading.Thread(target=reader, args=(work,)) for work in readers]
    threads.append(threading.Thread(target=writer))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.wait(timeout=120)
    assert not failures, "\n".join("".join(traceback.format_exception(e)) for e in failures[:3])
    assert counts["runs"] > 0 and counts["reads"] > 0  # both sides really ran


def test_a_catalog_locked_by_another_connection_is_busy_not_a_traceback(tmp_path):
    path = tmp_path / "catalog.sqlite"
    Catalog(path, create=True).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")  # rollback journal: an exclusive lock shuts readers out
    holder.execute("BEGIN EXCLUSIVE")
    reader = sqlite3.connect(path, timeout=0)
    try:
        with pytest.raises(WorkspaceBusy, match="held by another process"), catalog_errors():
            reader.execute("SELECT count(*) FROM meta").fetchone()
    finally:
        reader.close()
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.parametrize("mode", ["vector", "multi", "graph"])
def test_a_part_loaded_late_from_an_index_replaced_meanwhile_is_read_again(tmp_path, monkeypatch, mode):
    """Vectors and the graph load on a generation's first query that needs them: another process may
    have reset and re-indexed between opening the generation and that load, putting another index's
    generation of the same number in its place. The reader opens the new index and answers from it,
    never from a mix of the two (whose row keys disagree: an IndexError, or another index's rows)."""
    from agent_brain_lab.engine.store.graph import CodeGraph
    from agent_brain_lab.engine.store.vectors import VectorIndex

    _workspace(tmp_path)
    brain, other = Brain(tmp_path), Brain(tmp_path)
    brain.index()
    assert brain.query("zebra stripes", mode="bm25").results  # the generation is open; its vectors and graph are not
    (tmp_path / "pkg" / "more.py").write_text(
        "".join(f"def zebra_{i}(cart):\n    return Cart().total([{i}])\n\n\n" for i in range(40))
    )
    swapped: list[int] = []

    def replace_then(load):
        def load_late(*args, **kwargs):
            if not swapped:  # the race: a reset and a new index between the open and the late load
                other.reset()
                swapped.append(other.index().generation)
            return load(*args, **kwargs)

        return load_late

    monkeypatch.setattr(VectorIndex, "open", replace_then(VectorIndex.open))
    monkeypatch.setattr(CodeGraph, "open", replace_then(CodeGraph.open))
    response = brain.query("zebra cart total", mode=mode, top_k=50)
    assert swapped == [1]
    fresh = Brain(tmp_path).query("zebra cart total", mode=mode, top_k=50)
    assert [r.chunk_id for r in response.results] == [r.chunk_id for r in fresh.results]
    assert any(r.source == "pkg/more.py" for r in response.results)  # the new index answered
