"""BM25 over code-aware tokens (bm25s), one document per chunk in the generation's row order."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

FOLDER = "bm25"
logging.getLogger("bm25s").setLevel(logging.WARNING)


class KeywordIndex:
    def __init__(self, model: bm25s.BM25, size: int):
        self._model = model
        self._size = size
        self._vocab: dict[str, int] = model.vocab_dict or {}

    @classmethod
    def build(cls, docs: Sequence[Sequence[str]], k1: float, b: float) -> KeywordIndex:
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        # an empty document list or all-empty documents still need one vocabulary entry
        model.index([list(d) for d in docs] or [[]], show_progress=False)
        return cls(model, len(docs))

    @classmethod
    def open(cls, gen_dir: Path, size: int) -> KeywordIndex | None:
        path = gen_dir / FOLDER
        if not path.exists():
            return None
        return cls(bm25s.BM25.load(str(path), mmap=True, show_progress=False), size)

    def save(self, gen_dir: Path) -> None:
        self._model.save(str(gen_dir / FOLDER), show_progress=False)

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every document (zeros when no query token is in the vocabulary)."""
        ids = [self._vocab[t] for t in query_tokens if t in self._vocab]
        if not ids or not self._size:
            return np.zeros(self._size, dtype=np.float32)
        return np.asarray(self._model.get_scores_from_ids(ids), dtype=np.float32)[: self._size]
