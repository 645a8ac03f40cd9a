"""The index reader's rule (engine/reader.py), on a real index: reopen when the index's identity
changed, call an error damage only when the index did not move under it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.reader import Identity, IndexReader
from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import IndexCorrupt, NotIndexed


@pytest.fixture
def ws(tmp_path) -> Path:
    """A workspace of one file, indexed (each test changes it)."""
    (tmp_path / "cart.py").write_text("class Cart:\n    def total(self, items):\n        return sum(items)\n")
    Brain(tmp_path).index()
    return tmp_path


def test_no_index_has_generation_zero_and_a_view_says_not_indexed(tmp_path):
    index_dir = IndexDir(tmp_path)
    assert Identity.of(index_dir).generation == 0
    with pytest.raises(NotIndexed):
        IndexReader(index_dir).view()


def test_a_view_is_kept_while_the_identity_stands_and_reopened_when_another_writer_publishes(ws):
    reader = IndexReader(IndexDir(ws))
    first = reader.view()
    assert reader.view() is first  # nothing changed on disk: the same catalog and snapshot
    assert first.identity == Identity.of(IndexDir(ws)) and first.identity.generation == first.snapshot.gen

    (ws / "cart.py").write_text("class Cart:\n    def total(self, items):\n        return max(items)\n")
    Brain(ws).index()  # another Brain (as another process would) publishes the next generation

    assert reader.replaced(first.identity)
    second = reader.view()
    assert second is not first and second.identity.generation == first.identity.generation + 1
    assert second.snapshot.gen == second.identity.generation
    assert reader.read(lambda view: view.snapshot.gen) == second.snapshot.gen


def test_settled_looks_again_when_the_index_moved_under_a_check_and_reports_damage_when_it_did_not(ws):
    reader = IndexReader(IndexDir(ws))
    calls: list[int] = []

    def check_while_another_writer_publishes() -> str:
        calls.append(1)
        if len(calls) == 1:
            (ws / "cart.py").write_text("def moved():\n    return 1\n")
            Brain(ws).index()  # files replaced under the check: its error is the move, not damage
            raise IndexCorrupt("misread while the index was replaced", "-")
        return "checked"

    assert reader.settled(check_while_another_writer_publishes) == "checked" and len(calls) == 2

    def damaged() -> None:
        raise IndexCorrupt("damage", "-")

    with pytest.raises(IndexCorrupt, match="damage"):
        reader.settled(damaged)  # the index did not move: damage, reported at once
