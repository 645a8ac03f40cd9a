"""The array base graph answers what the networkx graph built from the same fragments answers, in the same order."""

from __future__ import annotations

import shutil
import sqlite3

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_graph_resolution import FILES
from workspace_fixture import indexed_files

from agent_brain_lab.engine.graph_names import Fragment
from agent_brain_lab.engine.store.datafiles import CorruptIndexFile
from agent_brain_lab.engine.store.graph import graph_of
from agent_brain_lab.engine.store.graph_arrays import ArrayGraph
from agent_brain_lab.engine.store.graph_cache import base_graph
from agent_brain_lab.engine.store.graph_files import BaseFile, _fragments_graph

NODES = ["a.py", "a.py::f", "a.py::g", "b.py", "b.py::h", "c.md#x"]
RELATIONS = ["calls", "contains", "imports"]

node_attrs = st.fixed_dictionaries({"kind": st.sampled_from(["function", "file"]), "name": st.sampled_from("fgh")})
edge = st.tuples(
    st.sampled_from([*NODES, "ext:os"]),
    st.sampled_from([*NODES, "ext:os", "nowhere"]),
    st.sampled_from(RELATIONS),
    st.lists(st.sampled_from(["c1", "c2", "c3"]), min_size=1, max_size=2),
)
part = st.tuples(
    st.lists(st.tuples(st.sampled_from(NODES), node_attrs), max_size=4),
    st.lists(edge, max_size=12),  # repeats an edge, or a (source, target) pair under another relation
    st.lists(st.sampled_from(["os", "re"]), max_size=2),
)


def _both(parts: dict[str, tuple]) -> tuple:
    ordered = [parts[p] for p in sorted(parts)]
    return graph_of(parts), ArrayGraph.build((p[0] for p in ordered), ((p[1], p[2]) for p in ordered))


@settings(max_examples=200, deadline=None)
@given(parts=st.dictionaries(st.sampled_from(["a.py", "b.py", "c.md"]), part, max_size=3))
def test_array_graph_matches_networkx_in_order(parts):
    nxg, arr = _both(parts)
    assert_same(arr, nxg)


@settings(max_examples=100, deadline=None)
@given(parts=st.dictionaries(st.sampled_from(["a.py", "b.py", "c.md"]), part, max_size=3))
def test_a_stored_array_graph_reads_back_the_same(parts):
    _, arr = _both(parts)
    assert_same(ArrayGraph.from_tables(dict(arr.tables())), arr)


def assert_same(arr, nxg) -> None:
    """``arr`` answers every call the engine makes as ``nxg`` (networkx or arrays) does, in the same order."""
    assert list(arr.nodes(data=True)) == list(nxg.nodes(data=True))
    assert list(arr.edges(keys=True, data=True)) == list(nxg.edges(keys=True, data=True))
    assert arr.number_of_edges() == nxg.number_of_edges()
    for node in nxg.nodes:
        assert node in arr and arr.nodes[node] == nxg.nodes[node]
        assert arr.out_edges(node, keys=True, data=True) == list(nxg.out_edges(node, keys=True, data=True))
        assert arr.in_edges(node, keys=True, data=True) == list(nxg.in_edges(node, keys=True, data=True))
        assert arr.in_edges(node) == list(nxg.in_edges(node))
        assert list(arr.successors(node)) == list(nxg.successors(node))
        assert list(arr.predecessors(node)) == list(nxg.predecessors(node))
    assert "missing" not in arr and arr.nodes.get("missing") is None


def test_edge_data_is_a_fresh_copy():
    _, arr = _both({"a.py": ([("a.py", {"kind": "file"})], [("a.py", "b.py", "imports", ["c1"])], [])})
    arr.out_edges("a.py", data=True)[0][2]["chunk_ids"].append("c9")
    assert arr.out_edges("a.py", data=True) == [("a.py", "b.py", {"chunk_ids": ["c1"]})]


def test_a_malformed_base_fragment_is_a_corrupt_file(tmp_path):
    BaseFile.write(
        tmp_path / "b1.sqlite", [("a.py", Fragment({"symbols": [], "relations": [], "sections": []}, [], []))]
    )
    db = sqlite3.connect(tmp_path / "b1.sqlite")
    db.execute("DROP TABLE arrays")  # a base written before bases stored their graph: read from its fragments
    db.execute("UPDATE fragments SET edges = ?", ('[["a.py", "b.py"]]',))
    db.commit()
    db.close()
    with pytest.raises(CorruptIndexFile, match="malformed"):
        base_graph(BaseFile(tmp_path / "b1.sqlite"))


@pytest.fixture(scope="module")
def base_path(tmp_path_factory):
    """The graph base a real index of several languages' files wrote."""
    brain = indexed_files(tmp_path_factory.mktemp("arrays"), FILES)
    (path,) = brain._reader.view().snapshot.dir.glob("graph/b*.sqlite")
    return path


def test_a_written_base_stores_the_graph_its_fragments_make(base_path):
    base = BaseFile(base_path)
    assert base.rows("SELECT COUNT(*) FROM arrays")[0][0] == 8
    stored, built = base.graph(), _fragments_graph(base.each)
    assert stored.number_of_edges() > 100
    assert_same(stored, built)


def test_a_base_written_before_bases_stored_arrays_reads_the_same_graph(base_path, tmp_path):
    old = tmp_path / "b1.sqlite"
    shutil.copyfile(base_path, old)
    db = sqlite3.connect(old)
    db.execute("DROP TABLE arrays")
    db.commit()
    db.close()
    assert_same(BaseFile(old).graph(), BaseFile(base_path).graph())


def test_a_graph_stored_by_another_version_of_the_build_is_built_again(base_path, tmp_path):
    base = _damaged(base_path, tmp_path, "tables", lambda d: d.replace(b'{"version":1,', b'{"version":0,', 1))
    assert_same(base.graph(), BaseFile(base_path).graph())


def _damaged(base_path, tmp_path, name: str, change) -> BaseFile:
    copy = tmp_path / "b1.sqlite"
    shutil.copyfile(base_path, copy)
    db = sqlite3.connect(copy)
    (data,) = db.execute("SELECT data FROM arrays WHERE name = ?", (name,)).fetchone()
    db.execute("UPDATE arrays SET data = ? WHERE name = ?", (change(bytes(data)), name))
    db.commit()
    db.close()
    return BaseFile(copy)


def _shifted(dtype: str, at: int, by: int):
    def change(data: bytes) -> bytes:
        column = np.frombuffer(data, dtype=dtype).copy()
        column[at] += by
        return column.tobytes()

    return change


@pytest.mark.parametrize(
    "name, change",
    [
        ("tables", lambda d: d[:-10]),  # truncated JSON
        ("tables", lambda d: d.replace(b'"kind"', b'"kinb"', 1).replace(b'"ids":[', b'"ids":[1,', 1)),  # wrong type
        ("src", lambda d: d[:-4]),  # a column shorter than the others
        ("dst", lambda d: d + b"\0"),  # not a whole number of values
        ("dst", _shifted("<i4", 0, 1_000_000)),  # an edge to no node
        ("rel", _shifted("<i2", 0, 1_000)),  # an unknown relation
        ("chunk", _shifted("<i4", -1, 1_000_000)),  # unknown chunk ids
        ("src", _shifted("<i4", 0, 1)),  # edges no longer sorted by source
        ("in_edge", _shifted("<i4", 0, 1)),  # not a permutation
        ("in_ptr", _shifted("<i8", 1, 1)),  # a node's in-edges miscounted
        ("out_ptr", _shifted("<i8", -1, -1)),  # the last edge lost
    ],
)
def test_a_damaged_stored_graph_is_a_corrupt_file(base_path, tmp_path, name, change):
    with pytest.raises(CorruptIndexFile, match="graph: stored"):
        _damaged(base_path, tmp_path, name, change).graph()
