"""Which characters of a result's text match the query, by the keyword index's own rules.

Every front door (panel, widgets, text/HTML) displays these ranges as they are, so the same
result has the same words marked everywhere.
"""

from __future__ import annotations

from collections.abc import Set

from .tokenizer import PARTS, WORD, tokenize


def query_terms(query: str) -> frozenset[str]:
    """The query's keyword tokens (stemmed, identifiers split, stop words dropped)."""
    return frozenset(tokenize(query))


def highlight_ranges(text: str, terms: Set[str]) -> list[list[int]]:
    """``[start, end)`` code-point ranges of ``text`` matching ``terms`` the way BM25 does.

    A whole identifier or any of its parts (``parseHTTPHeader`` → parse, HTTP, Header) is marked
    when its token is one of the query's; adjacent ranges are merged.
    """
    ranges: list[list[int]] = []
    if not terms:
        return ranges
    for word in WORD.finditer(text):
        if word.group().lower().strip("_") in terms:
            spans = [(word.start(), word.end())]
        else:
            spans = [
                (word.start() + p.start(), word.start() + p.end())
                for p in PARTS.finditer(word.group())
                if any(token in terms for token in tokenize(p.group()))
            ]
        for start, end in spans:
            if ranges and ranges[-1][1] == start:
                ranges[-1][1] = end
            else:
                ranges.append([start, end])
    return ranges
