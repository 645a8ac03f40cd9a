"""The vector index as base + delta + tombstones answers like one usearch index of the live vectors."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.native import usearch_index
from agent_brain_lab.engine.store import vectors as vec
from agent_brain_lab.engine.store.datafiles import CorruptIndexFile
from agent_brain_lab.engine.store.vectors import VectorIndex

Index = usearch_index().Index  # loaded the engine's way (engine/native.py)

DIM = 16


def _unit(rng, n: int, dim: int = DIM) -> np.ndarray:
    """Unit-length vectors, as the embedder makes."""
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _reference(live: dict[int, np.ndarray]) -> Index:
    index = Index(ndim=DIM, metric="cos", dtype=vec.STORAGE, connectivity=16)
    if live:
        index.add(np.array(list(live), dtype=np.uint64), np.stack(list(live.values())))
    return index


def _assert_same(index: VectorIndex, live: dict[int, np.ndarray], rng) -> None:
    ref = _reference(live)
    assert len(index) == len(live)
    absent = [k for k in range(0, 400, 7) if k not in live][:20]
    probe = [*list(live)[:50], 10_000_000, 10_000_001, *absent]
    expected_in = np.array([k in live for k in probe])
    assert np.array_equal(index.contains(probe), expected_in)
    for _ in range(3):
        query = rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        count = int(rng.integers(1, 30))
        keys, sims = index.search(query, count)
        want = ref.search(query, min(count, len(live)), exact=True) if live else None
        want_sims = (1.0 - want.distances) if want is not None else np.zeros(0)
        assert len(keys) == len(want_sims) and len(set(keys.tolist())) == len(keys)
        assert set(keys.tolist()) <= set(live)
        np.testing.assert_allclose(sims, want_sims, atol=2e-3)  # the top similarities, in order
        exact, stored = index.similarities(query, keys)
        np.testing.assert_allclose(exact, sims, atol=2e-3)  # each key reported with its own similarity
        assert stored.all()
        stored = ref.get(np.array(probe, dtype=np.uint64))
        ref_sims = np.array([0.0 if v is None else float(np.asarray(v, np.float32) @ query) for v in stored])
        probe_sims, probe_stored = index.similarities(query, probe)
        np.testing.assert_allclose(probe_sims, ref_sims, atol=2e-3)
        assert np.array_equal(probe_stored, expected_in)  # the same answer as contains()


@pytest.mark.parametrize("seed", range(4))
def test_random_add_remove_merge_steps_answer_like_one_index(tmp_path, monkeypatch, seed):
    monkeypatch.setattr(vec, "DELTA_MIN", 30)  # small thresholds: the sequence crosses merges
    monkeypatch.setattr(vec, "DEAD_MIN", 12)
    rng = np.random.default_rng(seed)
    live: dict[int, np.ndarray] = {}
    first = _unit(rng, 120)
    index = VectorIndex.empty(DIM)
    index.update([], list(range(1, 121)), first)
    live.update(zip(range(1, 121), first))
    next_key = 121
    folder = tmp_path / "gen-0"
    folder.mkdir()
    index.save(folder)
    index = VectorIndex.open(folder)
    merges = 0
    for step in range(1, 25):
        removed = rng.choice(list(live), size=min(len(live), int(rng.integers(0, 8))), replace=False).tolist()
        n_new = int(rng.integers(0, 10))
        added = list(range(next_key, next_key + n_new))
        next_key += n_new
        replaced = rng.choice(list(live), size=1).tolist() if rng.random() < 0.3 and live else []
        replaced = [k for k in replaced if k not in removed]
        new_vectors = _unit(rng, n_new + len(replaced))
        index.update(removed, added + replaced, new_vectors)
        for k in removed:
            del live[k]
        live.update(zip(added + replaced, new_vectors))
        target = tmp_path / f"gen-{step}"
        target.mkdir()
        written = index.save(target)
        merges += (target / vec.FILE).stat().st_nlink == 1
        assert set(written) == {p.name for p in target.iterdir()}
        index = VectorIndex.open(target)  # a reader of the published generation
        _assert_same(index, live, rng)
    assert 1 <= merges < 24  # the sequence crossed merges, and patched generations in between


def test_tombstones_among_the_best_still_give_a_full_page_of_the_best_live(tmp_path, monkeypatch):
    """A search over-fetches the base by about the tombstones' expected share of a page, not by all of
    them; a page they leave short is searched again, so the answer is still the best live vectors."""
    monkeypatch.setattr(vec, "DEAD_MIN", 10_000)  # keep every tombstone (no merge)
    rng = np.random.default_rng(7)
    vectors = _unit(rng, 600)
    index = VectorIndex.empty(DIM)
    index.update([], list(range(600)), vectors)
    folder = tmp_path / "gen-0"
    folder.mkdir()
    index.save(folder)
    index = VectorIndex.open(folder)
    query = vectors[0]
    nearest = np.argsort(-(vectors @ query), kind="stable")
    dead = nearest[:40].tolist()  # the 40 nearest: more than any small over-fetch holds
    index.update(dead, [], np.zeros((0, DIM), dtype=np.float32))
    live = {k: vectors[k] for k in range(600) if k not in set(dead)}
    for count in (1, 10, 25):
        keys, sims = index.search(query, count)
        want = _reference(live).search(query, count, exact=True)
        assert len(keys) == count and not set(keys.tolist()) & set(dead)
        np.testing.assert_allclose(sims, 1.0 - want.distances, atol=2e-3)
    _assert_same(index, live, rng)


def test_a_patched_generation_links_its_base_and_writes_a_small_delta(tmp_path):
    rng = np.random.default_rng(7)
    index = VectorIndex.empty(384)
    index.update([], list(range(1, 501)), _unit(rng, 500, 384))
    (tmp_path / "a").mkdir()
    index.save(tmp_path / "a")
    index = VectorIndex.open(tmp_path / "a")
    index.update([3, 4], [501], _unit(rng, 1, 384))
    (tmp_path / "b").mkdir()
    assert sorted(index.save(tmp_path / "b")) == sorted(
        [vec.FILE, vec.SLOTS, vec.DEAD, vec.DELTA_KEYS, vec.DELTA_VECTORS]
    )
    for name in (vec.FILE, vec.SLOTS):
        assert (tmp_path / "b" / name).stat().st_ino == (tmp_path / "a" / name).stat().st_ino
    reopened = VectorIndex.open(tmp_path / "b")
    assert len(reopened) == 499
    assert reopened.contains([3, 4, 5, 501]).tolist() == [False, False, True, True]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (vec.DELTA_VECTORS, np.zeros(5, dtype=np.float16)),  # not len(keys) * dim
        (vec.DELTA_VECTORS, np.zeros(16, dtype=np.float32)),  # wrong dtype
        (vec.DEAD, np.array([999], dtype=np.int64)),  # a tombstone for a key the base lacks
        (vec.DELTA_KEYS, np.array([[1]], dtype=np.int64)),  # wrong shape
    ],
)
def test_a_damaged_delta_or_tombstone_file_raises_one_clear_error(tmp_path, name, content):
    index = VectorIndex.empty(DIM)
    index.update([], [1, 2], np.ones((2, DIM), dtype=np.float32))
    index.save(tmp_path)
    index = VectorIndex.open(tmp_path)
    index.update([1], [3], np.ones((1, DIM), dtype=np.float32))
    (tmp_path / "next").mkdir()
    index.save(tmp_path / "next")
    np.save(tmp_path / "next" / name, content, allow_pickle=False)
    with pytest.raises(CorruptIndexFile, match="vectors"):
        VectorIndex.open(tmp_path / "next")


def test_a_one_file_edit_links_the_vector_base_and_answers_like_a_rebuild(tmp_path, tmp_path_factory):
    root = tmp_path / "ws"
    (root / "geo").mkdir(parents=True)
    (root / "geo/shapes.py").write_text("def circle_area(r):\n    return 3.14159 * r * r\n")
    (root / "geo/report.py").write_text("def describe(r):\n    return f'area {r}'\n")
    (root / "README.md").write_text("# Geometry\n\nAreas of circles and squares.\n")
    brain = Brain(root)
    first = brain.index().generation
    (root / "geo/shapes.py").write_text("def square_area(side):\n    return side * side\n")
    gen = brain.index(path="geo/shapes.py").generation
    old, new = root / ".agent-brain" / f"gen-{first}", root / ".agent-brain" / f"gen-{gen}"
    assert (new / vec.FILE).stat().st_ino == (old / vec.FILE).stat().st_ino  # the base is not rewritten
    contents = json.loads((new / "manifest.json").read_text())["contents"]
    assert {vec.DEAD, vec.DELTA_KEYS, vec.DELTA_VECTORS} <= set(contents)

    copy = tmp_path_factory.mktemp("rebuilt") / "ws"
    shutil.copytree(root, copy)
    rebuilt = Brain(copy)
    rebuilt.index(force=True)
    assert not (copy / ".agent-brain" / f"gen-{rebuilt.status().generation}" / vec.DELTA_KEYS).exists()
    for query in ("area of a square", "circle", "describe the report"):
        ours = [(r.source, r.text, round(r.score, 4)) for r in brain.query(query, mode="vector", top_k=10).results]
        theirs = [(r.source, r.text, round(r.score, 4)) for r in rebuilt.query(query, mode="vector", top_k=10).results]
        assert ours == theirs, query

    delta = new / vec.DELTA_VECTORS
    original = delta.read_bytes()
    delta.write_bytes(original[:-2] + bytes((b + 1) % 256 for b in original[-2:]))  # the same size
    status = Brain(root).status()
    assert status.state == "corrupt" and vec.DELTA_VECTORS in status.problem
    delta.write_bytes(original)
    assert Brain(root).status().state == "ready"


def test_a_keys_similarity_does_not_depend_on_the_keys_asked_with_it(tmp_path):
    """Hybrid remembers the similarities of its first pass for the deeper ones, and equal vectors must
    score equal (ties are then ordered by key): each key's similarity is the same float alone, in any
    order and among any others, for base and delta keys, at the model's size and past the ~1,100 rows
    from which BLAS splits a product over threads."""
    rng = np.random.default_rng(7)
    dim, n = 384, 1600
    vectors = _unit(rng, n, dim)
    vectors[1] = vectors[0]  # the same text twice
    base = VectorIndex.empty(dim)
    base.update([], list(range(n)), vectors)
    folder = tmp_path / "gen-1"
    folder.mkdir()
    base.save(folder)
    index = VectorIndex.open(folder)
    assert index is not None
    index.update([5, 6], [n, n + 1], _unit(rng, 2, dim))  # a delta and two tombstones
    keys = np.arange(n + 2)
    query = _unit(rng, 1, dim)[0]
    sims, stored = index.similarities(query, keys)
    assert stored.sum() == n and not stored[[5, 6]].any()
    assert sims[0] == sims[1]
    order = rng.permutation(len(keys))
    again, _ = index.similarities(query, keys[order])
    assert np.array_equal(again, sims[order])
    for key in [0, 1, 2, 777, n - 1, n, n + 1]:
        alone, _ = index.similarities(query, [key])
        assert alone[0] == sims[key], key
    assert index._tape is not None  # read in place from the base file's vector tape
    index._tape = None  # ... and through usearch's look-up: the same floats
    looked_up, looked_up_stored = index.similarities(query, keys)
    assert np.array_equal(looked_up, sims) and np.array_equal(looked_up_stored, stored)
    stored_row = vec._widen(vec._bf16_bits(vectors[2])).astype(np.float64)
    assert abs(float(stored_row @ query) - float(sims[2])) < 1e-5  # the stored (bf16) vector's cosine


def test_a_base_without_its_slots_is_read_through_usearch_and_the_next_save_maps_it(tmp_path):
    """A bf16 base saved before ``vectors.slots.npy`` existed answers through usearch's look-up; the
    next generation links the base and writes the map, which then answers with the same floats."""
    rng = np.random.default_rng(11)
    vectors = _unit(rng, 300, 384)
    index = VectorIndex.empty(384)
    index.update([], list(range(300)), vectors)
    (tmp_path / "a").mkdir()
    index.save(tmp_path / "a")
    (tmp_path / "a" / vec.SLOTS).unlink()
    old = VectorIndex.open(tmp_path / "a")
    assert old is not None and old._tape is None
    query = _unit(rng, 1, 384)[0]
    keys = np.arange(-5, 310)
    want = old.similarities(query, keys)
    (tmp_path / "b").mkdir()
    assert vec.SLOTS in old.save(tmp_path / "b")
    new = VectorIndex.open(tmp_path / "b")
    assert new is not None and new._tape is not None
    got = new.similarities(query, keys)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_slots_file_that_maps_keys_to_other_rows_is_refused(tmp_path):
    rng = np.random.default_rng(12)
    index = VectorIndex.empty(384)
    index.update([], list(range(20)), _unit(rng, 20, 384))
    index.save(tmp_path)
    flat = np.load(tmp_path / vec.SLOTS)
    flat[20], flat[21] = flat[21], flat[20]  # keys 0 and 1 swap rows
    np.save(tmp_path / vec.SLOTS, flat)
    with pytest.raises(CorruptIndexFile, match="slots"):
        VectorIndex.open(tmp_path)


@pytest.mark.parametrize("churn", [False, True])
def test_the_slots_read_from_the_graph_agree_with_the_rows_bytes(tmp_path, churn):
    """The writer reads each key's row from the graph's node records (fast) and checks it; the slow
    way (every key's vector found among the rows by its bytes) gives the same rows. With churn, the
    in-memory base had keys removed and added again (removed slots stay in the file)."""
    rng = np.random.default_rng(13)
    index = VectorIndex.empty(384)
    index.update([], list(range(400)), _unit(rng, 400, 384))
    if churn:
        index.update(list(range(0, 400, 3)), list(range(0, 60, 3)), _unit(rng, 20, 384))
    index.save(tmp_path)
    base = vec._restore(tmp_path / vec.FILE)
    rows = vec._tape_rows(base)
    assert rows is not None
    keys = np.sort(np.asarray(base.keys, dtype=np.int64))
    fast = vec._slots_from_nodes(base, keys, len(rows))
    slow = vec._slots_by_bytes(base, rows, keys)
    if not churn:
        assert fast is not None  # usearch's layout as read: the fast way is taken
    if fast is not None:
        assert np.array_equal(rows[fast], rows[slow])
    opened = VectorIndex.open(tmp_path)
    assert opened is not None and opened._tape is not None
    query = _unit(rng, 1, 384)[0]
    probe = np.arange(-3, 405)
    in_place = opened.similarities(query, probe)
    opened._tape = None
    looked_up = opened.similarities(query, probe)
    assert np.array_equal(in_place[0], looked_up[0]) and np.array_equal(in_place[1], looked_up[1])
