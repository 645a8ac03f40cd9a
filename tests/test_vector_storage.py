"""Vector bases are stored in bf16; an index written before (f16 base, f16 delta) keeps serving and is
converted, never thrown away, by the next generation written.

``tests/fixtures/f16_index`` is a real index written by the engine before bf16 (commit 76c9c27, by its
``make_fixture.py``): three files indexed, one edited and re-indexed, so generation 2 has an f16 base,
an f16 delta and tombstones; ``answers.json`` is what that engine answered then.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from workspace_fixture import F16_INDEX, chunk_as_the_f16_index_was

from agent_brain_lab import Brain
from agent_brain_lab.engine.native import usearch_index
from agent_brain_lab.engine.store import vectors as vec
from agent_brain_lab.engine.store.generations import FORMAT_VERSION
from agent_brain_lab.engine.types import IndexCorrupt, IndexNewer

OLD = F16_INDEX
QUERIES = ("area of a square", "circle", "convert feet to metres", "describe a shape")
TOLERANCE = 1e-3  # a similarity moves by ~1e-4 from f16 to bf16 at the model's 384 dimensions

usearch = usearch_index()


@pytest.fixture
def old_root(tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(OLD / "ws", root)
    return root


def _kind(root, gen: int):
    return usearch.Index.metadata(str(root / ".agent-brain" / f"gen-{gen}" / vec.FILE))["kind_scalar"]


def _answers(brain: Brain) -> dict[str, list]:
    return {
        f"{mode}:{q}": [[h.source, h.start_line, h.score] for h in brain.query(q, mode=mode, top_k=10).results]
        for q in QUERIES
        for mode in ("vector", "hybrid", "multi")
    }


def _assert_like_before(answers: dict[str, list]) -> None:
    """The same results in the same order as the f16 engine gave, scores within the tolerance."""
    before = json.loads((OLD / "answers.json").read_text())
    assert answers.keys() == before.keys()
    for key, then in before.items():
        now = answers[key]
        assert [r[:2] for r in now] == [r[:2] for r in then], key
        # multi's scores are reciprocal ranks (exact); vector and hybrid's carry the similarity
        np.testing.assert_allclose([r[2] for r in now], [r[2] for r in then], atol=TOLERANCE, err_msg=key)


def test_an_f16_index_keeps_serving_as_it_answered_before(old_root):
    assert (old_root / ".agent-brain" / "FORMAT").read_text().strip() == "2"  # written before bf16
    brain = Brain(old_root)
    assert brain.status().state == "ready"
    assert _kind(old_root, 2) == usearch.ScalarKind.F16
    _assert_like_before(_answers(brain))
    assert _kind(old_root, 2) == usearch.ScalarKind.F16  # reading converts nothing


def test_the_next_generation_written_converts_it_keeping_its_graph_and_answers(old_root, monkeypatch):
    def no_rebuild(*args):
        raise AssertionError("the f16 base was rebuilt, not converted")

    monkeypatch.setattr(vec, "_rebuild", no_rebuild, raising=False)  # the file's own graph is kept
    chunk_as_the_f16_index_was(monkeypatch)
    brain = Brain(old_root)
    (old_root / "notes.md").write_text("Zebra crossing timetable, unrelated to geometry.\n")
    gen = brain.index(path="notes.md").generation
    assert gen == 3
    folder = old_root / ".agent-brain" / "gen-3"
    assert _kind(old_root, 3) == usearch.ScalarKind.BF16
    assert (old_root / ".agent-brain" / "FORMAT").read_text().strip() == str(FORMAT_VERSION) == "3"
    assert np.load(folder / vec.DELTA_VECTORS).dtype == np.uint16  # bf16 bits; the f16 delta was rounded
    converted = vec.VectorIndex.open(folder)
    assert converted is not None and converted._tape is not None  # its rows mapped (vectors.slots.npy)
    assert brain.status().state == "ready"
    now = _answers(brain)
    for key in now:  # the new file's chunk may join a page: the old chunks keep their order and scores
        now[key] = [r for r in now[key] if r[0] != "notes.md"]
    before = json.loads((OLD / "answers.json").read_text())
    for key in now:
        now[key] = now[key][: len(before[key])]
        before[key] = before[key][: len(now[key])]
    for key, then in before.items():
        if key.startswith("vector:"):  # hybrid and multi scale by the candidates present: vector's are absolute
            assert [r[:2] for r in now[key]] == [r[:2] for r in then], key
            np.testing.assert_allclose([r[2] for r in now[key]], [r[2] for r in then], atol=TOLERANCE, err_msg=key)
    # the old generation's base file is untouched (readers of it go on): the new one is a new file
    assert _kind(old_root, 2) == usearch.ScalarKind.F16

    reopened = Brain(old_root)  # another process: reads the converted generation
    assert _answers(reopened) == _answers(brain)


def test_a_converted_base_answers_like_one_built_in_bf16(tmp_path):
    """The converted file's vectors are the bf16 roundings of the f16 ones, bit for bit what adding
    them to a bf16 index stores; its exact similarities equal that index's, its graph searches."""
    rng = np.random.default_rng(3)
    dim, n = 384, 600
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    keys = np.arange(10, 10 + n, dtype=np.uint64)
    old = usearch.Index(ndim=dim, metric="cos", dtype="f16", connectivity=16)
    old.add(keys, rows)
    old.remove(keys[:5])  # removed slots are converted too, and stay removed
    old.save(str(tmp_path / "f16.usearch"))
    vec.convert_base(tmp_path / "f16.usearch", tmp_path / "bf16.usearch")
    converted = usearch.Index.restore(str(tmp_path / "bf16.usearch"), view=True)
    fresh = usearch.Index(ndim=dim, metric="cos", dtype="bf16", connectivity=16)
    fresh.add(keys[5:], rows[5:].astype(np.float16).astype(np.float32))
    assert converted.dtype == usearch.ScalarKind.BF16 and len(converted) == n - 5
    assert not converted.contains(keys[:5]).any()
    got = np.stack(converted.get(keys[5:], "f32"))
    assert np.array_equal(got, np.stack(fresh.get(keys[5:], "f32")))
    for query in rows[[7, 100, 599]]:
        a = converted.search(query, 20, exact=True)
        b = fresh.search(query, 20, exact=True)
        assert np.array_equal(a.keys, b.keys) and np.array_equal(a.distances, b.distances)
        approx = converted.search(query, 1)
        assert approx.distances[0] < 1e-2  # the kept graph leads to the stored vector


def test_a_file_laid_out_otherwise_is_rebuilt_in_bf16(tmp_path, monkeypatch):
    """If usearch's file ever changes its layout, the byte rewrite is refused and the base is rebuilt
    from its vectors (slower, the same vectors)."""
    rng = np.random.default_rng(4)
    rows = rng.standard_normal((50, 16)).astype(np.float32)
    old = usearch.Index(ndim=16, metric="cos", dtype="f16")
    old.add(np.arange(50, dtype=np.uint64), rows)
    old.save(str(tmp_path / "f16.usearch"))
    monkeypatch.setattr(vec, "_HEAD", b"another")
    vec.convert_base(tmp_path / "f16.usearch", tmp_path / "bf16.usearch")
    index = vec._restore(tmp_path / "bf16.usearch")
    assert index.dtype == usearch.ScalarKind.BF16 and len(index) == 50
    want = vec._widen(vec._bf16_bits(rows.astype(np.float16).astype(np.float32)))
    assert np.array_equal(np.stack(index.get(np.arange(50, dtype=np.uint64), "f32")), want)


def test_an_index_of_a_newer_version_is_named_as_such_not_as_damage(old_root):
    """An engine that reads formats 2 and 3 and meets a later one (written by a newer Agent Brain Lab)
    says so, and that upgrading reads it as it is; --force rebuilds it in this format, cache kept."""
    (old_root / ".agent-brain" / "FORMAT").write_text("4\n")
    brain = Brain(old_root)
    status = brain.status()
    assert status.state == "newer_format" and "newer version of Agent Brain Lab (format 4)" in (status.problem or "")
    with pytest.raises(IndexNewer, match="upgrade Agent Brain Lab") as raised:
        brain.query("circle", mode="bm25")
    assert not isinstance(raised.value, IndexCorrupt) and raised.value.code == "index_newer"
    with pytest.raises(IndexNewer):
        brain.index()  # nothing rewritten without --force
    assert (old_root / ".agent-brain" / "FORMAT").read_text().strip() == "4"
    report = brain.index(force=True)
    assert report.chunks_embedded == 0  # every vector from the embedding cache
    assert (old_root / ".agent-brain" / "FORMAT").read_text().strip() == str(FORMAT_VERSION)
    assert [h.source for h in brain.query("circle", mode="bm25").results]
