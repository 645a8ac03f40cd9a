"""The engine's highlights: what every front door marks in a result's text."""

from __future__ import annotations

import itertools
import random
import string

import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st
from workspace_fixture import FIXTURES

from agent_brain_lab.engine import highlight
from agent_brain_lab.engine.highlight import highlight_ranges, query_terms
from agent_brain_lab.engine.tokenizer import PARTS, WORD, tokenize


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


# Pieces of text where reading around the places of anchors could differ from reading every word:
# letters outside ASCII (one that lowers to two code points, the Kelvin sign that lowers to "k"),
# digits and dotted numbers, camelCase and snake_case, and words whose stems are not their prefix.
PIECES = [
    *"aZ_9 .x1é🙂Hh\n-İKß",
    *("parse", "HTTP", "Header", "12", "3.4", "1.2.3", "total", "cart", "x12", "Cart", "Total", "_"),
    *("happy", "Happiness", "ability", "possibility", "dying", "Die", "skies", "sky", "nested", "ugly", "hoping"),
    *("generational", "relational", "Ably", "able", "parseHTTP", "http_header", "IDs", "id", "key", "keys"),
]
QUERY_WORDS = [
    *("parse", "http", "header", "12", "x1", "cart_total", "total", "9", "h", "zh", "a_9", "3.4", "Z9", "k"),
    *("happy", "happiness", "ability", "possible", "die", "sky", "nest", "ugly", "hope", "relate", "able"),
    *("generation", "parseHTTP", "http_header", "id", "ids", "key", "1.2.3", "ß", "İ"),
]


def test_same_ranges_as_reading_every_word():
    """The fast path (the runs of word characters around the anchors found) marks exactly what
    testing every word in turn marks: on random texts over the characters and words where the two
    could differ, and on real files."""
    rng = random.Random(7)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.suffix in {".py", ".md", ".ts", ".go", ".ipynb"}]
    texts += [p.read_text(errors="replace") for p in files]
    assert len(texts) > 3010
    compared = anchored = 0
    for text in texts:
        terms = query_terms(" ".join(rng.sample(QUERY_WORDS, rng.randint(1, 3))))
        assert highlight_ranges(text, terms) == highlight._scan(text, terms), (text, terms)
        compared += bool(highlight._scan(text, terms))
        anchored += highlight._anchors(terms) is not None
    assert compared > 500  # most comparisons mark something
    assert 1000 < anchored < len(texts) - 100  # both ways are compared: by anchors, and word by word


def test_a_page_of_texts_marks_each_as_alone():
    """A page of results is highlighted in one pass over its texts joined (highlight_texts): each
    text gets exactly the ranges it gets alone, wherever it sits on the page, next to texts with
    letters that lower to several code points, empty texts, texts starting or ending in a word."""
    rng = random.Random(11)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 20))) for _ in range(2000)]
    pages = compared = 0
    for start in range(0, len(texts), 10):
        page = texts[start : start + rng.randint(1, 10)]
        terms = query_terms(" ".join(rng.sample(QUERY_WORDS, rng.randint(1, 3))))
        alone = [highlight._scan(text, terms) for text in page]
        assert highlight.highlight_texts(page, terms) == alone, (page, terms)
        pages += 1
        compared += sum(bool(r) for r in alone)
    assert pages == 200 and compared > 150  # many texts mark something
    assert highlight.highlight_texts([], query_terms("parse")) == []


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=40),
    words=st.lists(st.sampled_from(QUERY_WORDS) | st.from_regex(r"[A-Za-z0-9_]{1,8}", fullmatch=True), max_size=4),
)
def test_same_ranges_as_reading_every_word_on_any_text(pieces, words):
    text, terms = "".join(pieces), query_terms(" ".join(words))
    assert highlight_ranges(text, terms) == highlight._scan(text, terms)


def test_every_word_yielding_a_stem_holds_its_anchor():
    """The anchors the fast path looks for (highlight._anchor) are in every word whose part yields
    the term: every lowercase word of up to four letters, words made of stems and chains of the
    stemmer's suffixes (Snowball English's steps rewrite only those), and every part of the
    fixture files' words."""
    suffixes = (  # noqa: SIM905 (a list of words to read, not code)
        "s es ies ied ss sses us ed eed eedly edly ing ingly ly y e ational tional enci anci abli entli izer "
        "ization alism aliti alli fulness ousli ousness iveness iviti biliti bli ogi ogist fulli lessli li "
        "ation ator alize icate iciti ical ful ness ative al ance ence er ic able ible ant ement ment ent ism "
        "ate iti ous ive ize ion sion tion ll bility ably ibly ogy ously ily ying eing bling ating izing"
    ).split()
    letters = string.ascii_lowercase
    words = {"".join(c) for n in range(1, 5) for c in itertools.product(letters, repeat=n)}
    words |= {c + "ying" for c in letters}  # dying -> die
    inflections = ["", "s", "es", "ies", "ed", "ied", "ing", "ly", "y", "ness", "al", "ity", "ation", "able"]
    stems = ["".join(c) for n in range(3) for c in itertools.product("abeilnostuy", repeat=n)]
    words |= {s + a + b for s in stems for a in suffixes for b in inflections}
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.suffix in {".py", ".md", ".ts", ".go", ".ipynb"}]
    words |= {m.lower() for p in files for m in PARTS.findall(p.read_text(errors="replace"))}
    words = sorted(words)
    stems_of = Stemmer.Stemmer("english").stemWords(words)
    missed = [(w, s) for w, s in zip(words, stems_of, strict=True) if highlight._anchor(s) not in w]
    assert len(words) > 450_000
    assert not missed, missed[:20]
    assert highlight._anchor("die") == "d" and highlight._anchor("possibl") == "possib"  # rewritten ends
    assert highlight._anchor("pars") == "pars" and highlight._anchor("happi") == "happ"


def test_a_words_parts_are_the_tokens_bm25_reads():
    """The fast path looks a word's whole form, parts and their tokens up once (highlight._word_parts):
    they are the word lowercased without its outer underscores, the parts of the word and the tokens
    ``tokenize`` gives each, for every word of the fixture files and of random texts."""
    files = [p for p in sorted(FIXTURES.rglob("*")) if p.suffix in {".py", ".md", ".ts", ".go", ".ipynb"}]
    rng = random.Random(3)
    texts = [p.read_text(errors="replace") for p in files]
    texts += ["".join(rng.choice(PIECES) for _ in range(30)) for _ in range(300)]
    words = {w for text in texts for w in WORD.findall(text)}
    assert len(words) > 1500
    for word in words:
        whole, found = highlight._word_parts(word)
        parts = [(word[a:b], tokens) for a, b, tokens in found]
        assert parts == [(p, frozenset(tokenize(p))) for p in PARTS.findall(word)], word
        assert whole == word.lower().strip("_"), word
