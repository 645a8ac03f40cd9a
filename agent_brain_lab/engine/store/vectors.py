"""Dense vectors in a usearch index (cosine, f16 storage, usearch's own file format), keyed by chunk key."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime  # noqa: F401  must load before usearch: the reverse order segfaults (usearch 2.26, ort 1.31)
from usearch.index import Index

from .datafiles import CorruptIndexFile

FILE = "vectors.usearch"
EXACT_BELOW = 20_000  # brute force is exact and as fast as HNSW on small indexes


class VectorIndex:
    def __init__(self, index: Index):
        self._index = index

    @classmethod
    def empty(cls, dim: int) -> VectorIndex:
        return cls(Index(ndim=dim, metric="cos", dtype="f16", connectivity=16))

    @classmethod
    def open(cls, gen_dir: Path, writable: bool = False) -> VectorIndex | None:
        path = gen_dir / FILE
        if not path.exists():
            return None
        try:
            index = Index.restore(str(path), view=not writable)
        except (RuntimeError, ValueError, OSError) as err:
            raise CorruptIndexFile(f"{FILE}: unreadable ({err})") from None
        if index is None:
            raise CorruptIndexFile(f"{FILE}: not a usearch index")
        return cls(index)

    def __len__(self) -> int:
        return len(self._index)

    @property
    def dim(self) -> int:
        return self._index.ndim

    def update(self, removed: Sequence[int], added: Sequence[int], vectors: np.ndarray) -> None:
        if len(removed):
            self._index.remove(np.asarray(removed, dtype=np.uint64))
        if len(added):
            self._index.add(np.asarray(added, dtype=np.uint64), np.asarray(vectors, dtype=np.float32))

    def contains(self, keys: Sequence[int]) -> np.ndarray:
        """Which of ``keys`` have a vector (a generation published early lacks some)."""
        if not len(keys):
            return np.zeros(0, dtype=bool)
        return np.asarray(self._index.contains(np.asarray(keys, dtype=np.uint64)), dtype=bool)

    def save(self, gen_dir: Path) -> None:
        self._index.save(str(gen_dir / FILE))

    def search(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``count`` (keys, cosine similarities), best first."""
        n = len(self._index)
        if n == 0 or count <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        matches = self._index.search(query, min(count, n), exact=n < EXACT_BELOW)
        return matches.keys.astype(np.int64), (1.0 - matches.distances).astype(np.float32)

    def similarities(self, query: np.ndarray, keys: Sequence[int]) -> np.ndarray:
        """Cosine similarity of the query to each of ``keys`` (vectors are unit length); 0 for a key
        without a vector (not embedded yet)."""
        if not len(keys):
            return np.zeros(0, dtype=np.float32)
        vectors = self._index.get(np.asarray(keys, dtype=np.uint64))
        if vectors is None:
            raise CorruptIndexFile(f"{FILE}: vectors missing")
        zero = np.zeros(self.dim, dtype=np.float32)
        matrix = np.stack([zero if v is None else np.asarray(v, dtype=np.float32) for v in vectors])
        return matrix @ np.asarray(query, dtype=np.float32)
