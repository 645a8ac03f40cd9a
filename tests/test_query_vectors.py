"""Query embeddings are started early and cached: a query asked again is not embedded again, threads
asking at once get equal vectors, and the getter a query receives answers for any text."""

from __future__ import annotations

import threading

import numpy as np

from agent_brain_lab.engine import query_vectors
from agent_brain_lab.engine.embedding import Embedder, resolve_model
from agent_brain_lab.engine.query_vectors import QueryVectors


def _counting_embedder():
    embedder = Embedder(resolve_model(None, None))
    calls: list[str] = []
    lock = threading.Lock()

    def embed(text: str) -> np.ndarray:
        with lock:
            calls.append(text)
        return embedder.embed_query(text)

    return embed, calls


def test_a_started_embedding_is_the_one_the_query_gets_and_is_cached():
    embed, calls = _counting_embedder()
    vectors = QueryVectors(embed)
    getter = vectors.soon("apply the discount")
    first = getter("apply the discount")
    assert first.shape == (384,) and abs(float(np.linalg.norm(first)) - 1.0) < 1e-4
    assert vectors.soon("apply the discount")("apply the discount") is first  # cached: not embedded again
    other = getter("cart total")  # the getter answers for another text too
    assert not np.allclose(other, first)
    assert calls == ["apply the discount", "cart total"]


def test_threads_asking_at_once_get_the_same_vector(monkeypatch):
    monkeypatch.setattr(query_vectors, "CACHED", 3)
    embed, calls = _counting_embedder()
    vectors = QueryVectors(embed)
    texts = [f"query number {i}" for i in range(5)]
    got: dict[str, list[np.ndarray]] = {t: [] for t in texts}

    def ask(text: str) -> None:
        got[text].append(vectors.soon(text)(text))

    threads = [threading.Thread(target=ask, args=(t,)) for t in texts for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for text in texts:
        assert all(np.array_equal(v, got[text][0]) for v in got[text])
    assert sorted(set(calls)) == sorted(texts)
    assert len(vectors._cache) == 3  # bounded: the oldest go first
