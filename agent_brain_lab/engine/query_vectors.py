"""Query embeddings: cached (hybrid, multi and people repeat queries), and a pool of two threads
that runs a query's other work beside its embedding (onnxruntime releases the GIL): the embedding
itself started early (vector; graph and multi walk the graph meanwhile), or another task (hybrid's keyword
leg, while the calling thread embeds)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np

CACHED = 256
T = TypeVar("T")


class QueryVectors:
    def __init__(self, embed: Callable[[str], np.ndarray]):
        self._embed = embed
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-brain-query-beside")

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

    def beside(self, work: Callable[[], T]) -> Future[T]:
        """``work`` started on the pool, beside what the calling thread does next."""
        return self._pool.submit(work)
