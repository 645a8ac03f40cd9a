"""The array base graph answers what the networkx graph built from the same fragments answers, in the same order."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_brain_lab.engine.graph_names import Fragment
from agent_brain_lab.engine.store.datafiles import CorruptIndexFile
from agent_brain_lab.engine.store.graph import graph_of
from agent_brain_lab.engine.store.graph_arrays import ArrayGraph
from agent_brain_lab.engine.store.graph_cache import base_graph
from agent_brain_lab.engine.store.graph_files import BaseFile

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
    db.execute("UPDATE fragments SET edges = ?", ('[["a.py", "b.py"]]',))
    db.commit()
    db.close()
    with pytest.raises(CorruptIndexFile, match="malformed"):
        base_graph(BaseFile(tmp_path / "b1.sqlite"))
