"""The engine's embedding model, with an on-disk cache so reruns of a benchmark skip re-embedding."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agent_brain_lab.engine.embedding import Embedder, resolve_model


class CachedEmbedder:
    """Embeds with exactly the model the engine uses by default; caches whole batches by content."""

    def __init__(self, cache_dir: Path):
        self.cache_dir = cache_dir / "embeddings"
        self.spec = resolve_model()
        self._embedder = Embedder(self.spec)
        self.last_seconds = 0.0  # time of the last uncached embedding run

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        key = hashlib.blake2b(self.spec.identity.encode(), digest_size=16)
        for text in texts:
            key.update(text.encode("utf-8", "surrogatepass") + b"\x00")
        path = self.cache_dir / f"{key.hexdigest()}.npy"
        if path.is_file():
            return np.load(path)
        vectors = self.timed(texts)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
        return vectors

    def timed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed without the cache and record how long it took (the embedding-only baseline)."""
        start = time.perf_counter()
        vectors = self._embedder.embed(list(texts))
        self.last_seconds = time.perf_counter() - start
        return vectors
