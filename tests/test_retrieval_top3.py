"""Multi mode on a real index: the classes of natural question whose answer ranked below the top 3 —
messages concatenated from literals and values, f-string holes that are empty, changelog entries,
tests and docs that say a behaviour's words as well as the code doing it."""

from __future__ import annotations

import pytest
from workspace_fixture import indexed_files, top10

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.evidence import (
    about_behaviour,
    about_changes,
    is_changelog,
    message_match,
    message_of,
)
from agent_brain_lab.engine.retrieval.intent import analyse
from agent_brain_lab.engine.tokenizer import WORD

APPLICATION = """'use strict';

var View = require('./view');

var app = exports = module.exports = {};

/**
 * Render `name` with `options` and invoke the callback `fn(err, str)`.
 */

app.render = function render(name, options, callback) {
  var cache = this.cache;
  var done = callback;
  var view;

  if (options.cache) {
    view = cache[name];
  }

  if (!view) {
    var View = this.get('view');

    view = new View(name, {
      defaultEngine: this.get('view engine'),
      root: this.get('views'),
      engines: this.engines
    });

    if (!view.path) {
      var dirs = Array.isArray(view.root) && view.root.length > 1
        ? 'directories "' + view.root.slice(0, -1).join('", "') + '" or "' + view.root[view.root.length - 1] + '"'
        : 'directory "' + view.root + '"'
      var err = new Error('Failed to lookup view "' + name + '" in views ' + dirs);
      err.view = view;
      return done(err);
    }

    if (options.cache) {
      cache[name] = view;
    }
  }

  tryRender(view, options, done);
};
"""

VIEW = """'use strict';

module.exports = View;

/**
 * Initialize a new `View` with the given `name`: looks the view file up in the views directory.
 */

function View(name, options) {
  var opts = options || {};
  this.defaultEngine = opts.defaultEngine;
  this.name = name;
  this.root = opts.root;
  var fileName = name;
  this.path = this.lookup(fileName);
}

/**
 * Lookup view by the given `name`: the view "index" is looked up in the views directory
 * ("/srv/app/views") or in each of the views directories; a failed lookup gives undefined.
 */

View.prototype.lookup = function lookup(name) {
  var roots = [].concat(this.root);
  for (var i = 0; i < roots.length && !path; i++) {
    var root = roots[i];
    var loc = resolve(root, name);
    var dir = dirname(loc);
    var file = basename(loc);
    path = this.resolve(dir, file);
  }
  return path;
};
"""

REQUEST = """'use strict';

var proxyaddr = require('proxy-addr');

var req = Object.create(http.IncomingMessage.prototype);

/**
 * Return the remote address from the trusted proxy.
 *
 * The is the remote address on the socket unless
 * "trust proxy" is set.
 */

defineGetter(req, 'ip', function ip(){
  var trust = this.app.get('trust proxy fn');
  return proxyaddr(this, trust);
});

/**
 * When "trust proxy" is set, trusted proxy addresses + client.
 */

defineGetter(req, 'ips', function ips() {
  var trust = this.app.get('trust proxy fn');
  var addrs = proxyaddr.all(this, trust);
  addrs.reverse().pop();
  return addrs;
});
"""

HISTORY = """4.3.0 / 2014-05-21
==================

  * Add `req.ip` computed from the `trust proxy` setting
  * Fix `req.ips` when `trust proxy` is set and the proxy address is computed

3.20.1 / 2015-02-28
===================

  * Fix `req.ip` computed wrongly when `trust proxy` is set to a number of hops

3.0.0 / 2012-05-30
==================

  * Added `req.ip` and `req.ips`, computed when `trust proxy` is set
  * Removed the `view options` setting
"""

BLUEPRINTS = '''
class Blueprint:
    def register(self, app, options):
        """Called by ``Flask.register_blueprint`` to register all views and callbacks."""
        name_prefix = options.get("name_prefix", "")
        self_name = options.get("name", self.name)
        name = f"{name_prefix}.{self_name}".lstrip(".")

        if name in app.blueprints:
            bp_desc = "this" if app.blueprints[name] is self else "a different"
            existing_at = f" '{name}'" if self_name != name else ""

            raise ValueError(
                f"The name '{self_name}' is already registered for"
                f" {bp_desc} blueprint{existing_at}. Use 'name=' to"
                f" provide a unique name."
            )

        app.blueprints[name] = self
'''

TEST_BLUEPRINTS = """
import pytest


def test_unique_blueprint_names(app):
    bp = Blueprint("bp", __name__)
    app.register_blueprint(bp)
    with pytest.raises(ValueError):
        app.register_blueprint(bp, name="bp")  # the name 'bp' is already registered for a different blueprint
"""

SESSIONS = '''
from datetime import timedelta


class SessionInterface:
    def get_expiration_time(self, app, session):
        """A datetime when the session expires; None for a browser session."""
        if session.permanent:
            return datetime.now(timezone.utc) + app.config["PERMANENT_SESSION_LIFETIME"]
        return None
'''

TEST_CONFIG = """
from datetime import timedelta


def test_session_lifetime(app):
    app.config["PERMANENT_SESSION_LIFETIME"] = 42
    assert app.config["PERMANENT_SESSION_LIFETIME"] == 42
    assert app.permanent_session_lifetime.seconds == 42


def test_session_lifetime_timedelta(app):
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(days=1)
    assert app.config["PERMANENT_SESSION_LIFETIME"].days == 1
"""

APP = '''
class Flask:
    def handle_exception(self, e):
        """Handle an unhandled exception: one that did not have an error handler associated with it,
        or that was raised from an error handler. This always causes a 500 ``InternalServerError``."""
        exc_info = sys.exc_info()
        got_request_exception.send(self, _async_wrapper=self.ensure_sync, exception=e)
        propagate = self.config["PROPAGATE_EXCEPTIONS"]
        if propagate:
            raise e
        self.log_exception(exc_info)
        server_error = InternalServerError(original_exception=e)
        handler = self._find_error_handler(server_error, request.blueprints)
        if handler is not None:
            server_error = self.ensure_sync(handler)(server_error)
        return self.finalize_request(server_error, from_error_handler=True)

    def register_blueprint(self, blueprint, **options):
        """Register a blueprint on the application under its name. The name must be unique: use
        ``name=`` to register the same blueprint again under a different name. A blueprint name that
        is already registered for a different blueprint is an error."""
        blueprint.register(self, options)

    def register_error_handler(self, code_or_exception, f):
        """Alternative error attach function to the errorhandler decorator."""
        self.error_handler_spec[None][code_or_exception] = f
'''

ERRORS_DOC = """Handling Application Errors
===========================

Unhandled Exceptions
--------------------

When there is no error handler registered for an exception, a 500 Internal Server Error will be
returned instead.

Registering an Error Handler
----------------------------

Register an error handler with the ``errorhandler`` decorator, or call ``register_error_handler``
to register one later. To register a custom error page for 404, register an error handler for 404::

    @app.errorhandler(404)
    def page_not_found(e):
        return render_template("404.html"), 404
"""

SCAFFOLD = '''
class Scaffold:
    """Common behaviour shared between the application and its blueprints: view functions, error
    handlers, request callbacks. Scaffold is built to be extended."""

    def route(self, rule, **options):
        """Decorate a view function to register it with the given URL rule and options."""
        return self.add_url_rule(rule, **options)
'''

SANSIO_APP = '''
from .scaffold import Scaffold


class App(Scaffold):
    """The flask object implements a WSGI application and acts as the central object."""

    def add_url_rule(self, rule, **options):
        self.url_map.add(rule)
'''

SANSIO_BLUEPRINTS = '''
from .scaffold import Scaffold


class Blueprint(Scaffold):
    """Represents a blueprint, a collection of routes that can be registered on an application."""

    def add_url_rule(self, rule, **options):
        self.deferred.append(rule)
'''

MERGE = '''
def merge_internals(source, subscriber, project, concurrent):
    """The machinery of the merge operators: subscribe to each projected inner source."""
    buffer = []
    active = 0
    return buffer, active


def merge_map(project, concurrent=None):
    """Project each source value to an inner source, merged into the output."""
    return lambda source, subscriber: merge_internals(source, subscriber, project, concurrent)


def concat_map(project):
    """Project each source value to an inner source, one after the other."""
    return merge_map(project, 1)


def scan(accumulator, seed):
    """Apply an accumulator over the source; built on nothing but a loop."""
    return [accumulator(seed, value) for value in seed]
'''


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    files = {
        "lib/application.js": APPLICATION,
        "lib/view.js": VIEW,
        "lib/request.js": REQUEST,
        "History.md": HISTORY,
        "flask/blueprints.py": BLUEPRINTS,
        "tests/test_blueprints.py": TEST_BLUEPRINTS,
        "flask/sessions.py": SESSIONS,
        "tests/test_config.py": TEST_CONFIG,
        "flask/app.py": APP,
        "flask/scaffold.py": SCAFFOLD,
        "flask/sansio_app.py": SANSIO_APP,
        "flask/sansio_blueprints.py": SANSIO_BLUEPRINTS,
        "rx/merge.py": MERGE,
        "docs/errorhandling.rst": ERRORS_DOC,
    }
    return indexed_files(tmp_path_factory.mktemp("top3"), files)


def test_a_message_concatenated_from_literals_and_values_finds_where_it_is_thrown(brain):
    query = 'Error: Failed to lookup view "index" in views directory "/srv/app/views"'
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) != ("lib/view.js", "View")
    assert first.source == "lib/application.js"
    lines = (brain.root / first.source).read_text().splitlines()[first.start_line - 1 : first.end_line]
    assert any("Failed to lookup view" in line for line in lines)
    # the words alone point at the view module (it says "view", "lookup", "views directory" most)
    assert top10(brain, query, "hybrid")[0].source == "lib/view.js"


def test_a_template_hole_may_stand_for_an_empty_value(brain):
    query = (
        "ValueError: The name 'auth' is already registered for a different blueprint. "
        "Use 'name=' to provide a unique name."
    )
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) == ("flask/blueprints.py", "register")
    # the words alone point at the method documenting the rule
    assert top10(brain, query, "hybrid")[0].symbol_name == "register_blueprint"
    message = message_of(query)
    text = (brain.root / "flask" / "blueprints.py").read_text()
    assert message_match(message, len(WORD.findall(message)), text) > (0.8, True)


def test_code_ranks_above_changelog_entries_unless_the_question_is_about_changes(brain):
    first = top10(brain, "how is req.ip computed when trust proxy is set")[0]
    assert first.source == "lib/request.js"
    # without the evidence the changelog says it best
    assert top10(brain, "how is req.ip computed when trust proxy is set", "hybrid")[0].source == "History.md"
    for query in ["what changed about req.ip and trust proxy in 4.3.0", "when was the view options setting removed"]:
        assert top10(brain, query)[0].source == "History.md", query


def test_a_looked_up_setting_finds_the_library_code_reading_it_above_tests(brain):
    first = top10(brain, "PERMANENT_SESSION_LIFETIME")[0]
    assert (first.source, first.symbol_name) == ("flask/sessions.py", "get_expiration_time")
    assert top10(brain, "PERMANENT_SESSION_LIFETIME", "hybrid")[0].source == "tests/test_config.py"


def test_a_question_about_what_the_code_does_finds_the_code_above_its_docs(brain):
    query = "how is an unhandled exception turned into a 500 error"
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) == ("flask/app.py", "handle_exception")
    assert top10(brain, query, "hybrid")[0].source == "docs/errorhandling.rst"
    # how to use it: the docs answer
    assert top10(brain, "how do I register a custom error page for 404")[0].source == "docs/errorhandling.rst"


def test_questions_about_what_the_code_does_are_recognised():
    for query in [
        "how does the router walk the middleware stack",
        "where is the timeout applied",
        "when does express answer 304 Not Modified",
        "What happens when the request context is popped",
        "how are redirects handled",
        "why does jsonify sort keys",
    ]:
        assert about_behaviour(query), query
    for query in ["how do I upload files", "how to send a file", "How can I stream a response", "the g object"]:
        assert not about_behaviour(query), query


def test_a_relation_said_in_a_phrase_is_answered_by_the_graph(brain):
    response = brain.query("which classes build on Scaffold", mode="multi", top_k=10)
    assert response.intent == "subclasses"
    assert {r.symbol_name for r in response.results[:2]} == {"App", "Blueprint"}
    # on a function "built on" means its callers
    response = brain.query("which operators are built on merge_internals", mode="multi", top_k=10)
    assert response.results[0].symbol_name == "merge_map"
    graph = brain.query("which classes build on Scaffold", mode="graph", top_k=10)
    assert {r.symbol_name for r in graph.results[:2]} == {"App", "Blueprint"}


def test_relations_said_in_a_phrase_are_recognised():
    for query, direction in [
        ("which classes build on BaseAdapter", "in"),
        ("what is built on top of Scaffold", "in"),
        ("which operators are built on mergeInternals", "in"),
        ("what classes are based on View", "in"),
        ("Scaffold is built on what", "out"),
    ]:
        intent = analyse(query)
        assert intent.asked == {"extends", "calls"}, query
        assert intent.direction_of(intent.code_names[0] if intent.code_names else intent.names[0]) == direction
    # a title or a topic, not a question about one name
    for query in ["Built on Flask", "Extensions built on Flask", "Building on the pyparsing grammar", "build the docs"]:
        assert analyse(query).relation is None, query


def test_changelogs_and_change_questions_are_recognised():
    for path in ["CHANGES.rst", "History.md", "docs/changelog.md", "NEWS", "CHANGELOG", "doc/release-notes.rst"]:
        assert is_changelog(path), path
    for path in ["src/history.py", "lib/changes/index.js", "docs/news_feed.md", "HISTORY_OF_X.md"]:
        assert not is_changelog(path), path
    assert about_changes("what changed about verify=False in 2.32.0")
    assert about_changes("when was app.router deprecated")
    assert not about_changes("how is the ETag generated for a response body")
