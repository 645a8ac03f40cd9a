"""Embedding batches: bounded padded size per batch, and vectors that do not depend on the batching."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_brain_lab.engine.embedding import _BATCH, MAX_TOKENS, Embedder, batches, estimated_tokens, resolve_model


@given(st.lists(st.integers(0, 5000), max_size=300), st.sampled_from([256, 1024, 8192]))
def test_batches_cover_every_text_once_shortest_first_within_the_token_budget(lengths, budget):
    out = batches(lengths, budget)
    flat = [i for batch in out for i in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in out:
        longest = estimated_tokens(max(lengths[i] for i in batch))
        assert 1 <= len(batch) <= _BATCH
        assert len(batch) == 1 or len(batch) * longest <= budget


def test_long_texts_get_small_batches_and_short_texts_full_ones():
    sizes = [len(b) for b in batches([40] * 64 + [2000] * 16, 1024)]
    assert sizes == [32, 32, 4, 4, 4, 4]


def test_vectors_do_not_depend_on_the_token_budget():
    texts = [f"def handler_{i}(request):\n    return {'x' * (i * 37 % 900)!r}" for i in range(40)]
    embedder = Embedder(resolve_model(None, None))
    embedder.token_budget = 256
    small = embedder.embed(texts)
    embedder.token_budget = 32 * MAX_TOKENS
    large = embedder.embed(texts)
    np.testing.assert_allclose(small, large, atol=1e-5)
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0)


def test_a_query_embeds_through_its_own_session_to_the_same_vector():
    embedder = Embedder(resolve_model(None, None))
    texts = ["parse http header", "how do I flush the pending writes?", "", "x" * 3000, "ünïcode ταυ 漢字 parseHTTP"]
    for text in texts:
        np.testing.assert_allclose(embedder.embed_query(text), embedder.embed([text])[0], atol=1e-6)
    assert embedder._query_session is not None  # the default model's queries took the session path
