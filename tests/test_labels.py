"""What a person reads about a result is written once, by the engine (engine/labels.py)."""

from __future__ import annotations

import pytest
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain, render
from agent_brain_lab.engine import labels
from agent_brain_lab.engine.retrieval.intent import LABELS, RELATION_CUES, analyse
from agent_brain_lab.engine.types import MODES

# each mode's questions: prose, a relation question the graph answers, names only
QUERIES = ("apply discount to the cart total", "what calls apply_discount", "Cart.total")


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    root = tmp_path_factory.mktemp("labels")
    copy_workspace(root, ["shop", "docs", "analysis.ipynb"])
    brain = Brain(root)
    brain.index()
    return brain


def test_one_rule_for_lines_cells_and_names():
    assert labels.location("a.py", 7, 7) == "a.py:7"
    assert labels.location("a.py", 7, 9) == "a.py:7-9"
    assert labels.location("nb.ipynb", 1, 2, cell_index=8) == "nb.ipynb:1-2 [cell 9]"  # as JupyterLab counts
    assert labels.location("nb.ipynb", 3, 3, cell_index=0) == "nb.ipynb:3 [cell 1]"
    assert labels.location("shop/") == "shop/"
    assert labels.location("a\nb\x1b.py", 1, 1) == "a\\nb\\x1b.py:1"  # never a raw control character
    assert labels.anchor("Cart.total", "method", None) == "method Cart.total"
    assert labels.anchor("helper", None, None) == "helper"
    assert labels.anchor(None, None, "Guide > Install") == "Guide > Install"
    assert labels.anchor(None, None, None) is None
    assert [labels.score_text(v) for v in (0.8123, 0.5, 12.34, 123.4, 0.0)] == ["0.812", "0.500", "12.3", "123", "0.00"]


def test_a_chunk_with_no_vector_yet_says_so_only_where_a_blend_heard_vectors():
    hybrid = labels.legs("hybrid", None, 3.2, None, {"bm25": 1})
    assert [(leg.label, leg.missing) for leg in hybrid] == [("vector not embedded yet", True), ("bm25 3.20 #1", False)]
    assert [leg.label for leg in labels.legs("bm25", None, 3.2, None, {"bm25": 1})] == ["bm25 3.20 #1"]
    multi = labels.legs("multi", 0.5, None, None, {"hybrid": 2, "names": 1})
    assert [leg.label for leg in multi] == ["hybrid #2", "names #1", "vector 0.500"]  # a rank, a score, or both
    assert labels.coverage_note(None) is None and labels.coverage_note(1.0) is None
    assert labels.coverage_note(0.5) == "semantic search: 50% of the workspace"


def test_every_intent_the_query_analysis_can_give_has_words():
    emitted = {LABELS.get((rel, way), rel) for rel in RELATION_CUES for way in ("in", "out")} | {"lookup", "prose"}
    assert emitted <= set(labels.INTENT_WORDS), emitted - set(labels.INTENT_WORDS)
    assert analyse(QUERIES[1]).label == "callers"  # the example fusion_note's docstring gives


@pytest.mark.parametrize("mode", MODES)
def test_results_label_exactly_the_legs_the_engine_reports(brain, mode):
    """Each label names a leg of its mode, with the score and rank the result carries; every leg the
    result has a score or a rank from is labelled, and only those."""
    for query in QUERIES:
        resp = brain.query(query, mode=mode, top_k=5)
        assert resp.results, (mode, query)
        for r in resp.results:
            reported = {leg for leg, score in (("vector", r.vector_score), ("bm25", r.bm25_score)) if score is not None}
            reported |= {"graph"} if r.graph_score is not None else set()
            reported |= set(r.ranks)
            shown = {leg.leg for leg in r.legs if not leg.missing}
            assert shown == reported, (mode, query, r.legs, r.ranks)
            assert shown <= set(labels.MODE_LEGS[mode])
            for leg in r.legs:
                assert leg.rank == (None if leg.missing else r.ranks.get(leg.leg))
                assert leg.label.startswith(leg.leg + " ")
                if leg.rank is not None:
                    assert leg.label.endswith(f" #{leg.rank}")
        assert (resp.coverage_note is None) == (resp.coverage is None or resp.coverage >= 1)
        if mode == "multi":
            assert set(resp.weights) == {"hybrid", "graph", "names"}
            words = labels.INTENT_WORDS[resp.intent]
            assert resp.fusion_note and resp.fusion_note.startswith(f"Read as: {words}. Weighed: ")
        else:
            assert resp.fusion_note is None


def test_location_anchor_and_focus_line_of_real_results(brain):
    resp = brain.query("what calls apply_discount", mode="graph", top_k=5)
    relation = next(r for r in resp.results if r.relationship_path and r.highlights)
    lines = (brain.root / relation.source).read_text(encoding="utf-8").splitlines()
    (a, b), *_ = relation.highlights
    assert relation.text[a:b] in lines[relation.focus_line - 1]  # the first marked line, in the file
    assert relation.start_line <= relation.focus_line <= relation.end_line
    for r in resp.results:
        span = f"{r.start_line}" if r.start_line == r.end_line else f"{r.start_line}-{r.end_line}"
        cell = "" if r.cell_index is None else f" [cell {r.cell_index + 1}]"
        assert r.location == f"{r.source}:{span}{cell}"
        symbol = f"{r.symbol_type} {r.qualified_symbol}" if r.symbol_type else r.qualified_symbol
        assert r.anchor == (symbol or r.section_path)
    cells = brain.query("discount curve", mode="bm25", source_types=["notebook"], top_k=3).results
    assert cells and all(r.location.endswith(f" [cell {r.cell_index + 1}]") for r in cells)


def test_graph_nodes_and_chunks_carry_the_same_labels(brain):
    graph = brain.graph_entity("apply_discount", depth=1).to_dict()
    for node in graph["nodes"]:
        if node.get("source"):
            assert node["location"] == labels.location(node["source"], node.get("start_line"), node.get("end_line"))
        else:
            assert node["location"] is None
    assert graph["chunks"] and all(c["location"] and c["legs"] == [] for c in graph["chunks"])
    assert all(c["location"] in render.graph_text(graph) for c in graph["chunks"])


def test_the_text_view_shows_the_engines_strings(brain):
    resp = brain.query("Cart.total", mode="multi", top_k=3)
    text = render.response_text(resp)
    assert resp.fusion_note in text
    for r in resp.results:
        assert r.location in text and (r.anchor is None or r.anchor in text)
        assert " · ".join(leg.label for leg in r.legs) in text
