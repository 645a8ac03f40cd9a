"""Multi mode on real TypeScript files whose doc comments are blanked (the TS/JS docstring questions,
``benchmarks/tsjs_docstrings.py``): a question in a doc comment's words finding the declaration it
documents. Classes fixed: a constructor ("Create a new computed value ...") has its class's name for the
name cover, not ``constructor``; the public alias a file makes from a function (``export const
createSlice = buildCreateSlice()``) goes above the function even when the question's words did not bring
the alias into the fused pool; and a summary in the third person whose verb no list holds, or one
describing a wrapper or utility, says what a function does (a type alias goes lower)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from workspace_fixture import top10

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.symbols import NAME_COVER_BOOST, SHAPE_PENALTY, describes_action

FIXTURES = Path(__file__).parent / "fixtures" / "tsdoc"


def _indexed(tmp_path_factory, name: str) -> Brain:
    root = tmp_path_factory.mktemp(name) / "ws"
    shutil.copytree(FIXTURES / name, root)
    brain = Brain(root)
    brain.index()
    return brain


@pytest.fixture(scope="module")
def mobx(tmp_path_factory) -> Brain:
    return _indexed(tmp_path_factory, "mobx")


@pytest.fixture(scope="module")
def toolkit(tmp_path_factory) -> Brain:
    return _indexed(tmp_path_factory, "redux-toolkit")


def _gains(brain: Brain, query: str) -> dict[str, float]:
    """What multi added to each of its first ten over the hybrid blend's score, by qualified symbol."""
    blend = {r.chunk_id: r.score for r in brain.query(query, mode="hybrid", top_k=40).results}
    return {
        f"{r.parent_symbol or ''}.{r.symbol_name}": r.score - blend[r.chunk_id]
        for r in top10(brain, query)
        if r.chunk_id in blend
    }


def test_a_constructor_is_named_by_its_class_for_a_question_saying_it_makes_one(mobx):
    query = "Create a new computed value based on a function expression."
    gains = _gains(mobx, query)
    # "computed value" covers ComputedValue fully: the constructor gains the whole cover
    assert gains["ComputedValue.constructor"] == pytest.approx(NAME_COVER_BOOST, abs=1e-6)
    found = [f"{r.parent_symbol}.{r.symbol_name}" for r in top10(mobx, query)]
    assert found.index("ComputedValue.constructor") < found.index("ComputedValue.diffValue")
    # a question about what an instance does leaves the constructor with its own name's cover (none)
    other = _gains(mobx, "Returns the current value of this computed value. Will evaluate its computation first.")
    assert other.get("ComputedValue.constructor", 0.0) == pytest.approx(0.0, abs=1e-6)


def test_the_alias_of_a_best_candidate_comes_in_from_outside_the_pool(toolkit):
    query = (
        'A function that accepts an initial state, an object full of reducer functions, and a "slice name", and '
        "automatically generates action creators and action types that correspond to the reducers and state."
    )
    results = toolkit.query(query, mode="multi", top_k=10).results
    alias = next(i for i, r in enumerate(results) if r.symbol_name is None and r.start_line == r.end_line)
    assert "export const createSlice" in results[alias].text
    # just above the chunk where buildCreateSlice is defined (its first part)
    below = results[alias + 1]
    assert below.symbol_name == "buildCreateSlice" and "export function buildCreateSlice" in below.text
    assert alias < 3
    # neither leg of the blend ranks the alias in its first 50: it was not in the fused pool
    assert all(r.chunk_id != results[alias].chunk_id for r in toolkit.query(query, mode="hybrid", top_k=50).results)


def test_a_summary_in_the_third_person_or_of_a_wrapper_says_what_a_function_does():
    assert describes_action("Buffers the source Observable values until the size hits the maximum.")
    assert describes_action("Recursively converts an observable to its non-observable native counterpart.")
    assert describes_action("Safely reports an error thrown by a listener.")
    assert describes_action("A mini-wrapper that passes arguments straight through to fetch.")
    assert describes_action("This is a very small wrapper around fetch that aims to simplify requests.")
    assert describes_action("A utility that can wrap `baseQuery` to provide retries.")
    assert not describes_action("Selectors that assume the slice's state is at its reducer path")
    assert not describes_action("Options for the request")
    assert not describes_action("Status of the request")
    assert not describes_action("Batch starts a transaction")


def test_a_type_goes_shape_penalty_lower_for_a_third_person_summary(toolkit):
    query = "Recognises an action that was created by an async thunk action creator and is pending."
    blend = {r.chunk_id: r.score for r in toolkit.query(query, mode="hybrid", top_k=40).results}
    shapes = [r for r in top10(toolkit, query) if r.symbol_type in ("type", "interface") and r.chunk_id in blend]
    assert shapes  # the matchers' action types are among the first ten
    for r in shapes:
        assert r.score - blend[r.chunk_id] == pytest.approx(-SHAPE_PENALTY, abs=1e-6)
