"""The first results never depend on how many were asked for: a page of 10 is the prefix of a page of 50,
in every mode, on a real index (the engine's own retrieval code and README, embedded by the real model)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.context import POOL
from agent_brain_lab.engine.types import MAX_TOP_K

REPO = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns("__pycache__")
MODES = ["vector", "bm25", "hybrid", "graph", "multi"]


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    root = tmp_path_factory.mktemp("stable")
    shutil.copytree(REPO / "agent_brain_lab" / "engine" / "retrieval", root / "retrieval", ignore=IGNORE)
    shutil.copytree(REPO / "agent_brain_lab" / "engine" / "chunking", root / "chunking", ignore=IGNORE)
    shutil.copy(REPO / "README.md", root / "README.md")
    brain = Brain(root)
    assert brain.index().chunks_total > 3 * POOL  # deep enough that a page of 100 reads past every leg's pool
    return brain


def _words(brain: Brain) -> list[str]:
    text = (Path(brain.root) / "retrieval" / "hybrid.py").read_text() + (Path(brain.root) / "README.md").read_text()
    return sorted(set(re.findall(r"[A-Za-z_][A-Za-z_]{3,}", text)))[:400]


QUERY_SHAPES = ["{}", "{} {}", "how does {} handle {}", "what calls {}", "subclasses of {}", "{} {} {} {}"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_short_page_is_the_prefix_of_a_long_one(brain, data):
    words = _words(brain)
    shape = data.draw(st.sampled_from(QUERY_SHAPES))
    query = shape.format(*data.draw(st.lists(st.sampled_from(words), min_size=4, max_size=4)))
    mode = data.draw(st.sampled_from(MODES))
    short, long = sorted(data.draw(st.lists(st.integers(1, MAX_TOP_K), min_size=2, max_size=2, unique=True)))
    a = brain.query(query, mode=mode, top_k=short)
    b = brain.query(query, mode=mode, top_k=long)
    page = [(r.chunk_id, round(r.score, 9)) for r in a.results]
    assert page == [(r.chunk_id, round(r.score, 9)) for r in b.results][: len(page)], (query, mode, short, long)
    assert len(page) == min(short, len(b.results))
    assert (a.intent, a.query_entities, a.fallback) == (b.intent, b.query_entities, b.fallback)


@pytest.mark.parametrize("mode", MODES)
def test_pages_of_10_and_100_agree_on_prose_and_relation_questions(brain, mode):
    for query in ["how are results blended from both legs", "what calls minmax", "blend", "Scale"]:
        ten = [r.chunk_id for r in brain.query(query, mode=mode, top_k=10).results]
        hundred = [r.chunk_id for r in brain.query(query, mode=mode, top_k=MAX_TOP_K).results]
        assert ten == hundred[:10], (mode, query)
        assert len(hundred) > POOL or mode in ("graph", "bm25")  # past the fused pool, the blend's next ones follow


@pytest.mark.parametrize("mode", ["graph", "multi"])
def test_query_entities_are_reported_as_the_code_spells_them(brain, mode):
    # "query context" is looked up as queryContext; the class is QueryContext
    response = brain.query("what uses query context", mode=mode, top_k=5)
    assert "QueryContext" in response.query_entities
    assert not any(e in ("queryContext", "query_context") for e in response.query_entities)
    assert "Scale" in brain.query("Scale", mode=mode, top_k=5).query_entities  # written as in the code: kept


def test_hybrid_read_deeper_reports_each_results_own_similarity(brain):
    """A page of 100 makes hybrid read both legs deeper (each pass 4 times the last); the similarities
    of the keys an earlier pass already scored are remembered, not recomputed: each result still
    carries its own key's similarity to the query, as scored alone."""
    view = brain._reader.view()
    vectors = view.snapshot.vectors
    assert vectors is not None
    for query in ["how are results blended from both legs", "blend", "minmax scale of a leg"]:
        results = brain.query(query, mode="hybrid", top_k=MAX_TOP_K).results
        assert len(results) == MAX_TOP_K > POOL  # more than the first pass reads of each leg
        keys = view.catalog.keys_of_chunk_ids(view.snapshot.gen, [r.chunk_id for r in results])
        query_vector = brain._embedder.embed_query(query)
        for r in results:
            alone, stored = vectors.similarities(query_vector, [keys[r.chunk_id]])
            assert stored[0] and r.vector_score == float(alone[0]), (query, r.chunk_id)
