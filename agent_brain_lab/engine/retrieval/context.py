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

    @cached_property
    def query_vector(self) -> np.ndarray:
        return self._embed_query(self.request.query)

    @cached_property
    def intent(self) -> Intent:
        return analyse(self.request.query)

    @cached_property
    def query_tokens(self) -> list[str]:
        return query_tokens(self.request.query)

    def score_keywords_beside(self, start: Callable[[Callable[[], np.ndarray]], Future[np.ndarray]]) -> None:
        """Have ``start`` compute :attr:`bm25_scores` on another thread while this one goes on (hybrid
        embeds the query meanwhile)."""
        self._keywords_beside = start(self._keyword_scores)

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
        scores = keywords.scores(self.query_tokens)
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
