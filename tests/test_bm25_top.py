"""The bm25 leg's top-k selection: a partition, not a sort, that orders like one."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_brain_lab.engine.retrieval import context
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


def test_top_rows_through_the_groups_floor_on_long_rows():
    """Rows long enough for the floor from the groups' maxima (``_floor``: at least ``count`` groups
    of ``GROUP`` rows): the same rows as a full sort on seeded rows of every shape the floor could
    get wrong — a few distinct values tied at the cut across groups, the best scores in one group
    (or in the rows left out of every group), fewer positive scores than places, negative scores,
    float32 and float64 (a masked leg's)."""
    rng = np.random.default_rng(23)
    checked_floor = 0
    for case in range(400):
        n = int(rng.integers(context.GROUP * 5, context.GROUP * 80))
        shape = case % 5
        if shape == 0:  # few distinct values: ties at every cut
            scores = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0], size=n, p=[0.5, 0.2, 0.15, 0.1, 0.05])
        elif shape == 1:  # the best rows in one group (rows i, i + groups, ...) or the ungrouped tail
            scores = rng.random(n) * 0.1
            groups = n // context.GROUP
            scores[int(rng.integers(groups)) :: groups] += 5.0
            scores[groups * context.GROUP :] += rng.choice([0.0, 10.0])
        elif shape == 2:  # fewer positive scores than places, in few groups
            scores = np.zeros(n)
            scores[rng.choice(n, size=int(rng.integers(0, 30)), replace=False)] = rng.choice([1.0, 2.0])
        elif shape == 3:  # negative and zero scores below
            scores = rng.choice([-1.0, 0.0, 0.25, 3.0], size=n, p=[0.3, 0.3, 0.3, 0.1])
        else:  # BM25-like: most rows score, continuous values
            scores = rng.gamma(1.5, 2.0, size=n) * (rng.random(n) < 0.7)
        scores = scores.astype(np.float32 if case % 2 else np.float64)
        for count in (1, 3, 10, 30, 50):
            order = np.lexsort((np.arange(n), -scores))
            expected = [int(i) for i in order if scores[i] > 0][:count]
            assert top_rows(scores, count).tolist() == expected, (case, count)
            checked_floor += context._floor(scores, count) > 0
    assert checked_floor > 1000  # most selections went through the floor
