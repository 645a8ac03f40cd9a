"""The engine's highlights: what every front door marks in a result's text."""

from __future__ import annotations

import random

from workspace_fixture import FIXTURES

from agent_brain_lab.engine import highlight
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


def test_numbers_digits_and_letters_outside_ascii():
    text = "1.2.3 x12 12abc 3.14 é12é a_9 9_a"
    assert marked(text, "12") == ["12", "12", "12"]  # inside x12 (a part), 12abc (the number), é12é
    assert marked(text, "abc") == ["abc"]  # 12abc reads as 12 then abc
    assert marked(text, "1.2.3") == ["1.2.3"]  # a dotted number asked for whole
    assert marked(text, "14") == ["14"]


def test_same_ranges_as_reading_every_word():
    """The fast path (distinct words, then located) marks exactly what testing every word in turn
    marks: on random texts over the characters where the two could differ, and on real files."""
    rng = random.Random(7)
    pieces = [*"aZ_9 .x1é🙂Hh\n-", "parse", "HTTP", "Header", "12", "3.4", "total", "cart", "x12"]
    words = ["parse", "http", "header", "12", "x1", "cart_total", "total", "9", "h", "zh", "a_9", "3.4", "Z9"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.suffix in {".py", ".md", ".ts", ".go", ".ipynb"}]
    texts += [p.read_text(errors="replace") for p in files]
    assert len(texts) > 3010
    compared = 0
    for text in texts:
        terms = query_terms(" ".join(rng.sample(words, rng.randint(1, 3))))
        assert highlight_ranges(text, terms) == highlight._scan(text, terms), (text, terms)
        compared += bool(highlight._scan(text, terms))
    assert compared > 500  # most comparisons mark something
