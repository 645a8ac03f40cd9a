"""Which characters of a result's text match the query, by the keyword index's own rules.

Every front door (panel, widgets, text/HTML) displays these ranges as they are, so the same
result has the same words marked everywhere.
"""

from __future__ import annotations

from collections.abc import Set
from functools import lru_cache

from .tokenizer import PARTS, WORD, tokenize

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
    """
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
