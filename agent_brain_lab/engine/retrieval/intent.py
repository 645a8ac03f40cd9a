"""What a query asks, worked out once and used by graph mode and multi alike.

A query is a question about a relation when it holds a relation cue ("calls", "subclasses",
"importing", ...) and little else besides the names it asks about and question scaffolding
("which functions", "find the code that"): "where is parse_header called", "X's subclasses",
"modules importing tornado.web". A docstring-like sentence that happens to say "used" or "called"
keeps more words of its own and stays prose. A relation said in a phrase ("which classes build on
BaseAdapter", "which operators are built on mergeInternals") asks for its subclasses or its callers,
whichever the graph holds. The direction says which end of the relation the named
entity is: "in" when the answers point at it (what calls X, subclasses of X, who imports X), "out"
when it points at the answers (what does X call, base classes of X, modules imported by X).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..tokenizer import WORD


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CUES = {
    "calls": (
        "call calls called calling caller callers callee callees invoke invokes invoked invoking invocation "
        "invocations use uses used using usage usages user users reference references referenced referencing"
    ),
    "imports": (
        "import imports imported importing importer importers depend depends dependency dependencies "
        "dependent dependents"
    ),
    "extends": (
        "extend extends extended extending inherit inherits inherited inheriting inheritor inheritors subclass "
        "subclasses subclassed subclassing derive derives derived deriving superclass superclasses base bases "
        "parent parents ancestor ancestors descendant descendants include includes included including mixin mixins"
    ),
    "implements": "implement implements implemented implementing implementation implementations implementor",
    "mentions": "mention mentions mentioned mentioning documented",
    "contains": "contain contains members defines methods",
}
RELATION_CUES: dict[str, frozenset[str]] = {rel: _words(words) for rel, words in _CUES.items()}
ALL_CUES = frozenset().union(*RELATION_CUES.values())
# cue words that name the answers as the ones pointing at X: "callers of X", "X's subclasses", "where is X used"
_TARGET_WORDS = _words(
    "called caller callers invoked usage usages used user users referenced importer importers imported dependent "
    "dependents extended inherited inheritor inheritors subclass subclasses subclassed derived descendant included "
    "descendants implemented implementations implementor mentioned documented"
)
# cue words that name the answers as the ones X points at: "callees of X", "base classes of X"
_SOURCE_WORDS = _words(
    "callee callees dependency dependencies superclass superclasses base bases parent parents ancestor ancestors "
    "members methods"
)
# a cue only when the query has no other: "what methods does Command have" asks for its members, "which
# methods call parse" for callers
_WEAK_CUES = _words("methods")
_HAVE = _words("have has had got")
_DERIVE = _words("derive derives derived deriving")
# "which handlers use SomeTrait", "what uses Comparable": a type is used by what mixes it in or builds on it
# (Ruby's `include`, PHP's `use Trait;`, a subclass) as much as by its callers
_USE = _words("use uses used using usage usages user users")
# words that frame a relation question without being about anything: "which functions", "find the code that"
_SCAFFOLD = _words(
    "a all an and any anything are as at by can class classes code directly do does did every everything file "
    "files find for from function functions get give i in indirectly is it its list lines me method methods "
    "module modules of on or other package packages part parts place places please s show site sites some "
    "something that the there thing things this to types what where which who whom whose with"
)
# a relation said in a phrase rather than a cue word: "which classes build on BaseAdapter" (its
# subclasses), "which operators are built on mergeInternals" (its callers): either relation answers
PHRASED = re.compile(r"\b(?:build|builds|built|building|based)\s+(?:up)?on(?:\s+top\s+of)?\b", re.IGNORECASE)
PHRASED_RELATIONS = ("extends", "calls")
MAX_PROSE = 1  # other words a relation question may hold ("what calls X directly", "callers of X in tests")
# a name given a value as code writes it: ``cache=True``, ``retries=3``, ``mode="r"`` (not "a = b" in words)
GIVEN = re.compile(r"(?<![\w.=])([A-Za-z_]\w*)=(?=[\w\"'\[{(-])")
DOTTED = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+")
# written as code: snake_case, camelCase, PascalCase of two words, dotted, SCREAMING_CASE, or an acronym
# opening a capitalised word (``TTLCache``, ``IOLoop``, ``HTTPServer``; not a plural, ``IDs``, ``URLs``)
CODE_LIKE = re.compile(r"_|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|\.|::|^[A-Z0-9_]{3,}$|^[A-Z]{2,}[a-z]{2,}")
LABELS = {
    ("calls", "in"): "callers",
    ("calls", "out"): "callees",
    ("imports", "in"): "importers",
    ("imports", "out"): "imports",
    ("extends", "in"): "subclasses",
    ("extends", "out"): "bases",
    ("implements", "in"): "implementations",
    ("contains", "out"): "members",
}


@dataclass(frozen=True)
class Intent:
    """The analysis of one query."""

    query: str
    relation: str | None = None  # "calls", "imports", "extends", ... when the query asks about a relation
    names: tuple[str, ...] = ()  # what the query names, as written: identifiers, dotted names, other words
    code_names: tuple[str, ...] = field(default=())  # the names written as code (IOLoop, parse_header, a.b)
    terse: bool = False  # little more than names: every name is meant
    lookup: bool = False  # names only: one word, or up to three with one written as code
    also: tuple[str, ...] = ()  # relations asked besides ``relation`` ("built on X": subclasses or callers)

    @property
    def asked(self) -> set[str]:
        return {self.relation, *self.also} if self.relation else set()

    @property
    def label(self) -> str:
        """``callers``, ``subclasses``, ... for a relation question, else ``lookup`` (3 words or fewer), ``prose``."""
        if self.relation:
            direction = self.direction_of(self.names[0]) if self.names else None
            return LABELS.get((self.relation, direction or "in"), self.relation)
        return "lookup" if self.lookup and self.names else "prose"

    def direction_of(self, entity: str) -> str | None:
        """ "in" when the entity is the target of the asked relation, "out" when it is the source, None
        when the query does not say (or asks no relation)."""
        if not self.relation:
            return None
        lowered = self.query.lower()
        # the name as a whole word, as written first: "Formatter", not the "formatters" before it
        whole = re.search(rf"(?<![\w.]){re.escape(entity)}(?![\w])", self.query)
        at = whole.start() if whole else lowered.find(entity.lower())
        if at < 0:
            return None
        for match in WORD.finditer(lowered):
            word = match.group()
            if word not in RELATION_CUES[self.relation]:
                continue
            after = lowered[match.end() :]
            by = re.match(r"\s+by\b", after)
            if by:  # "functions called by X" (X after: its callees), "X is used by" (X before: its callers)
                return "out" if at > match.start() else "in"
            if word in _SOURCE_WORDS:
                return "out"  # callees of X, base classes of X
            if word in _TARGET_WORDS:
                return "in"  # where is X used, callers of X, X's subclasses
            return "out" if at < match.start() else "in"  # "X calls" / "what does X call" vs "what calls X"
        phrased = PHRASED.search(lowered)
        if phrased:  # "what is built on X" (X the base: "in"), "X is built on" (its bases: "out")
            return "out" if at < phrased.start() else "in"
        return None


def analyse(query: str) -> Intent:
    """The intent of a query; a relation is asked only when the query is made of a cue, names and scaffolding."""
    words = WORD.findall(query)
    phrased = PHRASED.search(query)
    if phrased and not query[: phrased.start()].strip():
        phrased = None  # "Built on Flask": a title, not a question
    # the words read for cues and names: a phrase's own ("build", "on", "top") are the cue, not names
    read = WORD.findall(query[: phrased.start()] + " " + query[phrased.end() :]) if phrased else words
    dotted = DOTTED.findall(query)
    inside_dotted = {part for name in dotted for part in re.split(r"\.|::", name)}
    lowered = [w.lower() for w in read]
    cues = [w for w in lowered if w in ALL_CUES]
    cues = [w for w in cues if w not in _WEAK_CUES] or cues
    names = [n for n in dotted] + [
        w
        for i, w in enumerate(read)
        if w not in inside_dotted and w.lower() not in ALL_CUES and (w.lower() not in _SCAFFOLD or _named(w, i))
    ]
    names = list(dict.fromkeys(names))
    given = set(GIVEN.findall(query))  # "what does cache=True do": a parameter written with its value
    code_names = tuple(n for n in names if CODE_LIKE.search(n) or n in given)
    relation: str | None = None
    also: tuple[str, ...] = ()
    titled = _titled(read, lowered, names, code_names)
    if (cues or phrased) and names and not titled:
        if cues:
            first = cues[0]
            relation = next(rel for rel, cue_words in RELATION_CUES.items() if first in cue_words)
            # "derived from Base", or Rust's "derive Clone"; "which classes use Trait": callers or subclasses
            also = ("implements",) if first in _DERIVE else ("extends",) if first in _USE else ()
        else:
            relation, *more = PHRASED_RELATIONS
            also = tuple(more)
        plain = [n for n in names if n not in code_names and not _kind_word(n, names)]
        # a relation question names one thing (or two: "Class method"), the rest is scaffolding; said in
        # a phrase, one plain name alone ("which classes build on Scaffold"), not a topic ("... the grammar")
        if len(plain) - (0 if code_names else 1) > (MAX_PROSE if code_names or not also else 0):
            relation, also = None, ()
        elif cues and cues[0] in _WEAK_CUES and len([n for n in names if n.lower() not in _HAVE]) != 1:
            relation = None  # "which HTTP methods get retried": methods of something, not of one name
        if relation:  # the kind words name no entity: "Formatter" is what the question is about
            names = [n for n in names if n in code_names or not _kind_word(n, names)] or names
    terse = len(words) <= 3
    # a look-up: one word, or a few with one written as code ("parse_header docs"); a short phrase of
    # plain words ("Our Pledge", "Basic usage") or a title is a heading or a topic
    lookup = terse and not titled and (len(words) == 1 or bool(code_names))
    return Intent(query, relation, tuple(names), code_names, terse=terse, lookup=lookup, also=also)


# a word saying what kind of thing a name is: "the Formatter interface", "the Comparable trait"
_KINDS = _words("interface interfaces trait traits struct structs protocol protocols")


def _kind_word(word: str, names: list[str]) -> bool:
    """Whether a plain word names the kind of the answers or of the thing named, not a topic: a kind
    (``interface``, ``trait``) or the plural of another name ("which formatters implement the Formatter
    interface", "which handlers extend Handler"): scaffolding of a relation question."""
    lowered = word.lower()
    return lowered in _KINDS or any(lowered in (n.lower() + "s", n.lower() + "es") for n in names if n != word)


def _named(word: str, at: int) -> bool:
    """Whether a scaffolding word is written as a name: capitalised inside the query, as Go's and C#'s
    exported methods are (``Find``, ``Get``, ``List`` in "what calls Find"), not a sentence's first word."""
    return at > 0 and len(word) > 1 and word[:1].isupper()


_DETERMINERS = _words("the a an this that these those your our my its their some")


def _titled(words: list[str], lowered: list[str], names: list[str], code_names: tuple[str, ...]) -> bool:
    """Whether the query reads as a heading or a how-to sentence rather than a question about a relation,
    though it holds a cue word: "How to use from Python", "Using the pyparsing module" and "Call the
    function with the arguments flipped" (a cue verb then a determiner: an instruction), "Basic
    ParserElement subclasses" (a plain capitalised word before the name: a title)."""
    if not words:
        return False
    if lowered[0] == "how":
        return True
    if lowered[0] in ALL_CUES and len(lowered) > 1 and lowered[1] in _DETERMINERS:
        return True
    first = words[0]
    return (
        first[:1].isupper()
        and first in names
        and first not in code_names
        and len([n for n in names if n != first]) >= 1
    )
