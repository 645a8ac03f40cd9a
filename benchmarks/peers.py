"""The peers we compare against, each run on the chunks (and vectors) we hand it.

Every peer answers ``search(query, k) -> list of row indices, best first``; rows with a zero
score are dropped so a peer never gets credit for an arbitrary order.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .metrics import rrf

_PLAIN = re.compile(r"\w+")


def plain_tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs: what a generic keyword search does with code."""
    return _PLAIN.findall(text.lower())


def _top(scores: np.ndarray, k: int) -> list[int]:
    k = min(k, len(scores))
    if k <= 0:
        return []
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    return [int(i) for i in idx if scores[i] > 0]


class RankBM25:
    """``rank_bm25.BM25Okapi`` over plain tokens."""

    name = "rank_bm25"

    def __init__(self, texts: Sequence[str]):
        from rank_bm25 import BM25Okapi

        self._bm25 = BM25Okapi([plain_tokens(t) or [""] for t in texts])

    def search(self, query: str, k: int) -> list[int]:
        return _top(np.asarray(self._bm25.get_scores(plain_tokens(query))), k)


class Bm25sShipped:
    """bm25s as its README shows it: ``bm25s.tokenize(texts, stopwords="en")``, default BM25."""

    name = "bm25s"

    def __init__(self, texts: Sequence[str]):
        import bm25s

        self._bm25s = bm25s
        self._retriever = bm25s.BM25()
        self._retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
        self._n = len(texts)

    def search(self, query: str, k: int) -> list[int]:
        tokens = self._bm25s.tokenize([query], stopwords="en", show_progress=False)
        docs, scores = self._retriever.retrieve(tokens, k=min(k, self._n), show_progress=False)
        return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]


class ExactDense:
    """Exact cosine over unit vectors (numpy); the query is embedded by ``embed_query``."""

    name = "dense"

    def __init__(self, vectors: np.ndarray, embed_query: Callable[[str], np.ndarray]):
        self._vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._embed_query = embed_query

    def search(self, query: str, k: int) -> list[int]:
        return self.search_vector(self._embed_query(query), k)

    def search_vector(self, vector: np.ndarray, k: int) -> list[int]:
        scores = self._vectors @ vector.astype(np.float32)
        k = min(k, len(scores))
        idx = np.argpartition(-scores, k - 1)[:k]
        return [int(i) for i in idx[np.argsort(-scores[idx], kind="stable")]]


class RRFPipeline:
    """Reciprocal rank fusion (k=60) of two legs, each asked for ``depth`` results."""

    def __init__(self, name: str, legs: Sequence, depth: int = 50, k: int = 60):
        self.name = name
        self._legs = legs
        self._depth = depth
        self._k = k

    def search(self, query: str, k: int) -> list[int]:
        return rrf([leg.search(query, self._depth) for leg in self._legs], self._k)[:k]


def windows(path: str, text: str, size: int = 40) -> list[tuple[str, int, int, str]]:
    """Non-overlapping ``size``-line windows of a file: (path, start_line, end_line, text)."""
    lines = text.splitlines()
    return [
        (path, start + 1, min(start + size, len(lines)), "\n".join(lines[start : start + size]))
        for start in range(0, len(lines), size)
    ]


class ChromaVectors:
    """A ChromaDB ``PersistentClient`` collection (cosine HNSW) holding our own vectors."""

    name = "chromadb"

    def __init__(self, vectors: np.ndarray, path: Path | None = None, batch: int = 5000):
        import chromadb
        from chromadb.config import Settings

        self._dir = Path(tempfile.mkdtemp(prefix="chroma-")) if path is None else path
        self._client = chromadb.PersistentClient(path=str(self._dir), settings=Settings(anonymized_telemetry=False))
        self._collection = self._client.create_collection("bench", metadata={"hnsw:space": "cosine"})
        for start in range(0, len(vectors), batch):
            part = vectors[start : start + batch]
            self._collection.add(ids=[str(i) for i in range(start, start + len(part))], embeddings=part.tolist())

    def search_vector(self, vector: np.ndarray, k: int) -> list[int]:
        found = self._collection.query(query_embeddings=[vector.tolist()], n_results=k, include=[])
        return [int(i) for i in found["ids"][0]]

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
