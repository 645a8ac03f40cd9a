"""The engine's highlights: what every front door marks in a result's text."""

from __future__ import annotations

from agent_brain_lab.engine.highlight import highlight_ranges, query_terms


def marked(text: str, query: str) -> list[str]:
    return [text[a:b] for a, b in highlight_ranges(text, query_terms(query))]


def test_identifier_parts_stems_and_code_points():
    text = "# 🙂 parses Headers\ndef parseHTTPHeader(raw):\n    return parse_header_line(raw)  # unrelated"
    assert marked(text, "parse the HTTP header") == ["parses", "Headers", "parseHTTPHeader", "parse", "header"]


def test_whole_identifier_and_word_starts_only():
    text = "subtotal compute_total cartTotal cart_total"
    assert marked(text, "cart_total") == ["total", "cartTotal", "cart_total"]  # cart+Total merge
    assert marked(text, "total") == ["total", "Total", "total"]  # never inside "subtotal"


def test_stop_words_and_empty_queries_mark_nothing():
    assert marked("the cart of the shop", "the of") == []
    assert highlight_ranges("anything", frozenset()) == []
    assert query_terms("Parsing headers") == {"pars", "header"}


def test_question_words_are_not_marked():
    text = "How did we compute the cart total? Where is it used: we call cart_total here."
    ranges = highlight_ranges(text, query_terms("how did we compute the cart total, where is it used"))
    marked = {text[a:b].lower() for a, b in ranges}
    assert {"compute", "cart", "total", "used"} <= marked
    assert marked.isdisjoint({"how", "did", "we", "where", "is", "it"})
    assert highlight_ranges("where it is", query_terms("where")) == [[0, 5]]  # nothing else to mark
