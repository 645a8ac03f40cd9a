"""Code-aware keyword tokens for BM25.

Identifiers are split (``parseHTTPHeader`` -> ``parse http header``, ``load_config`` -> ``load config``)
while the whole identifier is kept too, so both exact symbol look-ups and natural-language words match.
Words are stemmed (Snowball English) and English stopwords dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

# bm25s's English stop list (bm25s.stopwords.STOPWORDS_EN, Lucene's), copied: importing bm25s loads scipy (~0.5 s).
STOPWORDS_EN = (
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "but",
    "by",
    "for",
    "if",
    "in",
    "into",
    "is",
    "it",
    "no",
    "not",
    "of",
    "on",
    "or",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "was",
    "will",
    "with",
)

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+)*")  # an identifier or a number
PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")  # the words inside an identifier
_STOP = frozenset(STOPWORDS_EN) | {"self", "this", "none", "null", "true", "false"}
_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def _word_tokens(word: str) -> tuple[str, ...]:
    parts = [p.lower() for p in PARTS.findall(word)]
    whole = word.lower().strip("_")
    out = []
    if whole and (len(parts) != 1 or parts[0] != whole) and whole not in _STOP:
        out.append(whole)  # the identifier as written, unstemmed
    for part in parts:
        if len(part) > 1 and part not in _STOP:
            out.append(_stemmer.stemWord(part))
    return tuple(out)


def tokenize(text: str) -> list[str]:
    """Tokens of one text, in order (duplicates kept: BM25 counts them)."""
    tokens: list[str] = []
    for word in WORD.findall(text):
        tokens.extend(_word_tokens(word))
    return tokens


def identifiers(text: str) -> list[str]:
    """Raw identifier-like words of a text (for entity look-up)."""
    return WORD.findall(text)


# a compound written with a hyphen ("pre-release", "sub-command", "e-mail"): code joins its parts in a
# name (``Prerelease``, ``subcommand``, ``email``)
HYPHENATED = re.compile(r"(?<![\w-])([A-Za-z]+)-([A-Za-z]+)(?![\w-])")


def query_tokens(text: str) -> list[str]:
    """A query's tokens (:func:`tokenize`), then, for each compound it writes with a hyphen, the token
    of its parts joined: a question says "pre-release", the code names the type ``Prerelease``
    (one token, ``prereleas``, where the question's words are ``pre`` and ``releas``). For the query
    only: a text indexed keeps its words as written."""
    tokens = tokenize(text)
    seen = set(tokens)
    for first, second in HYPHENATED.findall(text):
        for token in _word_tokens((first + second).lower()):
            if token not in seen:
                seen.add(token)
                tokens.append(token)
    if _AT_MOST.search(text) and "max" not in seen:
        tokens.append("max")  # "how many redirects ... at most": code says the bound as max_redirects
    return tokens


# a question asking a bound in words: code names it with ``max`` (``maxRedirects``, ``max_retries``); not
# one saying "maximum", whose word the code may write in full ("the maximum line length": docs' own words)
_AT_MOST = re.compile(r"\bhow\s+many\b|\bat\s+most\b|\blimit(?:s|ed|ing)?\b", re.IGNORECASE)
