"""Symbol evidence in multi mode: the best prose candidates gain by how much of their own name the query covers."""

from __future__ import annotations

import pytest
from workspace_fixture import indexed_files

from agent_brain_lab import Brain
from agent_brain_lab.engine.chunking.code import analyze_code
from agent_brain_lab.engine.retrieval.multi import PROSE_WEIGHTS
from agent_brain_lab.engine.retrieval.names import name_parts
from agent_brain_lab.engine.retrieval.symbols import NAME_COVER_BOOST

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
    # `_lowerCase2 = _interopRequireDefault(_lowerCase)` is an import: no name, no gain
    assert all(gain == pytest.approx(0.0, abs=1e-6) for (source, _), gain in gained.items() if source == "shout.js")


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
