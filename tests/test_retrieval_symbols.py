"""Symbol evidence in multi mode: the best prose candidates gain by how much of their own name the query covers."""

from __future__ import annotations

import pytest
from workspace_fixture import indexed_files

from agent_brain_lab import Brain
from agent_brain_lab.engine.chunking.code import analyze_code
from agent_brain_lab.engine.retrieval.multi import PROSE_WEIGHTS
from agent_brain_lab.engine.retrieval.names import name_parts
from agent_brain_lab.engine.retrieval.symbols import (
    COMPARED_PENALTY,
    GLUE_PENALTY,
    NAME_COVER_BOOST,
    PREDICATE_BOOST,
    PREDICATE_SAID_BOOST,
    SHAPE_PENALTY,
    asks_predicate,
    compared_names,
    describes_action,
    is_glue,
    is_predicate_name,
)

SOURCE = """
class Connection:
    def __init__(self, sock):
        self.sock = sock
        self.pending = []

    def flush_writes(self):
        while self.pending:
            self.sock.send(self.pending.pop(0))

    def queue_frame(self, frame):
        self.pending.append(frame)
        if len(self.pending) > 16:
            self.flush_writes()

    def close_socket(self):
        self.pending.clear()
        self.sock.close()
"""


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    notes = "# Notes\n\nWrites are flushed to the socket when the queue is long.\n"
    return indexed_files(tmp_path_factory.mktemp("symbols"), {"conn.py": SOURCE, "notes.md": notes})


def test_name_parts_are_stemmed_and_drop_the_whole_identifier():
    assert name_parts("_flush_writes") == {"flush", "write"}
    assert name_parts("close") == {"close"}  # a one-part name is its own part
    assert name_parts("_") == frozenset()  # nothing to cover: such a name gains nothing


def test_prose_candidates_gain_the_share_of_their_name_the_query_covers(brain):
    query = "send every queued write to the socket and flush it"
    multi = brain.query(query, mode="multi", top_k=5)
    assert multi.intent == "prose"
    # hybrid with top_k=10 blends the same 50-candidate pool multi does at top_k=5
    blend = {r.chunk_id: r.score for r in brain.query(query, mode="hybrid", top_k=10).results}
    gained = {r.symbol_name or r.source: r.score - blend[r.chunk_id] for r in multi.results}
    names = PROSE_WEIGHTS["names"]
    # "flush" and "write" are both in the query: the whole cover, plus the names leg's boost for a full match
    assert gained["flush_writes"] == pytest.approx(NAME_COVER_BOOST + names, abs=1e-6)
    # "close_socket": "socket" is in the query, "close" is not
    assert 0 < gained["close_socket"] < NAME_COVER_BOOST
    assert multi.results[0].symbol_name == "flush_writes"
    assert gained["notes.md"] == pytest.approx(0.0, abs=1e-6)  # a markdown note is no symbol: no name to cover


# JavaScript: a function made by a factory lives in a chunk of module code, named by its variable;
# a transpiler's module helper (`_interopRequireDefault`) assigns a module, not a function
FACTORY_JS = (
    "var invoker = require('./invoker');\n\nvar toLowerCase = invoker(0, 'toLowerCase');\n\n"
    "module.exports = toLowerCase;\n"
)
BABEL_JS = (
    "'use strict';\n\nvar _lowerCase = require('./lower.js');\n\n"
    "var _lowerCase2 = _interopRequireDefault(_lowerCase);\n\n"
    "function _interopRequireDefault(obj) { return obj && obj.__esModule ? obj : { default: obj }; }\n"
)


@pytest.fixture(scope="module")
def js_brain(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("factories"), {"lower.js": FACTORY_JS, "shout.js": BABEL_JS})


def test_a_factory_made_function_is_named_by_its_variable_and_a_module_helper_is_no_function(js_brain):
    query = "convert a string to lower case letters"
    multi = js_brain.query(query, mode="multi", top_k=10)
    assert multi.intent == "prose"
    blend = {r.chunk_id: r.score for r in js_brain.query(query, mode="hybrid", top_k=20).results}
    gained = {(r.source, r.start_line): r.score - blend[r.chunk_id] for r in multi.results}
    factory = next(key for key in gained if key[0] == "lower.js" and key[1] <= 3)
    # `toLowerCase` (lower, case): covered by the query, as a `def` would be, plus the names leg's full match
    assert gained[factory] == pytest.approx(NAME_COVER_BOOST + PROSE_WEIGHTS["names"], abs=1e-6)
    assert multi.results[0].source == "lower.js"
    # `_lowerCase2 = _interopRequireDefault(_lowerCase)` is an import: no name to cover; that module code
    # (imports only) and Babel's helper defined in every compiled file are glue: both go GLUE_PENALTY lower
    shout = [gain for (source, _), gain in gained.items() if source == "shout.js"]
    assert len(shout) == 2
    assert all(gain == pytest.approx(-GLUE_PENALTY, abs=1e-6) for gain in shout)


def test_a_transpiler_module_helper_assigns_an_import_not_a_factory_made_function():
    analysis = analyze_code("shout.js", BABEL_JS, "javascript", "code", 1500)
    assert {s.qualname for s in analysis.symbols} == {"_interopRequireDefault"}  # `_lowerCase2` is no entity
    assert not [r for r in analysis.relations if r.relation == "calls" and r.target == "_interopRequireDefault"]
    made = analyze_code("lower.js", FACTORY_JS, "javascript", "code", 1500)
    assert "toLowerCase" in {s.qualname for s in made.symbols}  # a factory's function still is one


REQUEST_CONTEXT = """
class RequestContext:
    '''The request context contains per-request information. The Flask app creates and pushes it at
    the beginning of the request, then pops it at the end of the request. It creates the URL adapter
    and request object for the WSGI environment provided.

    When the request context is popped, it will evaluate all the functions registered on the
    application for teardown execution.
    '''

    def __init__(self, app, environ, request=None):
        self.app = app
        self.request = request or app.request_class(environ)
        self.url_adapter = app.create_url_adapter(self.request)
        self._cv_tokens = []

    def copy(self):
        '''A copy of this request context with the same request object.'''
        return self.__class__(self.app, environ=self.request.environ, request=self.request)

    def match_request(self):
        '''Can be overridden by a subclass to hook into the matching of the request.'''
        self.request.url_rule, self.request.view_args = self.url_adapter.match(return_rule=True)

    def push(self):
        '''Binds the request context to the current context.'''
        app_ctx = self.app.app_context()
        app_ctx.push()
        self._cv_tokens.append((_cv_request.set(self), app_ctx))
        self.match_request()

    def pop(self, exc=None):
        '''Pops the request context and unbinds it by doing that. This will also trigger the
        execution of functions registered by the teardown_request decorator.'''
        clear_request = len(self._cv_tokens) == 1
        try:
            if clear_request:
                if exc is None:
                    exc = sys.exc_info()[1]
                self.app.do_teardown_request(exc)
                request_close = getattr(self.request, "close", None)
                if request_close is not None:
                    request_close()
        finally:
            token, app_ctx = self._cv_tokens.pop()
            _cv_request.reset(token)
            if clear_request:
                self.request.environ["werkzeug.request"] = None
            if app_ctx is not None:
                app_ctx.pop(exc)

    def __enter__(self):
        self.push()
        return self

    def __exit__(self, exc_type, exc_value, tb):
        self.pop(exc_value)
"""

VIEWS = """
class View:
    '''Subclass this class and override dispatch_request to create a generic class-based view.
    Call as_view to create a view function that creates an instance of the class with the given
    arguments and calls its dispatch_request method with any URL variables.'''

    methods = None
    init_every_request = True

    def dispatch_request(self):
        '''The actual view function behavior. Subclasses must override this and return a valid response.'''
        raise NotImplementedError()

    @classmethod
    def as_view(cls, name, *class_args, **class_kwargs):
        '''Convert the class into a view function that can be registered for a route.'''

        def view(**kwargs):
            self = view.view_class(*class_args, **class_kwargs)
            return self.dispatch_request(**kwargs)

        view.view_class = cls
        view.__name__ = name
        view.__doc__ = cls.__doc__
        view.methods = cls.methods
        return view
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("members"), {"ctx.py": REQUEST_CONTEXT, "views.py": VIEWS})


def _first(brain: Brain, query: str, count: int = 2) -> list[str | None]:
    return [r.symbol_name for r in brain.query(query, mode="multi", top_k=10).results[:count]]


def test_a_method_the_question_names_with_its_class_ranks_above_the_class(classes):
    # the class's chunk holds its docstring and every method's signature: it wins the blend and its
    # longer name; the question names the class and one of its methods: the method is the answer
    assert _first(classes, "what happens when the request context is popped") == ["pop", "RequestContext"]


def test_a_question_naming_several_methods_or_only_the_class_words_is_about_the_class(classes):
    assert _first(classes, "how is the request context pushed and popped", 1) == ["RequestContext"]
    # ``as_view`` is named by "views" only, the class's own word: not a method named apart from it
    assert _first(classes, "class-based views") == ["View", "as_view"]


# ramda's and lodash's CommonJS modules: the import lines above a function and the export line below
# it are module code of their own
UNIQ_JS = """var _curry1 = /*#__PURE__*/require("./internal/_curry1.js");
var _Set = /*#__PURE__*/require("./internal/_Set.js");



var uniq = /*#__PURE__*/_curry1(function uniq(list) {
  var set = new _Set();
  var result = [];
  for (var idx = 0; idx < list.length; idx += 1) {
    if (set.add(list[idx])) {
      result.push(list[idx]);
    }
  }
  return result;
});



module.exports = uniq;
"""
UNIQ_CONSTANTS_JS = """var _Set = /*#__PURE__*/require("./internal/_Set.js");
var TIMEOUT = 1000; // milliseconds before a list request is given up
"""


def test_import_and_export_lines_are_glue_and_code_beside_them_is_not():
    assert is_glue('var _curry1 = /*#__PURE__*/require("./internal/_curry1.js");\nmodule.exports = uniq;')
    assert is_glue("var _map2 = _interopRequireDefault(require('./map.js'));")  # Babel's
    assert is_glue('import {a,\n  b} from "./x";\nexport * from "./y";\nexport default a;')
    assert is_glue("from .app import (\n    Flask,\n)\nimport os  # the os\n")
    assert not is_glue("export const x = 1;")
    assert not is_glue("module.exports = Array.isArray || function _isArray(val) { return val; };")
    assert not is_glue("// a comment alone says something")
    assert not is_glue(UNIQ_CONSTANTS_JS)  # a constant is code of its own


@pytest.fixture(scope="module")
def glue_brain(tmp_path_factory) -> Brain:
    files = {"src/uniq.js": UNIQ_JS, "src/limits.js": UNIQ_CONSTANTS_JS}
    return indexed_files(tmp_path_factory.mktemp("glue"), files)


def test_a_prose_question_puts_import_and_export_lines_glue_penalty_lower(glue_brain):
    query = "Returns a new list containing only one copy of each element in the original list."
    multi = glue_brain.query(query, mode="multi", top_k=10)
    blend = {r.chunk_id: r.score for r in glue_brain.query(query, mode="hybrid", top_k=20).results}
    gained = {(r.source, r.start_line): r.score - blend[r.chunk_id] for r in multi.results}
    assert gained[("src/uniq.js", 1)] == pytest.approx(-GLUE_PENALTY, abs=1e-6)  # the require lines
    assert gained[("src/uniq.js", 19)] == pytest.approx(-GLUE_PENALTY, abs=1e-6)  # module.exports = uniq
    assert gained[("src/limits.js", 1)] == pytest.approx(0.0, abs=1e-6)  # a require beside a constant: code
    assert multi.results[0].symbol_name == "uniq"
    # a query of names only is no prose question: its lines keep their place ("where is uniq exported")
    lookup = glue_brain.query("uniq", mode="multi", top_k=10)
    assert lookup.intent == "lookup"
    assert "src/uniq.js" in {r.source for r in lookup.results if r.start_line == 19}


# async's functions: each in a file of its own, the series and limit variants described by the one they vary
GROUP_BY_JS = """function groupBy(coll, iteratee, callback) {
  return groupByLimit(coll, Infinity, iteratee, callback);
}
module.exports = groupBy;
"""
GROUP_BY_SERIES_JS = """function groupBySeries(coll, iteratee, callback) {
  return groupByLimit(coll, 1, iteratee, callback);
}
module.exports = groupBySeries;
"""
RACE_JS = """function race(tasks, callback) {
  for (var i = 0, l = tasks.length; i < l; i++) {
    tasks[i](callback);
  }
}
module.exports = race;
"""


def test_the_names_a_question_compares_its_answer_with():
    assert compared_names("The same as [`groupBy`]:Collections.groupBy but runs one at a time.") == {"groupBy"}
    assert compared_names("Like ['doWhilst']:ControlFlow.doWhilst, except the `test` is inverted.") == {"doWhilst"}
    assert compared_names("This method is like `_.uniq` except that it accepts `iteratee`.") == {"uniq"}
    assert compared_names("The complement of [`filter`](#filter).") == {"filter"}
    assert compared_names("Similar to `pick` except that this one includes undefined keys.") == {"pick"}
    # "equivalent to" says the answer does what the other does: async's race is Promise.race
    assert compared_names("Runs the tasks in parallel. It's equivalent to `Promise.race()`.") == frozenset()
    assert compared_names("Returns the first element of the list.") == frozenset()


@pytest.fixture(scope="module")
def siblings(tmp_path_factory) -> Brain:
    files = {"groupBy.js": GROUP_BY_JS, "groupBySeries.js": GROUP_BY_SERIES_JS, "race.js": RACE_JS}
    return indexed_files(tmp_path_factory.mktemp("siblings"), files)


def test_the_function_a_question_compares_its_answer_with_goes_below_it(siblings):
    query = "The same as [`groupBy`]:Collections.groupBy but runs only a single async operation at a time."
    multi = siblings.query(query, mode="multi", top_k=10)
    blend = {r.chunk_id: r.score for r in siblings.query(query, mode="hybrid", top_k=20).results}
    by_name = {r.symbol_name: r for r in multi.results if r.symbol_name}
    # groupBy gains no name cover and goes COMPARED_PENALTY lower (the names leg may still add its bit)
    gained = by_name["groupBy"].score - blend[by_name["groupBy"].chunk_id]
    assert -COMPARED_PENALTY - 1e-6 <= gained <= -COMPARED_PENALTY + PROSE_WEIGHTS["names"] + 1e-6
    assert multi.results[0].symbol_name == "groupBySeries"
    # said to be equivalent to Promise.race, `race` is not compared with anything: it keeps its place
    race = siblings.query("Runs the tasks in parallel. It's equivalent to `Promise.race()`.", mode="multi")
    assert race.results[0].symbol_name == "race"


# Redux Toolkit's matchers: a type describing an action beside the function that tests for it
MATCHERS_TS = """export type PendingActionFromAsyncThunk<T extends AnyAsyncThunk> = ActionFromMatcher<
  T['pending']
>

export function isPending(action: any): action is PendingActionFromAsyncThunk<any> {
  return hasExpectedRequestMetadata(action, ['pending'])
}

export interface PendingMeta {
  requestId: string
  requestStatus: 'pending'
}
"""


def test_a_question_saying_what_a_function_does():
    assert describes_action("Returns a new list.")
    assert describes_action("Tests if `action` is a pending thunk action")
    assert describes_action("Create a new atom.")
    assert describes_action("Undoes a memoized function.")
    assert describes_action("A higher-order function that returns a function.")
    assert describes_action("A function which calls the two provided functions.")
    assert not describes_action("Selectors that assume the slice's state is at its reducer path")
    assert not describes_action("The options of a pending action")
    assert not describes_action("")


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("shapes"), {"src/matchers.ts": MATCHERS_TS})


def test_a_type_or_interface_goes_shape_penalty_lower_when_the_question_says_what_a_function_does(shapes):
    def gains(query: str) -> dict[str | None, float]:
        multi = shapes.query(query, mode="multi", top_k=10)
        blend = {r.chunk_id: r.score for r in shapes.query(query, mode="hybrid", top_k=20).results}
        return {r.symbol_name: r.score - blend[r.chunk_id] for r in multi.results if r.symbol_type != "function"}

    acting = gains("Tests if `action` is a pending thunk action")
    assert acting["PendingActionFromAsyncThunk"] == pytest.approx(-SHAPE_PENALTY, abs=1e-6)
    assert acting["PendingMeta"] == pytest.approx(-SHAPE_PENALTY, abs=1e-6)
    describing = gains("The metadata of a pending thunk action")  # what a thing is: a type may answer it
    assert describing["PendingMeta"] >= 0.0


# attrs: the new API's `asdict` is described by the old one it wraps, named alike
OLD_ASDICT = """def asdict(inst, recurse=True, retain_collection_types=False):
    result = {}
    for a in inst.__attrs_attrs__:
        v = getattr(inst, a.name)
        result[a.name] = asdict(v) if recurse and hasattr(v, "__attrs_attrs__") else v
    return result
"""
NEW_ASDICT = """from ._funcs import asdict as _asdict


def asdict(inst, *, recurse=True):
    return _asdict(inst=inst, recurse=recurse, retain_collection_types=True)
"""


@pytest.fixture(scope="module")
def namesakes(tmp_path_factory) -> Brain:
    files = {"attr/_funcs.py": OLD_ASDICT, "attr/_next_gen.py": NEW_ASDICT}
    return indexed_files(tmp_path_factory.mktemp("namesakes"), files)


def test_a_compared_name_defined_twice_is_not_told_apart_so_neither_goes_below(namesakes):
    query = "Same as `attr.asdict`, except that collections types are always retained."
    assert compared_names(query) == {"asdict"}
    multi = namesakes.query(query, mode="multi", top_k=10)
    blend = {r.chunk_id: r.score for r in namesakes.query(query, mode="hybrid", top_k=20).results}
    gained = {r.source: r.score - blend[r.chunk_id] for r in multi.results if r.symbol_name == "asdict"}
    assert set(gained) == {"attr/_funcs.py", "attr/_next_gen.py"}
    assert all(gain >= 0.0 for gain in gained.values())  # their name cover, no penalty


SORTER_GO = """package cobra

type commandSorterByName []*Command

func (c commandSorterByName) Len() int           { return len(c) }
func (c commandSorterByName) Swap(i, j int)      { c[i], c[j] = c[j], c[i] }
func (c commandSorterByName) Less(i, j int) bool { return c[i].Name() < c[j].Name() }
"""


@pytest.fixture(scope="module")
def go_types(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("gotypes"), {"command.go": SORTER_GO, "src/matchers.ts": MATCHERS_TS})


def test_a_go_type_is_a_type_of_its_own_not_a_shape(go_types):
    query = "Sorts commands by their names."
    assert describes_action(query)
    multi = go_types.query(query, mode="multi", top_k=10)
    blend = {r.chunk_id: r.score for r in go_types.query(query, mode="hybrid", top_k=20).results}
    gained = {r.symbol_name: r.score - blend[r.chunk_id] for r in multi.results if r.symbol_type == "type"}
    assert gained["commandSorterByName"] >= 0.0  # Go's `type sorter []*Command` has methods: no penalty
    assert gained["PendingActionFromAsyncThunk"] == pytest.approx(-SHAPE_PENALTY, abs=1e-6)  # a TS alias has


def test_a_question_asking_what_a_predicate_answers_and_a_predicates_name():
    assert asks_predicate("Returns true if the given value is an Immer draft")
    assert asks_predicate("Returns `true` if the given value is its type's empty value")
    assert asks_predicate("Returns whether or not an object has an own property with the specified name")
    assert asks_predicate("Checks if `value` is classified as an `Array` object.")
    assert asks_predicate("Tests whether or not an object is similar to an array.")
    assert asks_predicate("Determines whether a url is absolute")
    assert not asks_predicate("Returns the first element of the list.")
    assert not asks_predicate("Checks the abort signal and fails when it is aborted")
    for name in ("isDraft", "_isArrayLike", "has", "hasIn", "has_key", "IsZero", "canUse", "should_retry"):
        assert is_predicate_name(name), name
    for name in ("island", "_objectIs", "hash", "isolate", "castDraft", "canonical"):
        assert not is_predicate_name(name), name


# immer's drafts: the predicate beside functions named by the same word
DRAFT_TS = """export function isDraft(value: any): boolean {
  return !!value && !!value[DRAFT_STATE]
}

export function castDraft<T>(value: T): Draft<T> {
  return value as any
}

export function createDraft<T extends Objectish>(base: T): Draft<T> {
  return immer.createDraft(base)
}
"""


@pytest.fixture(scope="module")
def drafts(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("drafts"), {"src/draft.ts": DRAFT_TS})


def test_a_predicates_name_gains_predicate_boost_more_when_the_question_asks_what_a_predicate_answers(drafts):
    def gains(query: str) -> dict[str | None, float]:
        multi = drafts.query(query, mode="multi", top_k=10)
        blend = {r.chunk_id: r.score for r in drafts.query(query, mode="hybrid", top_k=20).results}
        return {r.symbol_name: r.score - blend[r.chunk_id] for r in multi.results if r.symbol_name}

    # isDraft's one part (``is`` is no part) is covered: the name cover, and the predicate's on top (and, the
    # question saying the value "is an Immer draft", the predicate's phrase too)
    asked = gains("Returns true if the given value is an Immer draft")
    assert asked["isDraft"] == pytest.approx(NAME_COVER_BOOST + PREDICATE_BOOST + PREDICATE_SAID_BOOST, abs=1e-6)
    plain = gains("Returns true if the given value is made by Immer as its draft")
    assert plain["isDraft"] == pytest.approx(NAME_COVER_BOOST + PREDICATE_BOOST, abs=1e-6)
    assert asked["castDraft"] < NAME_COVER_BOOST  # half its name covered, and no predicate's name
    told = gains("Gives back the value the given Immer draft stands for")  # not a yes/no question
    assert told["isDraft"] == pytest.approx(NAME_COVER_BOOST, abs=1e-6)


def test_the_names_a_doc_comment_links_to():
    # a link points at another entry of the docs: Markdown, async's reference style, JSDoc, Rust
    assert compared_names("Returns a new list. [`R.equals`](#equals) is used to determine equality.") == {"equals"}
    assert compared_names("Accumulates results as you would with [map]:Collections.map.") == {"map"}
    assert compared_names("Emits the values of an {@link Observable} in order.") == {"Observable"}
    assert compared_names("Appends an element, as [`Vec::push`] does.") == {"push"}
    assert compared_names("Version of the compose function that is more natural to read.") == {"compose"}
    # a page elsewhere is the platform's function, not one of ours; brackets in prose are no link
    assert compared_names("Differs from [`String.prototype.match`](https://mdn.io/x).") == frozenset()
    assert compared_names("Returns a tuple [nextState, patches] or an array [a] of one.") == frozenset()


EQUALS_JS = """var _curry2 = require("./internal/_curry2.js");
var equals = _curry2(function equals(a, b) {
  return a === b || (a !== a && b !== b);
});
module.exports = equals;
"""
UNIQ_LOOP_JS = """function uniq(list) {
  var seen = [];
  for (var i = 0; i < list.length; i++) {
    if (seen.indexOf(list[i]) < 0) seen.push(list[i]);
  }
  return seen;
}
module.exports = uniq;
"""


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> Brain:
    return indexed_files(tmp_path_factory.mktemp("linked"), {"equals.js": EQUALS_JS, "uniq.js": UNIQ_LOOP_JS})


def test_the_function_a_question_links_to_goes_below_the_one_it_describes(linked):
    query = (
        "Returns a new list containing only one copy of each element in the original list. "
        "[`R.equals`](#equals) is used to determine equality."
    )
    multi = linked.query(query, mode="multi", top_k=10)
    blend = {r.chunk_id: r.score for r in linked.query(query, mode="hybrid", top_k=20).results}
    by_name = {r.symbol_name: r for r in multi.results if r.symbol_name}
    gained = by_name["equals"].score - blend[by_name["equals"].chunk_id]
    assert -COMPARED_PENALTY - 1e-6 <= gained <= -COMPARED_PENALTY + PROSE_WEIGHTS["names"] + 1e-6
    assert multi.results[0].symbol_name == "uniq"


# Redux Toolkit's shape: the documented export is made, in the same file, by the function holding the body
SELECTOR_TS = """import { createSelectorCreator, weakMapMemoize } from 'reselect'
import { current, isDraft } from 'immer'

export const createDraftSafeSelectorCreator = (...args: unknown[]) => {
  const createSelector = (createSelectorCreator as any)(...args)
  const wrapped = (...selectorArgs: unknown[]) => {
    const selector = createSelector(...selectorArgs)
    return (value: unknown, ...rest: unknown[]) => selector(isDraft(value) ? current(value) : value, ...rest)
  }
  return wrapped
}

export const createDraftSafeSelector = createDraftSafeSelectorCreator(weakMapMemoize)
"""
MEMO_TS = """export function weakMapMemoize(fn: Function) {
  const cache = new WeakMap()
  return (arg: object) => {
    if (!cache.has(arg)) cache.set(arg, fn(arg))
    return cache.get(arg)
  }
}
"""


@pytest.fixture(scope="module")
def aliases(tmp_path_factory) -> Brain:
    files = {"src/createDraftSafeSelector.ts": SELECTOR_TS, "src/memoize.ts": MEMO_TS}
    return indexed_files(tmp_path_factory.mktemp("aliases"), files)


def test_the_alias_a_file_makes_from_a_best_candidate_goes_just_above_it(aliases):
    query = (
        "A draft-safe version of the selector: if a drafted object is passed into the resulting selector, "
        "it acts on the current draft value instead of a cached value."
    )
    results = aliases.query(query, mode="multi", top_k=5).results
    assert results[0].symbol_name is None and results[0].start_line == results[0].end_line == 13  # the alias
    assert results[1].symbol_name == "createDraftSafeSelectorCreator"
    assert results[0].score > results[1].score
    # a question naming neither leaves the order alone when no alias is among the best candidates
    memo = aliases.query("Caches the result of a function per object key in a weak map.", mode="multi", top_k=5)
    assert memo.results[0].symbol_name == "weakMapMemoize"
