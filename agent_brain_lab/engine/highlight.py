"""Which characters of a result's text match the query, by the keyword index's own rules.

Every front door (panel, widgets, text/HTML) displays these ranges as they are, so the same
result has the same words marked everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Set
from functools import lru_cache

from .tokenizer import PARTS, WORD, _word_tokens, tokenize

# Words that frame a question ("how did we compute the total", "where is X used") without naming what
# it is about: BM25 scores them like any word, but marking every "how" and "we" in a result explains
# nothing. Left unmarked unless the query holds nothing else.
QUESTION_WORDS = frozenset(
    tokenize(
        "how what where when why which who whom whose we i you me my our us your they them their it its "
        "do does did done doing is are was were be been being am can could should would will shall may might "
        "must have has had there here this that these those please tell explain"
    )
)


def query_terms(query: str) -> frozenset[str]:
    """The query's keyword tokens (stemmed, identifiers split, stop words dropped), without the
    question words when anything else is left."""
    terms = frozenset(tokenize(query))
    return terms - QUESTION_WORDS or terms


def highlight_ranges(text: str, terms: Set[str]) -> list[list[int]]:
    """``[start, end)`` code-point ranges of ``text`` matching ``terms`` the way BM25 does.

    A whole identifier or any of its parts (``parseHTTPHeader`` → parse, HTTP, Header) is marked
    when its token is one of the query's; adjacent ranges are merged.

    The same ranges as reading every word in turn (:func:`_scan`), at a fraction of its cost: the
    text's distinct runs of word characters are found by ``str.translate``/``split``, each is tested
    once against its cached tokens, and only the words that match are then located (``str.find``)
    and checked to be words where found.
    """
    if not terms:
        return []
    if any("." in t for t in terms):  # a dotted number ("1.2.3") is asked for: read word by word
        return _scan(text, terms)
    found: set[str] = set()
    for run in set(text.translate(_NOT_WORD_TO_SPACE).split()):
        if _run_tokens(run).isdisjoint(terms):  # most runs: one cached look-up, one set test
            continue
        if run.isascii() and not run[0].isdigit():  # an identifier, whole, as WORD reads it
            found.add(run)
        else:  # digits first, or letters WORD does not read: the words WORD makes of it
            found.update(w for w in _UNDOTTED.findall(run) if _matches(w, terms))
    spans: list[tuple[int, int]] = []
    for word in found:
        whole, _, parts = _word_pieces(word)
        marks = [(0, len(word))] if whole in terms else [(a, b) for a, b, part in parts if not part.isdisjoint(terms)]
        if not marks:
            continue
        first, last = marks[0][0], marks[0][1] if len(marks) == 1 else -1  # one span per place: most words
        size, plain = len(word), not word[0].isdigit()
        at = text.find(word)
        while at >= 0:
            end = at + size
            before = text[at - 1 : at]
            if plain and before in _LETTERS:  # inside a longer identifier (most places found that are not words)
                at = text.find(word, end)
                continue
            if (
                # most words: an identifier between two characters no word holds
                (plain and before not in _WORD_SET and text[end : end + 1] not in _WORD_SET)
                or _is_word_at(text, at, word)
            ):
                if last >= 0:
                    spans.append((at + first, at + last))
                else:
                    spans.extend([(at + a, at + b) for a, b in marks])
            at = text.find(word, end)
    spans.sort()
    ranges: list[list[int]] = []
    merged = [-1, -1]
    for start, end in spans:
        if merged[1] == start:
            merged[1] = end
        else:
            merged = [start, end]
            ranges.append(merged)
    return ranges


# Every character WORD never reads becomes a space (the ASCII ones; others stay and are left to WORD).
_WORD_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
_WORD_SET = frozenset(_WORD_CHARS)
_LETTERS = frozenset(_WORD_CHARS) - frozenset("0123456789")
_NOT_WORD_TO_SPACE = {c: " " for c in range(128) if chr(c) not in _WORD_CHARS}
# WORD without dotted numbers: with no query term holding a ".", "12.34" marks as "12" and "34" would.
_UNDOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def _matches(word: str, terms: Set[str]) -> bool:
    whole, tokens, _ = _word_pieces(word)
    return not tokens.isdisjoint(terms) or whole in terms


@lru_cache(maxsize=20_000)  # a few MB; runs are the words of recent results
def _run_tokens(run: str) -> frozenset[str]:
    """Every token (and whole word) of the words ``_UNDOTTED`` reads in a run of word characters:
    whether the run can match any query is one set test (each identifier part's own tokens,
    ``_word_pieces``, are computed only for the runs that match)."""
    out: set[str] = set()
    for word in [run] if run.isascii() and not run[0].isdigit() else _UNDOTTED.findall(run):
        out.update(_word_tokens(word))
        out.add(word.lower().strip("_"))
    return frozenset(out)


def _is_word_at(text: str, at: int, word: str) -> bool:
    """Whether ``word`` found at ``at`` is one of the words ``_UNDOTTED`` reads there: a run of word
    characters reads as its leading digits, then one identifier to the run's end."""
    start = at
    while start and text[start - 1] in _WORD_CHARS:
        start -= 1
    end = run_end = at + len(word)
    while run_end < len(text) and text[run_end] in _WORD_SET:
        run_end += 1
    digits_end = start
    while digits_end < run_end and text[digits_end] in "0123456789":
        digits_end += 1
    if word[0].isdigit():
        return at == start and end == digits_end
    return at == digits_end and end == run_end


def _scan(text: str, terms: Set[str]) -> list[list[int]]:
    """:func:`highlight_ranges` word by word: every word WORD reads is tested in turn."""
    ranges: list[list[int]] = []
    if not terms:
        return ranges
    for word in WORD.finditer(text):
        whole, tokens, parts = _word_pieces(word.group())
        if tokens.isdisjoint(terms) and whole not in terms:  # most words: one set test
            continue
        at = word.start()
        if whole in terms:
            spans = [(at, word.end())]
        else:
            spans = [(at + start, at + end) for start, end, part in parts if not part.isdisjoint(terms)]
        for start, end in spans:
            if ranges and ranges[-1][1] == start:
                ranges[-1][1] = end
            else:
                ranges.append([start, end])
    return ranges


@lru_cache(maxsize=100_000)
def _word_pieces(word: str) -> tuple[str, frozenset[str], tuple[tuple[int, int, frozenset[str]], ...]]:
    """A word as highlighting sees it: its whole form, every token it yields, and each identifier
    part with the tokens that part yields (computed once per distinct word, not per result)."""
    parts = tuple((p.start(), p.end(), frozenset(tokenize(p.group()))) for p in PARTS.finditer(word))
    return word.lower().strip("_"), frozenset(tokenize(word)), parts
