"""The query analysis shared by graph mode and multi, and multi's fusion rules (no index needed)."""

from __future__ import annotations

import pytest

from agent_brain_lab.engine.retrieval.context import Hit
from agent_brain_lab.engine.retrieval.fusion import rrf
from agent_brain_lab.engine.retrieval.intent import analyse
from agent_brain_lab.engine.retrieval.multi import LOOKUP_WEIGHTS, PROSE_WEIGHTS, RELATION_WEIGHTS, boosted, weights_for


@pytest.mark.parametrize(
    ("query", "label", "relation", "entity", "direction"),
    [
        ("what calls parse_header", "callers", "calls", "parse_header", "in"),
        ("who calls Foo.bar?", "callers", "calls", "Foo.bar", "in"),
        ("where is render called", "callers", "calls", "render", "in"),
        ("callers of render", "callers", "calls", "render", "in"),
        ("which functions use HTTPHeaders", "callers", "calls", "HTTPHeaders", "in"),
        ("find the code that invokes Template.render", "callers", "calls", "Template.render", "in"),
        ("usages of compute_total", "callers", "calls", "compute_total", "in"),
        ("what is render used by", "callers", "calls", "render", "in"),
        ("call sites of apply_tax", "callers", "calls", "apply_tax", "in"),
        ("what does render call", "callees", "calls", "render", "out"),
        ("functions called by render", "callees", "calls", "render", "out"),
        ("callees of Cart.add", "callees", "calls", "Cart.add", "out"),
        ("RequestHandler's subclasses", "subclasses", "extends", "RequestHandler", "in"),
        ("classes deriving from Environment", "subclasses", "extends", "Environment", "in"),
        ("subclasses of BaseLoader", "subclasses", "extends", "BaseLoader", "in"),
        ("what inherits from Loader", "subclasses", "extends", "Loader", "in"),
        ("base classes of Context", "bases", "extends", "Context", "out"),
        ("what does Context inherit from", "bases", "extends", "Context", "out"),
        ("modules importing tornado.web", "importers", "imports", "tornado.web", "in"),
        ("who imports jinja2.utils?", "importers", "imports", "jinja2.utils", "in"),
        ("what does tornado.web import", "imports", "imports", "tornado.web", "out"),
        ("which methods call Foo.bar", "callers", "calls", "Foo.bar", "in"),
    ],
)
def test_relation_questions_however_phrased(query, label, relation, entity, direction):
    intent = analyse(query)
    assert (intent.label, intent.relation) == (label, relation)
    assert intent.names[0] == entity
    assert intent.direction_of(entity) == direction


@pytest.mark.parametrize(
    "query",
    [
        "Basic ParserElement subclasses",  # a title: a plain capitalised word before the name
        "How to use from Python",  # a how-to question
        "Using the pyparsing module",  # a cue verb then a determiner: an instruction, a heading
        "Call the function call with the arguments flipped",
    ],
)
def test_doc_headings_are_neither_relation_questions_nor_look_ups(query):
    intent = analyse(query)
    assert (intent.relation, intent.label) == (None, "prose")


@pytest.mark.parametrize(
    ("query", "label"), [("Our Pledge", "prose"), ("Getting started", "prose"), ("Session", "lookup")]
)
def test_a_short_phrase_of_plain_words_is_a_topic_not_a_look_up(query, label):
    assert analyse(query).label == label


@pytest.mark.parametrize(
    "query",
    [
        "Returns the value used by the handler",  # cue words inside a sentence of its own
        "Called when a connection to the server closes",
        "Render the template with the given context and return a string",
    ],
)
def test_prose_that_mentions_a_cue_is_not_a_relation_question(query):
    intent = analyse(query)
    assert intent.relation is None and intent.label == "prose"
    assert intent.direction_of(intent.names[0]) is None


def test_a_query_of_names_only_is_a_lookup():
    assert analyse("IOLoop.start").label == "lookup"
    assert analyse("get_current_ioloop").code_names == ("get_current_ioloop",)


def test_the_graph_leads_only_a_relation_it_resolved():
    assert weights_for("callers", relation=True, graph_heard=True) == RELATION_WEIGHTS
    fell_back = weights_for("callers", relation=True, graph_heard=False)
    assert fell_back["graph"] == 0.0 and fell_back["hybrid"] == 1.0
    assert weights_for("prose", relation=False, graph_heard=True)["graph"] == 0.0
    assert weights_for("lookup", relation=False, graph_heard=True) == LOOKUP_WEIGHTS
    assert weights_for("lookup", relation=False, graph_heard=False)["graph"] == 0.0
    assert PROSE_WEIGHTS["names"] < PROSE_WEIGHTS["hybrid"]


def _hits(keys, scores=None):
    return [Hit(k, s) for k, s in zip(keys, scores or [1.0] * len(keys))]


def test_weighted_rrf_lets_the_leading_leg_order_and_silences_weight_zero():
    graph = _hits([1, 2, 3])
    hybrid = _hits([3, 4, 1])
    fused = rrf({"graph": graph, "hybrid": hybrid}, 60, RELATION_WEIGHTS)
    assert [h.key for h in fused] == [1, 2, 3, 4]  # the graph's order, the blend only after it
    assert fused[0].ranks == {"graph": 1, "hybrid": 3}
    assert fused[0].score == pytest.approx(1.0 / 61 + RELATION_WEIGHTS["hybrid"] / 63)
    silent = rrf({"graph": graph, "hybrid": hybrid}, 60, {"graph": 0.0, "hybrid": 1.0})
    assert [h.key for h in silent] == [3, 4, 1] and all("graph" not in h.ranks for h in silent)
    assert [h.key for h in rrf({"graph": graph, "hybrid": hybrid}, 60)] == [1, 3, 2, 4]  # unweighted: equal votes


def test_a_named_symbol_gains_a_bounded_boost_on_the_blend():
    ranked = _hits([1, 2, 3], [0.9, 0.85, 0.5])
    out = boosted(ranked, _hits([2, 7], [2.0, 1.0]), 0.1)
    assert [h.key for h in out] == [2, 1, 3]  # 0.85 + 0.1 overtakes 0.9; 7 is not in the blend, not added
    assert out[0].score == pytest.approx(0.95) and out[0].ranks == {"names": 1}
    assert [h.key for h in boosted(_hits([1, 2], [0.9, 0.5]), _hits([2], [1.0]), 0.1)] == [1, 2]  # bounded
