"""The bm25 leg's top-k selection: a partition, not a sort, that orders like one."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_brain_lab.engine.retrieval.context import top_rows

scores = st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 2.5]), max_size=60).map(
    lambda v: np.array(v, dtype=np.float32)
)


@given(scores=scores, count=st.integers(0, 70))
def test_top_rows_are_the_best_positive_scores_in_score_then_row_order(scores, count):
    expected = sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-scores[i], i))[:count]
    assert top_rows(scores, count).tolist() == expected


@given(
    scores=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0]), max_size=400).map(
        lambda v: np.array(v, dtype=np.float64)
    ),
    count=st.integers(0, 20),
)
def test_top_rows_of_long_rows_with_many_ties_and_zeros_below(scores, count):
    """Pages much shorter than the rows, most rows tied at the cut or not positive (as a masked
    leg's float64 scores are): still the best positive scores in score, then row, order."""
    expected = sorted((i for i in range(len(scores)) if scores[i] > 0), key=lambda i: (-scores[i], i))[:count]
    assert top_rows(scores, count).tolist() == expected


@given(
    scores=st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0]), max_size=400).map(
        lambda v: np.array(v, dtype=np.float32)
    ),
    fewer=st.integers(0, 60),
    more=st.integers(0, 60),
)
def test_the_best_of_fewer_rows_are_the_first_of_a_longer_selection(scores, fewer, more):
    """What ``QueryContext.keyword_top`` relies on to select once per query (ties at either cut
    included)."""
    fewer, more = min(fewer, more), max(fewer, more)
    assert top_rows(scores, more)[:fewer].tolist() == top_rows(scores, fewer).tolist()
