"""Query embeddings: cached (hybrid, multi and people repeat queries) and started early, so a
query's keyword, graph and names work runs while the model embeds it (onnxruntime releases the GIL)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CACHED = 256


class QueryVectors:
    def __init__(self, embed: Callable[[str], np.ndarray]):
        self._embed = embed
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-brain-query-embedding")

    def get(self, text: str) -> np.ndarray:
        with self._lock:
            vector = self._cache.get(text)
            if vector is not None:
                self._cache.move_to_end(text)
                return vector
        vector = self._embed(text)
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > CACHED:
                self._cache.popitem(last=False)
        return vector

    def soon(self, text: str) -> Callable[[str], np.ndarray]:
        """``get``, with the embedding of ``text`` already started in the background."""
        with self._lock:
            if text in self._cache:
                return self.get
        started = self._pool.submit(self.get, text)
        return lambda asked: started.result() if asked == text else self.get(asked)
