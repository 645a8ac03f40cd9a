"""Work a query does not need is not done, and what a server keeps in memory after warming up."""

from __future__ import annotations

import gc
import threading

import numpy as np
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.engine.store.datafiles import release_pages
from agent_brain_lab.engine.store.graph import CodeGraph
from agent_brain_lab.engine.store.keywords import KeywordIndex

QUERY = "apply discount to the amount"


def test_hybrid_at_alpha_one_scores_no_keywords(brain):
    """alpha 1 gives the keyword leg weight 0: no bm25 score, no bm25 rank, the vector ranking."""
    blended = brain.query(QUERY, mode="hybrid", top_k=5)
    assert all(r.bm25_score is not None for r in blended.results)
    assert any("bm25" in r.ranks for r in blended.results)
    pure = brain.query(QUERY, mode="hybrid", alpha=1.0, top_k=5)
    assert pure.results and all(r.bm25_score is None and "bm25" not in r.ranks for r in pure.results)
    vector = brain.query(QUERY, mode="vector", top_k=5)
    assert [r.chunk_id for r in pure.results] == [r.chunk_id for r in vector.results]


def test_warm_prepares_the_keyword_impacts(tmp_path):
    gc.unfreeze()
    root = tmp_path / "workspace"
    copy_workspace(root)
    Brain(root).index()
    served = Brain(root)  # a fresh process's view: nothing loaded yet
    served.warm()
    keywords = served._reader.view().snapshot.keywords
    assert keywords is not None and keywords._impacts is not None  # the first query does not compute them
    assert gc.get_freeze_count() > 0  # what it loaded is out of the collector's full passes
    assert served.query("discount", mode="bm25").results


def test_postings_released_after_the_impact_pass_still_read_and_patch(tmp_path):
    """The postings' file pages are dropped once the impacts are computed; scoring and the next
    generation's patch read them again, equal to indexes that never dropped anything."""
    docs = {k: [f"w{(k * 7 + i) % 23}" for i in range(1 + k % 5)] for k in range(1, 200)}
    built = KeywordIndex.build(list(docs), list(docs.values()), 1.2, 0.75)
    (tmp_path / "g").mkdir()
    built.save(tmp_path / "g")
    opened = KeywordIndex.open(tmp_path / "g", len(built))
    assert opened is not None
    query = ["w3", "w5", "w5"]
    assert np.array_equal(opened.scores(query), built.scores(query))  # prepared, pages released
    assert np.array_equal(opened.scores(query), built.scores(query))
    added = {500: ["w3", "w9"], 501: ["w5"]}
    again = opened.patched([1, 2, 3], list(added), list(added.values()))
    fresh = built.patched([1, 2, 3], list(added), list(added.values()))
    assert np.array_equal(again.scores(query), fresh.scores(query))


def test_release_pages_keeps_what_a_private_mapping_wrote(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(100_000, dtype=np.int32))
    written = np.load(path, mmap_mode="c")
    written[5] = -1  # a private copy of the page: dropping it would lose the write
    read_only = np.load(path, mmap_mode="r")
    release_pages(written, read_only, np.arange(3))
    assert written[5] == -1
    assert int(read_only[5]) == 5 and int(read_only[-1]) == 99_999


def test_graph_mode_embeds_the_query_beside_its_walk(brain):
    """Graph mode orders its neighbourhood by meaning (or falls back to vector): the query's embedding
    starts with the query, in the embedding thread, while the graph is walked; once per query."""
    threads: list[str] = []
    embed = brain._query_vectors._embed

    def recorded(text: str) -> np.ndarray:
        threads.append(threading.current_thread().name)
        return embed(text)

    brain._query_vectors._embed = recorded
    try:
        walked = brain.query("what calls apply_discount in the cart", mode="graph", top_k=5)
        fallback = brain.query("zebra crossings at dawn", mode="graph", top_k=5)
    finally:
        brain._query_vectors._embed = embed
    assert walked.fallback is None and walked.results and fallback.fallback
    assert len(threads) == 2 and all(t.startswith("agent-brain-query-beside") for t in threads), threads


def test_hybrid_embeds_on_the_calling_thread_while_its_keywords_are_scored_beside(brain, monkeypatch):
    """hybrid starts the query's embedding at once on the calling thread (never waiting for another
    thread to get the GIL) and scores its keyword leg on the query pool meanwhile; at alpha 1 it scores
    no keywords. Each query embedded and scored once."""
    here = threading.current_thread().name
    embedded: list[str] = []
    scored: list[str] = []
    embed = brain._query_vectors._embed
    scores = KeywordIndex.scores

    def recorded(text: str) -> np.ndarray:
        embedded.append(threading.current_thread().name)
        return embed(text)

    monkeypatch.setattr(brain._query_vectors, "_embed", recorded)
    monkeypatch.setattr(
        KeywordIndex,
        "scores",
        lambda self, tokens: scored.append(threading.current_thread().name) or scores(self, tokens),
    )
    assert brain.query("discounted totals of a cart", mode="hybrid", top_k=5).results
    assert embedded == [here] and len(scored) == 1 and scored[0].startswith("agent-brain-query-beside"), scored
    assert brain.query("totals of the discounted carts", mode="hybrid", alpha=1.0, top_k=5).results
    assert embedded == [here, here] and len(scored) == 1


def test_multi_labels_only_the_results_it_shows(brain, monkeypatch):
    """The graph leg's neighbours and path are read for the results shown, not for its whole pool,
    and are the ones graph mode gives the same chunk."""
    question = "who calls compute_total?"
    graph = {r.chunk_id: r for r in brain.query(question, mode="graph", top_k=50).results}
    assert len(graph) > 2  # the leg's pool holds more than the page asked for
    asked: list[str] = []
    neighbours = CodeGraph.neighbours
    monkeypatch.setattr(CodeGraph, "neighbours", lambda self, node: asked.append(node) or neighbours(self, node))
    response = brain.query(question, mode="multi", top_k=2)
    assert response.intent == "callers" and len(response.results) == 2
    assert len(asked) == sum("graph" in r.ranks for r in response.results) == 2
    for result in response.results:
        assert result.related_entities == graph[result.chunk_id].related_entities
        assert result.relationship_path == graph[result.chunk_id].relationship_path


def test_a_looked_up_name_is_kept_but_never_shared(brain):
    graph = brain._reader.view().snapshot.graph
    first = graph.lookup("Compute_Total")
    assert first and first == CodeGraph(graph.files).lookup("compute_total")  # a fresh read of the same files
    first.append("not a node")
    assert graph.lookup("compute_total") == first[:-1]
