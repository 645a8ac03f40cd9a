"""What every retrieval mode works from: the snapshot, the request and the query, computed once."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..snapshot import Snapshot
from ..tokenizer import query_tokens
from ..types import Chunk, QueryRequest
from .intent import Intent, analyse

POOL = 50  # candidates each leg contributes before fusion (what a page of 10 always had)


@dataclass
class Hit:
    key: int
    score: float
    vector_score: float | None = None
    bm25_score: float | None = None
    graph_score: float | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    related_entities: list[str] = field(default_factory=list)
    relationship_path: list[str] = field(default_factory=list)


GROUP = 64  # rows dealt into each group whose maxima put a floor under top_rows's cut


def top_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """Rows of the ``count`` highest positive scores, best first; equal scores in row order, also at
    the cut (which of several equal rows makes it never depends on the selection's internals).

    Selection, not a sort, and no pass over every row but two cheap ones. A floor under the cut
    (the ``count``-th best score) first: the rows are dealt into groups (:func:`_floor`), and the
    ``count``-th best group maximum is at most the cut (the ``count`` best maxima are ``count``
    scores at least that high). One pass takes the rows at or above the floor — typically ``count``
    of them — and only those are partitioned for the cut, then sorted (of the rows equal to the cut,
    the first ones in row order fill the page). ``np.partition`` of all rows took 0.6 ms of a
    query's ~1 ms at 100k chunks (CPU, loaded machine), the floor and its pass 0.07. Where fewer
    than ``count`` groups hold a positive score, the positive rows are few (under ``count`` groups'
    worth) and they are partitioned instead. Scores are finite, as BM25 sums are (a NaN would sort
    above every score)."""
    if count <= 0:
        return np.zeros(0, dtype=np.intp)
    floor = _floor(scores, count)
    rows = np.flatnonzero(scores >= floor) if floor > 0 else np.flatnonzero(scores > 0)
    if len(rows) > count:  # every row scoring at least the cut is here: find the cut among them
        values = scores[rows]
        cut = np.partition(values, len(values) - count)[len(values) - count]
        keep = values > cut
        keep[np.flatnonzero(values == cut)[: count - int(np.count_nonzero(keep))]] = True  # ties: row order
        rows = rows[keep]
    return rows[np.argsort(-scores[rows], kind="stable")]


def _floor(scores: np.ndarray, count: int) -> float:
    """A score at most the ``count``-th best of ``scores`` (0 when there are fewer than ``count``
    groups): the ``count``-th best maximum of ``len(scores) // GROUP`` disjoint groups of rows (row
    ``i`` in group ``i % groups``, the last rows in none: one ``max`` over a (GROUP, groups) view,
    elementwise across its rows)."""
    groups = len(scores) // GROUP
    if groups < count:
        return 0.0
    maxima = scores[: groups * GROUP].reshape(GROUP, groups).max(axis=0)
    return float(np.partition(maxima, groups - count)[groups - count])


class QueryContext:
    def __init__(
        self,
        snapshot: Snapshot,
        request: QueryRequest,
        embed_query: Callable[[str], np.ndarray],
        keys_of_chunk_ids: Callable[[list[str]], dict[str, int]],
        chunks_of_keys: Callable[[list[int]], dict[int, Chunk]],
    ):
        self.snapshot = snapshot
        self.request = request
        self._embed_query = embed_query
        self.keys_of_chunk_ids = keys_of_chunk_ids
        self.chunks_of_keys = chunks_of_keys
        self.mask = snapshot.columns.mask(request)
        self._keywords_beside: Future[np.ndarray] | None = None
        self._tops: dict[int, np.ndarray] = {}

    @cached_property
    def query_vector(self) -> np.ndarray:
        return self._embed_query(self.request.query)

    @cached_property
    def intent(self) -> Intent:
        return analyse(self.request.query)

    @cached_property
    def query_tokens(self) -> list[str]:
        return query_tokens(self.request.query)

    def score_keywords_beside(self, start: Callable[[Callable[[], np.ndarray]], Future[np.ndarray]], top: int) -> None:
        """Have ``start`` compute :attr:`bm25_scores` and their best ``top`` rows (:meth:`keyword_top`)
        on another thread while this one goes on (hybrid embeds the query meanwhile)."""

        def scores_and_top() -> np.ndarray:
            scores = self._keyword_scores()
            self._tops[top] = top_rows(scores, top)  # read by this thread only once the future is done
            return scores

        self._keywords_beside = start(scores_and_top)

    def keyword_top(self, count: int) -> np.ndarray:
        """Rows of the ``count`` best keyword scores (:func:`top_rows`), selected once per query: the
        best of fewer rows are the first rows of a longer selection (ties, also at the cut, go in row
        order in both), so multi's 30 for the text evidence come from the blend's 50."""
        scores = self.bm25_scores
        longer = [n for n in self._tops if n >= count]
        if longer:
            return self._tops[min(longer)][:count]
        rows = self._tops[count] = top_rows(scores, count)
        return rows

    @cached_property
    def bm25_scores(self) -> np.ndarray:
        """BM25 score per row (filtered-out rows are zero)."""
        if self._keywords_beside is not None:
            return self._keywords_beside.result()
        return self._keyword_scores()

    def _keyword_scores(self) -> np.ndarray:
        keywords = self.snapshot.keywords
        if keywords is None:
            return np.zeros(len(self.snapshot), dtype=np.float32)
        return self._masked(keywords.scores(self.query_tokens))

    def keyword_top_of(self, tokens: list[str], count: int) -> np.ndarray:
        """Rows of the ``count`` best keyword scores of ``tokens`` instead of the query's (filtered-out
        rows never among them): the evidence's second looks, for a name or a clause of a message."""
        keywords = self.snapshot.keywords
        if keywords is None:
            return np.zeros(0, dtype=np.intp)
        return top_rows(self._masked(keywords.scores(tokens)), count)

    def _masked(self, scores: np.ndarray) -> np.ndarray:
        return scores if self.mask is None else np.where(self.mask, scores, 0.0)

    @property
    def pool(self) -> int:
        """How many candidates each leg contributes before fusion: never sized by ``top_k``, so the
        first results of a request are the same whatever ``top_k`` is."""
        return POOL

    def allowed_keys(self, keys: np.ndarray) -> np.ndarray:
        """Which of these live keys pass the filters."""
        if self.mask is None:
            return np.ones(len(keys), dtype=bool)
        return self.mask[self.snapshot.columns.positions(keys)]
