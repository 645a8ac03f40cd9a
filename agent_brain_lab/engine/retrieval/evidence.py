"""Evidence multi weighs besides the blend: what the code is named, where it raises, whether it is a test.

- **Exact names first** (a query of names only): the definitions named exactly as the query writes
  the name come first, then those named so in another case: "Session" puts the class ``Session``
  above the function ``session()``; then the doc entries defining the name (``.. py:data::
  SECRET_KEY``). A question about what the code does that names a function by its owner ("how does
  res.send decide the Content-Type") puts that function first (:func:`named_subject_first`).
- **Pasted messages** (:func:`message_match`): a chunk holding a string literal the query's text was
  made from — a template's holes (``f"Exceeded {n} redirects."``, ``"%s not found"``,
  ``"{name}"``, ``${x}``, Ruby's ``#{x}``, Kotlin's ``$x``, Swift's ``\\(x)``, a value concatenated in:
  ``'view "' + name + '" in '``) standing for any text, empty included — comes first, the ones that
  raise, throw or log it before the rest, code before tests and docs; a literal whose text another
  one's hole took (the reason an exception class's ``"Unable to download a file: $reason"`` was given
  at the throw) before that one, and of two making it alike the one whose holes take less of it; but
  a cause printed inside the message (``Max retries exceeded ... (Caused by NewConnectionError('...'))``)
  after the code literal whose hole holds it (an exception class's constructor making the message
  included); a docstring naming an exception class does not raise it. A message pasted without a literal's last
  sentences (a warning's "See: <link>") is made by the literal's leading ones. A template too short to
  mean anything alone (``"%s is empty"``) makes the message only where its hole took the name of the code
  holding it (``type(self).__name__`` in ``LRUCache.popitem``: "LRUCache is empty").
  Read from the blend's candidates and bm25's best
  rows, whose text holds the message's words: an exception class defined in two lines scores higher
  on BM25 than the long function that raises it, but does not hold the message. The line is tried
  without its leading exception name and as pasted (a command-line tool writes ``error: `` in its own
  literal); a literal that starts a sentence or a line of the message covers that sentence (the rest
  was made elsewhere: the reason a parser threw, a suggestion on the next line), and one that starts a
  field's quoted value (``"message": "..."`` in a pasted dump) covers that value; a message that goes
  on after its first clause (a wrapped cause) is also looked up by that clause in bm25, and one of
  several lines by its wordiest line; a message quoted in a printed error value (a Rust ``unwrap()``
  panic's ``Error("...")``, a Python ``ValueError('...')``) is tried alone first.
- **Headings** (:func:`title_match`): a doc section whose own title the query's words make (nearly all
  of them, nearly nothing else) comes next: a heading typed as a query finds its section, though a
  merged chunk names only its first section in its header and the blend weighs a title as one line.
  A title several sections share ("Usage", "Configuration") counts with its parent's title before
  it, so "Pylint Configuration" finds that one.
- **The constant a which-question asks for** (:func:`constants_first`): "which HTTP methods get
  retried" is answered by ``const retryMethods = [...]``, a module chunk with no name of its own.
- **The branch a what-happens question names** (:func:`branches_first`): "what happens when a task times
  out and throwOnTimeout is not set" is answered by the code whose condition tests ``throwOnTimeout``,
  not by the constructor storing it.
- **The calls a how-do-I question quotes** (:func:`quoted_calls_first`): "how do I make f(3) and f(3.0)
  cached separately" is answered where ``f(3)`` and ``f(3.0)`` are written; bm25 hears neither.
- **Both things compared** (:func:`compared_first`): "the difference between TTLCache and TLRUCache"
  puts both class definitions above their small members.
- **The code a how-do-I answer keys on** (:func:`keyed_code_first`): the docs answer "how do I send
  JSON" in its words; the code reading the option their entry is titled with (``##### json``) goes
  above the entry, the code of the one name a how-to section shows (``retry_with``) below it.
- **Library code above tests and changelogs** (:func:`asides_below`): a prose question that does not
  ask about tests ("where is the timeout applied") puts a test chunk ``TEST_PENALTY`` lower on the
  blend's [0, 1] scale, and one that does not ask what changed (no version, no "changed",
  "deprecated", ...) a changelog entry ``CHANGELOG_PENALTY`` lower: tests and release notes say the
  words of a behaviour as often as the code that does it ("Fix req.ip when trust proxy is set"). A
  question about what the code does ("how are pre-releases ordered", "why doesn't ...", "does ky
  respect the Retry-After header") puts docs and
  type declarations (a struct, enum, trait, interface; a C header's prototypes and macros, a ``.d.ts``
  or ``.pyi`` stub; a chunk of string literals, as a C extension's docstrings: they describe, the
  definitions do)
  ``DOCS_PENALTY`` lower.

Every step re-orders a list that does not depend on ``top_k`` (the fused pool and bm25's first
``MESSAGE_DEPTH`` rows), so a page of 10 stays the prefix of a page of 50.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..chunking.text import atx_heading, is_rst_title
from ..tokenizer import WORD, query_tokens, tokenize
from ..types import SOURCE_TYPES, Chunk
from .context import Hit, QueryContext
from .intent import DOTTED, GIVEN
from .names import spelled_parts
from .symbols import asked_kind, constructed_class

TEST_PENALTY = 0.3  # above the name evidence a test can gain (names leg 0.1 + name cover 0.15): not won on its name
TEST_WORDS = frozenset(
    ["test", "tests", "testing", "tested", "pytest", "unittest", "fixture", "fixtures", "mock", "mocks", "spec"]
)
DOCS_PENALTY = 0.2  # a question about what the code does: its docs describe it, the code does it
CHANGELOG_PENALTY = 0.3  # a changelog entry names the behaviour it changed as well as the code does it
# words of a question about what changed ("what changed about verify=False in 2.32.0", "when was X deprecated")
CHANGE_WORDS = frozenset(
    [
        "change",
        "changed",
        "changes",
        "changelog",
        "history",
        "version",
        "versions",
        "release",
        "released",
        "releases",
        "deprecated",
        "deprecation",
        "deprecations",
        "removed",
        "upgrade",
        "upgrading",
        "migrate",
        "migrating",
        "migration",
        "breaking",
    ]
)
MESSAGE_DEPTH = 30  # bm25's best rows read for a message's literal or a heading (the raise site: bm25 #8-#25)
RANKED_DEPTH = 20  # and the fused list's best
MIN_FIXED_LETTERS = 8  # a template's own text, holes aside: "%s: %s" or "{}" alone matches anything
MIN_COVER = 0.5  # the share of the message's words a literal must spell with its own text
HOLE_CHARS = 60  # a template's hole holds a value (a number, a name, a URL), not a sentence
STATEMENT_CHARS = 400  # how far before a message its call's open bracket is looked for
QUOTED_WORDS = 3  # a quoted message in a pasted dump is a sentence; one or two words are a value
THROW_SITES = 3  # the code throwing an exception class that makes the message, put ahead of the class
MIN_CLASS_NAME = 4  # a shorter name is a word, not a class a bm25 look-up can find
TITLE_MATCH = 0.75  # the token overlap (Jaccard) of query and heading that makes the query that heading
_VERSION = re.compile(r"\b\d+\.\d+(?:\.\d+)?\b")
_CHANGELOG = re.compile(
    r"(?:^|/)(?:change[s_-]?log|changes|history|news|release[s_-]?notes?|releases|whats[_-]?new)"
    r"(?:\.(?:md|markdown|rst|txt|adoc|asciidoc|org))?$",
    re.IGNORECASE,
)
_PROSE_TYPES = frozenset({"doc", "notebook"})
_PROSE_IDX = frozenset(SOURCE_TYPES.index(t) for t in _PROSE_TYPES)
# a question about what the code does: "how does/is/are X ...", "where is", "when does", "why does",
# "what happens when", and one asking whether it does something ("does ky respect the Retry-After
# header", "is the pool thread-safe"); not "how do I", "how can we", "how to", "can I", "is there a way"
_BEHAVIOUR = re.compile(
    r"\s*(?:(?:(?:how|where|when|why)\s+)?(?:does|do|is|are|was|were|did|can|could|will|would|wo|ca)"
    r"(?:n['’]?t\b)?(?!\s+(?:i|we|you|one|me|there)\b)\s+\S|what\s+happens\s+(?:when|if|after|before))",
    re.IGNORECASE,
)
_TEST = SOURCE_TYPES.index("test")
_NOTEBOOK = SOURCE_TYPES.index("notebook")
_DEFINITIONS = frozenset({"class", "function", "method", "interface", "struct", "enum", "trait", "type", "module"})

# a docstring (skipped: prose about the code, not a message), or a one-line string literal
_LITERAL = re.compile(
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`((?:[^`\\]|\\.)*)`'
)
# ${x} (JS), #{x} (Ruby), \(expr) (Swift, one level of brackets inside), {x} / {} (Python), %s, %(name)s,
# %v, %zu, %lld (printf), $x / $1 (Kotlin, Groovy, Dart, PHP, shell)
_HOLE = re.compile(
    r"[$#]\{[^}]*\}|\\\((?:[^()\n]|\([^()\n]*\))*\)|\{[^{}]*\}|%\([A-Za-z_]\w*\)[-#+ 0-9.]*[A-Za-z]"
    r"|%[-#+ 0-9.*]*(?:hh|ll|[hljztLqI]|I64|I32)?[sdiufrxXeEgGcvqTpob]|\{\}"
    r"|\$(?:[A-Za-z_]\w*(?:->\w+|\[[^\]\s]*\])?|[0-9@*#?])"
)
_JOINED = re.compile(r"[\s+]*[rRfFbBuU]{0,2}")  # between two literals that make one string
# a value concatenated into a message ('Failed to lookup view "' + name + '" in ' + dirs): a name, member
# or call with no string inside, standing for a hole (so do several in a row: "Option " + LQUOTE + option
# + RQUOTE + " does not exist"); joined by `+`, Lua's `..` or PHP's `.` (before a
# `$variable`, or with spaces around it: `"..."` then `.format(...)` is a call, not a concatenation)
_VALUE = r"[A-Za-z_$][\w$]*(?:(?:\.|->)[A-Za-z_$][\w$]*|\([^()'\"`\n]*\)|\[[^\]'\"`\n]*\])*"
_JOINED_BY_VALUE = re.compile(
    rf"\s*(?:\+\s*{_VALUE}(?:\s*\+\s*{_VALUE})*\s*\+|\.\.\s*{_VALUE}(?:\s*\.\.\s*{_VALUE})*\s*\.\.|\.\s*(?=\$){_VALUE}\s*\.|\s\.\s+{_VALUE}\s+\.)"
    r"\s*[rRfFbBuU]{0,2}"
)
_ENDS_WITH_VALUE = re.compile(rf"[ \t]*(?:\+|\.\.|\.(?=[ \t]*\$)|(?<=[ \t])\.(?=[ \t]))[ \t]*{_VALUE}")
# a label then whatever is concatenated after it, a value of any form: ``'use one of: '.implode(', ', $names)``,
# ``"Allowed: " + list.join(", ")`` (the value's own literals are not the message)
_ENDS_WITH_LABEL = re.compile(r":[ \t]+$")
_CONCATENATED = re.compile(r"[ \t]*(?:\+|\.)")
# a line of a comment: "// ...", "/* ...", " * ..." (a block comment's body), "# ..." (not "#error")
_COMMENT_LINE = re.compile(r"[ \t]*(?://|/\*|\*(?!\w)|#(?![A-Za-z!\[]))")
# a reStructuredText object description (Sphinx's ``.. py:data:: NAME``, ``.. function:: f(x)``,
# ``.. envvar:: FLASK_APP``): the name it defines, without a signature
_DIRECTIVE = re.compile(
    r"^[ \t]*\.\.[ \t]+(?:[a-z]+:)?(?:data|attribute|function|method|class|exception|decorator|property|"
    r"envvar|confval|option|setting)::[ \t]+([^\s(\[]+)",
    re.MULTILINE,
)
_OWN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_EXCEPTION_PREFIX = re.compile(r"^\s*[A-Za-z_][\w.]*:\s+")
# an error value printed with its message quoted (its type named so): ``Error("...")``,
# ``ValueError('...')``, ``Err("...")``, ``ParseException("...", 3)``
_REPR = re.compile(
    r"""\b(?:[A-Za-z_][\w.:]*)?(?:Error|Exception|Err|Warning|Failure|Fault)\(\s*(["'])((?:(?!\1)[^\\\n]|\\.)+)\1\s*[,)]"""
)
# a value printed in a message: a repr in angle brackets, a container, a short quoted name, a number
_PRINTED_VALUE = re.compile(r"""<[^<>\n]*>|\{[^{}\n]*\}|\[[^\[\]\n]*\]|(["'`])[^"'`\s]{1,40}\1|\b\d+(?:\.\d+)?\b""")
_CLOSING = re.compile(r"\s*[)\]}]+[\s\W]*")  # a literal's end that only closes brackets: ``...{reason!r})``
# a Python exception raised with several arguments prints them as a tuple, its message the first:
# ``ProtocolError: ('Connection broken: IncompleteRead(...)', IncompleteRead(...))``
_ARGS_TUPLE = re.compile(r"""\(\s*(["'])((?:(?!\1)[^\\\n]|\\.)+)\1\s*,""")
_OPENS = re.compile(r"[(\[{'\"`]")  # a printed value opening before a text a hole took: it wraps that text
_FIELD_VALUE = re.compile(r"[:=][ \t]*[\"'`]$")  # the opening quote of a field's value: "message": "
_FIELD = re.compile(r"^\s*[\"']?[A-Za-z_][\w.-]*[\"']?\s*[:=]\s+")  # "message": , message = (a dump's field)
# "what is X", "what does X mean", "what are X for", "meaning of X": a question about what a name is
_MEANING = re.compile(r"\s*(?:what(?:'s|\s+(?:is|are|does|do))\b|(?:the\s+)?(?:meaning|purpose)\s+of\b)", re.IGNORECASE)
# what follows "what is" when the question asks what one name is: the name alone ("what is a PoolManager?"),
# not "what is the difference between parse and safeParse" or "what does the acceleration parameter of X do"
_ONLY_NAME = re.compile(r"\s+(?:(?:a|an|the)\s+)?[`'\"]?[A-Za-z_$][\w$.:]*[`'\"]?\s*\??\s*")
# a block comment opening a line (JSDoc, Javadoc, C), its body's lines with or without a leading ``*``
_BLOCK_COMMENT = re.compile(r"^[ \t]*/\*[\s\S]*?\*/", re.MULTILINE)
_DOCSTRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')  # an example in a docstring declares nothing
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_TYPES = frozenset({"class", "struct", "interface", "type", "enum", "trait"})  # chunks that declare members
_DECLARED = frozenset({"struct", "enum", "trait", "interface", "type"})  # declarations with no behaviour of their own
# a line that is a string literal (or a macro or call opening with one: `PyDoc_STRVAR(name, "...`)
_LITERAL_LINE = re.compile(r"""\s*(?:[A-Za-z_]\w*\s*\(\s*(?:[A-Za-z_]\w*\s*,\s*)?)?[rRuUbBfFL@$]{0,2}["'`]""")
# files of declarations (their definitions are elsewhere): C/C++ headers, TypeScript's and Python's stubs
_DECLARATION_FILES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".d.ts", ".d.mts", ".d.cts", ".pyi")
# where a sentence, a line or a lead clause (``No method matches given arguments for X.f: (<class 'str'>)``,
# the rest appended to a StringBuilder or made by the cause) of a pasted message ends
_SENTENCE_BREAK = re.compile(r"[.!?](?=\s+\S)")  # a sentence ending inside a literal, another after it
_SENTENCE_END = re.compile(r"[.!?:](?=\s)|\n")
# a statement raising, throwing, logging or reporting an error: also a shell's message written to stderr
# (``printf "..." >&2``) and an error value returned after a nil (Lua's ``return nil, "not a Lua table"``)
_RAISES = re.compile(
    r"\b(raise|throw|throws|panic|abort|bail|fail|fatal|die|errorf|warn|warning|warnings|log|logger|logging|"
    r"console|print|eprint|exception|error)\b|Error\(|Exception\(|[ \t]1?>&2\b|\breturn[ \t]+nil[ \t]*,",
    re.IGNORECASE,
)
# the same words as parts of a name: C's `PyErr_SetString(LZ4StreamError, "...")`, `fprintf(stderr, "...")`
# what follows a class's name where it is constructed: a call or a literal (`X(`, `X<T>(`, `X{`, `X::new(`)
_CONSTRUCTED = re.compile(r"\s*(?:<[^<>()]*>)?\s*(?:\(|\{|::new\b)")
_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b")  # a class named so: not a verb
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_RAISE_PARTS = frozenset(
    ["raise", "throw", "panic", "abort", "fatal", "die", "err", "error", "errorf", "exception", "stderr", "warn"]
)


def _raises(statement: str) -> bool:
    """Whether a statement raises, throws or logs what it makes: a word saying so, or a name one of
    whose parts says so."""
    return bool(_RAISES.search(statement)) or any(p.lower() in _RAISE_PARTS for p in _NAME_PART.findall(statement))


def about_tests(query: str) -> bool:
    return any(w.lower() in TEST_WORDS for w in WORD.findall(query))


def about_changes(query: str) -> bool:
    """Whether the query asks what changed (a version, a deprecation, a release): a changelog answers it."""
    return bool(_VERSION.search(query)) or any(w.lower() in CHANGE_WORDS for w in WORD.findall(query))


def is_changelog(path: str) -> bool:
    """A file of release notes (``CHANGES.rst``, ``History.md``, ``docs/changelog.md``, ``NEWS``)."""
    return bool(_CHANGELOG.search(path))


def about_behaviour(query: str) -> bool:
    """Whether the query asks how the code itself does something ("how does the router match a path",
    "where is the timeout applied", "what happens when the context is popped"), not how to use it
    ("how do I ...", "how to ..."): the code doing it answers, the prose describing it less so."""
    return bool(_BEHAVIOUR.match(query))


def asides_below(ctx: QueryContext, ranked: list[Hit], scale: float | None = None) -> list[Hit]:
    """``ranked`` with every test chunk ``TEST_PENALTY`` lower unless the query is about tests, and every
    changelog chunk ``CHANGELOG_PENALTY`` lower unless it asks what changed: both say the words of a
    behaviour as often as the code that does it; and, for a question about what the code does
    (:func:`about_behaviour`), every other doc chunk ``DOCS_PENALTY`` lower (a notebook's markdown, not
    its code cells: they do what the question asks, as code does). The penalties are on the
    blend's [0, 1] scale; a list scored otherwise (an RRF) gives its ``scale``: the score that stands
    for 1 (its first's)."""
    if not ranked:
        return ranked
    scale = 1.0 if scale is None else scale
    query = ctx.request.query
    tests, changes, behaviour = not about_tests(query), not about_changes(query), about_behaviour(query)
    if not (tests or changes or behaviour):
        return ranked
    columns = ctx.snapshot.columns
    at = columns.positions(_keys(ranked))
    types, files, langs = columns.type_idx[at], columns.file_idx[at], columns.lang_idx[at]
    changelog = {i: is_changelog(columns.files[i]) for i in set(files.tolist())}
    described = _described_types(ctx, ranked[:RANKED_DEPTH]) if behaviour else set()
    for hit, kind, file, lang in zip(ranked, types, files, langs):
        if tests and kind == _TEST:
            hit.score -= TEST_PENALTY * scale
        elif changelog[int(file)]:  # never docs: the answer when the question asks what changed
            hit.score -= CHANGELOG_PENALTY * scale if changes else 0.0
        elif behaviour and kind == _NOTEBOOK and columns.languages[int(lang)] != "markdown":
            continue  # a notebook's code cell does what the question asks, as code does
        elif behaviour and (kind in _PROSE_IDX or hit.key in described):
            hit.score -= DOCS_PENALTY * scale
    return sorted(ranked, key=lambda h: -h.score)


def _described_types(ctx: QueryContext, hits: list[Hit]) -> set[int]:
    """The keys of ``hits`` that declare and do nothing (a struct, enum, trait, interface or type alias
    with its doc comment: a Rust ``///`` block above a three-line struct, the head of a long doc comment
    cut into a chunk of its own; a C/C++ header's prototypes and macros, a ``.d.ts`` or ``.pyi`` file's
    declarations, each with the doc comment saying what the function does): for a question about what
    the code does, the declaration's doc says the behaviour's words, the definitions do it, as with a
    docs page. A function a header defines (``static inline``) does something: not one of them."""
    rows = ctx.chunks_of_keys([h.key for h in hits])
    return {
        k
        for k, row in rows.items()
        if row.source_type == "code"
        and (
            row.symbol_type in _DECLARED
            or (row.source.endswith(_DECLARATION_FILES) and row.symbol_type not in ("function", "method"))
            or (row.symbol_name is None and _mostly_literals(row.text))
        )
    }


def _mostly_literals(text: str) -> bool:
    """Whether a chunk is text the code holds rather than code: two in three of its lines (three at
    least) string literals, as a C extension's docstrings (``PyDoc_STRVAR(compress__doc, "compress(data)
    ..." "    content_checksum (bool): ...")``) or a command's help text are: prose about the code."""
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) >= 3 and sum(bool(_LITERAL_LINE.match(line)) for line in lines) * 3 >= len(lines) * 2


def exact_names_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """The definitions the query names exactly (case-exact first, then any case) ahead of ``ranked``."""
    exact, other_case = _definitions(ctx, ctx.intent.names)
    return _promote(ranked, _allowed(ctx, exact + other_case))


def _defines(row: Chunk, names: set[str]) -> bool:
    """Whether a doc chunk holds the entry defining one of ``names``: a reStructuredText object
    directive (``.. py:data:: SECRET_KEY``, ``.. function:: flask.json.dumps(obj)``, ``.. envvar::
    FLASK_APP``) whose target is the name, with or without the modules and class before it."""
    return any(t in names or any(t.endswith("." + n) for n in names) for t in _DIRECTIVE.findall(row.text))


def named_subject_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question about what the code does that names it by its owner (``owner.member``, written so:
    "how does res.send decide the Content-Type") puts that definition first: the functions sharing the
    question's other words (``res.type`` for "Content-Type") say them more, but the question is about
    the one it names. Not when it asks what changed (a changelog answers "what changed about
    res.redirect"), nor for a name written alone ("how does MethodView pick the method": the class is
    the topic, its method the answer). A question asking only what a name written as code is ("what
    is a PoolManager") puts its definitions first too: the class's docstring says what it is, its
    subclasses and methods say its name more often. So does a question opening with its subject's name,
    as a doc comment introduces its declaration ("`o` is a curried composition function ...",
    :func:`opening_subject`): the functions it is likened to share more of its words. A name in another
    case counts only in sentence case ("Scan is ...": ``scan``)."""
    query = ctx.request.query
    if about_changes(query):
        return ranked
    subject = opening_subject(query)
    if subject is not None:  # "`o` is a curried composition function ...", "Scan is similar to `reduce` ..."
        exact, other_case = _definitions(ctx, [subject])
        sentence_case = not exact and subject[:1].isupper() and subject[1:].islower()
        found = exact or (other_case if sentence_case else [])
        if 0 < len(set(found)) <= SUBJECT_DEFINITIONS:
            return _promote(ranked, _allowed(ctx, found))
    asked = _MEANING.match(query)
    if asked and len(ctx.intent.code_names) == 1 and _ONLY_NAME.fullmatch(query, asked.end()):
        exact, _ = _definitions(ctx, ctx.intent.code_names)
        return _promote(ranked, _allowed(ctx, exact))
    if not about_behaviour(query):
        return ranked
    exact, _ = _definitions(ctx, [n for n in ctx.intent.code_names if DOTTED.fullmatch(n)], qualified=True)
    return _promote(ranked, _allowed(ctx, exact))


SUBJECT_DEFINITIONS = 2  # a subject defined more often than this ("The `default` ...") names no one definition
# a question that opens by naming what it is about and saying what it is or does, as a doc comment introduces
# its declaration: "`o` is a curried composition function ...", "Scan is similar to `reduce` ...", "The
# `mapAccum` function behaves like ...", "A Subject is a special type of Observable ..."; not a pronoun, nor
# a statement about a name ("baseUrl is likely a misspelling of baseURL": a pasted message)
_SUBJECT = re.compile(
    r"\s*(?:(?:an?|the)\s+)?(`?)([A-Za-z_$][\w$]*)\1(?:\s+(?:function|method|class|operator|helper))?"
    r"\s+(?:is\s+(?:an?|the|similar|like|just|much)|(?:behaves|works|acts)\s+(?:like|as|much|just))\b",
    re.IGNORECASE,
)
_PRONOUNS = frozenset(  # and question words: "where is the timeout applied" is no question about ``where``
    ["this", "that", "it", "there", "here", "which", "what", "who", "each", "all", "one", "how", "where", "when", "why"]
)


def opening_subject(query: str) -> str | None:
    """The name a question opens with as its subject ("`o` is a curried ...": ``o``; "Scan is similar to":
    ``Scan``), else None: the doc comment of that declaration, whatever words the others share with it."""
    match = _SUBJECT.match(query)
    if match is None or match.group(2).lower() in _PRONOUNS:
        return None
    return match.group(2)


def declared_members_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question asking what a name is or means ("what does NoOptDefVal mean for a flag", or the name
    alone) that no definition answers (a struct field, a class attribute, an interface property: no
    symbol of its own) puts the type declaring it first: the line declaring the member, with its
    comment, says what it is; the functions that read or set it say its name more often. When no type
    declares it, the code reading it as a key (:func:`_read_as_key`: an environment variable, a
    setting: "what does THOR_DEBUG=1 do") comes first, where no doc entry defines it: that is where it
    takes effect. Read from the candidates of :func:`_candidates`; a docstring's example (``SECRET_KEY =
    'dev'``) declares nothing."""
    query = ctx.request.query
    if not (ctx.intent.label == "lookup" or _MEANING.match(query)):
        return ranked
    undefined = [n for n in ctx.intent.code_names if _IDENTIFIER.fullmatch(n) and not any(_definitions(ctx, [n]))]
    if not undefined:
        return ranked
    declares = [_member_line(n) for n in undefined]
    keys = _candidates(ctx, ranked)
    rows = ctx.chunks_of_keys(keys)
    # a parameter the question writes with its value ("what does cache=True do") is said by its entry in a
    # doc comment (``:param cache:``), first; a value of its own ("key_derivation django-concat") by the code
    entries = [_param_entry(n) for n in undefined if n in GIVEN.findall(query)]
    documented = [
        k
        for k in keys
        if (row := rows.get(k)) is not None and row.source_type == "code" and any(e.search(row.text) for e in entries)
    ]
    # the entry of the code the question names first ("... do on an rrule": rrule's, then rruleset's)
    named = set(ctx.intent.names)
    documented.sort(key=lambda k: not (_names_of(rows[k]) & named))
    found = documented + [
        k for k in keys if (row := rows.get(k)) is not None and row.symbol_type in _TYPES and _declares(row, declares)
    ]
    # no type declares it: a setting the code reads by its name (ENV["THOR_DEBUG"]), unless its docs
    # hold the entry defining it (``.. py:data:: SECRET_KEY``), which a look-up puts first
    if not found and not any(
        (row := rows.get(k)) is not None and row.source_type in _PROSE_TYPES and _defines(row, set(undefined))
        for k in keys
    ):
        reads = [_read_as_key(n) for n in undefined]
        found = [
            k
            for k in keys
            if (row := rows.get(k)) is not None and row.source_type == "code" and any(r.search(row.text) for r in reads)
        ]
    return _promote(ranked, found)


@lru_cache(maxsize=1024)
def _param_entry(name: str) -> re.Pattern[str]:
    """A doc comment's entry for the parameter ``name``: Sphinx's ``:param cache:`` (``:param bool
    cache:``), JSDoc's, Javadoc's and PHPDoc's ``@param {boolean} [cache]`` / ``@param cache`` /
    ``@param bool $cache``, Google's ``cache (bool):``, numpy's ``cache : bool``."""
    n = re.escape(name)
    return re.compile(
        rf":param[ \t]+(?:[\w.\[\], |]+[ \t]+)?{n}:"
        rf"|@param[ \t]+(?:\{{[^}}\n]*\}}[ \t]+)?(?:[\w.\[\]|<>]+[ \t]+)?\[?\$?{n}\b"
        rf"|^[ \t]*\*?[ \t]*{n}[ \t]*(?:\([^)\n]*\):|[ \t]:[ \t]+\w)",
        re.MULTILINE,
    )


def _declares(row: Chunk, members: list[re.Pattern[str]]) -> bool:
    """Whether a type's chunk declares one of ``members`` in its body: after its own header (``type
    Flag struct {``, ``class Config(dict):``) when the chunk holds it (a long interface is cut into
    several chunks: the later ones hold members only), outside a docstring. A docstring's example
    (``SECRET_KEY = 'dev'``) declares nothing, and in Python a chunk without its class's header may
    start inside one: there the header is required."""
    name = re.escape(row.symbol_name or "")
    header = re.search(rf"\b(?:class|struct|interface|type|enum|trait)\b[^\n]*?\b{name}\b", row.text) if name else None
    if header is None and row.language == "python":
        return False
    body = _DOCSTRINGS.sub("", row.text[header.end() :] if header else row.text)
    body = body.split('"""', 1)[0].split("'''", 1)[0]  # an unclosed docstring runs to the chunk's end
    return any(m.search(body) for m in members)


@lru_cache(maxsize=1024)
def _read_as_key(name: str) -> re.Pattern[str]:
    """``name`` read as a setting's key: a whole string literal (``ENV["THOR_DEBUG"]``,
    ``os.environ.get('NO_COLOR')``, ``config["SECRET_KEY"]``) or an environment's member
    (``process.env.DEBUG``)."""
    quoted = re.escape(name)
    return re.compile(rf"([\"'`]){quoted}\1|\benv\.{quoted}\b")


def defaults_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question asking a setting's default ("what is the default timeout", "the default name of the
    XSRF cookie", "the default keepalive expiry") puts first the code giving that setting a fixed value:
    a key, keyword or assignment whose name's words the question all says (``timeout: 0``,
    ``xsrfCookieName: 'XSRF-TOKEN'``, ``keepalive_expiry: float | None = 5.0``, ``Timeout(timeout=5.0)``,
    ``DEFAULT_DEBOUNCE = 100``) set to a literal. The code that reads the setting and the docs naming it
    say its words more often; the default is written once. The longest name said wins (``timeout`` in
    ``timeout: 0`` against ``connect_timeout = None``); among equals, ``ranked``'s order. Not for a
    pasted message, nor a question about what changed (its changelog answers).

    The setting is the first word after "default" that is not "value" ("the default value of the
    unknown option": ``unknown``). A default may be given where the setting is read, with a fallback
    (``getattr(meta, "unknown", RAISE)``, ``options.get("retries", 3)``, ``opts.limit ?? 10``); a site
    giving it ``None`` (``unknown: str | None = None`` in a signature: "not given, look elsewhere") is
    beaten by one giving a value."""
    query = ctx.request.query
    asks = _ASKS_DEFAULT.match(query)
    after = tokenize(query[asks.end() :]) if asks and not about_changes(query) else []
    subject = next((t for t in after if t not in _DEFAULT_TOKENS), None)
    if subject is None or asks is None:  # "... by default": the question does not name the setting
        return ranked
    # the setting's words: those before "of", "for", ... ("the default log level": log, level; "the
    # default timeout of a request": timeout), the first word when no other
    named = _SETTING_PHRASE.match(query, asks.end())
    subjects = (set(tokenize(named.group())) if named else set()) - _DEFAULT_TOKENS or {subject}
    asked = set(ctx.query_tokens) - _DEFAULT_TOKENS

    def said(site: re.Match[str]) -> int:
        if site.re is _DEFAULT_VALUE and not _names_value(site.group(2), site.group(1)):
            return 0
        parts = max(_said_parts(site.group(1), asked, s) for s in subjects)
        return 2 * parts - _stands_for_none(site.group(2)) if parts else 0

    return _best_sites_first(ctx, ranked, (_DEFAULT_VALUE, _DEFAULT_READ, _DEFAULT_OR), said)


def options_read_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question asking which option or setting does something ("which option limits how many
    redirects axios follows") puts first the code reading an option whose name's words it all says,
    two or more (``config.maxRedirects``, ``self.max_redirects``, ``options.onUploadProgress``): the
    question describes the option in its words, the code names it once where it takes effect, and the
    docs and the code around say the words more. ``DEFAULT_SITES`` chunks at most, in ``ranked``'s order."""
    kind = asked_kind(ctx.request.query)
    if not kind:
        return ranked
    asked = set(ctx.query_tokens) - kind
    return _best_sites_first(ctx, ranked, (_OPTION_READ,), lambda site: _option_parts(site.group(1), asked))


QUOTED_SITES = 2  # the chunks showing the calls a how-do-I question quotes
# a call written with a literal argument: ``f(3.0)``, ``typedkey(3)``, ``parse("2024-01-01")``, ``x.get('k', 1)``
_QUOTED_CALL = re.compile(
    r"(?<![\w$.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\((?=[^()\n]*[\d'\"])(?:[^()'\"\n]|'[^'\n]*'|\"[^\"\n]*\")*\)"
)


def quoted_calls_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A how-do-I question quoting calls with their arguments ("how do I make f(3) and f(3.0) cached
    separately") puts first the chunks writing those calls as quoted (spaces aside): the docs' example
    of what it asks. bm25 hears none of ``f(3)``: a one-letter name and a lone number are no tokens.
    The chunks showing the most of the calls, ``QUOTED_SITES`` at most, in ``ranked``'s order."""
    query = ctx.request.query
    calls = list(dict.fromkeys(re.sub(r"\s+", "", c) for c in _QUOTED_CALL.findall(query)))
    if not calls or not _USAGE.match(query):
        return ranked
    keys = list(
        dict.fromkeys(
            [h.key for h in ranked[:RANKED_DEPTH]]
            + [
                int(k)
                for k in ctx.snapshot.columns.keys[
                    ctx.keyword_top_of(tokenize(" ".join(calls)), MESSAGE_DEPTH)
                ].tolist()
            ]
        )
    )
    rows = ctx.chunks_of_keys(keys)
    shown: dict[int, int] = {}
    for key in keys:
        row = rows.get(key)
        if row is not None:
            text = re.sub(r"\s+", "", row.text)
            if count := sum(c in text for c in calls):
                shown[key] = count
    if not shown:
        return ranked
    most = max(shown.values())
    return _promote(ranked, [k for k in keys if shown.get(k) == most][:QUOTED_SITES])


COMPARED_DEFINITIONS = 2  # a name defined more often than this ("parse") is a family, not the thing compared
# "the difference between A and B", "A vs B", "A versus B", "compare A with B", "A compared to B"
_COMPARES = re.compile(r"\b(?:differen(?:ce|ces|t)\s+between|vs\.?|versus|compare[ds]?|comparing)\b", re.IGNORECASE)


def compared_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question comparing two names written as code ("what is the difference between TTLCache and
    TLRUCache") puts both definitions first, in ``ranked``'s order: each says what it is, while their
    small members (a ``ttl`` property, an ``__init__``) say the names and the question's words in a
    few lines and rank above them. Only when two or more names are compared and each is defined at
    most ``COMPARED_DEFINITIONS`` times (case-exact)."""
    query = ctx.request.query
    names = ctx.intent.code_names
    if not _COMPARES.search(query) or about_changes(query):
        return ranked
    if len(names) < 2:
        return _compared_within(ctx, ranked)
    chunk_ids: list[str] = []
    for name in names:
        exact, _ = _definitions(ctx, [name])
        exact = list(dict.fromkeys(exact))
        if not exact or len(exact) > COMPARED_DEFINITIONS:
            return ranked
        chunk_ids += exact
    keys = _allowed(ctx, chunk_ids)
    at = {h.key: i for i, h in enumerate(ranked)}
    return _promote(ranked, sorted(keys, key=lambda k: at.get(k, len(ranked))))


# "the difference between months and month in relativedelta": two words of one named definition
_COMPARED_WITHIN = re.compile(
    r"\bbetween\s+[`'\"]?(\w+)[`'\"]?\s+and\s+[`'\"]?(\w+)[`'\"]?\s+(?:in|of|for|on)\s+(?:(?:an?|the)\s+)?"
    r"[`'\"]?([A-Za-z_][\w.]*)",
    re.IGNORECASE,
)


def _compared_within(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question comparing two words of one definition it names ("the difference between months and
    month in relativedelta": two of its parameters, options or modes) puts first the parts of that
    definition saying both words (its docstring's entries), ``COMPARED_DEFINITIONS`` at most, its own
    parts before its members', each in ``ranked``'s order: the examples using one of them say the words
    more often. Only for a name defined at most ``COMPARED_DEFINITIONS`` times (case-exact)."""
    asked = _COMPARED_WITHIN.search(ctx.request.query)
    if asked is None:
        return ranked
    first, second, owner = asked.groups()
    owner = owner.rsplit(".", 1)[-1]
    exact, _ = _definitions(ctx, [owner])
    if not exact or len(set(exact)) > COMPARED_DEFINITIONS or first.lower() == second.lower():
        return ranked
    words = [re.compile(rf"(?<![\w$]){re.escape(w)}(?![\w$])", re.IGNORECASE) for w in (first, second)]
    found, rows = _code_candidates(
        ctx, ranked, lambda row: owner in _names_of(row) and all(w.search(row.text) for w in words)
    )
    found.sort(key=lambda k: rows[k].symbol_name != owner)  # its own parts (a docstring) before its members'
    return _promote(ranked, found[:COMPARED_DEFINITIONS])


BRANCH_SITES = 2  # the code branching on an option a what-happens question names: the first two at most
# "what happens when/if X", "does ... when X", "is ... if X": the question names a case
_WHEN = re.compile(r"\b(?:when|if|unless|once|after|before|without)\b", re.IGNORECASE)


def _branch_on(name: str) -> re.Pattern[str]:
    """A condition testing ``name``: an ``if``/``elif``/``else if``/``while``/``unless`` line reading it
    (``if (error instanceof TimeoutError && !options.throwOnTimeout)``, ``if not self.verify:``), or a
    ternary whose test it is (``this.x ? a : b``)."""
    word = rf"(?<![\w$]){re.escape(name)}(?![\w$])"
    return re.compile(
        rf"^[ \t]*(?:\}}[ \t]*)?(?:else[ \t]+if|elif|elsif|if|while|unless|until)\b[^\n]*{word}"
        rf"|{word}[^\n?]{{0,40}}\?[^\n:?.][^\n:]*:",
        re.MULTILINE,
    )


def branches_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question about what the code does in a case named by an option or field ("what happens when a
    task times out and throwOnTimeout is not set") puts first the code whose condition tests it: the
    branch is what happens. The constructor storing the option (``this.#throwOnTimeout =
    options.throwOnTimeout === true``) and the type declaring it say its name as often and next to
    the question's other words, but do nothing with it. Only names written as code that no definition
    has (a function or class named is the subject, :func:`named_subject_first`'s), and at most
    ``BRANCH_SITES`` chunks, in ``ranked``'s order."""
    query = ctx.request.query
    if not about_behaviour(query) or not _WHEN.search(query) or about_changes(query):
        return ranked
    names = [n.rsplit(".", 1)[-1] for n in ctx.intent.code_names]
    exact, other_case = _definitions(ctx, names)
    if exact or other_case or not names:
        return ranked
    tests = [_branch_on(n) for n in dict.fromkeys(names)]
    sites, _ = _code_candidates(
        ctx,
        ranked,
        lambda row: (
            not row.source.endswith(_DECLARATION_FILES) and any(t.search(_prose_blanked(row.text)) for t in tests)
        ),
    )
    return _promote(ranked, sites[:BRANCH_SITES])


KEYED_SITES = 2  # the code taking a reference entry's name: where it is read, and a second site at most
KEYED_DOCS = 3  # how far down the first doc hit is looked for
KEY_DEPTH = 50  # bm25's rows for the entry's name read for the code naming it
# "how do I ...", "how can we ...", "how to ...": a question about using the code, not about what it does
_USAGE = re.compile(
    r"\s*how\s+(?:to\b|(?:do|can|could|should|would|may|might|must)\s+(?:i|we|you|one)\b)", re.IGNORECASE
)
# a title written as a code name: ``json``, ``searchParams``, ``ky.extend(defaultOptions)``, ``hooks.beforeRequest``
_NAME_TITLE = re.compile(r"`?(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)`?(?:[ \t]*\([^()]*\))?`?")
_CODE_CASE = re.compile(r"^[a-z_$]|[a-z][A-Z]|[A-Z]{2}|_")  # not a prose title's case: "Install", "Usage"


def reference_key(row: Chunk) -> str | None:
    """The code name a doc section is the reference entry of: its own title written as one (``##### json``,
    ``### ky.extend(defaultOptions)``, ``hooks.beforeRequest``: the last name), lower-case first or
    camel-, snake- or upper-cased inside, as a prose title ("Install", "Usage", "Tips") is not."""
    if row.source_type != "doc" or not row.section_path:
        return None
    match = _NAME_TITLE.fullmatch(row.section_path.split(" > ")[-1].strip())
    return match.group(1) if match and _CODE_CASE.search(match.group(1)) else None


def keyed_code_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A how-do-I question answered first by the docs gets the code the doc section keys on beside it.

    - A reference entry titled with a code name the question says a word of (as the name spells it:
      "query string parameters" says ``searchParams``), the first doc hit in the first ``KEYED_DOCS``
      ("how do I send JSON in a POST body": the README's ``##### json``): the code taking that name
      goes just above the entry (the definitions named so and the code reading it as a member,
      ``this._options.json``, those saying the most of the question first, ``KEYED_SITES`` at most).
      The entry says what to write in the question's words; the code that does it says them once, so
      the blend ranks the entry first and the code far below.
    - A how-to section, first of all ("Changing Arguments at Run Time" for "how do I change the stop
      and wait arguments of a decorated function when I call it"): the code of the name the section
      writes as code that no other doc section writes (``retry_with``; not ``stop_after_attempt``,
      which every example uses) goes just below it: the section answers in the question's words, the
      code it shows is the library's answer, often in other words than the question's."""
    if not _USAGE.match(ctx.request.query):
        return ranked
    head = ranked[:KEYED_DOCS]
    rows = ctx.chunks_of_keys([h.key for h in head])
    at = next((i for i, h in enumerate(head) if (r := rows.get(h.key)) is not None and r.source_type == "doc"), None)
    if at is None:
        return ranked
    doc = rows[head[at].key]
    key = reference_key(doc)
    if key is not None:
        # a word of the name as the question spells it: "query string parameters" says ``searchParams``'s params
        if not set(tokenize(key)) & spelled_parts(ctx.request.query, ctx.query_tokens):
            return ranked
        return _put_at(ranked, at, [k for k in _keyed_sites(ctx, key) if k not in {h.key for h in ranked[:at]}])
    if at != 0:
        return ranked
    for name in _own_code_names(ctx, doc):
        sites = _keyed_sites(ctx, name)
        if sites:
            return _put_at(ranked, 1, sites)
    return ranked


SECTION_CHUNKS = 3  # a long section is cut in a few chunks: a name they alone hold is the section's own
SECTION_NAMES = 12  # the code names of a how-to section weighed, in the order it writes them
# a name a section shows as its subject: written as code in its prose (`x`, ``x``) or set in its example
# (a keyword argument or an assignment, ``retry_error_callback=return_last_value``); not the calls an
# example makes along the way (``Version::parse(...)``, ``interceptors.request.eject(id)``)
_SHOWN_NAME = re.compile(r"``?([A-Za-z_$][\w$.]*)``?|(?<![\w$.])([A-Za-z_$][\w$]*)[ \t]*=(?![=>])")


def _own_code_names(ctx: QueryContext, doc: Chunk) -> list[str]:
    """The names ``doc`` shows as its subject (``SECTION_NAMES`` at most, first written first) that no
    other doc section holds and the question does not say."""
    keywords = ctx.snapshot.keywords
    if keywords is None:
        return []
    said = set(ctx.query_tokens)
    names: list[str] = []
    for match in _SHOWN_NAME.finditer(doc.text):
        name = next(g for g in match.groups() if g).rsplit(".", 1)[-1]
        if name and name not in names and len(name) >= MIN_CLASS_NAME and not set(tokenize(name)) <= said:
            names.append(name)
    columns = ctx.snapshot.columns
    docs = columns.type_idx == SOURCE_TYPES.index("doc")
    own = []
    for name in names[:SECTION_NAMES]:
        token = tokenize(name)[:1]
        if not token:
            continue
        held = np.flatnonzero((keywords.scores(token) > 0) & docs)
        if 0 < len(held) <= SECTION_CHUNKS:
            sections = {(r.source, r.section_path) for r in ctx.chunks_of_keys(columns.keys[held].tolist()).values()}
            if sections == {(doc.source, doc.section_path)}:
                own.append(name)
    return own


def _put_at(ranked: list[Hit], at: int, sites: list[int]) -> list[Hit]:
    """``ranked`` with ``sites`` (``KEYED_SITES`` at most) moved to place ``at``, scored just above the
    hit that was there."""
    sites = sites[:KEYED_SITES]
    if not sites or at >= len(ranked):
        return ranked
    by_key = {h.key: h for h in ranked}
    there = ranked[at].score
    step = max(abs(there), 1e-3) * 1e-4
    chosen = set(sites)
    moved = []
    for i, site in enumerate(sites):
        hit = by_key.get(site) or Hit(site, 0.0)
        hit.score = there + step * (len(sites) - i)
        moved.append(hit)
    return [h for h in ranked[:at] if h.key not in chosen] + moved + [h for h in ranked[at:] if h.key not in chosen]


def _keyed_sites(ctx: QueryContext, key: str) -> list[int]:
    """The keys of the library code taking ``key``: its definitions and the chunks reading it as a member
    (among bm25's ``KEY_DEPTH`` best rows for the name), those saying the most of the question first."""
    exact, _ = _definitions(ctx, [key])
    sites = _allowed(ctx, exact)
    found = [int(k) for k in ctx.snapshot.columns.keys[ctx.keyword_top_of(tokenize(key), KEY_DEPTH)].tolist()]
    chunks = ctx.chunks_of_keys(found)
    sites += [
        k
        for k in found
        if (row := chunks.get(k)) is not None
        and row.source_type == "code"
        and not row.source.endswith(_DECLARATION_FILES)
        and any(m.group(1) == key for m in _OPTION_READ.finditer(row.text))
    ]
    sites = list(dict.fromkeys(sites))
    if not sites:
        return []
    said = ctx.bm25_scores[ctx.snapshot.columns.positions(np.array(sites, dtype=np.int64))]
    return [k for _, k in sorted(zip((-float(s) for s in said), sites), key=lambda p: p[0])]


# "which HTTP methods get retried", "what status codes ...": a question asking for the values of a set,
# the thing asked for in its first two words after which/what
_ASKS_WHICH = re.compile(r"\s*(?:which|what)\s+([A-Za-z]+(?:[ \t]+[A-Za-z]+)?)", re.IGNORECASE)
# a module-level constant (at the line's start): ``const retryMethods = [``, ``export const X =``,
# ``RETRY_METHODS = frozenset(``, ``MAX_WAIT: float = ...``
_MODULE_CONSTANT = re.compile(
    r"^(?:export[ \t]+)?(?:(?:const|let|var|final|static|val)[ \t]+)?([A-Za-z_$][\w$]*)"
    r"[ \t]*(?::[^=\n]{1,60})?=(?![=>])",
    re.MULTILINE,
)


def constants_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """A question asking which values the code uses ("which HTTP methods get retried") puts first the
    module-level constant whose name's words it all says, two or more, one of them the thing it asks for
    (``const retryMethods = [...]``; not ``globalConfig`` for "which error message wins when ... the
    global config ..."): the constant holds the answer once, in a chunk with no name of its own (the
    name cover cannot see it), while the functions that read it and the docs listing the values say
    the words more often. Not a question about what changed."""
    query = ctx.request.query
    which = _ASKS_WHICH.match(query)
    thing = set(tokenize(which.group(1))) if which and not about_changes(query) else set()
    if not thing:  # "what is the ...": no thing asked for
        return ranked
    asked = set(ctx.query_tokens)

    def said(site: re.Match[str]) -> int:
        name = site.group(1)
        return _option_parts(name, asked) if thing & set(tokenize(name)[1:]) else 0

    return _best_sites_first(ctx, ranked, (_MODULE_CONSTANT,), said)


def _best_sites_first(
    ctx: QueryContext,
    ranked: list[Hit],
    sites: tuple[re.Pattern[str], ...],
    said: Callable[[re.Match[str]], int],
) -> list[Hit]:
    """Puts first the candidate code chunks (``DEFAULT_SITES`` at most, in ``ranked``'s order) holding
    the site that says the most of the question: each match of a pattern of ``sites`` (its name in
    group 1) scored by ``said``; declaration files are not sites."""
    keys = _candidates(ctx, ranked)
    rows = ctx.chunks_of_keys(keys)
    best: dict[int, int] = {}
    for key in keys:
        row = rows.get(key)
        if row is None or row.source_type != "code" or row.source.endswith(_DECLARATION_FILES):
            continue
        code = _prose_blanked(row.text)  # a doc comment's example (``new PQueue({concurrency: 1})``) gives no default
        most_here = max((said(m) for pattern in sites for m in pattern.finditer(code)), default=0)
        if most_here:
            best[key] = most_here
    if not best:
        return ranked
    most = max(best.values())
    return _promote(ranked, [k for k in keys if best.get(k) == most][:DEFAULT_SITES])


def _option_parts(name: str, asked: set[str]) -> int:
    """How many words of an option's ``name`` the query says, when it says them all and they are two or
    more (one word, ``timeout``, is the question's own vocabulary as often as a name); else 0."""
    tokens = tokenize(name)
    parts = set(tokens[1:])
    return len(parts) if len(parts) >= 2 and parts <= asked else 0


# an option read as a member (``config.maxRedirects``, ``self.max_redirects``, ``opts->maxRetries``)
_OPTION_READ = re.compile(r"(?:\.|->)([A-Za-z_$][\w$]*)\b(?![ \t]*\()")


def _said_parts(name: str, asked: set[str], subject: str) -> int:
    """How many words of ``name`` (``xsrfCookieName``: xsrf, cookie, name) the query says, when it says
    them all (a ``default`` part aside) and one is the ``subject``, the word after "default" ("the
    default timeout of a request": ``timeout``, not ``request = null``); else 0."""
    tokens = tokenize(name)
    parts = set(tokens[1:] if len(tokens) > 1 else tokens) - _DEFAULT_TOKENS
    return len(parts) if subject in parts and parts <= asked else 0


DEFAULT_SITES = 2  # the code giving a setting its default: a defaults table and a signature at most
_ASKS_DEFAULT = re.compile(r"\s*(?:what|which|where|how)\b[^.!?\n]*?\bdefault(?:s|ed)?\b", re.IGNORECASE)
_DEFAULT_TOKENS = frozenset(tokenize("default defaults value values"))
# the words after "default" naming the setting, up to a word saying what it belongs to or does
_SETTING_PHRASE = re.compile(
    r"[^.!?\n]*?(?=\s+(?:of|for|in|on|when|if|that|which|used|is|are|does|do|with|to|from)\b|\s*[.!?\n]|\s*$)",
    re.IGNORECASE,
)
# a value written as such: a number (Kotlin's may carry a unit, ``100.milliseconds``), a string, a boolean or
# none, a constant in capitals, bare or a member (``Number.POSITIVE_INFINITY``, ``DEFAULT_RETRIES``,
# ``logging.INFO``), infinity (``Infinity``, ``math.inf``, ``float("inf")``)
_LITERAL_VALUE = (
    r"-?\d[\w.]*|\"[^\"\n]*\"|'[^'\n]*'|`[^`\n$]*`|True|False|None|true|false|null|undefined|nil"
    r"|(?:[A-Za-z_$][\w$]*\.)*[A-Z][A-Z0-9_]+|Infinity|math\.inf|float\([\"']inf[\"']\)"
)
# a name given a value: ``name: 0``, ``name = "x"``, ``name: float | None = 5.0``, ``name=True`` (a
# keyword), ``name => 3``; the value written as such (``_LITERAL_VALUE``) or another named constant, a
# value only as :func:`_names_value` says
_DEFAULT_VALUE = re.compile(
    r"(?<![\w$.-])([A-Za-z_$][\w$]*)[\"']?[ \t]*(?::[^=\n;{}()]{1,60}?)?(?:[:=](?![=:])|=>)[ \t]*"
    rf"({_LITERAL_VALUE}|(?:[A-Za-z_$][\w$]*\.)*[A-Z][\w$]*)"
    r"[ \t]*(?=[,;)}\]\n]|//|#|$)",
    re.MULTILINE,
)
_WRITTEN_VALUE = re.compile(_LITERAL_VALUE)


def _names_value(value: str, name: str) -> bool:
    """Whether the value given to ``name`` is a value, not a type (``level: Level``, ``children:
    React.ReactNode``): one written as such (a literal, a constant in capitals), or a constant whose
    name says the setting's (Go's and C#'s enum constants: ``Level: InfoLevel``, ``Level =
    LogLevel.Info``), the setting's name alone being its type."""
    if _WRITTEN_VALUE.fullmatch(value):
        return True
    parts = set(tokenize(name))
    return bool(parts) and parts <= set(tokenize(value)) and value.rsplit(".", 1)[-1].lower() != name.lower()


# a setting read with a fallback, the fallback its default: ``getattr(meta, "unknown", RAISE)``,
# ``kwargs.get("retries", 3)``, ``opts.pop('limit', None)``, ``options.limit ?? 10``, ``opts.name || "x"``
_DEFAULT_READ = re.compile(
    r"""(?:\bgetattr\(\s*[\w.]+\s*,|\.(?:get|pop|setdefault)\()\s*["']([A-Za-z_]\w*)["']\s*,\s*"""
    r"""([\w.]+|"[^"\n]*"|'[^'\n]*'|-?\d[\w.]*)\s*\)"""
)
_DEFAULT_OR = re.compile(
    r"""(?:\.|->)([A-Za-z_$][\w$]*)[ \t]*(?:\?\?|\|\|)[ \t]*"""
    r"""(-?\d[\w.]*|"[^"\n]*"|'[^'\n]*'|[A-Z_][A-Z0-9_]+|true|false)"""
)
_NO_VALUE = frozenset({"None", "null", "undefined", "nil"})
# a constant standing for "not given" (``USE_CLIENT_DEFAULT``, ``UNSET``, ``MISSING``, ``NOT_GIVEN``, ``_SENTINEL``):
# the default is given elsewhere, as with None
_PLACEHOLDER = re.compile(r"(?:^|\.)(?:USE_\w*DEFAULT|\w*(?:UNSET|MISSING|NOT_?GIVEN|NOT_?SET|SENTINEL|NOTHING)\w*)$")


def _stands_for_none(value: str) -> bool:
    """Whether a default's value is no value: None and its kin, or a placeholder constant."""
    return value in _NO_VALUE or bool(_PLACEHOLDER.search(value))


@lru_cache(maxsize=1024)
def _member_line(name: str) -> re.Pattern[str]:
    """A line declaring ``name`` as a member: ``NoOptDefVal string // ...`` (Go), ``name?: string``
    (TypeScript), ``name: int = 0`` or ``name = 0`` (a Python class attribute), and after modifiers a
    constant with or without its type: ``public const VALUE_NEGATABLE = 16;`` (PHP), ``public static
    final int MAX = 3;`` (Java), ``const int Max = 3;`` (C#); a C# property: ``public string Name {
    get; set; }``, ``public int Count => …``; a Kotlin or Swift property: ``private val debounce =
    100``, ``var name: String``. (Not a Java or C# instance field, ``public int progressDivider;``:
    the code reading a parameters object's field says what it does, as rnfs' questions are answered.)"""
    return re.compile(
        rf"^[ \t]*(?:(?:readonly|public|private|protected|static|declare)[ \t]+)*{re.escape(name)}\??"
        r"(?:[ \t]*:|[ \t]*=(?!=)|[ \t]+[\w*\[\]().]+)"
        rf"|^[ \t]*(?:(?:public|private|protected|internal|static|final|readonly)[ \t]+)*const[ \t]+"
        rf"(?:[\w.<>\[\]?]+[ \t]+)?{re.escape(name)}[ \t]*="
        rf"|^[ \t]*(?:(?:public|private|protected|internal)[ \t]+)?(?:(?:static|final|readonly)[ \t]+)+"
        rf"[\w.<>\[\]?]+[ \t]+{re.escape(name)}[ \t]*[=;]"
        rf"|^[ \t]*(?:{_FIELD_MODIFIERS}[ \t]+)+[\w.<>\[\]?,]+[ \t]+{re.escape(name)}[ \t]*"
        r"(?:\{[ \t]*(?:(?:private|protected|internal)[ \t]+)?(?:get|set|init)\b|=>)"
        rf"|^[ \t]*(?:{_FIELD_MODIFIERS}[ \t]+)*(?:val|var|let)[ \t]+{re.escape(name)}[ \t]*[:=]",
        re.MULTILINE,
    )


# the modifiers a field or property declaration of Java, C#, Kotlin or Swift starts with
_FIELD_MODIFIERS = (
    r"(?:public|private|protected|internal|static|final|readonly|volatile|transient|virtual|override|abstract"
    r"|sealed|new|required|open|lateinit|const|lazy|weak|fileprivate|@\w+(?:\([^)\n]*\))?)"
)


def _definitions(ctx: QueryContext, names: Iterable[str], qualified: bool = False) -> tuple[list[str], list[str]]:
    """The chunk ids of the definitions of ``names``: those spelled exactly so (by name or qualified
    name), then those spelled so in another case; ``qualified``: only those whose qualified name is
    spelled exactly so."""
    graph = ctx.snapshot.graph
    exact: list[str] = []
    other_case: list[str] = []
    if graph is None:
        return exact, other_case
    for name in names:
        for node in graph.lookup(name.replace("::", ".")):
            data = graph.attrs(node)
            if data.get("kind") not in _DEFINITIONS or not data.get("chunk_id"):
                continue
            qualname = str(data.get("qualname") or "")
            spelled = {qualname} if qualified else {str(data.get("name") or ""), qualname}
            if name in spelled:
                exact.append(str(data["chunk_id"]))
            elif not qualified:
                other_case.append(str(data["chunk_id"]))
    return exact, other_case


def _allowed(ctx: QueryContext, chunk_ids: list[str]) -> list[int]:
    """The keys of ``chunk_ids`` (first occurrences, in order) that pass the request's filters."""
    chunk_ids = list(dict.fromkeys(chunk_ids))
    if not chunk_ids:
        return []
    key_of = ctx.keys_of_chunk_ids(chunk_ids)
    keys = [key_of[c] for c in chunk_ids if c in key_of]
    if not keys:
        return []
    allowed = ctx.allowed_keys(np.array(keys, dtype=np.int64))
    return [k for k, ok in zip(keys, allowed) if ok]


def text_evidence_first(ctx: QueryContext, ranked: list[Hit]) -> list[Hit]:
    """Ahead of ``ranked``: the chunks holding a string literal the query's message was made from
    (:func:`message_match`), then the doc sections titled as the query (:func:`title_match`). For a
    query of names only: the sections titled so, the doc entries defining one of the names
    (:func:`_defines`: a setting the code reads only as a key, ``SECRET_KEY``, is defined in its
    docs), then the literals spelling it.

    Read from the first ``RANKED_DEPTH`` of ``ranked`` and bm25's ``MESSAGE_DEPTH`` best rows: a chunk
    holding the message, or under the heading, holds the query's words."""
    said_as = messages_of(ctx.request.query)
    query = ctx.request.query
    counted = [(m, len(WORD.findall(m)), max(query.find(m), 0)) for m in said_as]
    words = counted[0][1]
    tokens = title_query(query, set(ctx.query_tokens))
    keys = _candidates(ctx, ranked, said_as[0] if words >= 2 else "")
    rows = ctx.chunks_of_keys(keys)
    made: list[tuple[int, Said, int, int]] = []
    titled: list[tuple[float, int, int]] = []
    defined: list[int] = []
    changes = about_changes(ctx.request.query)
    names = set(ctx.intent.names) if ctx.intent.label == "lookup" else set()
    for n, key in enumerate(keys):
        row = rows.get(key)
        if row is None:
            continue
        found = Said()
        # a changelog entry quoting a message or a setting tells when it changed, not where it is made
        if words >= 2 and (changes or not is_changelog(row.source)):
            found = max(
                (
                    message_evidence(message, count, row.text, row.source_type != "doc", _names_of(row)).moved(at)
                    for message, count, at in counted
                    if count >= 2
                ),
                key=lambda m: (m.cover, m.raises),
            )
        if found.cover:
            tier = (0 if found.raises else 1) if row.source_type == "code" else 2
            made.append((tier, found, n, key))
        match = title_match(tokens, row) if row.source_type in _PROSE_TYPES and tokens else 0.0
        if match >= TITLE_MATCH:
            titled.append((-match, n, key))
        if names and row.source_type in _PROSE_TYPES and _defines(row, names):
            defined.append(key)
    # a literal made the text another literal's hole took (``"Unable to download a file: $reason"``, thrown
    # as ``UnableToDownloadException("response has status: ${code}")``): the one saying more is first;
    # of two making it alike, the one spelling more of it (``status: ${code}`` before ``status \(code)``
    # for "status: 404"). A text a hole took inside an error value's printed form (``(Caused by
    # NewConnectionError('... Failed to establish a new connection: ...'))``) is a cause the raised
    # error wraps: the code literal holding it is first (raised there or not: an exception class's
    # constructor makes it), the cause's after
    holes = [(tier, hole) for tier, m, _, _ in made for hole in m.holes]
    taken = [_taken(query, tier, m, holes) for tier, m, _, _ in made]
    wrapped = [(tier, m.start) for (tier, m, _, _), how in zip(made, taken) if how == "wrapped"]
    # a line naming its exception class (``ParserError: Unknown string format: ...``): of the sites making
    # the message, one raising that class is first (not ``raise ValueError("unknown string format")``)
    raised_as = raised_class(query)
    messages = []
    for (tier, m, n, key), how in zip(made, taken):
        causes = [t for t, start in wrapped if any(a <= start < b for a, b in m.holes)] if tier < 2 else []
        other_class = raised_as is not None and not raised_as.search(m.statement)
        messages.append((min([tier, *causes]), other_class, how != "whole" and not causes, -m.cover, m.held, n, key))
    said, headed = [m[-1] for m in sorted(messages)], [t[-1] for t in sorted(titled)]
    made_here = {key for _, m, _, key in made if m.holes and not m.raises}
    said = _throw_sites_first(ctx, said, rows, made_here, said_as[0] if words >= 2 else "")
    # a query of names only is no pasted message: a literal spelling it is a key the code reads, after
    # the heading or the doc entry naming it
    return _promote(ranked, headed + defined + said if names else said + headed)


def _names_of(row: Chunk) -> frozenset[str]:
    """The names of the code a chunk holds: its symbol and the symbol it sits in (a method's class)."""
    return frozenset(n for n in (row.symbol_name, row.parent_symbol) if n)


def _taken(query: str, tier: int, said: Said, holes: list[tuple[int, tuple[int, int]]]) -> str:
    """How another literal took the text ``said`` made: ``"whole"`` when a hole of a literal of the same
    ``tier`` holds that text alone (the reason a message was given), ``"wrapped"`` when the text sits
    inside an error value printed in a code literal's hole (a bracket or quote opens between the hole's
    start and it: a cause's repr), else ``""``."""
    for t, (start, end) in holes:
        if start <= said.start < end:
            if _OPENS.search(query, start, said.start):
                if t < 2 and tier < 2:
                    return "wrapped"
            elif t == tier:
                return "whole"
    return ""


def _throw_sites_first(
    ctx: QueryContext, said: list[int], rows: dict[int, Chunk], made: set[int], message: str = ""
) -> list[int]:
    """``said`` with the code throwing an exception class ahead of the class, where the class (or its
    constructor) makes the message itself (``no_such_option(option) : parsing("Option " + option + "
    does not exist")``, thrown as ``throw_or_mimic<no_such_option>(name)``; Python's ``__init__``
    formatting the text of a ``raise NoSuchOption(opt)``): the class says what the message means,
    the throw where it happened and what filled its holes. At most ``THROW_SITES`` of them (one
    chunk each: a function's parts and overloads are one site), best bm25 for the class's name
    first; ``made``: the keys whose literal has holes and is not itself raised (a class whose
    message is fixed text, ``super("Encountered Promise during synchronous parse.")``, is where the
    message is: the throws add nothing to it). A throw giving the class a message of its own that does
    not make ``message`` (``new MissingRefError(resolver, "", ref, `No definition ${ref}`)``) threw
    another message."""
    out: list[int] = []
    placed: set[int] = set(said)
    for key in said:
        row = rows.get(key)
        name = _exception_class(row) if key in made and row is not None else None
        if name and row is not None:
            for site in _throw_sites(ctx, name, row, message):
                if site not in placed:
                    placed.add(site)
                    out.append(site)
        out.append(key)
    return out


def _exception_class(row: Chunk) -> str | None:
    """The class a chunk defines or constructs (a class, or a method named as its class or
    ``__init__``), else None."""
    if row.source_type != "code" or not row.symbol_name:
        return None
    if row.symbol_type in ("class", "struct"):
        return row.symbol_name.rsplit(".", 1)[-1]
    return constructed_class(row)


def _throw_sites(ctx: QueryContext, name: str, defined: Chunk, message: str = "") -> list[int]:
    """The keys of code chunks (other than the class's own) holding a statement that raises or
    throws ``name`` (:func:`_throws`) with no message of its own other than ``message``, among bm25's
    ``MESSAGE_DEPTH`` best rows for the name, best first."""
    if ctx.snapshot.keywords is None or len(name) < MIN_CLASS_NAME:
        return []
    top = ctx.keyword_top_of(tokenize(name), MESSAGE_DEPTH)
    keys = [int(k) for k in ctx.snapshot.columns.keys[top].tolist()]
    chunks = ctx.chunks_of_keys(keys)
    named = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    own = (defined.qualified_symbol if defined.symbol_type in ("class", "struct") else defined.parent_symbol) or name
    # one chunk per symbol of a file: a function cut in parts, or overloads, is one site (two files'
    # `def.code` are two)
    sites: dict[tuple[str, str], int] = {}
    for key in keys:
        row = chunks.get(key)
        if row is None or row.source_type != "code" or row.chunk_id == defined.chunk_id:
            continue
        symbol = row.qualified_symbol or row.chunk_id
        if row.source == defined.source and (symbol == own or symbol.startswith(own + ".")):
            continue  # the class and its members
        if (row.source, symbol) in sites:
            continue  # a site already found
        if any(_throws(row.text, m, message) for m in named.finditer(_prose_blanked(row.text))):
            sites[row.source, symbol] = key
            if len(sites) == THROW_SITES:
                break
    return list(sites.values())


def _prose_blanked(text: str) -> str:
    """``text`` with its docstrings, block comments and comment lines blanked (same length): a docstring
    saying "instead of raising a MaxRetryError" or "the reason supplied in a MaxRetryError" names the
    class, it does not raise it; a JSDoc example (``new PQueue({concurrency: 1})``) gives no default."""
    text = _BLOCK_COMMENT.sub(lambda m: _blank(m.group()), _DOCSTRINGS.sub(lambda m: _blank(m.group()), text))
    for quotes in ('"""', "'''"):  # a docstring the chunk cuts: it opens after a header, else it closes
        at = text.find(quotes)
        if at >= 0:
            before = text[:at].rstrip()
            text = (
                text[:at] + _blank(text[at:])
                if not before or before.endswith(":")
                else _blank(text[: at + 3]) + text[at + 3 :]
            )
    return "".join(_blank(line) if _COMMENT_LINE.match(line) else line for line in text.splitlines(keepends=True))


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _throws(text: str, named: re.Match[str], message: str = "") -> bool:
    """Whether the statement holding ``named`` (an exception class's name) throws it: the class is
    constructed there (``new MissingRefError(...)``, ``&ParseError{...}``, ``NoSuchOption(opt)``), or a
    word saying so comes before it (``raise NoSuchOption``, ``PyErr_SetString(LZ4Error, ...)``). The
    name's own parts do not say so (``MissingRefError`` is not an error raised wherever it is
    imported), nor does a throw after it (``if (!(e instanceof MissingRefError)) throw e`` rethrows what
    it caught), nor another exception class before it (``static ValidationError = ValidationError``).
    A statement giving it a literal of its own that does not make ``message`` throws another message."""
    statement = _statement_of(text, named.start(), named.end())  # it ends where the name's line does
    stop = text.find("\n", named.end())
    after = (stop if stop >= 0 else len(text)) - named.start()
    if message and any(
        _own_words(body) and message_evidence(message, len(WORD.findall(message)), body_match.group()).cover == 0
        for body_match, body in _literals(statement[len(statement) - after :])
        if len(body) >= MIN_FIXED_LETTERS
    ):
        return False
    if _CONSTRUCTED.match(text, named.end()):
        return True
    return _raises(_EXCEPTION_NAME.sub(" ", statement[: len(statement) - after]))


def _candidates(ctx: QueryContext, ranked: list[Hit], message: str = "") -> list[int]:
    """The first ``RANKED_DEPTH`` keys of ``ranked``, then bm25's ``MESSAGE_DEPTH`` best rows: the
    chunks read for text evidence (a chunk holding a message, a heading or a definition holds the
    query's words). For a pasted ``message`` that goes on after its first clause (a wrapped cause:
    ``invalid argument "abc" for "--port" flag: strconv.ParseInt: parsing "abc": invalid syntax``, a
    second line), bm25's best rows for that clause too: the cause's words are everywhere in the code
    that makes the cause, and bury the one literal that makes the clause. For a message of several
    lines, bm25's best rows for its wordiest line (:func:`wordiest_line`) as well: a dump's short
    fields (``"code": "invalid_type"``) are the words of the code that fills them, not of the text.
    And bm25's best rows for the message without its printed values (:func:`without_values`): a
    repr's words (``<UserSchema(many=False)>``) fill the tests, not the literal with its holes."""
    pool = [h.key for h in ranked[:RANKED_DEPTH]]
    rows = [ctx.keyword_top(MESSAGE_DEPTH)]
    for clause in (lead_clause(message), wordiest_line(message), without_values(message)):
        if clause:
            rows.append(ctx.keyword_top_of(tokenize(clause), MESSAGE_DEPTH))
    extra = [int(k) for r in rows for k in ctx.snapshot.columns.keys[r].tolist()]
    return list(dict.fromkeys(pool + extra))


def _code_candidates(
    ctx: QueryContext, ranked: list[Hit], keep: Callable[[Chunk], bool]
) -> tuple[list[int], dict[int, Chunk]]:
    """The candidates whose chunks are code and pass ``keep``, in ``_candidates``' order, and their rows."""
    keys = _candidates(ctx, ranked)
    rows = ctx.chunks_of_keys(keys)
    return [k for k in keys if (row := rows.get(k)) is not None and row.source_type == "code" and keep(row)], rows


def wordiest_line(message: str) -> str:
    """The line of a pasted message of several lines with the most words, when that is not its first
    (which :func:`lead_clause` reads): the message itself in a structured dump (``"message":
    "Invalid input: expected string, received number"`` among a JSON issue's short fields), without
    its field's name and quotes; "" else."""
    lines = [line for line in message.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return ""
    best = max(lines, key=lambda line: len(WORD.findall(line)))
    if best == lines[0] or len(WORD.findall(best)) < 2:
        return ""
    return _FIELD.sub("", best, count=1).strip().rstrip(",").strip("\"'`")


def without_values(message: str) -> str:
    """A pasted message without the values printed in it (reprs ``<UserSchema(many=False)>``, containers
    ``{'passwrd'}``, quoted names ``'MapSet'``, numbers): the words of the literal that made it, holes
    aside (``f"Invalid fields for {self}: {invalid_fields}."``); "" when nothing was taken or fewer than
    two words are left."""
    bare = _PRINTED_VALUE.sub(" ", message)
    if bare == message or len(WORD.findall(bare)) < 2:
        return ""
    return " ".join(bare.split())


def lead_clause(message: str) -> str:
    """The first clause of a pasted message when more follows it (its first line, up to a ``": "``
    that a wrapped cause follows), or "" when the message is one clause or the clause has fewer than
    two words."""
    first = message.strip().split("\n", 1)[0]
    clause = first.split(": ", 1)[0].strip()
    if clause == message.strip() or len(WORD.findall(clause)) < 2:
        return ""
    return clause


def title_query(query: str, tokens: set[str]) -> set[str]:
    """The tokens a heading of the query's topic would have: a question asking what a thing is ("what
    is a bound logger", "what are processors", "meaning of eager loading") names its topic after the
    asking words, and the page or section titled so ("Bound Loggers") defines it."""
    asked = _MEANING.match(query)
    return set(query_tokens(query[asked.end() :])) or tokens if asked else tokens


def title_match(tokens: set[str], row: Chunk) -> float:
    """How closely the query's tokens are a title of this chunk: the best Jaccard overlap of the two
    token sets over its titles (:func:`titles_of`). A title after its parent's counts only when the
    query holds every word of the title itself: "class-based views" is the parent's title, not
    "Class-based Views > View Lifetime and self"."""
    best = 0.0
    for title, parent in titles_of(row):
        own = title_tokens(title)
        if parent:
            if not own or own - tokens:
                continue
            own |= title_tokens(parent)
        if own:
            best = max(best, len(tokens & own) / len(tokens | own))
    return best


def titles_of(row: Chunk) -> list[tuple[str, str]]:
    """The titles a query may give this chunk, each with the parent title it may come after ("" for
    none): its own section's, and each heading in its text, alone and after its parent's title when
    the section path names the parent ("Vim With ALE", "Pylint Configuration"): a title several
    sections share is told apart by its parent. A notebook's code cell is under its section's heading
    without being that section: its path gives it no title."""
    path = row.section_path.split(" > ") if row.section_path else []
    place = {title_tokens(t): n for n, t in enumerate(path)}
    lines = row.text.splitlines()
    own = [path[-1]] if path and row.symbol_type is None else []
    for i, line in enumerate(lines):
        heading = atx_heading(line)
        if heading and heading[1]:
            own.append(heading[1])
        elif i + 1 < len(lines) and is_rst_title(line, lines[i + 1]):
            own.append(line)
    titles = []
    for title in own:
        titles.append((title, ""))
        n = place.get(title_tokens(title), 0)
        if n:
            titles.append((title, path[n - 1]))
    return titles


@lru_cache(maxsize=8192)
def title_tokens(title: str) -> frozenset[str]:
    """A title's tokens (titles repeat across a file's chunks and across queries: read once)."""
    return frozenset(tokenize(title))


class Said(NamedTuple):
    """What the best literal of a chunk makes of a pasted message (:func:`message_evidence`)."""

    cover: float = 0.0  # the share of the message's words it spells with its own text
    raises: bool = False  # raised, thrown or logged
    start: int = 0  # where its text starts in the message
    holes: tuple[tuple[int, int], ...] = ()  # the spans of the message its holes took
    statement: str = ""  # the statement holding the literal (what it is raised as)

    @property
    def held(self) -> int:
        """How many characters of the message its holes took (the fewer, the more it spells itself)."""
        return _held(self.holes)

    def moved(self, by: int) -> Said:
        """The same, its places counted in a text the message starts ``by`` characters into."""
        return self._replace(start=self.start + by, holes=tuple((a + by, b + by) for a, b in self.holes))


def _held(spans: tuple[tuple[int, int], ...]) -> int:
    return sum(b - a for a, b in spans)


def message_match(message: str, words: int, text: str, code: bool = False) -> tuple[float, bool]:
    """(the share of the message's ``words`` the best literal in ``text`` spells with its own text,
    whether that literal is raised, thrown or logged); (0, False) when no literal makes the message."""
    said = message_evidence(message, words, text, code)
    return said.cover, said.raises


def message_evidence(
    message: str, words: int, text: str, code: bool = False, own_names: frozenset[str] = frozenset()
) -> Said:
    """The best literal in ``text`` the message was made from (:class:`Said`; cover 0 when none); of
    several templates making it alike, the one spelling more of it (``'The "--%s" option does not
    exist.'`` makes ``The "--forse" option does not exist.``; ``'The "-%s" option ...'`` and ``'The "%s"
    option ...'`` do too, their hole taking the dashes). In ``code`` a quoted phrase in a comment
    (``* When "trust proxy" is set``) is prose about the code, not a message it makes. A template of
    too few letters to mean anything alone (``"%s is empty"``) makes the message when its hole took one
    of ``own_names``, the names of the code holding it: ``"%s is empty" % type(self).__name__`` in
    ``LRUCache.popitem`` makes "LRUCache is empty", the same literal in ``FIFOCache`` does not."""
    best, raises = 0.0, False
    start, holes, statement = 0, Said().holes, ""

    lowered = message.lower()
    for match, body in _literals(text):
        if len(body) < MIN_FIXED_LETTERS or not _shares_a_word(body, lowered):
            continue
        if code and _COMMENT_LINE.match(text, text.rfind("\n", 0, match.start()) + 1):
            continue
        own_words = _own_words(body)
        if own_words is None:  # too few letters alone: made only where its hole took a name of the code holding it
            own_words = len(_OWN_WORD.findall(" ".join(_HOLE.split(body))))
            made = template(body).search(message) if own_words >= 2 and own_names else None
            if made is None or not any(value and value.strip("'\"`") in own_names for value in made.groups()):
                continue
        else:
            made = template(body).search(message) if _may_make(body, message, lowered) else None
        if made is None and (lead := _lead_made(body, message, lowered)) is not None:
            body, made = lead  # the message pasted without the literal's last sentences (a link, a hint)
            own_words = _own_words(body) or own_words
        if made:
            # the words a hole took are a value (a name, a repr, a path), not the message: not counted
            values = sum(len(WORD.findall(value)) for value in made.groups())
            cover = min(1.0, own_words / max(_words_made(message, made, words) - values, 1))
        elif words >= 3 and _fixed_text(body).find(" ".join(lowered.split()).strip(" .:!")) >= 0:
            cover = 1.0  # the message is part of the literal's own text
        else:
            continue
        if cover >= MIN_COVER and cover >= best:
            site = _statement_of(text, match.start(), match.end())
            raises = raises or _raises(site)
            spans = tuple(made.regs[1:]) if made else ()
            # of literals alike in cover, the one whose holes take the fewest characters made the message
            if cover > best or _held(spans) <= _held(holes):
                best, start, holes, statement = cover, made.start() if made else 0, spans, site
    return Said(best, raises, start, holes, statement)


def _lead_made(body: str, message: str, lowered: str) -> tuple[str, re.Match[str]] | None:
    """The longest run of a literal's leading sentences that makes the message to its end, with its
    match: ``"Unverified HTTPS request is being made to host '{host}'. Adding certificate verification
    is strongly advised. See: https://..."`` pasted without its link. None when no such run (of two
    words or more of its own) does."""
    ends = [m.end() for m in _SENTENCE_BREAK.finditer(body)]
    for end in reversed(ends):
        lead = body[:end].rstrip()
        if not _own_words(lead) or not _may_make(lead, message, lowered):
            continue
        made = template(lead).search(message)
        if made and not message[made.end() :].strip(" \t.:!?"):
            return lead, made
    return None


def _words_made(message: str, made: re.Match[str], words: int) -> int:
    """The message words a literal's match stands for: those of the quoted string it starts as a
    field's value (a message printed in a structured error: ``"message": "Invalid input: expected string, received
    number"`` in a JSON dump of issues), those of the sentences (or lines) it spans when it starts
    one (a message another literal goes on: ``error: option '-s' argument 'xl' is invalid.`` then
    ``Allowed choices are small, large.``, a suggestion on the next line) or the clause after a colon
    (the reason an exception class's ``"Unable to download a file: $reason"`` was given), else all
    ``words``."""
    before = message[: made.start()].rstrip(" \t")
    if _FIELD_VALUE.search(before):
        close = message.find(before[-1], made.start())  # a hole at the end takes the closing quote too
        line_end = message.find("\n", made.start())
        quoted = len(WORD.findall(message[made.start() : close])) if close >= 0 else 0
        # a sentence, not a value (``"code": "invalid_type"``: a key the code writes, not a message)
        if quoted >= QUOTED_WORDS and (line_end < 0 or close < line_end):
            return quoted
    if before.strip() and not before.endswith(("\n", ".", "!", "?", ":")):
        return words
    stop = _SENTENCE_END.search(message, made.end())
    return len(WORD.findall(message[made.start() : stop.start() if stop else None]))


def _statement_of(text: str, start: int, end: int) -> str:
    """The lines of the statement holding ``text[start:end]``: from the line before it, or from the
    line of the outermost bracket still open before it when that is further up (a call whose
    arguments before the message fill lines of their own: ``raise Error(\\n plugin,\\n "unknown
    hook %r"``), to the end of its line. The look stops at the brace opening the block it is in: a
    call around that block (``it("...", () => {``) is not the statement."""
    line = text.rfind("\n", 0, start) + 1
    first = text.rfind("\n", 0, max(line - 1, 0)) + 1
    depth = braces = 0
    for at in range(start - 1, max(start - STATEMENT_CHARS, 0) - 1, -1):
        char = text[at]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth:
                depth -= 1
            else:
                first = min(first, text.rfind("\n", 0, at) + 1)
        elif char == "}":
            braces += 1
        elif char == "{":
            if not braces:
                break
            braces -= 1
    stop = text.find("\n", end)
    return text[first : stop if stop >= 0 else None]


def _literals(text: str) -> list[tuple[re.Match[str], str]]:
    """The one-line string literals of ``text`` (docstrings left out), each with its text; literals
    written one after another ("... supplied. " then f"Perhaps ..." on the next line, or joined by
    ``+``) are one message, given with the first one's match; a value concatenated between or after
    them (``'view "' + name + '" in ' + dirs``) is a hole of that message."""
    out: list[tuple[re.Match[str], str]] = []
    end = -1  # where the last literal ended (-1: after a docstring, nothing joins)
    for match in _LITERAL.finditer(text):
        body = next((g for g in match.groups() if g is not None), None)
        if body is not None and "\\" in body:
            body = _unescaped(body)
        if body is None:
            _close(out, text, end)
            end = -1
            continue
        if out and end >= 0 and _JOINED.fullmatch(text, end, match.start()):
            out[-1] = (out[-1][0], out[-1][1] + body)
        elif out and end >= 0 and _JOINED_BY_VALUE.fullmatch(text, end, match.start()):
            out[-1] = (out[-1][0], out[-1][1] + "{}" + body)  # the value between them is a hole
        else:
            _close(out, text, end)
            out.append((match, body))
        end = match.end()
    _close(out, text, end)
    return out


_ESCAPE = re.compile(r"\\(.)")
_PRINTED = {"n": " ", "r": " ", "t": " ", '"': '"', "'": "'", "`": "`", "\\": "\\"}  # a line break shows as a break


def _unescaped(body: str) -> str:
    """A literal's text as printed: ``printf "...%s\\n"`` (a shell's, C's, PHP's, Lua's) ends its line
    with a line break, ``'you don\\'t'`` shows ``you don't``; other escapes are left as written."""
    return _ESCAPE.sub(lambda m: _PRINTED.get(m.group(1), m.group(0)), body)


def _close(out: list[tuple[re.Match[str], str]], text: str, end: int) -> None:
    """The last message ends with a hole when a value is concatenated after it (``... + dirs``), or
    anything at all after a label (``'use one of: '.implode(', ', $levels)``)."""
    if not out or end < 0:
        return
    if _ENDS_WITH_VALUE.match(text, end) or (_ENDS_WITH_LABEL.search(out[-1][1]) and _CONCATENATED.match(text, end)):
        out[-1] = (out[-1][0], out[-1][1] + "{}")


def raised_class(query: str) -> re.Pattern[str] | None:
    """The exception class a pasted line opens with (``dateutil.parser._parser.ParserError: ...``,
    ``java.lang.IllegalStateException: ...``), as a pattern for the code naming it; None when the line
    names none (``Error: ``, ``panic: ``: a word, not a class)."""
    prefix = _EXCEPTION_PREFIX.match(query)
    name = prefix.group().strip().rstrip(":").rsplit(".", 1)[-1] if prefix else ""
    if not _EXCEPTION_NAME.fullmatch(name) or name in ("Error", "Exception", "Warning"):
        return None
    return re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")


def message_of(query: str) -> str:
    """The message of a pasted error line: without a leading exception name ("requests.exceptions.
    TooManyRedirects: ", "Error: "), which the code raising it does not write in its text."""
    return _EXCEPTION_PREFIX.sub("", query, count=1)


def messages_of(query: str) -> tuple[str, ...]:
    """The texts a pasted line may be made from: the text quoted in a value's printed form when the
    line shows one (:func:`quoted_messages`), its message (:func:`message_of`), then the line as
    pasted when a prefix was taken off: a command-line tool writes ``error: `` in its own literal
    (``error: unknown option '${flag}'``)."""
    message = message_of(query)
    said = (message,) if message == query else (message, query)
    return tuple(dict.fromkeys(quoted_messages(query) + logged_messages(query) + said))


# a field of a structured log line: logfmt's ``key="quoted value"`` or JSON's ``"key": "value"``
_LOG_FIELD = re.compile(r"""(?<![\w"])"?[A-Za-z_][\w.-]*"?[ \t]*[=:][ \t]*("(?:[^"\\\n]|\\.)*"|[^\s"=,{}]+)""")


def logged_messages(query: str) -> tuple[str, ...]:
    """The quoted field values of a pasted structured log line (``level=info msg=started
    logrus_error="can not add field \\"handler\\""``, a JSON log line), wordiest first: each may be a
    message the code made; the other fields (a level, a time, the application's own message) are the
    logger's. Only a line of three fields or more (a line of two is a sentence with a colon), and only
    values of two words or more, their escaped quotes unescaped."""
    fields = [m.group(1) for m in _LOG_FIELD.finditer(query)]
    if len(fields) < 3 or "\n" in query.strip():
        return ()
    values = [_unescaped(v[1:-1]) for v in fields if v.startswith('"') and len(WORD.findall(v)) >= 2]
    return tuple(sorted(values, key=lambda v: -len(WORD.findall(v))))


def quoted_messages(query: str) -> tuple[str, ...]:
    """The messages quoted in the printed form of an error value (its ``Debug`` or ``repr``) that the
    pasted line shows: a panic on an unwrapped ``Result`` (``called `Result::unwrap()` on an `Err`
    value: Error("unexpected end of input while parsing major version number")``), a Python
    ``ValueError('...')`` in a log line, and the tuple a Python exception raised with several arguments
    prints (``ProtocolError: ('Connection broken: ...', IncompleteRead(...))``: the first is the
    message). The code made the quoted text; the words around it were
    written by the language's runtime or the logger. Only a value whose type is named as an error
    (``...Error``, ``...Exception``, ``Err``, ``...Warning``): a call quoting a string in a how-to
    question (``from_object("yourapp.settings")``) pastes no message. Texts of two words or more."""
    message = message_of(query)
    args = _ARGS_TUPLE.match(message) if message != query else None
    found = ([args] if args else []) + list(_REPR.finditer(query))
    return tuple(m.group(2) for m in found if len(WORD.findall(m.group(2))) >= 2)


@lru_cache(maxsize=4096)
def _own_words(body: str) -> int | None:
    """How many words of its own (not in a hole) a literal has; None when it has fewer than two or too
    few letters to mean anything ("%s: %s", "_{name}_COMPLETE")."""
    own = _OWN_WORD.findall(" ".join(_HOLE.split(body)))
    return None if sum(len(w) for w in own) < MIN_FIXED_LETTERS or len(own) < 2 else len(own)


def _may_make(body: str, message: str, lowered: str) -> bool:
    """False when the literal's template cannot match ``message`` (``lowered``: the same, lowercased):
    a word of its own text that the message does not hold. Compiling the template costs far more than
    this test, and most literals sharing a word with a message do not make it. Only for ASCII text,
    where matching without case is lowercasing (in Unicode ``s`` also matches ``ſ``)."""
    if not (body.isascii() and message.isascii()):
        return True
    return all(word in lowered for word in _fixed_words(body))


@lru_cache(maxsize=4096)
def _fixed_words(body: str) -> tuple[str, ...]:
    """The lowercased words of the literal's own text, as its template matches them literally (without
    the trailing punctuation the template does not require)."""
    return tuple(w.lower().rstrip(".:!;,") for part in _HOLE.split(body) for w in part.split())


@lru_cache(maxsize=4096)
def template(body: str) -> re.Pattern[str]:
    """A regular expression for the text a literal makes, each hole a short value (at most
    ``HOLE_CHARS``), captured; for a literal with words of its own (:func:`_own_words`)."""
    parts = _HOLE.split(body)
    hole = rf"([^\n]{{0,{HOLE_CHARS}}}?)"  # a value can be empty: f"blueprint{existing_at}."
    pieces = [r"\s+".join(re.escape(w) for w in p.split()) for p in parts]
    elements = [x for k, piece in enumerate(pieces) for x in (piece, hole if k < len(pieces) - 1 else "") if x]
    if not pieces[-1]:
        elements[-1] = hole.replace("}?", "}")  # a hole at the end takes the rest of its line
    elif len(parts) > 1 and _CLOSING.fullmatch(parts[-1]):
        # a hole closed by a bracket only (``(Caused by {reason!r})``): a value as long as its line, a
        # cause's printed form with its own message
        elements[-2] = r"([^\n]*)"
    pattern = r"\s*".join(elements)
    pattern = re.sub(r"(\\[.:!;,])+$", "", pattern)  # "Exceeded 30 redirects" pasted without its full stop
    pattern = pattern.removesuffix(r"\s*")
    if pattern.endswith(hole):  # a hole then only a full stop (`Allowed choices are ${list}.`) ends it too
        pattern = pattern[: -len(hole)] + hole.replace("}?", "}")
    return re.compile(pattern, re.IGNORECASE)


def _fixed_text(body: str) -> str:
    return " ".join(_HOLE.sub(" ", body).lower().split())


def _shares_a_word(body: str, lowered_query: str) -> bool:
    return any(len(w) > 2 and w.lower() in lowered_query for w in WORD.findall(_HOLE.sub(" ", body)))


def _promote(ranked: list[Hit], keys: Iterable[int]) -> list[Hit]:
    """``keys`` first, in that order (those ``ranked`` lacks are added), scored above the old first."""
    keys = list(dict.fromkeys(keys))
    if not keys:
        return ranked
    by_key = {h.key: h for h in ranked}
    top = ranked[0].score if ranked else 0.0
    step = max(abs(top), 1e-3) * 1e-3
    first = []
    for i, key in enumerate(keys):
        hit = by_key.get(key) or Hit(key, 0.0)
        hit.score = top + step * (len(keys) - i)
        first.append(hit)
    chosen = set(keys)
    return first + [h for h in ranked if h.key not in chosen]


def _keys(hits: list[Hit]) -> np.ndarray:
    return np.array([h.key for h in hits], dtype=np.int64)
