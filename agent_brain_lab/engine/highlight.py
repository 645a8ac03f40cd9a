"""Which characters of a result's text match the query, by the keyword index's own rules.

Every front door (panel, widgets, text/HTML) displays these ranges as they are, so the same
result has the same words marked everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
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
    when its token is one of the query's; adjacent ranges are merged. (:func:`highlight_texts` of
    one text.)
    """
    return highlight_texts((text,), terms)[0]


def highlight_texts(texts: Sequence[str], terms: Set[str]) -> list[list[list[int]]]:
    """:func:`highlight_ranges` of each of ``texts`` (a page of results), found in one pass.

    The same ranges as reading every word in turn (:func:`_scan`), at a fraction of its cost: every
    word that can yield a query term holds that term's anchor (:func:`_anchor`) in its lowercased
    letters, so only the runs of word characters around the places ``bytes.find`` finds an anchor
    are read. The texts are searched as one, joined by a newline (no word character: no run
    crosses from one text into the next, and no range from one run into the next), so a page pays
    for one pass through a byte table (:data:`_FLAT`: the word characters lowercased, every other
    character a space) and one search per anchor instead of one per result; a run's ends are the
    spaces around a place (``rfind``, ``find``). The places are taken in order, so the run of each
    is found once (the places after it inside the same run are passed over) and the runs come in
    text order. What a run marks depends on its spelling and the terms only: it is worked out once
    per distinct run on the page (:func:`_run_spans`, a page repeats its words), from what marks one
    word, cached once per distinct word (:func:`_word_parts`; a cache per run and query missed on
    every new query).
    """
    if not terms or not texts:
        return [[] for _ in texts]
    terms = frozenset(terms)
    anchors = _anchors(terms)
    if anchors is None:  # a dotted number asked for, or a term too short to anchor: read word by word
        return [_scan(text, terms) for text in texts]
    joined = "\n".join(texts)
    # every character as one byte: ASCII word characters lowercased, everything else a space (no run
    # crosses it); one byte per code point, so a place in ``flat`` is the same place in ``joined``
    flat = (joined.encode("ascii") if joined.isascii() else joined.encode("ascii", "replace")).translate(_FLAT)
    find = flat.find
    places: list[int] = []
    for anchor in anchors:
        at = find(anchor)
        while at >= 0:
            places.append(at)
            at = find(anchor, at + 1)
    out: list[list[list[int]]] = [[] for _ in texts]
    if not places:
        return out
    places.sort()
    rfind, size = flat.rfind, len(flat)
    marks: dict[str, tuple[tuple[int, int], ...]] = {}  # a run's spelling -> what it marks (page-local)
    text_no, base, limit = 0, 0, len(texts[0])  # the text the runs are in now: its place in joined
    ranges = out[0]
    end = -1  # where the last run read ends
    for at in places:
        if at < end:  # inside the run just read
            continue
        start = rfind(b" ", 0, at) + 1  # the run around the place: from the space before it
        end = find(b" ", at)  # to the space after it
        if end < 0:
            end = size
        word = joined[start:end]
        spans = marks.get(word)
        if spans is None:
            spans = marks[word] = _run_spans(word, terms)
        if not spans:
            continue
        while start > limit:  # past that text's end (the newline after it)
            text_no += 1
            base, limit = limit + 1, limit + 1 + len(texts[text_no])
            ranges = out[text_no]
        start -= base
        for a, b in spans:
            ranges.append([start + a, start + b])
    return out


def _run_spans(run: str, terms: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The ``[start, end)`` spans of one run of word characters that match ``terms`` (adjacent ones
    merged): each word WORD reads in it (:func:`_word_spans`)."""
    if run[0] > "9":  # most runs: a letter or "_" first, one word (see _run_words)
        return _word_spans(run, terms)
    out: list[tuple[int, int]] = []
    for at, word in _run_words(run, 0, len(run)):
        for a, b in _word_spans(word, terms):
            if out and out[-1][1] == at + a:
                out[-1] = (out[-1][0], at + b)
            else:
                out.append((at + a, at + b))
    return tuple(out)


def _word_spans(word: str, terms: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The spans of one word WORD reads that match ``terms`` (adjacent ones merged): the word whole
    when its whole form is a term, else the parts whose tokens hold one."""
    whole, parts = _word_parts(word)
    if whole in terms:
        return ((0, len(word)),)
    out: list[tuple[int, int]] = []
    for a, b, tokens in parts:
        if not tokens.isdisjoint(terms):
            if out and out[-1][1] == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return tuple(out)


def _run_words(text: str, start: int, end: int) -> tuple[tuple[int, str], ...]:
    """The words WORD reads in the run ``text[start:end]``, each with its place: its leading digits
    as a number, the rest as one identifier."""
    if text[start] > "9":  # most runs: a letter or "_" first ("0"-"9" sort before both)
        return ((start, text[start:end]),)
    run = text[start:end]
    digits = len(run) - len(run.lstrip("0123456789"))
    return ((start, run[:digits]), (start + digits, run[digits:])) if digits < len(run) else ((start, run),)


# A byte table: the characters WORD reads (ASCII letters, digits, "_") as themselves lowercased, every
# other byte as a space. Text is first encoded as ASCII with "?" for each other code point.
_WORD_BYTES = b"0123456789abcdefghijklmnopqrstuvwxyz_"
_FLAT = bytes(c + 32 if 65 <= c <= 90 else c if c in _WORD_BYTES else 32 for c in range(256))


def _anchor(term: str) -> str:
    """What the lowercased letters of every word that yields ``term`` hold: the term itself, but for
    the last letters a stem can have rewritten.

    A token is a word's whole form (lowercased, so any part of it is in the word) or the Snowball
    English stem of one of its parts. Every step of that stemmer rewrites only the end of the word:
    it deletes a suffix, or replaces one by another that shares its first letters, and (past its
    exceptions) only these leave letters the word does not have at their place: a final "e" (hoping
    → hope, "enci" → "ence", "ation" → "ate", ...), "i" for "y" (happy → happi, ugly → ugli), "ble"
    for "biliti" (two letters, then "bl" once its "e" is dropped), "ie" for a lone consonant's "ying"
    (dying → die) and "sky" for "skies". A stem thus ends in at most two letters the word may lack,
    and only when it ends in "ble" or "ie"; one, when it ends in "e", "i", "l" or "y"; none
    otherwise. (tests/test_highlight.py checks this on every word of up to four letters and on
    stems followed by chains of the stemmer's suffixes.)
    """
    if term.endswith(("ble", "ie")):
        return term[:-2]
    if term.endswith(("e", "i", "l", "y")):
        return term[:-1]
    return term


def _anchors(terms: frozenset[str]) -> tuple[bytes, ...] | None:
    """The anchors to find for ``terms``, as ASCII bytes (one held in another is dropped: its places
    are among the other's; one outside ASCII is dropped: the runs WORD reads are ASCII, so no run
    can yield its term), or None when words must be read one by one: a dotted number ("1.2.3") is
    asked for (WORD reads it whole), or a term's anchor is shorter than two letters (found nearly
    everywhere). Worked out per query from each term's own (:func:`_term_anchor`, kept per term)."""
    anchors = set()
    for term in terms:
        anchor = _term_anchor(term)
        if anchor is None:
            return None
        anchors.add(anchor)
    kept = [a for a in anchors if not any(b in a for b in anchors if b != a)]
    kept.sort()
    return tuple(a.encode("ascii") for a in kept if a.isascii())


@lru_cache(maxsize=100_000)
def _term_anchor(term: str) -> str | None:
    """:func:`_anchor` of one term, or None when its words must be read one by one (a dotted
    number, an anchor shorter than two letters): worked out once per term, not once per query."""
    anchor = _anchor(term)
    return None if "." in term or len(anchor) < 2 else anchor


@lru_cache(maxsize=100_000)
def _word_parts(word: str) -> tuple[str, tuple[tuple[int, int, frozenset[str]], ...]]:
    """What marks one word WORD reads (computed once per distinct word, not per result or query):
    its whole form, marked whole when that is a term, and each identifier part with the tokens it
    yields, marked when they hold a term. (A word's tokens are its whole form and its parts' tokens:
    with the whole form no term, a part's tokens decide.) A part is one word of its own to WORD: its
    tokens are ``_word_tokens``'s (what ``tokenize`` gives it), looked up without reading it again."""
    parts = []
    end = 0
    for part in PARTS.findall(word):  # strings, not match objects: a new word costs its split
        start = word.find(part, end)  # the parts come in order, with only "_" or "." between them
        end = start + len(part)
        parts.append((start, end, _part_tokens(part)))
    return word.lower().strip("_"), tuple(parts)


@lru_cache(maxsize=100_000)
def _part_tokens(part: str) -> frozenset[str]:
    """The tokens of one identifier part, as a set shared by every word holding that part: a page's
    words are mostly new to a process (~8 of ~10 distinct spellings a page, fresh queries), their
    parts mostly not (``get``, ``config``, ``Header``), so a new word costs its split, not its stems."""
    return frozenset(_word_tokens(part))


def _scan(text: str, terms: Set[str]) -> list[list[int]]:
    """:func:`highlight_ranges` word by word, by its definition: every word WORD reads is tested in
    turn against the tokens ``tokenize`` gives it and each of its parts (the reference the tests
    compare the fast path to, and the way for what anchors cannot find)."""
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
