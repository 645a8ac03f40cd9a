"""Code evidence in multi mode on a real index: exact names first, pasted messages to the code that raises
them (templates included), library code above tests for a where/how question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from workspace_fixture import indexed_files, top10

from agent_brain_lab import Brain
from agent_brain_lab.engine.chunking.notebook import chunk_notebook
from agent_brain_lab.engine.chunking.text import chunk_document
from agent_brain_lab.engine.retrieval import evidence
from agent_brain_lab.engine.retrieval.evidence import (
    _HOLE,
    TITLE_MATCH,
    _may_make,
    _own_words,
    lead_clause,
    message_evidence,
    message_match,
    message_of,
    messages_of,
    template,
    title_match,
    titles_of,
)
from agent_brain_lab.engine.tokenizer import WORD, query_tokens, tokenize

EXCEPTIONS = '''
class RequestException(IOError):
    """There was an ambiguous exception that occurred while handling your request."""


class TooManyRedirects(RequestException):
    """Too many redirects."""


class ReadTimeout(RequestException):
    """The server did not send any data in the allotted amount of time."""
'''

SESSIONS = '''
import warnings

from .exceptions import TooManyRedirects


class SessionRedirectMixin:
    def resolve_redirects(self, resp, req, stream=False, timeout=None):
        hist = []
        url = self.get_redirect_target(resp)
        while url:
            hist.append(resp)
            resp.history = hist[1:]
            if len(resp.history) >= self.max_redirects:
                raise TooManyRedirects(f"Exceeded {self.max_redirects} redirects.", response=resp)
            resp.close()
            url = self.get_redirect_target(resp)
            yield resp


class Session(SessionRedirectMixin):
    """A Requests session: cookie persistence, connection pooling and configuration."""

    def __init__(self):
        self.max_redirects = 30
        self.headers = {}

    def request(self, method, url, timeout=None):
        return self.send(method, url, timeout=timeout)


def session():
    """Returns a Session for context management. Deprecated since 1.0: use Session instead."""
    warnings.warn("session() is deprecated", DeprecationWarning)
    return Session()
'''

ADAPTERS = '''
import logging

log = logging.getLogger(__name__)


class HTTPAdapter:
    def send(self, request, stream=False, timeout=None):
        """Sends the prepared request over a pooled connection."""
        if isinstance(timeout, tuple):
            connect, read = timeout
            timeout = TimeoutSauce(connect=connect, read=read)
        conn = self.get_connection(request.url)
        conn.timeout = timeout
        if not conn.sock:
            log.warning("Connection pool is full, discarding connection: %s", request.url)
        return conn.urlopen(method=request.method, url=request.url, timeout=timeout)
'''

TESTS = """
import pytest


def test_read_timeout(session):
    timeout = 0.001
    with pytest.raises(ReadTimeout):
        session.get("http://10.255.255.1", timeout=timeout)


def test_connect_and_read_timeout_tuple(session):
    timeout = (0.1, 0.001)
    with pytest.raises(ReadTimeout):
        session.get("http://10.255.255.1", timeout=timeout)


def test_no_timeout(session):
    timeout = None
    assert session.get("http://example.com", timeout=timeout)
"""


GUIDE = "# Requests guide\n\n" + "\n".join(
    f"## {title}\n\n{body}\n"
    for title, body in [
        ("Installing", "pip install requests, or from a source checkout with pip install -e ."),
        ("Making a request", "Call requests.get with a URL; the session keeps cookies between requests."),
        ("Passing parameters in URLs", "Give params a dict; requests encodes it into the query string."),
        ("Response content", "The text attribute decodes the body with the encoding the server sent."),
        ("Custom headers", "Pass a dict as headers; the session merges it with its own headers."),
        ("Redirection and history", "Requests follows redirects for every verb but HEAD; history lists them."),
        ("Timeouts", "Without a timeout a request can hang forever: give timeout in seconds, connect and read."),
        ("Errors and exceptions", "A network problem raises ConnectionError; too many redirects raise an error."),
        ("Proxies", "Set proxies per request or with the environment variables HTTP_PROXY and HTTPS_PROXY."),
    ]
)


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    files = {
        "requests/exceptions.py": EXCEPTIONS,
        "requests/sessions.py": SESSIONS,
        "requests/adapters.py": ADAPTERS,
        "docs/guide.md": GUIDE,
        "tests/test_timeouts.py": TESTS,
    }
    return indexed_files(tmp_path_factory.mktemp("evidence"), files)


def test_a_pasted_message_from_an_f_string_finds_where_it_is_raised(brain):
    for query in ["Exceeded 30 redirects.", "requests.exceptions.TooManyRedirects: Exceeded 30 redirects"]:
        first = top10(brain, query)[0]
        assert (first.symbol_name, first.source) == ("resolve_redirects", "requests/sessions.py"), query
    # bm25 alone puts something else first (the short chunks holding "30" or "redirects")
    assert top10(brain, "Exceeded 30 redirects.", "bm25")[0].symbol_name != "resolve_redirects"


def test_a_pasted_log_line_finds_where_it_is_logged(brain):
    first = top10(brain, "WARNING Connection pool is full, discarding connection: https://example.com/a")[0]
    assert first.symbol_name == "send"


def test_an_exact_name_comes_first_in_its_own_case(brain):
    names = [r.symbol_name for r in top10(brain, "Session")]
    assert names[:2] == ["Session", "session"]
    names = [r.symbol_name for r in top10(brain, "session")]
    assert names[:2] == ["session", "Session"]


def test_library_code_ranks_above_tests_unless_the_question_is_about_tests(brain):
    code = [r.source for r in top10(brain, "where is the timeout applied to the connection")]
    assert code[0] == "requests/adapters.py"
    hybrid = [r.source for r in top10(brain, "where is the timeout applied to the connection", "hybrid")]
    assert hybrid[0] == "tests/test_timeouts.py"  # without the evidence a test says it best
    tests = [r.source for r in top10(brain, "which tests check the timeout is applied to the connection")]
    assert tests[0] == "tests/test_timeouts.py"


def test_a_heading_finds_its_section_though_its_chunk_holds_several(brain):
    for heading in ["Redirection and history", "Errors and exceptions", "Passing parameters in URLs"]:
        first = top10(brain, heading)[0]
        assert first.source == "docs/guide.md", heading
        lines = (brain.root / "docs" / "guide.md").read_text().splitlines()
        assert f"## {heading}" in lines[first.start_line - 1 : first.end_line], heading
        # the small sections were merged: the chunk is not named after this heading
        assert not (first.section_path or "").endswith(heading), heading


def test_a_message_written_as_several_literals_is_one_template():
    code = "\n".join(
        [
            "        if not scheme:",
            "            raise MissingSchema(",
            '                f"Invalid URL {url!r}: No scheme supplied. "',
            '                f"Perhaps you meant https://{url}?"',
            "            )",
        ]
    )
    message = message_of(
        "requests.exceptions.MissingSchema: Invalid URL 'foo': No scheme supplied. Perhaps you meant https://foo?"
    )
    cover, raised = message_match(message, len(WORD.findall(message)), code)
    assert cover > 0.8 and raised
    # a docstring saying the same words is not a message
    assert message_match(message, len(WORD.findall(message)), '    """Invalid URL: No scheme supplied."""') == (
        0.0,
        False,
    )


def test_a_message_raised_after_arguments_on_lines_of_their_own_is_raised():
    code = "\n".join(
        [
            "                if not hookimpl.optionalhook:",
            "                    raise PluginValidationError(",
            "                        hookimpl.plugin,",
            '                        "unknown hook %r in plugin %r"',
            "                        % (name, hookimpl.plugin),",
            "                    )",
        ]
    )
    message = message_of("pluggy.PluginValidationError: unknown hook 'myhook' in plugin <module 'plug' from 'plug.py'>")
    # the words the holes took (a name, a repr) are values: the literal makes the whole message
    assert message_match(message, len(WORD.findall(message)), code) == (1.0, True)
    # a call around the block the literal is in is not its statement
    block = "\n".join(
        [
            '    it("throws on a bad plugin", () => {',
            "      const hooks = register(plugin);",
            '      expect(check(hooks)).toEqual("unknown hook myhook in plugin plug");',
            "    });",
        ]
    )
    assert message_match(message, len(WORD.findall(message)), block)[1] is False


def test_a_pasted_message_whose_values_are_long_finds_its_raise_site_above_the_exception_class(tmp_path):
    files = {
        "plugins/errors.py": (
            "class PluginValidationError(Exception):\n"
            '    """A plugin failed validation."""\n\n'
            "    def __init__(self, plugin, message):\n"
            "        self.plugin = plugin\n"
            "        super().__init__(message)\n"
        ),
        "plugins/manager.py": (
            "from .errors import PluginValidationError\n\n\n"
            "class PluginManager:\n"
            "    def check_pending(self):\n"
            '        """Verify that every registered hook has a specification."""\n'
            "        for name, impl in self.unverified():\n"
            "            if not impl.optional:\n"
            "                raise PluginValidationError(\n"
            "                    impl.plugin,\n"
            '                    "unknown hook %r in plugin %r"\n'
            "                    % (name, impl.plugin),\n"
            "                )\n"
        ),
    }
    brain = indexed_files(tmp_path, files)
    query = "plugins.errors.PluginValidationError: unknown hook 'on_load' in plugin <module 'audio' from 'audio.py'>"
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) == ("plugins/manager.py", "check_pending")


TOOLS = """# Using the formatter with other tools

Linters read the same files as the formatter; each needs a few settings to agree with it.

## Flake8

Flake8 checks style on top of the formatter.

### Configuration

Set max-line-length to 88 and extend-ignore E203 in the flake8 section.

## Pylint

Pylint finds bugs and style issues.

### Configuration

In the rc file, under the format section, set max-line-length to 88.

#### Why those options above?

Pylint would flag the lines the formatter keeps at 88 characters.
"""


def test_a_title_several_sections_share_counts_after_its_parents_title():
    chunks = chunk_document("docs/tools.md", TOOLS, "markdown", "doc", 1500, 100)
    by_path = {c.section_path.split(" > ", 1)[1]: c for c in chunks if " > " in (c.section_path or "")}
    pylint, flake8 = by_path["Pylint > Configuration"], by_path["Flake8 > Configuration"]
    query = set(tokenize("Pylint Configuration"))
    assert title_match(query, pylint) == 1.0 >= TITLE_MATCH
    assert title_match(query, flake8) < TITLE_MATCH
    assert title_match(set(tokenize("Flake8 Configuration")), flake8) == 1.0
    # the title alone still counts as it did: the heading typed as it is written
    assert title_match(set(tokenize("Configuration")), pylint) == 1.0
    # a heading in the chunk's text whose parent the section path names
    why = by_path["Pylint > Configuration > Why those options above?"]
    assert title_match(set(tokenize("Configuration Why those options above?")), why) == 1.0
    assert ("Configuration", "Pylint") in titles_of(pylint)
    # a query of the parent's title alone is the parent's, not a child whose title adds a word
    assert title_match(set(tokenize("Pylint")), pylint) < TITLE_MATCH
    assert title_match(set(tokenize("Pylint Why")), why) < TITLE_MATCH
    views = "Class-based views\n=================\n\nIntro.\n\nLifetime\n--------\n\nOne instance per request.\n"
    child = chunk_document("docs/views.rst", views, "rst", "doc", 1500, 100)[-1]
    assert child.section_path == "Class-based views > Lifetime"
    assert title_match(set(tokenize("class-based views")), child) < TITLE_MATCH
    assert title_match(set(tokenize("class-based views lifetime")), child) == 1.0


def _real_literals() -> list[str]:
    """The one-line string literals of this project's own engine source, holes and all."""
    root = Path(evidence.__file__).resolve().parents[1]
    return sorted({body for path in root.rglob("*.py") for _, body in evidence._literals(path.read_text())})


def test_the_pre_check_never_drops_a_literal_whose_template_matches():
    """``_may_make`` skips compiling a template that cannot match; over the engine's own literals, each
    made into messages (holes filled, case changed, full stop dropped, text around it) and tried
    against every other literal's message, a template that matches is never skipped."""
    bodies = [b for b in _real_literals() if _own_words(b) is not None]
    assert len(bodies) > 100
    messages = []
    for body in bodies:
        made = _HOLE.sub("Value 42", body)
        messages += [made, made.upper(), made.rstrip(".") + " (see the log)", "Error: " + made.lower()]
    messages += ["ſession expired for Kelvin", "SESSION EXPIRED"]  # Unicode case folding: ſ matches s
    bodies += ["session expired"]
    matched = skipped = 0
    for body in bodies:
        pattern = template(body)
        for message in messages[::7] + messages[bodies.index(body) * 4 : bodies.index(body) * 4 + 4]:
            may = _may_make(body, message, message.lower())
            if pattern.search(message):
                matched += 1
                assert may, (body, message)
            skipped += not may
    assert matched > len(bodies) * 3 and skipped > matched  # both sides of the check were exercised


COMMAND_JS = """const { suggestSimilar } = require('./suggestSimilar.js');

class Command {
  /**
   * Display an error message if a mandatory option does not have a value.
   */
  _checkForMissingMandatoryOptions() {
    for (const option of this.options) {
      if (option.mandatory && this.getOptionValue(option.attributeName()) === undefined) {
        this.missingMandatoryOptionValue(option);
      }
    }
  }

  missingMandatoryOptionValue(option) {
    const message = `error: required option '${option.flags}' not specified`;
    this.error(message, { code: 'commander.missingMandatoryOptionValue' });
  }

  unknownOption(flag) {
    if (this._allowUnknownOption) return;
    const suggestion = suggestSimilar(flag, this.options.map((option) => option.long));
    const message = `error: unknown option '${flag}'${suggestion}`;
    this.error(message, { code: 'commander.unknownOption' });
  }

  addOption(option) {
    const handleOptionValue = (val, invalidValueMessage) => {
      try {
        return option.parseArg(val, this.getOptionValue(option.name()));
      } catch (err) {
        this.error(`${invalidValueMessage} ${err.message}`, { code: err.code });
      }
    };
    this.on('option:' + option.name(), (val) => {
      const invalidValueMessage = `error: option '${option.flags}' argument '${val}' is invalid.`;
      handleOptionValue(val, invalidValueMessage);
    });
    this.options.push(option);
    return this;
  }
}

exports.Command = Command;
"""

OPTION_JS = """class Option {
  choices(values) {
    this.argChoices = values.slice();
    this.parseArg = (arg) => {
      if (!this.argChoices.includes(arg)) {
        throw new InvalidArgumentError(`Allowed choices are ${this.argChoices.join(', ')}.`);
      }
      return arg;
    };
    return this;
  }
}

exports.Option = Option;
"""

SUGGEST_JS = """function suggestSimilar(word, candidates) {
  const similar = candidates.filter((candidate) => candidate.startsWith(word.slice(0, 3)));
  if (similar.length > 1) return `\\n(Did you mean one of ${similar.join(', ')}?)`;
  if (similar.length === 1) return `\\n(Did you mean ${similar[0]}?)`;
  return '';
}

exports.suggestSimilar = suggestSimilar;
"""

CLI_README = """# Options

## Required option

You may specify a required (mandatory) option using `.requiredOption()`. The option must have a
value after parsing, usually specified on the command line.

```console
$ pizza
error: required option '-c, --cheese <type>' not specified
```

## Choices

An option can only take one of its choices:

```console
$ extra --drink huge
error: option '-d, --drink <size>' argument 'huge' is invalid. Allowed choices are small, medium, large.
```

## Display help after errors

By default an unknown option is reported with a suggestion:

```console
$ pizza --hepl
error: unknown option '--hepl'
(Did you mean --help?)
```
"""


@pytest.fixture(scope="module")
def cli(tmp_path_factory) -> Brain:
    files = {
        "lib/command.js": COMMAND_JS,
        "lib/option.js": OPTION_JS,
        "lib/suggestSimilar.js": SUGGEST_JS,
        "Readme.md": CLI_README,
    }
    return indexed_files(tmp_path_factory.mktemp("cli"), files)


def test_a_pasted_line_whose_prefix_the_literal_writes_finds_where_it_is_made(cli):
    """``error: `` is no exception name here: the command-line tool writes it in its own literal."""
    first = top10(cli, "error: required option '-p, --port <number>' not specified")[0]
    assert (first.source, first.symbol_name) == ("lib/command.js", "missingMandatoryOptionValue")
    assert messages_of("error: required option '-p' not specified") == (
        "required option '-p' not specified",
        "error: required option '-p' not specified",
    )


def test_a_message_two_literals_make_finds_where_each_is_made():
    """A literal that starts a sentence or a line of the message covers that sentence: the rest was
    made elsewhere (the reason a parser threw, the suggestion on the next line)."""
    pasted = "error: option '-s, --size <size>' argument 'xl' is invalid. Allowed choices are small, medium, large."
    words = len(WORD.findall(pasted))
    assert message_match(pasted, words, COMMAND_JS, code=True)[0] == 1.0
    assert message_match(pasted, words, OPTION_JS, code=True) == (1.0, True)
    line = "error: unknown option '--verbos'\n(Did you mean --verbose?)"
    assert message_match(line, len(WORD.findall(line)), COMMAND_JS, code=True) == (1.0, True)
    # a literal that matches inside a sentence still counts against the whole message
    assert message_match(pasted, words, "fail(`${x} is invalid. Try again`)", code=True)[0] == 0.0


def test_a_pasted_message_two_literals_make_puts_a_raise_site_first(cli):
    first = top10(cli, "error: unknown option '--verbos'\n(Did you mean --verbose?)")[0]
    assert (first.source, first.symbol_name) == ("lib/command.js", "unknownOption")
    query = "error: option '-s, --size <size>' argument 'xl' is invalid. Allowed choices are small, medium, large."
    first = top10(cli, query)[0]
    assert first.source in ("lib/command.js", "lib/option.js"), first.source


def _int_value(bits: int, unsigned: bool) -> str:
    kind = f"{'u' if unsigned else ''}int{bits}"
    parse = "ParseUint" if unsigned else "ParseInt"
    return (
        'package pflag\n\nimport "strconv"\n\n'
        f"type {kind}Value {kind}\n\n"
        f"// Set parses the text of a {kind} flag: strconv.{parse} reports invalid syntax.\n"
        f"func (i *{kind}Value) Set(s string) error {{\n"
        f"\tv, err := strconv.{parse}(s, 0, {bits})\n"
        f"\t*i = {kind}Value(v)\n"
        "\treturn err\n}\n\n"
        f"func {kind}Conv(sval string) (interface{{}}, error) {{\n"
        f"\tv, err := strconv.{parse}(sval, 0, {bits})\n"
        "\tif err != nil {\n\t\treturn 0, err\n\t}\n"
        f"\treturn {kind}(v), nil\n}}\n"
    )


FLAG_GO = """package pflag

import "fmt"

// Set sets the value of the named flag.
func (f *FlagSet) Set(name, value string) error {
	flag, ok := f.formal[f.normalizeFlagName(name)]
	if !ok {
		return fmt.Errorf("no such flag -%v", name)
	}
	err := flag.Value.Set(value)
	if err != nil {
		flagName := fmt.Sprintf("--%s", flag.Name)
		if flag.Shorthand != "" {
			flagName = fmt.Sprintf("-%s, --%s", flag.Shorthand, flag.Name)
		}
		return fmt.Errorf("invalid argument %q for %q flag: %v", value, flagName, err)
	}
	flag.Changed = true
	return nil
}
"""


def test_a_wrapped_cause_does_not_bury_the_raise_site_of_the_first_clause(tmp_path):
    """The cause's words (strconv.ParseInt, parsing, invalid syntax) are in every converter: bm25's
    best rows for the whole message are converters; those for its first clause hold the raise site."""
    files = {"flag.go": FLAG_GO}
    for bits in (8, 16, 32, 64):
        for unsigned in (False, True):
            for n in range(10):
                files[f"types{n}/{'u' if unsigned else ''}int{bits}.go"] = _int_value(bits, unsigned)
    brain = indexed_files(tmp_path, files)
    query = 'invalid argument "abc" for "-p, --port" flag: strconv.ParseInt: parsing "abc": invalid syntax'
    bm25 = [r.source for r in top10(brain, query, "bm25")]
    assert "flag.go" not in bm25
    first = top10(brain, query)[0]
    assert (first.source, first.symbol_name) == ("flag.go", "Set")
    assert lead_clause(query) == 'invalid argument "abc" for "-p, --port" flag'
    assert lead_clause("Exceeded 30 redirects.") == ""


FLAG_STRUCT_GO = """package pflag

// A Flag represents the state of a flag.
type Flag struct {
	Name        string // name as it appears on command line
	Shorthand   string // one-letter abbreviated flag
	DefValue    string // default value (as text); for usage message
	NoOptDefVal string // default value (as text); if the flag is on the command line without any options
	Hidden      bool   // used to hide the flag from help text
}
"""

USAGE_GO = """package pflag

import "fmt"

// FlagUsages returns the usage text of every flag, with the value a flag takes when given alone.
func (f *FlagSet) FlagUsages() string {
	out := ""
	for _, flag := range f.flags {
		line := fmt.Sprintf("  --%s", flag.Name)
		if flag.NoOptDefVal != "" {
			switch flag.Value.Type() {
			case "string":
				line += fmt.Sprintf("[=%q]", flag.NoOptDefVal)
			case "bool":
				if flag.NoOptDefVal != "true" {
					line += fmt.Sprintf("[=%s]", flag.NoOptDefVal)
				}
			default:
				line += fmt.Sprintf("[=%s]", flag.NoOptDefVal)
			}
		}
		out += line + "\\n"
	}
	return out
}

// CountVarP defines a count flag: each time it is given adds one (NoOptDefVal "+1" means "no value given").
func (f *FlagSet) CountVarP(p *int, name, shorthand string, usage string) {
	flag := f.VarPF(newCountValue(0, p), name, shorthand, usage)
	flag.NoOptDefVal = "+1"
}
"""

CONFIG_PY = '''
class Config(dict):
    """Works like a dict, filled from files or objects.

    Define the configuration options in a module and load it::

        DEBUG = True
        SECRET_KEY = 'development key'
        app.config.from_object(__name__)

    Only uppercase keys are added to the config.
    """

    def from_object(self, obj):
        for key in dir(obj):
            if key.isupper():
                self[key] = getattr(obj, key)
'''

SESSIONS_PY = """
class SecureCookieSessionInterface:
    def get_signing_serializer(self, app):
        if not app.secret_key:
            return None
        keys = [app.config["SECRET_KEY"]]
        keys.extend(app.config["SECRET_KEY_FALLBACKS"])
        return keys
"""


def test_a_question_about_what_a_field_means_puts_the_type_declaring_it_first(tmp_path):
    """A struct field has no symbol of its own: the functions reading it say its name more often, but
    the line declaring it, with its comment, says what it means."""
    brain = indexed_files(tmp_path, {"flag.go": FLAG_STRUCT_GO, "usage.go": USAGE_GO})
    for query in ["what does NoOptDefVal mean for a flag", "NoOptDefVal"]:
        first = top10(brain, query)[0]
        assert (first.source, first.symbol_name) == ("flag.go", "Flag"), query
    # a question about what the code does with it is not asked about the declaration
    assert top10(brain, "how is NoOptDefVal shown in the usage text")[0].symbol_name != "Flag"


def test_an_example_in_a_docstring_declares_no_member(tmp_path):
    """``SECRET_KEY = 'development key'`` in a class's docstring is an example, not a member."""
    brain = indexed_files(tmp_path, {"app/config.py": CONFIG_PY, "app/sessions.py": SESSIONS_PY})
    assert [r.symbol_name for r in top10(brain, "SECRET_KEY")][:1] == ["get_signing_serializer"]


VERSION_ERROR_RS = """use core::fmt::{self, Debug, Display};

pub struct Error {
    kind: ErrorKind,
}

pub(crate) enum ErrorKind {
    UnexpectedEnd(Position),
    LeadingZero(Position),
}

impl Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnexpectedEnd(pos) => {
                write!(formatter, "unexpected end of input while parsing {}", pos)
            }
            ErrorKind::LeadingZero(pos) => {
                write!(formatter, "invalid leading zero in {}", pos)
            }
        }
    }
}

impl Debug for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("Error(\\"")?;
        Display::fmt(self, formatter)?;
        formatter.write_str("\\")")?;
        Ok(())
    }
}
"""

VERSION_TEST_RS = """use semver::Version;

fn assert_to_string(err: semver::Error, expected: &str) {
    assert_eq!(err.to_string(), expected);
}

#[test]
fn test_parse() {
    let err = Version::parse("").unwrap_err();
    assert_to_string(err, "unexpected end of input while parsing major version number");
    let err = Version::parse("1.").unwrap_err();
    assert_to_string(err, "unexpected end of input while parsing minor version number");
    let err = Version::parse("1.2.").unwrap_err();
    assert_to_string(err, "unexpected end of input while parsing patch version number");
    let err = Version::parse("01.0.0").unwrap_err();
    assert_to_string(err, "invalid leading zero in major version number");
}
"""


def test_a_message_quoted_in_a_printed_error_value_finds_where_it_is_made(tmp_path):
    """A panic on an unwrapped Result prints the error's Debug form around the message: the words
    around ``Error("...")`` were written by the runtime, the quoted text by the code."""
    files = {"src/error.rs": VERSION_ERROR_RS, "tests/test_version.rs": VERSION_TEST_RS}
    brain = indexed_files(tmp_path, files)
    query = (
        'called `Result::unwrap()` on an `Err` value: Error("unexpected end of input while parsing major version '
        'number")'
    )
    first = top10(brain, query)[0]
    assert (first.source, first.start_line <= 16 <= first.end_line) == ("src/error.rs", True)
    assert messages_of(query)[0] == "unexpected end of input while parsing major version number"
    assert messages_of("ERROR worker: ValueError('invalid literal for int')")[0] == "invalid literal for int"
    # a string quoted in a call of a how-to question is no error's message
    assert messages_of('how do I use from_object("yourapp.default_settings")') == (
        'how do I use from_object("yourapp.default_settings")',
    )


PRERELEASE_IMPLS_RS = """use core::cmp::Ordering;

impl Ord for Prerelease {
    fn cmp(&self, rhs: &Self) -> Ordering {
        match self.is_empty() {
            true if rhs.is_empty() => return Ordering::Equal,
            // A real release compares greater than prerelease.
            true => return Ordering::Greater,
            // Prerelease compares less than the real release.
            false if rhs.is_empty() => return Ordering::Less,
            false => {}
        }

        let lhs = self.as_str().split('.');
        let mut rhs = rhs.as_str().split('.');

        for lhs in lhs {
            let rhs = match rhs.next() {
                // Spec: "A larger set of pre-release fields has a higher
                // precedence than a smaller set, if all of the preceding
                // identifiers are equal."
                None => return Ordering::Greater,
                Some(rhs) => rhs,
            };

            let string_cmp = || Ord::cmp(lhs, rhs);
            let is_ascii_digit = |b: u8| b.is_ascii_digit();
            let ordering = match (
                lhs.bytes().all(is_ascii_digit),
                rhs.bytes().all(is_ascii_digit),
            ) {
                // Respect numeric ordering, for example 99 < 100. Spec says:
                // "Identifiers consisting of only digits are compared
                // numerically."
                (true, true) => Ord::cmp(&lhs.len(), &rhs.len()).then_with(string_cmp),
                // Spec: "Numeric identifiers always have lower precedence than
                // non-numeric identifiers."
                (true, false) => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                // Spec: "Identifiers with letters or hyphens are compared
                // lexically in ASCII sort order."
                (false, false) => string_cmp(),
            };

            if ordering != Ordering::Equal {
                return ordering;
            }
        }

        if rhs.next().is_none() {
            Ordering::Equal
        } else {
            Ordering::Less
        }
    }
}
"""


RETRY_RS = """use std::time::Duration;

/// How failed requests are retried: each failed attempt waits before the next one, the delay
/// doubling after every failure (exponential backoff) until it reaches `max_delay`; after
/// `max_retries` attempts the last error is returned.
#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl RetryPolicy {
    pub fn new(max_retries: u32) -> Self {
        RetryPolicy { max_retries, base_delay: Duration::from_millis(100), max_delay: Duration::from_secs(10) }
    }

    /// The delay before attempt `attempt` (0 for the first retry).
    pub fn next_delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt);
        let delay = self.base_delay.saturating_mul(factor);
        if delay > self.max_delay {
            self.max_delay
        } else {
            delay
        }
    }
}
"""

CLIENT_RS = """use crate::retry::RetryPolicy;

pub struct Client {
    policy: RetryPolicy,
}

impl Client {
    /// Sends the request, retrying on failure as the policy says.
    pub fn send(&self, request: &Request) -> Result<Response, Error> {
        let mut attempt = 0;
        loop {
            match self.transport.send(request) {
                Ok(response) => return Ok(response),
                Err(err) if attempt < self.policy.max_retries => {
                    std::thread::sleep(self.policy.next_delay(attempt));
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }
}
"""


def test_a_question_about_what_the_code_does_puts_the_function_above_the_documented_struct(tmp_path):
    """The struct's doc comment says how the delay grows; ``next_delay`` computes it. A declaration
    does nothing: for a how/where/why question it goes below, as a docs page does ("why doesn't ...":
    a question about what the code does too)."""
    brain = indexed_files(tmp_path, {"src/retry.rs": RETRY_RS, "src/client.rs": CLIENT_RS})
    for query in (
        "how is the retry delay computed",
        "how does the delay double after each failure",
        "why doesn't the backoff delay keep doubling",
    ):
        first = top10(brain, query)[0]
        assert (first.source, first.symbol_name) == ("src/retry.rs", "next_delay"), query
    assert evidence.about_behaviour("why isn't the cookie set") and not evidence.about_behaviour("why can't I log in")


def test_a_compound_written_with_a_hyphen_matches_the_name_that_joins_it(tmp_path):
    """A question says "pre-release"; the code names ``Prerelease``: the joined token is the query's too."""
    files = {
        "src/prerelease.rs": (
            "/// Orders two tags: a tag made of digits only sorts below one with letters.\n"
            "impl Ord for Prerelease {\n"
            "    fn cmp(&self, rhs: &Self) -> Ordering {\n"
            "        compare_identifiers(self.as_str(), rhs.as_str())\n"
            "    }\n"
            "}\n"
        ),
        "src/release.rs": (
            "/// Publishes the crate: a pre-flight check, then the release upload.\n"
            "pub fn publish(version: &str) -> Result<(), String> {\n"
            "    check(version)?;\n"
            "    upload(version)\n"
            "}\n"
        ),
        **{
            f"src/other{n}.rs": f"/// Step {n} of the build.\npub fn step{n}() -> u32 {{\n    {n}\n}}\n"
            for n in range(6)
        },
    }
    brain = indexed_files(tmp_path, files)
    assert top10(brain, "pre-release tags", "bm25")[0].source == "src/prerelease.rs"
    # the same words without the hyphen are two words, as a question's tokens were before
    assert top10(brain, "pre release tags", "bm25")[0].source == "src/release.rs"
    assert "prereleas" in query_tokens("compare two pre-release tags")
    assert query_tokens("--no-cache 1.0.0-alpha") == tokenize("--no-cache 1.0.0-alpha")


def test_a_pasted_ruby_message_finds_the_interpolated_literal_it_was_made_from(tmp_path):
    """Ruby writes a message's values as ``#{expr}`` holes: the pasted message (the option's name and
    the value typed in place of the holes) finds the method raising it, above the error class whose
    name and words say more of the message's words."""
    files = {
        "lib/cli/errors.rb": (
            "module Cli\n"
            "  # Raised when an argument's value does not fit its type: a numeric value, a choice.\n"
            "  class MalformattedArgumentError < StandardError\n"
            "  end\n"
            "end\n"
        ),
        "lib/cli/arguments.rb": (
            'require_relative "errors"\n\n'
            "module Cli\n"
            "  class Arguments\n"
            "    def parse_numeric(name)\n"
            "      return shift if peek.is_a?(Numeric)\n\n"
            "      unless peek =~ NUMERIC && $& == peek\n"
            "        raise MalformattedArgumentError, \"Expected numeric value for '#{name}'; got #{peek.inspect}\"\n"
            "      end\n\n"
            "      shift.to_i\n"
            "    end\n\n"
            "    def parse_array(name)\n"
            "      array = []\n"
            "      array << shift while current_is_value?\n"
            "      array\n"
            "    end\n"
            "  end\n"
            "end\n"
        ),
    }
    assert message_match(
        "Expected numeric value for '--port'; got \"abc\"", 7, files["lib/cli/arguments.rb"], code=True
    ) == (1.0, True)
    brain = indexed_files(tmp_path, files)
    first = top10(brain, "Expected numeric value for '--port'; got \"abc\"")[0]
    assert (first.source, first.symbol_name) == ("lib/cli/arguments.rb", "parse_numeric")


def test_a_question_about_what_a_setting_does_puts_the_code_reading_it_first(tmp_path):
    """A question "what does APP_DEBUG=1 do": no definition names the variable and no type declares it; the code
    reading it by its name (``ENV["APP_DEBUG"]``) is where it takes effect, above the functions saying
    "debug" more often."""
    files = {
        "lib/app/command.rb": (
            "module App\n"
            "  class Command\n"
            "    # Whether the app runs in debug mode: debugging shows the debug log.\n"
            "    def debugging?(instance)\n"
            "      instance.class.respond_to?(:debugging) && instance.class.debugging\n"
            "    end\n\n"
            "    # Writes a debug line when debugging.\n"
            "    def debug_log(instance, message)\n"
            '      puts "debug: #{message}" if debugging?(instance)\n'
            "    end\n"
            "  end\n"
            "end\n"
        ),
        "lib/app/base.rb": (
            "module App\n"
            "  module Base\n"
            "    def start(given_args = ARGV, config = {})\n"
            "      dispatch(nil, given_args.dup, nil, config)\n"
            "    rescue App::Error => e\n"
            '      config[:debug] || ENV["APP_DEBUG"] == "1" ? (raise e) : config[:shell].error(e.message)\n'
            "      exit(false) if exit_on_failure?\n"
            "    end\n\n"
            "    def dispatch(meth, given_args, given_opts, config)\n"
            "      new(given_args, given_opts, config).invoke_command(meth)\n"
            "    end\n"
            "  end\n"
            "end\n"
        ),
    }
    brain = indexed_files(tmp_path, files)
    first = top10(brain, "what does APP_DEBUG=1 do")[0]
    assert (first.source, first.symbol_name) == ("lib/app/base.rb", "start")
    # where the docs hold the entry defining it, that entry stays first for the name alone
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/config.rst").write_text(
        "Configuration\n=============\n\n.. envvar:: APP_DEBUG\n\n"
        "    Set to 1 to raise errors with their backtrace instead of printing their message.\n",
        encoding="utf-8",
    )
    brain.index()
    assert top10(brain, "APP_DEBUG")[0].source == "docs/config.rst"
    # read as a key only: a longer name that starts with it is another setting
    assert not evidence._read_as_key("APP_DEBUG").search('ENV["APP_DEBUG_LOG"]')


ZOD_DUMP = """ZodError: [
  {
    "expected": "string",
    "code": "invalid_type",
    "path": [
      "name"
    ],
    "message": "Invalid input: expected string, received number"
  }
]"""


def test_a_message_quoted_in_a_pasted_dump_finds_the_literal_it_was_made_from(tmp_path):
    """A structured error pasted whole (a JSON array of issues): its message is the quoted value of one
    field, among short fields (``"code": "invalid_type"``) the code writes as literals of their own.
    The literal making the quoted message covers it (not the dump's every word), and a one-word value
    is no message."""
    files = {
        "src/locales/en.ts": (
            "export const localeError = (issue: Issue): string => {\n"
            "  switch (issue.code) {\n"
            '    case "invalid_type":\n'
            "      return `Invalid input: expected ${issue.expected}, received ${typeof issue.input}`;\n"
            '    case "too_small":\n'
            "      return `Too small: expected ${issue.origin} to have >=${issue.minimum} items`;\n"
            "    default:\n"
            '      return "Invalid input";\n'
            "  }\n"
            "};\n"
        ),
        "src/core/schemas.ts": (
            "export function parseString(payload: Payload, inst: Schema): Payload {\n"
            '  if (typeof payload.value === "string") return payload;\n'
            "  payload.issues.push({\n"
            '    expected: "string",\n'
            '    code: "invalid_type",\n'
            "    input: payload.value,\n"
            "    inst,\n"
            "  });\n"
            "  return payload;\n"
            "}\n"
        ),
    }
    assert evidence.wordiest_line(ZOD_DUMP) == "Invalid input: expected string, received number"
    words = len(WORD.findall(message_of(ZOD_DUMP)))
    assert message_match(message_of(ZOD_DUMP), words, files["src/core/schemas.ts"], code=True) == (0.0, False)
    brain = indexed_files(tmp_path, files)
    first = top10(brain, ZOD_DUMP)[0]
    assert first.source == "src/locales/en.ts"
    # a value quoted inside a sentence is no field's value: it is a value, not the message
    sentence = "The mimetype for the request is 'application/x-www-form-urlencoded' instead of 'multipart/form-data'"
    words = len(WORD.findall(sentence))
    assert message_match(sentence, words, 'MULTIPART = "multipart/form-data"\n', code=True) == (0.0, False)


KOTLIN_EXCEPTIONS = """package app.files

/** Thrown when a file cannot be downloaded: the response has no body or its status is an error status. */
internal class UnableToDownloadException(reason: String) :
  CodedException("Unable to download a file: $reason")

internal class UnableToDeleteException(reason: String) :
  CodedException("Unable to delete file or directory: $reason")
"""

KOTLIN_DOWNLOAD = """package app.files

/** Downloads [url] into [to], following the server's answer. */
fun downloadFile(url: String, to: File, headers: Map<String, String>): File {
  val builder = Request.Builder().url(url)
  headers.forEach { (key, value) -> builder.addHeader(key, value) }
  val response = client.newCall(builder.build()).execute()
  if (!response.isSuccessful) {
    throw UnableToDownloadException("response has status: ${response.code}")
  }
  val body = response.body ?: throw UnableToDownloadException("response body is null")
  body.byteStream().use { input -> to.outputStream().use { input.copyTo(it) } }
  return to
}

/** Deletes [file] and everything below it. */
fun deleteFile(file: File) {
  if (!file.exists()) {
    throw UnableToDeleteException("uri '${file.path}' does not exist")
  }
  file.deleteRecursively()
}
"""

SWIFT_DOWNLOAD = """import Foundation

/// Downloads a file from the URL to the destination, reporting progress while the response is streamed.
func downloadFile(url: URL, to destination: URL) async throws -> URL {
  let (location, response) = try await URLSession.shared.download(from: url)
  if let httpResponse = response as? HTTPURLResponse, !(200...299).contains(httpResponse.statusCode) {
    throw UnableToDownloadException("response has status \\(httpResponse.statusCode)")
  }
  try FileManager.default.moveItem(at: location, to: destination)
  return destination
}
"""

SWIFT_EXCEPTIONS = """import Foundation

internal final class WatcherUnsupportedPathException: GenericException<String> {
  override var reason: String {
    "Cannot watch path '\\(param)'. Only local file:// paths are supported."
  }
}

internal final class WatcherPathNotFoundException: GenericException<String> {
  override var reason: String {
    "Path does not exist: '\\(param)'"
  }
}

internal final class UnableToGetInfoException: GenericException<String> {
  override var reason: String {
    "Unable to get info from a file: \\(param)"
  }
}
"""


def test_kotlin_and_swift_interpolations_are_holes_and_a_thrown_reason_comes_before_its_class(tmp_path):
    """Kotlin writes a message's values as ``$name`` (and ``${expr}``), Swift as ``\\(expr)``: both are
    holes of the message's template. An exception class whose message ends in the reason it is given
    (``"Unable to download a file: $reason"``) and the throw giving that reason (``"response has
    status: ${response.code}"``) both make the pasted text; the throw, whose literal the class's hole
    took, comes first, then the class; a Swift throw making the same text but for the colon its hole
    takes (``"response has status \\(code)"``) after the one spelling it."""
    swift_body = "Cannot watch path \\(param). Only local file:// paths are supported."
    assert _HOLE.sub("{}", swift_body) == "Cannot watch path {}. Only local file:// paths are supported."
    assert _HOLE.sub("{}", "Unable to download a file: $reason") == "Unable to download a file: {}"
    brain = indexed_files(
        tmp_path,
        {
            "android/FileSystemExceptions.kt": KOTLIN_EXCEPTIONS,
            "android/FileSystemDownload.kt": KOTLIN_DOWNLOAD,
            "ios/FileSystemExceptions.swift": SWIFT_EXCEPTIONS,
            "ios/FileSystemDownload.swift": SWIFT_DOWNLOAD,
        },
    )
    pasted = "Error: Unable to download a file: response has status: 404"
    assert message_match(message_of(pasted), 9, KOTLIN_EXCEPTIONS, code=True) == (1.0, True)
    assert message_match(message_of(pasted), 9, KOTLIN_DOWNLOAD, code=True) == (1.0, True)
    top = top10(brain, pasted)
    assert [(r.source, r.symbol_name) for r in top[:3]] == [
        ("android/FileSystemDownload.kt", "downloadFile"),
        ("ios/FileSystemDownload.swift", "downloadFile"),
        ("android/FileSystemExceptions.kt", "UnableToDownloadException"),
    ]
    watched = "Error: Cannot watch path 'https://example.com/a.txt'. Only local file:// paths are supported."
    first = top10(brain, watched)[0]
    assert (first.source, first.symbol_name) == ("ios/FileSystemExceptions.swift", "WatcherUnsupportedPathException")


def test_a_pasted_c_message_with_size_and_unsigned_holes_finds_where_it_is_set(tmp_path):
    """C writes unsigned and size_t values as ``%u``, ``%zu`` (``%lld``, ``%hhu``...): holes of the
    template, as ``%d`` is; and a ``PyErr_Format``/``fprintf(stderr, …)`` call raises (a part of its
    names says so) where a message table does not."""
    raising = (
        "static PyObject *\ndecompress (PyObject *self, PyObject *args)\n{\n"
        "  if (output_size != dest_size)\n    {\n      PyErr_Format (LZ4BlockError,\n"
        '                    "Decompressor wrote %u bytes, but %zu bytes expected from header",\n'
        "                    output_size, dest_size);\n      return NULL;\n    }\n  return result;\n}\n"
    )
    message = "Decompressor wrote 12 bytes, but 40 bytes expected from header"
    assert message_match(message, 9, raising, code=True) == (1.0, True)
    printed = 'void report(int n)\n{\n    fprintf(stderr, "Decompressor wrote %lld bytes, but %zu bytes expected",'
    printed += " n, m);\n}\n"
    assert message_match("Decompressor wrote 12 bytes, but 40 bytes expected", 8, printed, code=True) == (1.0, True)
    files = {
        "src/block.c": raising,
        "src/messages.c": (
            "/* The decompressor's messages, for the bytes written and the bytes expected from the header. */\n"
            "static const char* header_messages[] = {\n"
            '    "Decompressor wrote %u bytes, but %zu bytes expected from header",\n'
            '    "Decompressor wrote no bytes: the header expected bytes",\n'
            "};\n"
            "/* bytes expected from header: bytes the decompressor wrote */\n"
        ),
    }
    brain = indexed_files(tmp_path, files)
    first = top10(brain, f"lz4.block.LZ4BlockError: {message}")[0]
    assert (first.source, first.symbol_name) == ("src/block.c", "decompress")


def test_a_message_a_string_builder_goes_on_finds_the_literal_starting_it(tmp_path):
    """C# (and Java) build a message by appending to a ``StringBuilder``: the literal starting the
    pasted message covers its lead clause, up to the ``: `` the argument list follows."""
    binder = (
        "namespace Python.Runtime\n{\n    internal class MethodBinder\n    {\n"
        "        internal virtual NewReference Invoke(BorrowedReference inst, BorrowedReference args)\n"
        "        {\n            Binding? binding = Bind(inst, args);\n            if (binding == null)\n            {\n"
        '                var value = new StringBuilder("No method matches given arguments");\n'
        "                if (methodinfo != null && methodinfo.Length > 0)\n                {\n"
        '                    value.Append($" for {methodinfo[0].DeclaringType?.Name}.{methodinfo[0].Name}");\n'
        "                }\n"
        '                value.Append(": ");\n                AppendArgumentTypes(to: value, args);\n'
        "                return Exceptions.RaiseTypeError(value.ToString());\n            }\n"
        "            return binding.Invoke();\n        }\n\n"
        "        /// <summary>The method matching the given arguments: the class of each argument matches.</summary>\n"
        "        internal static MethodBase? MatchSignature(MethodBase[] methods, Type[] args)\n        {\n"
        "            return methods.FirstOrDefault(m => m.GetParameters().Length == args.Length);\n        }\n"
        "    }\n}\n"
    )
    message = "No method matches given arguments for Calculator.Add: (<class 'str'>, <class 'int'>)"
    cover, _ = message_match(message, len(WORD.findall(message)), binder, code=True)
    assert cover >= 0.5
    brain = indexed_files(tmp_path, {"src/runtime/MethodBinder.cs": binder})
    first = top10(brain, f"TypeError: {message}")[0]
    assert first.symbol_name == "Invoke"


def test_a_question_about_what_the_code_does_puts_the_c_definition_above_its_header_prototype(tmp_path):
    """A header's prototype comes with the doc comment saying what the function does in the question's
    words; the definition in the .c file does it: for a question about what the code does, a header's
    declarations go ``DOCS_PENALTY`` lower, as a docs page does (a how-do-I question keeps them)."""
    files = {
        "lib/hc.h": (
            "#ifndef HC_H\n#define HC_H\n\n"
            "/*! hc_compress() :\n"
            " *  Compresses with the strategy of the compression level: levels up to 9 search the hash\n"
            " *  chain for the longest match, levels 10 and above use the optimal parser.\n"
            " */\n"
            "int hc_compress(const char* src, char* dst, int srcSize, int level);\n\n"
            "/*! hc_level_max : the highest compression level. */\n#define HC_LEVEL_MAX 12\n\n#endif\n"
        ),
        "lib/hc.c": (
            '#include "hc.h"\n\n'
            "static int compress_chain(const char* src, char* dst, int n, int searches);\n"
            "static int compress_optimal(const char* src, char* dst, int n, int searches);\n\n"
            "int hc_compress(const char* src, char* dst, int srcSize, int level)\n{\n"
            "    static const int searches[HC_LEVEL_MAX + 1] = { 2, 2, 2, 4, 8, 16, 32, 64, 128, 256, 96, 512, 99 };\n"
            "    if (level < 1) level = 9;\n    if (level > HC_LEVEL_MAX) level = HC_LEVEL_MAX;\n"
            "    /* the hash chain below level 10, the optimal parser above */\n"
            "    if (level < 10)\n        return compress_chain(src, dst, srcSize, searches[level]);\n"
            "    return compress_optimal(src, dst, srcSize, searches[level]);\n}\n"
        ),
    }
    brain = indexed_files(tmp_path, files)
    first = top10(brain, "how does the compression level pick between the hash chain and the optimal parser")[0]
    assert (first.source, first.symbol_name) == ("lib/hc.c", "hc_compress")
    usage = [r.source for r in top10(brain, "how do I pick the compression level for the optimal parser")]
    assert "lib/hc.h" in usage[:2]


def test_a_question_about_what_the_code_does_puts_the_code_above_docstrings_held_as_literals(tmp_path):
    """A C extension writes its Python docstrings as string literals (``PyDoc_STRVAR``): prose about
    the code, in the question's words; the function verifying the checksum does it."""
    doc = "".join(
        f'  "{line}\\n" \\\n'
        for line in (
            "decompress(data, return_bytearray=False)",
            "",
            "Decompresses a frame of data and returns it.",
            "",
            "Args:",
            "    data (str, bytes or buffer-compatible object): LZ4 frame to be",
            "        decompressed. If the frame has a content checksum, it is stored",
            "        at the end of the frame, and checked during decompression.",
            "    return_bytearray (bool): If True a bytearray object will be returned.",
        )
    )
    files = {
        "lz4/frame/_frame.c": (
            "static PyObject *\ndecompress (PyObject *self, PyObject *args)\n{\n"
            "  return __decompress (context, source, source_size);\n}\n\n"
            f'PyDoc_STRVAR\n(\n decompress__doc,\n{doc}  "\\n");\n'
        ),
        "lz4libs/lz4frame.c": (
            "size_t LZ4F_decompress(LZ4F_dctx* dctx, void* dst, size_t* dstSizePtr)\n{\n"
            "    /* at the end of the frame, verify the content checksum of the decompressed data */\n"
            "    if (!dctx->skipChecksum) {\n"
            "        U32 const readCRC = LZ4F_readLE32(selectedIn);\n"
            "        U32 const resultCRC = XXH32_digest(&(dctx->xxh));\n"
            "        RETURN_ERROR_IF(readCRC != resultCRC, contentChecksum_invalid);\n"
            "    }\n    LZ4F_resetDecompressionContext(dctx);\n    return 0;\n}\n"
        ),
    }
    brain = indexed_files(tmp_path, files)
    first = top10(brain, "how is the content checksum verified at the end of a frame when decompressing")[0]
    assert (first.source, first.symbol_name) == ("lz4libs/lz4frame.c", "LZ4F_decompress")


def test_a_notebook_code_cell_is_not_titled_by_the_heading_above_it():
    """A heading query finds the markdown cell that holds the heading (or a cell of prose under it),
    not every code cell the notebook's outline puts in that section."""
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Tutorial\n\n## Results\n\nA corner plot:"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": "import corner\ncorner.corner(samples)"},
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    chunks, _, _ = chunk_notebook("t.ipynb", text, "notebook", 1500, 100)
    heading = next(c for c in chunks if c.cell_index == 0 and "Results" in c.text)
    cell = next(c for c in chunks if c.cell_index == 1)
    assert cell.section_path == "Tutorial > Results"
    query = set(tokenize("Results"))
    assert title_match(query, heading) == 1.0
    assert title_match(query, cell) == 0.0


def test_values_concatenated_in_a_row_are_one_hole():
    """``"Option " + LQUOTE + option + RQUOTE + " does not exist"``: the values between two literals
    stand for one hole, so the literal spells the whole message."""
    text = '  : parsing("Option " + LQUOTE + option + RQUOTE + " does not exist")\n'
    said = message_evidence("Option ‘verbos’ does not exist", 4, text, code=True)
    assert said.cover == 1.0 and said.start == 0


CXX_OPTIONS = {
    "include/opts.hpp": """\
namespace opts {

namespace exceptions {

class parsing : public std::exception
{
  public:
  explicit parsing(const std::string& message) : m_message(message) {}
  std::string m_message;
};

class no_such_option : public parsing
{
  public:
  explicit no_such_option(const std::string& option)
  : parsing("Option " + LQUOTE + option + RQUOTE + " does not exist")
  {
  }
};

class option_requires_argument : public parsing
{
  public:
  explicit option_requires_argument(const std::string& option)
  : parsing("Option " + LQUOTE + option + RQUOTE + " requires an argument")
  {
  }
};

} // namespace exceptions

template <typename T>
void throw_or_mimic(const std::string& text)
{
  throw T{text};
}

class OptionParser
{
  public:
  ParseResult parse(int argc, const char* const* argv);
  void print_help() const;
};

inline ParseResult
OptionParser::parse(int argc, const char* const* argv)
{
  int current = 1;
  while (current != argc)
  {
    const std::string name = argv[current];
    auto iter = m_options.find(name);
    if (iter == m_options.end())
    {
      throw_or_mimic<exceptions::no_such_option>(name);
    }
    ++current;
  }
  return ParseResult(m_keys);
}

inline void
OptionParser::print_help() const
{
  for (const auto& option : m_options)
  {
    std::cout << "Option " << option.first << " does exist" << std::endl;
  }
}

} // namespace opts
""",
}

PY_ERRORS = {
    "cli/errors.py": '''\
class UsageError(Exception):
    """An error in how the command was called."""


class NoSuchOption(UsageError):
    """Raised when an option is given that the command does not define."""

    def __init__(self, option_name, possibilities=None):
        message = f"No such option: {option_name}"
        super().__init__(message)
        self.option_name = option_name
        self.possibilities = possibilities
''',
    "cli/parser.py": '''\
from .errors import NoSuchOption


class OptionParser:
    """Reads the options of a command line."""

    def __init__(self, options):
        self.options = options

    def _match_long_opt(self, opt, explicit_value, state):
        """Match a long option such as --verbose against the options."""
        if opt not in self.options:
            possibilities = [word for word in self.options if word.startswith(opt)]
            raise NoSuchOption(opt, possibilities=possibilities)
        option = self.options[opt]
        return option.process(explicit_value, state)

    def describe(self):
        """Lines such as: No such option is hidden; option --name takes a value."""
        return [f"option {name} takes a value" for name in self.options]
''',
}


@pytest.mark.parametrize(
    ("files", "query", "thrower", "thrown"),
    [
        (CXX_OPTIONS, "Option ‘verbos’ does not exist", "parse", "no_such_option"),
        (PY_ERRORS, "Error: No such option: --verbose", "_match_long_opt", "__init__"),
    ],
    ids=["c++", "python"],
)
def test_the_throw_of_an_exception_class_that_makes_the_message_comes_before_the_class(
    tmp_path, files, query, thrower, thrown
):
    """A message made in an exception class's constructor (C++'s member initializer, Python's
    ``__init__``) is raised where the class is thrown: that code first, the class right after."""
    names = [r.symbol_name for r in top10(indexed_files(tmp_path, files), query)]
    assert names[0] == thrower
    assert names.index(thrown) == 1


def _notebook(*cells: tuple[str, str]) -> str:
    made = [{"cell_type": kind, "metadata": {}, "source": text} for kind, text in cells]
    for cell in made:
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
    return json.dumps({"cells": made, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_notebook_code_cell_is_code_for_a_question_about_what_is_done(tmp_path):
    """A "where does the tutorial ..." question puts docs ``DOCS_PENALTY`` below the code that does
    it: a notebook's markdown cells are docs, its code cells are code."""
    from agent_brain_lab.engine import retrieval
    from agent_brain_lab.engine.retrieval.context import Hit
    from agent_brain_lab.engine.types import QueryRequest

    files = {
        "docs/tutorial.ipynb": _notebook(
            ("markdown", "## Results\n\nThe most useful plot of the samples is a corner plot."),
            ("code", "import corner\n\nfig = corner.corner(samples, labels=labels, truths=truths)"),
        )
    }
    brain = indexed_files(tmp_path, files)
    request = QueryRequest.build({"query": "where does the tutorial make a corner plot", "mode": "multi"})

    def penalised(view):
        snapshot, catalog = view.snapshot, view.catalog
        ctx = retrieval.QueryContext(
            snapshot, request, None, lambda ids: catalog.keys_of_chunk_ids(snapshot.gen, ids), catalog.chunks_by_key
        )
        keys = [int(k) for k in snapshot.columns.keys.tolist()]
        cells = {key: row.cell_index for key, row in catalog.chunks_by_key(keys).items()}
        return {cells[h.key]: h.score for h in evidence.asides_below(ctx, [Hit(k, 1.0) for k in keys])}

    scores = brain._reader.read(penalised)
    assert scores == {0: pytest.approx(1.0 - evidence.DOCS_PENALTY), 1: 1.0}


def test_an_exception_class_whose_message_is_fixed_text_is_where_the_message_is(tmp_path):
    """A message with no value in it is the class's own: the class comes first, not its throws."""
    files = {
        "lib/errors.py": '''\
class AsyncParseError(Exception):
    """Raised when a schema meets a coroutine while it parses synchronously."""

    def __init__(self):
        super().__init__("Encountered a coroutine during synchronous parse. Use parse_async() instead.")
''',
        "lib/parse.py": '''\
from .errors import AsyncParseError


def parse(schema, value):
    """Parse ``value`` with ``schema`` synchronously."""
    result = schema.run(value)
    if hasattr(result, "__await__"):
        raise AsyncParseError()
    return result
''',
    }
    found = top10(
        indexed_files(tmp_path, files), "Encountered a coroutine during synchronous parse. Use parse_async() instead."
    )
    assert (found[0].source, found[0].symbol_name) == ("lib/errors.py", "__init__")
