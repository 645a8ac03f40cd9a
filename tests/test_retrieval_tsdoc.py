"""Multi mode on real TypeScript files whose doc comments are blanked (the TS/JS docstring questions,
``benchmarks/tsjs_docstrings.py``): a question in a doc comment's words finding the declaration it
documents. Classes fixed: a public function another file makes by binding a method (``export const
applyPatches = immer.applyPatches.bind(immer)``) goes just above the method; a constructor ("Create a new
computed value ...") has its class's name for the name cover, not ``constructor``; the public alias a file
makes from a function (``export const createSlice = buildCreateSlice()``) goes above the function even when
the question's words did not bring the alias into the fused pool; and a summary in the third person whose
verb no list holds, or one describing a wrapper or utility, says what a function does (a type goes lower)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from workspace_fixture import indexed_files, top10

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.evidence import opening_subject
from agent_brain_lab.engine.retrieval.names import spelled_parts
from agent_brain_lab.engine.retrieval.symbols import (
    NAME_COVER_BOOST,
    PREDICATE_BOOST,
    PREDICATE_SAID_BOOST,
    SHAPE_PENALTY,
    VARIANT_BOOST,
    describes_action,
    is_front_for,
    is_variant,
    likened_names,
    says_predicate,
)

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


@pytest.fixture(scope="module")
def immer(tmp_path_factory) -> Brain:
    return _indexed(tmp_path_factory, "immer")


def test_the_public_name_another_file_binds_to_a_method_goes_just_above_it(immer):
    # src/immer.ts: `export const applyPatches = /* @__PURE__ */ immer.applyPatches.bind(immer)`, with the
    # other bound methods in one chunk of module code; the question's words are in the method's body
    results = immer.query("Apply an array of Immer patches to the first argument.", mode="multi", top_k=5).results
    assert results[0].source == "src/immer.ts" and results[0].symbol_name is None
    assert "applyPatches = /* @__PURE__ */ immer.applyPatches.bind(immer)" in results[0].text
    assert (results[1].parent_symbol, results[1].symbol_name) == ("Immer", "applyPatches")
    assert results[0].score > results[1].score
    # a function (no method) among the best keeps its place: nothing binds it
    frozen = immer.query("Freezes draftable objects, returns the original object.", mode="multi", top_k=5).results
    assert frozen[0].symbol_name == "freeze"


ROUTER_JS = """var Route = require('./route');
var Layer = require('./layer');

var proto = module.exports = function(options) {
  function router(req, res, next) {
    router.handle(req, res, next);
  }
  router.stack = [];
  return router;
};

proto.route = function route(path) {
  var route = new Route(path);

  var layer = new Layer(path, {
    sensitive: this.caseSensitive,
    strict: this.strict,
    end: true
  }, route.dispatch.bind(route));

  layer.route = route;

  this.stack.push(layer);
  return route;
};
"""

APPLICATION_JS = """var methods = require('methods');
var slice = Array.prototype.slice;
var app = exports = module.exports = {};

methods.forEach(function(method){
  app[method] = function(path){
    this.lazyrouter();

    var route = this._router.route(path);
    route[method].apply(route, slice.call(arguments, 1));
    return this;
  };
});
"""


def test_a_value_a_call_of_the_method_returns_is_no_public_name_for_it(tmp_path):
    # express 4: `var route = this._router.route(path)` inside a callback holds what the method returns
    brain = indexed_files(tmp_path, {"lib/router/index.js": ROUTER_JS, "lib/application.js": APPLICATION_JS})
    query = "Create a new Route for the given path, with a layer on the stack dispatching to it."
    results = top10(brain, query)
    assert (results[0].source, results[0].symbol_name) == ("lib/router/index.js", "route")


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


def test_a_predicate_the_question_says_its_subject_is_comes_before_its_family(toolkit):
    # matchers.ts: isPending, isRejected, isFulfilled, ... each "a higher-order function that returns a
    # function that may be used to check whether an action ... is pending"; isAsyncThunkAction's name is
    # the question's "async thunk action" too, but the action is said to *be* pending
    for said, name in (("pending", "isPending"), ("fulfilled", "isFulfilled"), ("rejected", "isRejected")):
        query = (
            "A higher-order function that returns a function that may be used to check whether an action was "
            f"created by an async thunk action creator, and that the action is {said}."
        )
        found = [r.symbol_name for r in top10(toolkit, query) if r.source == "src/matchers.ts"]
        assert found.index(name) < 2
        if name != "isRejected":  # its blend is lower: second, above createAsyncThunk (it was third)
            assert found[0] == name
        assert _gains(toolkit, query)[f".{name}"] >= PREDICATE_SAID_BOOST
    assert says_predicate("Returns true if the given value is an Immer draft", "isDraft")
    assert says_predicate("Returns whether the map has own property x", "hasOwnProperty")
    assert not says_predicate("Tests if `action` is a fulfilled thunk action", "isAsyncThunkAction")
    assert not says_predicate("Returns true if it is", "is")


def test_the_public_function_an_implementation_is_named_for_goes_just_above_it(immer):
    # src/core/current.ts: `export function current(value)` checks its argument and returns
    # `currentImpl(value)`, which holds the words of the question
    query = (
        "Takes a snapshot of the current state of a draft and finalizes it (but without freezing). This is a "
        "great utility to print the current state during debugging (no Proxies in the way)."
    )
    results = top10(immer, query)
    assert [r.symbol_name for r in results[:2]] == ["current", "currentImpl"]
    assert is_front_for("current", "currentImpl") and is_front_for("toJS", "toJSHelper")
    assert is_front_for("flatten", "baseFlatten") and is_front_for("send", "send_impl")
    assert not is_front_for("currentImpl", "currentImpl") and not is_front_for("basement", "basement")


def test_a_name_part_is_covered_by_the_word_it_shortens_or_is_made_of(immer, tmp_path_factory):
    # "can be drafted" spells isDraftable's one part (``draftabl``) through its verb
    gains = _gains(immer, "Returns true if the given value can be drafted by Immer")
    assert gains[".isDraftable"] == pytest.approx(NAME_COVER_BOOST + PREDICATE_BOOST, abs=1e-6)
    ramda = _indexed(tmp_path_factory, "ramda")
    # "concatenating" -> concat (an abbreviation), "composition" -> compose (a noun of action)
    assert _gains(ramda, "Returns the result of concatenating the given lists or strings.")[".concat"] == (
        pytest.approx(NAME_COVER_BOOST, abs=1e-6)
    )
    composition = "Performs right-to-left function composition. The last argument may have any arity."
    assert _gains(ramda, composition)[".compose"] == pytest.approx(NAME_COVER_BOOST, abs=1e-6)
    # "equals ... property" spells eqProps out in full (``eq``, ``prop``): the names leg hears it too
    query = (
        "Reports whether two objects have the same value, in [`R.equals`](#equals) terms, for the specified "
        "property. Useful as a curried predicate."
    )
    first = top10(ramda, query)[0]
    assert first.symbol_name == "eqProps" and "names" in first.ranks
    spelled = spelled_parts("function composition, string concatenation", ["function", "composit", "concaten"])
    assert {"compos", "concat"} <= spelled
    assert {"prop", "obj", "draftabl"} <= spelled_parts(
        "the object's property can be drafted", ["object", "properti", "draft"]
    )


def test_the_name_a_file_makes_by_passing_a_best_candidate_goes_just_above_it(toolkit):
    # src/query/retry.ts: `export const retry = /* @__PURE__ */ Object.assign(retryWithBackoff, { fail })`,
    # no call of retryWithBackoff: the question's words are in the function given, its doc on the name made
    query = (
        "A utility that can wrap `baseQuery` in the API definition to provide retries with a basic exponential backoff."
    )
    results = top10(toolkit, query)
    assert results[0].symbol_name is None and "export const retry = " in results[0].text
    assert (results[1].source, results[1].symbol_name) == ("src/query/retry.ts", "retryWithBackoff")
    assert 0 < results[0].score - results[1].score < 0.01


def test_a_variant_of_the_name_a_question_likens_its_answer_to_comes_first(tmp_path_factory):
    # async 3.2.6: mapLimit, timesLimit, mapSeries ... each hand their work to a helper; "the same as map but
    # ... `limit`" covers timesLimit as fully as mapLimit ("at a time": times), and the variant of map is meant
    brain = _indexed(tmp_path_factory, "async")
    query = "The same as [`map`]:Collections.map but runs a maximum of `limit` async operations at a time."
    gains = _gains(brain, query)
    assert gains[".mapLimit"] - gains[".timesLimit"] == pytest.approx(VARIANT_BOOST, abs=1e-6)
    # (over the whole package the blend's lead of timesLimit is smaller: mapLimit 2 -> 1, mapSeries 3 -> 2)
    # a private helper is no documented variant (internal/map.js's `_asyncMap`), nor the name itself
    assert is_variant("mapLimit", "map") and is_variant("mapValuesSeries", "mapValues")
    assert is_variant("sortedUniq", "uniq") and is_variant("find_last", "find")
    assert not is_variant("_asyncMap", "map") and not is_variant("map", "map") and not is_variant("timesLimit", "map")


def test_a_question_naming_its_subject_before_likening_it_lifts_no_variant(tmp_path_factory):
    # ramda 0.30.1: "Scan is similar to reduce" is about scan, not about reduceBy, reduceRight, reduceWhile
    ramda = _indexed(tmp_path_factory, "ramda")
    query = "Scan is similar to [`reduce`](#reduce), but returns a list of successively reduced values from the left."
    gains = _gains(ramda, query)
    assert all(gains.get(f".{name}", 0.0) < VARIANT_BOOST for name in ("reduceBy", "reduceRight", "reduceWhile"))
    defined = {"scan", "reduce", "map", "uniq", "filter"}.__contains__
    assert likened_names(query, defined) == frozenset()
    assert likened_names("This method is like `_.uniq` except that it accepts `iteratee`.", defined) == {"uniq"}
    assert likened_names("An Object-specific version of [`map`](#map).", defined) == {"map"}
    assert likened_names("The opposite of [`filter`]:Collections.filter.", defined) == frozenset()
    assert likened_names("Values like strings and numbers.", defined) == frozenset()  # not a name


def test_a_question_opening_with_its_subject_puts_that_definition_first(tmp_path_factory):
    # ramda 0.30.1: the doc comment names its declaration before saying what it does; the functions it is
    # likened to (reduce's family, compose's) share more of its words
    ramda = _indexed(tmp_path_factory, "ramda")
    scan = "Scan is similar to [`reduce`](#reduce), but returns a list of successively reduced values from the left."
    assert top10(ramda, scan)[0].symbol_name == "scan"
    o = (
        "`o` is a curried composition function that returns a unary function. Like [`compose`](#compose), `o` "
        "performs right-to-left function composition."
    )
    assert top10(ramda, o)[0].symbol_name == "o"
    assert opening_subject("The `mapAccum` function behaves like a combination of map and reduce") == "mapAccum"
    assert opening_subject("A Subject is a special type of Observable") == "Subject"
    assert opening_subject("This function is actually a no-op") is None
    assert opening_subject("Returns a new list") is None


def test_a_question_word_or_a_statement_about_a_name_is_no_opening_subject():
    # natural questions: "where is ..." is no question about ramda's ``where``; a pasted message saying
    # something of a name is the message's
    assert opening_subject("where is the timeout applied to the connection") is None
    assert opening_subject("how is req.ip computed when trust proxy is set") is None
    assert opening_subject("baseUrl is likely a misspelling of baseURL") is None
