"""Multi mode on a real index: further classes of natural question whose answer ranked below the top 3
(read from the tune split of ``benchmarks.natural``) — a setting's name quoted in doc comments and
changelog entries taken for a pasted message; a question about what a function does, naming it by its
owner, answered by the functions sharing its other words; a setting looked up by name whose definition
is its docs' entry; a relation question answered with a callee's changelog entry."""

from __future__ import annotations

import pytest
from workspace_fixture import indexed_files, top10

from agent_brain_lab import Brain
from agent_brain_lab.engine.retrieval.evidence import message_match

APPLICATION = """'use strict';

var compileTrust = require('./utils').compileTrust;

var app = exports = module.exports = {};

/**
 * Initialize application configuration.
 */

app.defaultConfiguration = function defaultConfiguration() {
  this.enable('x-powered-by');
  this.set('etag', 'weak');
  this.set('trust proxy', false);
};

/**
 * Assign `setting` to `val`, or return `setting`'s value.
 */

app.set = function set(setting, val) {
  this.settings[setting] = val;

  switch (setting) {
    case 'etag':
      this.set('etag fn', compileETag(val));
      break;
    case 'trust proxy':
      this.set('trust proxy fn', compileTrust(val));
      break;
  }

  return this;
};
"""

UTILS = """'use strict';

/**
 * Compile "proxy trust" value to function.
 *
 * @param  {Boolean|String|Number|Array|Function} val
 * @return {Function}
 */

exports.compileTrust = function(val) {
  if (typeof val === 'function') return val;

  if (val === true) {
    // Support plain true/false
    return function(){ return true };
  }

  if (typeof val === 'number') {
    // Support trusting hop count
    return function(a, i){ return i < val };
  }

  return proxyaddr.compile(val || []);
}
"""

REQUEST = """'use strict';

var req = Object.create(http.IncomingMessage.prototype);

/**
 * Return the protocol string "http" or "https"
 * when requested with TLS. When the "trust proxy"
 * setting trusts the socket address, the
 * "X-Forwarded-Proto" header field will be trusted.
 */

defineGetter(req, 'protocol', function protocol(){
  var trust = this.app.get('trust proxy fn');
  return trust(this.connection.remoteAddress, 0) ? 'https' : 'http';
});

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
  return proxyaddr.all(this, trust);
});
"""

RESPONSE = """'use strict';

var res = Object.create(http.ServerResponse.prototype);

/**
 * Send a response.
 *
 * @param {string|number|boolean|object|Buffer} body
 * @public
 */

res.send = function send(body) {
  var chunk = body;
  var type;

  switch (typeof chunk) {
    // string defaulting to html
    case 'string':
      if (!this.get('Content-Type')) {
        this.type('html');
      }
      break;
    case 'boolean':
    case 'number':
    case 'object':
      if (Buffer.isBuffer(chunk)) {
        if (!this.get('Content-Type')) {
          this.type('bin');
        }
      } else {
        return this.json(chunk);
      }
      break;
  }

  // write strings in utf-8
  if (typeof chunk === 'string') {
    type = this.get('Content-Type');
    if (typeof type === 'string') {
      this.set('Content-Type', setCharset(type, 'utf-8'));
    }
  }

  this.end(chunk);
  return this;
};

/**
 * Set _Content-Type_ response header with `type` through `mime.lookup()`
 * when it does not contain "/", or set the Content-Type to `type` otherwise.
 *
 * @param {String} type
 * @return {ServerResponse} for chaining
 * @public
 */

res.type = function contentType(type) {
  var ct = type.indexOf('/') === -1
    ? mime.lookup(type)
    : type;

  return this.set('Content-Type', ct);
};

/**
 * Set header `field` to `val`; a Content-Type gains its charset.
 *
 * @param {String} field
 * @param {String} val
 * @public
 */

res.set = function header(field, val) {
  var value = String(val);
  if (field.toLowerCase() === 'content-type') {
    value = mime.contentType(value);
  }
  this.setHeader(field, value);
  return this;
};
"""

SESSIONS = """
class SecureCookieSessionInterface:
    def get_signing_serializer(self, app):
        if not app.secret_key:
            return None

        keys = []
        if fallbacks := app.config["SECRET_KEY_FALLBACKS"]:
            keys.extend(fallbacks)
        keys.append(app.secret_key)
        return URLSafeTimedSerializer(keys, salt=self.salt)
"""

DEFAULTS = """
class Flask:
    default_config = {
        "DEBUG": None,
        "TESTING": False,
        "SECRET_KEY": None,
        "SECRET_KEY_FALLBACKS": None,
        "SESSION_COOKIE_NAME": "session",
    }
"""

CONFIG_DOC = """Configuration Handling
======================

Builtin Configuration Values
----------------------------

.. py:data:: TESTING

    Enable testing mode. Exceptions are propagated rather than handled by the
    app's error handlers.

    Default: ``False``

.. py:data:: SECRET_KEY

    A secret key that will be used for securely signing the session cookie
    and can be used for any other security related needs by extensions or your
    application. It should be a long random ``bytes`` or ``str``.

    Default: ``None``

.. py:data:: SECRET_KEY_FALLBACKS

    A list of old secret keys that can still be used for unsigning. This allows
    a project to implement key rotation without invalidating active sessions.

    Default: ``None``
"""

TESTING_DOC = """Testing
=======

Flask provides utilities for testing an application. Create the app in testing mode and use
its test client to make requests to it without running a server.
"""

DEPLOY_DOC = """Deploy to Production
====================

Configure the Secret Key
------------------------

You need to change the ``SECRET_KEY`` before deploying. The default ``SECRET_KEY``
is ``'dev'``: set ``SECRET_KEY`` to a random value in ``config.py``, or the
``SECRET_KEY`` anyone can read signs your sessions::

    SECRET_KEY = '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'

Keep the ``SECRET_KEY`` out of version control.
"""

HISTORY = """4.3.0 / 2014-05-21
==================

  * Fix `req.ips` when the `trust proxy` setting is a number of hops

3.20.1 / 2015-02-28
===================

  * Fix `req.ip` computed wrongly when the `trust proxy` setting is set

3.0.0 / 2012-05-30
==================

  * Added the `trust proxy` setting
  * `res.send` sets the Content-Type of a Buffer body to application/octet-stream
"""


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    files = {
        "lib/application.js": APPLICATION,
        "lib/utils.js": UTILS,
        "lib/request.js": REQUEST,
        "lib/response.js": RESPONSE,
        "flask/sessions.py": SESSIONS,
        "flask/app.py": DEFAULTS,
        "docs/config.rst": CONFIG_DOC,
        "docs/deploy.rst": DEPLOY_DOC,
        "docs/testing.rst": TESTING_DOC,
        "History.md": HISTORY,
    }
    return indexed_files(tmp_path_factory.mktemp("misses"), files)


def test_a_setting_quoted_in_doc_comments_and_changelogs_is_not_a_message_they_make(brain):
    results = top10(brain, "trust proxy setting")
    sources = [r.source for r in results]
    # the code that makes and applies the setting, before the getters whose doc comments quote it
    assert sources[:2] == ["lib/application.js", "lib/application.js"]
    # a changelog entry still answers when the question asks what changed
    assert top10(brain, "in which version was the trust proxy setting added")[0].source == "History.md"


def test_a_literal_in_a_comment_is_a_message_only_outside_code():
    text = '/**\n * When "trust proxy" is set, trusted addresses.\n */\nvar trust = 1;\n'
    assert message_match("trust proxy setting", 3, text, code=True) == (0.0, False)
    assert message_match("trust proxy setting", 3, text)[0] > 0.5
    # a literal in code, raised, still matches after a comment
    raised = "// check the option\nthrow new Error('No default engine was specified');\n"
    assert message_match("Error: No default engine was specified", 5, raised, code=True) == (1.0, True)


def test_a_question_about_what_a_function_named_by_its_owner_does_finds_it_first(brain):
    query = "how does res.send decide the Content-Type"
    first = top10(brain, query)[0]
    assert (first.source, first.qualified_symbol) == ("lib/response.js", "res.send")
    # the words alone point at the functions about the Content-Type
    assert top10(brain, query, "hybrid")[0].qualified_symbol != "res.send"
    # asking what changed about it: the changelog, not the function
    assert top10(brain, "what changed about res.send and the Content-Type in 3.0.0")[0].source == "History.md"


def test_a_setting_looked_up_by_name_finds_the_docs_entry_defining_it(brain):
    first = top10(brain, "SECRET_KEY")[0]
    assert first.source == "docs/config.rst"
    lines = (brain.root / first.source).read_text().splitlines()[first.start_line - 1 : first.end_line]
    assert ".. py:data:: SECRET_KEY" in lines
    # the words alone point at the page repeating the name most
    assert top10(brain, "SECRET_KEY", "hybrid")[0].source == "docs/deploy.rst"
    # a literal spelling the name (the default config's key, the session's read of it) comes after
    first, second = top10(brain, "SECRET_KEY_FALLBACKS key rotation")[:2]
    assert first.source == "docs/config.rst"
    assert second.source in {"flask/app.py", "flask/sessions.py"}
    # a section titled as the query still comes first: the query may be its heading
    assert [r.source for r in top10(brain, "TESTING")[:2]] == ["docs/testing.rst", "docs/config.rst"]


CALLS = """
def handle(request):
    view = lookup(request.path)
    return render(view)


def lookup(path):
    return VIEWS[path]


def render(view):
    return compile_template(view.template)


def compile_template(source):
    return Template(source)
"""

CALLS_HISTORY = """# Changes

## 2.0.1

- Fix the `lookup` call that handle makes for a path with a trailing slash.
"""


def test_a_callees_changelog_entry_is_not_a_callee(tmp_path):
    brain = indexed_files(tmp_path, {"app/views.py": CALLS, "CHANGES.md": CALLS_HISTORY})
    for mode in ("graph", "multi"):
        sources = [(r.source, r.symbol_name) for r in top10(brain, "what does handle call", mode)]
        # handle calls render, which calls compile_template: a callee two calls away, above the entry
        # that mentions a callee (and says "call" and "handle")
        assert sources.index(("app/views.py", "compile_template")) < sources.index(("CHANGES.md", None)), mode
