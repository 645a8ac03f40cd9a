"""Work a query does not need is not done, and what a server keeps in memory after warming up."""

from __future__ import annotations

import gc

import numpy as np
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.engine.store.datafiles import release_pages
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
