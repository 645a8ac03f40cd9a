"""Patched keyword, graph, name and filter indexes against from-scratch builds, and their files as plain data."""

from __future__ import annotations

import hashlib
import os
import pickle
from contextlib import contextmanager
from pathlib import Path

import bm25s
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_brain_lab.engine import snapshot as snapshot_module
from agent_brain_lab.engine.retrieval import names as names_module
from agent_brain_lab.engine.retrieval.filters import FilterColumns
from agent_brain_lab.engine.store import graph as graph_store
from agent_brain_lab.engine.store import graph_files
from agent_brain_lab.engine.store import keywords as kw
from agent_brain_lab.engine.store.catalog import Catalog, FileState
from agent_brain_lab.engine.store.datafiles import CorruptIndexFile
from agent_brain_lab.engine.store.graph import CodeGraph, GraphFiles
from agent_brain_lab.engine.store.keywords import KeywordIndex
from agent_brain_lab.engine.store.vectors import VectorIndex
from agent_brain_lab.engine.tokenizer import tokenize
from agent_brain_lab.engine.types import SOURCE_TYPES

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "éta", "θ", "a_b", "x"]
QUERIES = [["alpha"], ["beta", "gamma", "gamma"], ["éta", "x", "missing"], WORDS]
SLOW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@contextmanager
def small_delta(size: int):
    kept = kw.DELTA_MIN
    kw.DELTA_MIN = size
    try:
        yield
    finally:
        kw.DELTA_MIN = kept


def _roundtrip(index: KeywordIndex, folder: Path) -> KeywordIndex:
    folder.mkdir()
    index.save(folder)
    opened = KeywordIndex.open(folder, len(index))
    assert opened is not None
    return opened


docs = st.lists(st.sampled_from(WORDS), max_size=8)
edits = st.lists(
    st.tuples(st.lists(st.integers(0, 40), max_size=6), st.lists(docs, max_size=5)),
    min_size=1,
    max_size=6,
)


@SLOW
@given(first=st.lists(docs, max_size=12), steps=edits, delta_min=st.sampled_from([0, 2, 5, 2048]))
def test_patched_keywords_score_exactly_like_a_fresh_build(tmp_path_factory, first, steps, delta_min):
    work = tmp_path_factory.mktemp("kw")
    live = {k: d for k, d in enumerate(first, 1)}
    next_key = len(first) + 1
    index = _roundtrip(KeywordIndex.build(list(live), list(live.values()), 1.5, 0.75), work / "g0")
    with small_delta(delta_min):
        for step, (picks, new_docs) in enumerate(steps, 1):
            keys = sorted(live)
            retired = sorted({keys[i % len(keys)] for i in picks}) if keys else []
            added = list(range(next_key, next_key + len(new_docs)))
            next_key += len(new_docs)
            for k in retired:
                del live[k]
            live.update(zip(added, new_docs))
            index = _roundtrip(index.patched(retired, added, new_docs), work / f"g{step}")
            fresh = KeywordIndex.build(sorted(live), [live[k] for k in sorted(live)], 1.5, 0.75)
            assert np.array_equal(index.keys, fresh.keys)
            for query in QUERIES:
                assert np.array_equal(index.scores(query), fresh.scores(query)), (query, len(index.segments))


def test_scores_match_bm25s_lucene():
    rng = np.random.default_rng(3)
    corpus = [[WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(1, 15))] for _ in range(300)]
    ours = KeywordIndex.build(range(1, 301), corpus, 1.2, 0.6)
    theirs = bm25s.BM25(k1=1.2, b=0.6, method="lucene")
    theirs.index(corpus, show_progress=False)
    for query in QUERIES[:3]:
        ids = [theirs.vocab_dict[t] for t in query if t in theirs.vocab_dict]
        np.testing.assert_allclose(ours.scores(query), theirs.get_scores_from_ids(ids), rtol=2e-5, atol=1e-6)


def test_empty_keywords_answer_zero_rows(tmp_path):
    index = _roundtrip(KeywordIndex.build([], [], 1.5, 0.75), tmp_path / "g")
    assert len(index) == 0 and index.scores(["alpha"]).shape == (0,)
    emptied = index.patched([], [7], [["alpha"]]).patched([7], [], [])
    assert len(emptied) == 0 and emptied.scores(["alpha"]).shape == (0,)


def test_a_one_document_edit_hard_links_the_base(tmp_path):
    big = [[WORDS[i % 10], WORDS[(i * 7) % 10]] for i in range(5000)]
    first = _roundtrip(KeywordIndex.build(range(1, 5001), big, 1.5, 0.75), tmp_path / "g1")
    second = _roundtrip(first.patched([17], [5001], [["gamma"]]), tmp_path / "g2")
    base = second.segments[0].name
    assert len(second.segments) == 2 and base == first.segments[0].name
    assert (tmp_path / "g2/keywords" / f"{base}.rows.npy").stat().st_ino == (
        tmp_path / "g1/keywords" / f"{base}.rows.npy"
    ).stat().st_ino


def test_generations_sharing_a_base_share_its_term_dictionary(tmp_path):
    big = [[WORDS[i % 10], WORDS[(i * 7) % 10], f"w{i}"] for i in range(3000)]
    first = _roundtrip(KeywordIndex.build(range(1, 3001), big, 1.5, 0.75), tmp_path / "g1")
    second = _roundtrip(first.patched([17], [3001], [["gamma"]]), tmp_path / "g2")
    rebuilt = _roundtrip(KeywordIndex.build(range(1, 3001), big, 1.5, 0.75), tmp_path / "g3")  # same bytes, new files
    for index in (first, second, rebuilt):
        assert index.scores(["w5", "gamma"])[5] > 0
    assert second.segments[0]._ids is first.segments[0]._ids
    assert rebuilt.segments[0]._ids is not first.segments[0]._ids
    assert rebuilt.segments[0]._ids == first.segments[0]._ids


# ------------------------------------------------------------------ graph

PATHS = ["app.py", "pkg/__init__.py", "pkg/models.py", "pkg/util.py", "lib.py", "docs/guide.md"]
NAMES = ["run", "save", "Model", "helper", "load", "load_config", "save_config", "ConfigLoader", "loadModel"]
TARGETS = ["run", "self.save", "pkg.util.helper", "Model", "os.path.join", "load()"]
MODULES = ["pkg", "pkg.models", ".util", "..lib", "lib", "os", "./models"]


@st.composite
def facts_for(draw, path: str):
    symbols, relations, chunk = [], [], iter(range(10_000))
    for name in draw(st.lists(st.sampled_from(NAMES), max_size=4)):
        owner = draw(st.sampled_from([None, "Model"]))
        qualname = f"{owner}.{name}" if owner and owner != name else name
        symbols.append(
            {
                "kind": "function",
                "name": name,
                "qualname": qualname,
                "start_line": 1,
                "end_line": 3,
                "chunk_id": f"{path}:{next(chunk)}",
            }
        )
    sources = [path] + [f"{path}::{s['qualname']}" for s in symbols]
    for kind, target in draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("imports"), st.sampled_from(MODULES)),
                st.tuples(st.sampled_from(["calls", "extends", "implements"]), st.sampled_from(TARGETS)),
            ),
            max_size=5,
        )
    ):
        relations.append(
            {
                "source_id": draw(st.sampled_from(sources)),
                "relation": kind,
                "target": target,
                "chunk_id": f"{path}:{next(chunk)}",
            }
        )
    sections = [
        {
            "section_path": title,
            "start_line": 1,
            "end_line": 2,
            "chunk_id": f"{path}:{next(chunk)}",
            "mentions": draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3)),
        }
        for title in draw(st.lists(st.sampled_from(["Intro", "Usage", None]), max_size=2))
    ]
    return {"symbols": symbols, "relations": relations, "sections": sections}


@st.composite
def workspace_edits(draw):
    first = {p: draw(facts_for(p)) for p in draw(st.lists(st.sampled_from(PATHS), unique=True))}
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        touched = draw(st.lists(st.sampled_from(PATHS), unique=True, min_size=1, max_size=3))
        steps.append({p: draw(st.one_of(st.none(), facts_for(p))) for p in touched})
    return first, steps


def _graph_data(graph: CodeGraph) -> tuple:
    return (
        sorted((n, sorted(d.items())) for n, d in graph.nodes()),
        sorted(graph.edges()),
    )


@SLOW
@given(case=workspace_edits(), merge_min=st.sampled_from([0, 2, 256]))
def test_patched_graph_equals_a_fresh_build(tmp_path_factory, case, merge_min, monkeypatch):
    monkeypatch.setattr(graph_files, "MERGE_MIN", merge_min)
    work = tmp_path_factory.mktemp("graph")
    first, steps = case
    live = dict(first)
    files = GraphFiles.build(live.items())
    for step, change in enumerate(steps):
        removed = [p for p in change if p in live]
        added = {p: f for p, f in change.items() if f is not None}
        for p in removed:
            del live[p]
        live.update(added)
        files = files.patched(removed, added)
        if step % 2:  # every other generation goes through its files
            (work / f"g{step}").mkdir()
            files.save(work / f"g{step}")
            files = GraphFiles.open(work / f"g{step}")
        fresh = GraphFiles.build(live.items())
        assert files.fragments == fresh.fragments
        patched_graph, fresh_graph = CodeGraph(files), CodeGraph(fresh)
        assert _graph_data(patched_graph) == _graph_data(fresh_graph)
        assert patched_graph.stats() == fresh_graph.stats() == _stats_of(fresh_graph)
        for name in NAMES:
            seeds = fresh_graph.lookup(name)
            assert patched_graph.lookup(name) == seeds
            assert patched_graph.neighbourhood(seeds, 2) == fresh_graph.neighbourhood(seeds, 2)
        some = {n for n, _ in patched_graph.nodes()}
        some = set(sorted(some)[::2])
        every = patched_graph.edges()
        assert [tuple(e.values()) for e in patched_graph.edges_between(some)] == [
            tuple(e) for e in every if e.source in some and e.target in some
        ]
        names, fresh_names = names_module.NameIndex(patched_graph), names_module.NameIndex(fresh_graph)
        for query in NAME_QUERIES:
            tokens = set(tokenize(query))
            matched = names.match(tokens)
            assert list(matched.items()) == list(_names_matched(patched_graph, tokens).items())  # same order too
            assert matched == fresh_names.match(tokens)
        for chunk_id in sorted({str(d["chunk_id"]) for _, d in fresh_graph.nodes() if d.get("chunk_id")}):
            assert sorted(names.defined_in(chunk_id)) == sorted(fresh_names.defined_in(chunk_id)), chunk_id


NAME_QUERIES = ["load the config", "save config and load config", "config loader model", "load model", "run"]


def _names_matched(graph: CodeGraph, tokens: set[str]) -> dict[str, float]:
    """What the names leg matches, computed the plain way over every node of the graph."""
    postings: dict[str, list[str]] = {}
    parts_of: dict[str, frozenset[str]] = {}
    for node, data in graph.nodes():
        if data.get("kind") in ("function", "method", "class") and data.get("chunk_id"):
            name = str(data.get("name", ""))
            parts = frozenset(tokenize(name)) - {name.lower().strip("_")} or frozenset(tokenize(name))
            if parts:
                parts_of[node] = parts
                for part in parts:
                    postings.setdefault(part, []).append(node)
    matched: dict[str, int] = {}
    for token in sorted(tokens):
        if len(postings.get(token, ())) <= names_module.MAX_POSTING:
            for node in postings.get(token, ()):
                matched[node] = matched.get(node, 0) + 1
    shared = {n: sum(p == parts_of[n] for p in parts_of.values()) for n in matched}
    return {
        n: len(parts_of[n]) / shared[n] ** 0.5
        for n, count in matched.items()
        if count == len(parts_of[n]) >= names_module.MIN_PARTS
    }


def _stats_of(graph: CodeGraph) -> dict:
    counts: dict[str, int] = {}
    for edge in graph.edges():
        counts[edge.relation] = counts.get(edge.relation, 0) + 1
    return {
        "entities": graph.number_of_nodes(),
        "relations": sum(counts.values()),
        "by_relation": dict(sorted(counts.items())),
    }


def test_a_patch_reresolves_callers_of_a_name_defined_elsewhere():
    caller = {"symbols": [], "sections": [], "relations": [_rel("app.py", "calls", "helper")]}
    files = GraphFiles.build([("app.py", caller)])
    assert not _targets(CodeGraph(files), "app.py")
    files = files.patched([], {"pkg/util.py": {"symbols": [_sym("helper")], "relations": [], "sections": []}})
    assert _targets(CodeGraph(files), "app.py") == [("pkg/util.py::helper", "calls")]
    files = files.patched(["pkg/util.py"], {})
    assert not _targets(CodeGraph(files), "app.py")


def _targets(graph: CodeGraph, node: str) -> list[tuple[str, str]]:
    return [(e.target, e.relation) for e in graph.out_edges(node)]


def _sym(name: str) -> dict:
    return {"kind": "function", "name": name, "qualname": name, "start_line": 1, "end_line": 2, "chunk_id": "c1"}


def _rel(source: str, relation: str, target: str) -> dict:
    return {"source_id": source, "relation": relation, "target": target, "chunk_id": "c0"}


# ------------------------------------------------------------------ filter columns

column_rows = st.lists(
    st.tuples(st.sampled_from(PATHS), st.sampled_from(SOURCE_TYPES), st.sampled_from(["python", "markdown", "x"])),
    max_size=6,
)


@SLOW
@given(first=column_rows, steps=st.lists(st.tuples(st.lists(st.integers(0, 40), max_size=5), column_rows), max_size=6))
def test_patched_filter_columns_equal_a_fresh_build(tmp_path_factory, first, steps):
    work = tmp_path_factory.mktemp("columns")
    live = {k: row for k, row in enumerate(first, 1)}
    columns = FilterColumns.build([(k, *row) for k, row in live.items()])
    for step, (picks, rows) in enumerate(steps):
        keys = sorted(live)
        retired = sorted({keys[i % len(keys)] for i in picks}) if keys else []
        added = [(k, *row) for k, row in enumerate(rows, max(live, default=0) + 1 + step)]
        for k in retired:
            del live[k]
        live.update((k, tuple(row)) for k, *row in added)
        patched = columns.patched(retired, added)
        assert patched is not None
        (work / f"g{step}").mkdir()
        patched.save(work / f"g{step}")
        columns = FilterColumns.open(work / f"g{step}")
        fresh = FilterColumns.build([(k, *live[k]) for k in sorted(live)])
        assert columns.files == fresh.files and columns.languages == fresh.languages
        for name in ("keys", "file_idx", "type_idx", "lang_idx"):
            assert np.array_equal(getattr(columns, name), getattr(fresh, name)), name
            assert getattr(columns, name).dtype == getattr(fresh, name).dtype


def test_a_patch_that_does_not_fit_the_columns_is_refused():
    columns = FilterColumns.build([(1, "a.py", "code", "python"), (5, "b.md", "doc", "markdown")])
    assert columns.patched([3], []) is None  # not a key of these columns
    assert columns.patched([], [(4, "c.py", "code", "python")]) is None  # below a live key
    assert columns.patched([], [(7, "c.py", "code", "python"), (6, "c.py", "code", "python")]) is None
    patched = columns.patched([5], [(4, "c.py", "code", "python")])
    assert patched is not None and list(patched.keys) == [1, 4] and patched.files == ["a.py", "c.py"]
    assert patched.languages == ["python"]


# ------------------------------------------------------------------ a scoped run's files

path_names = st.lists(st.text(alphabet="a/-0.é", min_size=1, max_size=6).filter(lambda p: "//" not in p), max_size=12)


@SLOW
@given(paths=path_names, folders=st.lists(st.text(alphabet="a/-0.é", max_size=4), min_size=1, max_size=3))
def test_the_files_under_folders_are_those_a_full_listing_holds(tmp_path_factory, paths, folders):
    catalog = Catalog(tmp_path_factory.mktemp("catalog") / "catalog.sqlite", create=True)
    try:
        states = [(FileState(p, "h", 1, 0.0, "code", "python"), None) for p in dict.fromkeys(paths)]
        catalog.stage(1, [], states, [])
        everything = catalog.live_files(1)
        wanted = {f.rstrip("/") for f in folders}
        inside = {p for p in everything if "" in wanted or any(p == f or p.startswith(f"{f}/") for f in wanted)}
        assert set(catalog.live_files(1, folders)) == inside
    finally:
        catalog.close()


# ------------------------------------------------------------------ remembered digests


def test_a_file_hashed_long_after_its_last_write_is_not_hashed_again_until_written(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"a" * 1000)
    old = path.stat().st_mtime_ns - 10**10
    os.utime(path, ns=(old, old))
    assert snapshot_module.file_digest(path) == (1000, hashlib.sha1(b"a" * 1000).hexdigest())
    path.write_bytes(b"b" * 1000)  # the same size, a new modification time
    assert snapshot_module.file_digest(path)[1] == hashlib.sha1(b"b" * 1000).hexdigest()


def test_a_file_hashed_right_after_a_write_is_not_remembered(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(b"a" * 1000)
    snapshot_module.file_digest(path)
    mtime = path.stat().st_mtime_ns
    path.write_bytes(b"b" * 1000)
    os.utime(path, ns=(mtime, mtime))  # as a second write within the same clock tick would leave it
    assert snapshot_module.file_digest(path)[1] == hashlib.sha1(b"b" * 1000).hexdigest()


def test_describing_a_staging_folder_settles_its_new_files_but_not_shared_ones(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "shared.bin").write_bytes(b"s" * 10)
    os.link(old / "shared.bin", new / "shared.bin")
    (new / "fresh.bin").write_bytes(b"f" * 10)
    shared_mtime = (old / "shared.bin").stat().st_mtime_ns
    contents = snapshot_module.describe_contents(new, settle=True)
    assert contents == {
        "fresh.bin": {"bytes": 10, "sha1": hashlib.sha1(b"f" * 10).hexdigest()},
        "shared.bin": {"bytes": 10, "sha1": hashlib.sha1(b"s" * 10).hexdigest()},
    }
    assert (old / "shared.bin").stat().st_mtime_ns == shared_mtime  # a file a served generation holds is untouched
    fresh = (new / "fresh.bin").stat()
    assert (fresh.st_dev, fresh.st_ino) in snapshot_module._known  # remembered: the next check does not hash it


# ------------------------------------------------------------------ index files are data


class Payload:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _saved(tmp_path: Path) -> Path:
    gen = tmp_path / "gen-1"
    gen.mkdir(exist_ok=True)
    KeywordIndex.build([1, 2], [["alpha"], ["beta"]], 1.5, 0.75).save(gen)
    CodeGraph(GraphFiles.build([("app.py", {"symbols": [_sym("run")], "relations": [], "sections": []})])).save(gen)
    return gen


def test_a_pickle_where_the_old_graph_file_was_is_never_loaded(tmp_path):
    gen = tmp_path / "gen-1"
    gen.mkdir()
    marker = tmp_path / "pwned"
    (gen / "graph.pickle").write_bytes(pickle.dumps(Payload(marker)))
    assert CodeGraph.open(gen) is None  # an index of the old format has no graph in the new one
    _saved(tmp_path)
    assert CodeGraph.open(gen) is not None and KeywordIndex.open(gen) is not None
    assert not marker.exists()


def test_pickled_arrays_and_json_are_refused(tmp_path):
    gen = _saved(tmp_path)
    marker = tmp_path / "pwned"
    np.save(gen / "keywords/s1.keys.npy", np.array([Payload(marker)], dtype=object), allow_pickle=True)
    with pytest.raises(CorruptIndexFile, match="s1.keys.npy"):
        KeywordIndex.open(gen)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("keywords/s1.rows.npy", lambda b: b[: len(b) - 3]),
        ("keywords/s1.tf.npy", lambda b: b"garbage"),
        ("keywords/s1.live.npy", lambda b: b""),
        ("keywords/keywords.json", lambda b: b'{"format": 1, "segments": ["../x"]}'),
        ("keywords/keywords.json", lambda b: b"\xff\xfe"),
        ("graph/graph.json", lambda b: b[:10]),
        ("graph/b1.sqlite", lambda b: b"garbage" * 100),
        ("graph/b1.sqlite", lambda b: b[: len(b) // 2]),
        ("graph/delta.json", lambda b: b'{"app.py": [1, 2, 3]}'),
        ("graph/delta.json", lambda b: b'{"app.py": [{"symbols": [{"qualname": 1}]}, [], []]}'),
        ("graph/delta.json", lambda b: b"[]"),
    ],
)
def test_damaged_files_raise_one_clear_error(tmp_path, name, damage):
    gen = _saved(tmp_path)
    path = gen / name
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CorruptIndexFile):
        KeywordIndex.open(gen, 2) if name.startswith("keywords") else CodeGraph.open(gen)


def test_the_next_generation_is_built_afresh_when_the_previous_is_damaged(tmp_path):
    gen = _saved(tmp_path)
    (gen / "keywords/s1.rows.npy").write_bytes(b"x")
    (gen / "graph/b1.sqlite").write_bytes(b"x")
    index = kw.next_generation(
        gen, np.array([2, 3]), [1], [3], ["gamma"], lambda: [(2, "beta"), (3, "gamma")], 1.5, 0.75
    )
    assert list(index.keys) == [2, 3] and index.scores(["gamma"])[1] > 0
    graph = graph_store.next_generation(gen, [], {}, lambda: [("lib.py", {"symbols": [_sym("load")]})])
    assert graph.lookup("load") == ["lib.py::load"]


@pytest.mark.parametrize("damage", [lambda b: b[: len(b) // 2], lambda b: b"not an index", lambda b: b""])
def test_a_damaged_vector_file_raises_one_clear_error(tmp_path, damage):
    index = VectorIndex.empty(8)
    index.update([], list(range(1, 40)), np.random.default_rng(0).random((39, 8), dtype=np.float32))
    index.save(tmp_path)
    path = tmp_path / "vectors.usearch"
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CorruptIndexFile, match="vectors.usearch"):
        VectorIndex.open(tmp_path)


def test_a_planted_pickle_never_runs_through_the_brain(tmp_path):
    from agent_brain_lab.engine.brain import Brain

    (tmp_path / "shop.py").write_text(
        "def total(items):\n    return sum(items)\n\n\ndef report(r):\n    return total(r)\n"
    )
    Brain(tmp_path).index()
    gen = next((tmp_path / ".agent-brain").glob("gen-*"))
    marker = tmp_path / "pwned"
    for name in ("graph.pickle", "graph/graph.pickle", "keywords/params.index.pkl"):
        (gen / name).write_bytes(pickle.dumps(Payload(marker)))
    brain = Brain(tmp_path)  # a new process's view
    brain.warm()
    assert brain.query("what calls total", mode="graph").results[0].symbol_name == "report"
    assert brain.query("total", mode="bm25").results
    assert not marker.exists()
