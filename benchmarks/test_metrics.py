"""Ranking metrics, fusion and the hit rule of the code-search evaluation."""

import math

import pytest

from benchmarks.codesearch import is_hit
from benchmarks.docstrip import Target
from benchmarks.metrics import found_ranks, percentile, query_scores, rrf, summarize
from benchmarks.peers import Bm25sShipped, RankBM25, windows


def test_found_ranks_count_each_answer_once():
    assert found_ranks([None, 0, 0], 10) == [2]
    assert found_ranks([1, None, 0, 1], 10) == [1, 3]
    assert found_ranks([None] * 10 + [0], 10) == []


def test_query_scores_with_one_answer():
    assert query_scores([3], 1, 10) == pytest.approx({"ndcg": 1 / math.log2(4), "mrr": 1 / 3, "recall": 1.0})
    assert query_scores([], 1, 10) == {"ndcg": 0.0, "mrr": 0.0, "recall": 0.0}


def test_query_scores_with_several_answers():
    ideal = 1 + 1 / math.log2(3)
    assert query_scores([1, 2], 2, 10)["ndcg"] == pytest.approx(1.0)
    m = query_scores([2], 2, 10)
    assert m["ndcg"] == pytest.approx((1 / math.log2(3)) / ideal)
    assert m["mrr"] == 0.5 and m["recall"] == 0.5


def test_summarize_averages_per_query_scores():
    m = summarize(
        [query_scores([1], 1, 10), query_scores([3], 1, 10), query_scores([], 1, 10), query_scores([], 1, 10)]
    )
    assert m["mrr"] == pytest.approx((1 + 1 / 3) / 4)
    assert m["ndcg"] == pytest.approx((1 + 1 / math.log2(4)) / 4)
    assert m["recall"] == 0.5 and m["queries"] == 4


def test_percentile():
    assert percentile([3, 1, 2], 50) == 2
    assert percentile([0, 10], 95) == pytest.approx(9.5)


def test_rrf_prefers_items_ranked_well_by_both():
    fused = rrf([["a", "b", "c"], ["b", "c", "a"]], k=60)
    assert fused[0] == "b"
    assert set(fused) == {"a", "b", "c"}


def test_is_hit():
    t = Target("q", "pkg/a.py", "Box.run", 10, 20)
    assert is_hit({"source": "pkg/a.py", "start_line": 18, "end_line": 40}, t)
    assert not is_hit({"source": "pkg/a.py", "start_line": 21, "end_line": 40}, t)
    assert not is_hit({"source": "pkg/b.py", "start_line": 10, "end_line": 20}, t)
    assert is_hit(
        {"source": "pkg/a.py", "start_line": 50, "end_line": 60, "symbol_name": "run", "parent_symbol": "Box"}, t
    )


def test_windows():
    text = "\n".join(f"line {i}" for i in range(1, 101))
    w = windows("f.py", text)
    assert [(s, e) for _, s, e, _ in w] == [(1, 40), (41, 80), (81, 100)]
    assert w[1][3].splitlines()[0] == "line 41"


@pytest.mark.parametrize("peer", [RankBM25, Bm25sShipped])
def test_keyword_peers_rank_the_matching_text_first(peer):
    texts = [
        "def parse_header(raw): split lines",
        "class Cache: store values",
        "def unrelated(): pass",
        "the header parser reads raw bytes",
        "another thing entirely",
    ]
    found = peer(texts).search("cache store values", 3)
    assert found[0] == 1
    assert peer(texts).search("zzzz qqqq", 3) == []


def test_strict_hit_rejects_a_whole_class_outline():
    method = Target("q", "pkg/a.py", "Box.run", 100, 110)
    outline = {"source": "pkg/a.py", "start_line": 50, "end_line": 600, "symbol_name": "Box", "parent_symbol": None}
    window = {"source": "pkg/a.py", "start_line": 81, "end_line": 120}
    assert is_hit(outline, method) and not is_hit(outline, method, strict=True)
    assert is_hit(window, method, strict=True)
