"""Symbol evidence for prose queries: what the blend's best candidates are named, not what they say.

A docstring-like query ("Flush the pending writes to the socket") describes one function; the blend matches it
against that function's body, where the function's own name is two tokens among hundreds. Here each of the
``DEPTH`` best candidates that is a function, method or class gains up to ``NAME_COVER_BOOST`` (on the blend's
[0, 1] scale) by the share of its name's parts the query's words hold, rarer parts counting more: "flush ...
writes" covers ``_flush_writes`` fully, ``flush`` alone half of it. A part is held as itself, as the word it
shortens ("property" holds ``prop`` of ``propOr``), as the verb an ``-able`` part is made of ("drafted":
``isDraftable``), and a noun of action holds its verb ("function composition": ``compose``;
:func:`.names.part_spellings`, :func:`verbs_of_nouns`). The names leg (:mod:`.names`) rewards only names
spelled out completely and of two parts or more; this partial, idf-weighted cover is the evidence it leaves
out.

Measured on the tuning packages' docstring questions (tornado, jinja2, click): a boost of 0.1-0.2 helps all
three; the class's name as a second field, and graph proximity to the best hits (a method whose class, caller
or callee ranks near the top), helped tornado and hurt jinja2, so neither is used.

The same pass puts three kinds of candidate lower, which a question in prose does not ask for (measured on the
TypeScript/JavaScript docstring questions, ``benchmarks/README.md``): glue — module code that only imports and
exports, and a transpiler's module helper (:func:`is_glue_chunk`); the function the question compares its
answer with or links to ("Like `doWhilst`, except ...", "[`R.equals`](#equals) is used",
:func:`compared_names`); and, when the question says what a function does (:func:`describes_action`), a type
alias or interface (:func:`is_shape`). A question asking what a predicate answers ("Returns `true` if ...",
"Checks if ...", :func:`asks_predicate`) adds ``PREDICATE_BOOST`` x the cover for a predicate's name
(``isDraft``, ``has_key``, :func:`is_predicate_name`): ``is`` is a stop word, so the cover alone cannot tell
``isDraft`` from ``castDraft``; a question saying its subject *is* what the predicate's name says ("check
whether an action ... is pending": ``isPending``, :func:`says_predicate`) adds ``PREDICATE_SAID_BOOST`` more,
where the cover alone ties it with ``isAsyncThunkAction``. A question opening by likening its answer to a name
("The same as `map` but runs a maximum of `limit` ...") adds ``VARIANT_BOOST`` for the public variants that name
makes (``mapLimit``, :func:`is_variant`). A constructor is named by its class for a question
saying it makes a new one ("Create a new computed value ...": ``ComputedValue.constructor``,
:func:`constructed_class`). Last, a short alias the file makes from one of the best candidates (``export const
createSlice = buildCreateSlice()``) goes just above it, brought in from outside the pool if need be, as does
the public name another file binds to a method (``export const applyPatches =
immer.applyPatches.bind(immer)``), and the public function an implementation is named for (``current`` calling
``currentImpl``, :func:`is_front_for`): the doc comment is on the alias, the words it uses are in the body it
hands the work to (:func:`aliases_above`).

A query looks up only those candidates' chunk rows and, by name, the graph node defined in each; how rare a
part is comes from the graph's name index, which a new generation patches: nothing here grows with the index.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..chunking.languages import spec_for
from ..store.graph import CodeGraph
from ..tokenizer import PARTS, tokenize
from ..types import Chunk
from .context import Hit, QueryContext
from .names import (
    PREDICATE_NAME,
    NameIndex,
    asks_whether,
    is_predicate_name,
    name_index,
    name_parts,
    spelled_parts,
)

NAME_COVER_BOOST = 0.15
DEPTH = 30  # candidates re-scored: the answer is rarely below the blend's 30th
COMPOSED_PARTS = 2  # callees a question names, ranked above the function calling them, that make it the subject
ALIAS_DEPTH = 3  # the best candidates whose public alias (``export const x = makeX()``) goes just above them
ALIAS_LINES = 3  # an alias is a statement of at most this many lines
_KINDS = {"function", "method", "class"}
SHAPE_PENALTY = 0.1  # a type alias or interface describes a shape: it does not do what the question says
_SHAPE_KINDS = frozenset({"type", "interface"})
# what a doc comment's summary starts with when it says what a function does: "Returns ...", "Create a
# new atom", "Tests if ...", "A function that ...", "A higher-order function that ..."
_VERBS = """
    accept act add apply append assert assume attach bind build cache call cancel chain check clear clone
    close collect combine compare compute concat convert copy count create decode delete determine
    dispatch divide emit encode ensure escape evaluate execute extract fetch filter find flatten format
    freeze generate get give group handle initialize insert invoke iterate join lift listen load log make
    map mark match merge move multiply normalize notify observe omit open parse pass perform pick prepend
    produce read reduce register remove render repeat replace report reset resolve retrieve return reverse
    run save schedule search select send serialize set sort split start stop subscribe subtract swap take
    test throw track transform trigger undo update validate wait wrap write yield
"""
_ACTION_VERBS = frozenset(_VERBS.split())
_ACTION_SUBJECT = re.compile(
    r"\s*(?:this\s+is\s+)?(?:an?\s+)?(?:[\w-]+\s+){0,2}(?:[\w]+-)?"
    r"(?:(?:function|method|helper|hook|callback)\s+(?:that|which|to)|(?:wrapper|utility)\s+(?:that|which|to|around|for))\b",
    re.IGNORECASE,
)
# a summary in the third person whose verb no list holds ("Buffers the source values ...", "Enables optimized
# ...", "Recursively converts ...", "Safely reports ..."): an -s word, after an -ly adverb or none, followed
# by a word that does not make it a plural noun's subject ("Selectors that ...", "Options for ...")
_THIRD_PERSON = re.compile(r"\s*(?:[A-Za-z]+ly\s+)?([A-Za-z]+[^su\W]s)\s+([\w`'\"]+)")
_FOLLOWERS = "that which who whose for of to in on with from by at as are were is was have and or but"
_NOUN_FOLLOWERS = frozenset(_FOLLOWERS.split())
_JS = spec_for("javascript")
GLUE_PENALTY = 0.3  # as a test's: a chunk of import and export lines is not what a question in prose asks for
# statements that only bring names in or hand them out: ES/TS imports and re-exports, CommonJS
# `require` (and the transpilers' helpers the grammar reads as imports: `var _map2 =
# _interopRequireDefault(_map)`) and `module.exports = name`, Babel's and TypeScript's module prologue, Python imports
_GLUE = re.compile(
    r"""
    import\s*[\w$*{},\s]*?(?:\sfrom\s*)?["'][^"'\n]*["'];?                 # import x, {y} from "m"; import "m"
    | import\s+[\w$]+\s*=\s*require\([^()\n]*\);?                           # import x = require("m")
    | export\s*(?:\*(?:\s*as\s+[\w$]+)?|type\s*\{[^}]*\}|\{[^}]*\})(?:\s*from\s*["'][^"'\n]*["'])?;?
    | export\s+default\s+[\w$.]+;?                                           # export default name;
    | (?:module\.)?exports(?:\.[\w$]+)?\s*=\s*[\w$.]+;?                      # module.exports = name;
    | (?:var|let|const)\s+[\w$]+\s*=\s*(?:/\*[^*\n]*\*/\s*)?(?:{calls})\((?:[^()\n]|\([^()\n]*\))*\)(?:\.[\w$]+)?;?
    | ["']use\ strict["'];?
    | Object\.defineProperty\(exports,\s*["']__esModule["'],\s*\{\s*value:\s*true\s*\}\);?
    | from\s+[\w.]+\s+import\s+(?:\([^)]*\)|[^\n]+)                      # Python
    | import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*
    """.replace("{calls}", "|".join(sorted(_JS.import_calls if _JS is not None else {"require"}))),
    re.VERBOSE,
)
COMPARED_PENALTY = 0.3  # the function a question compares its answer with is its sibling, not the answer
# "Like `doWhilst`, except ...", "The same as [`map`] but ...", "The complement of filter", "This method is
# like `_.uniq` except ...": the name after the comparison (its namespace prefix dropped) is not the answer;
# "equivalent to" and "identical to" are left out: they say the answer does what X does ("It's equivalent
# to `Promise.race()`" of async's `race`)
_COMPARED = re.compile(
    r"\b(?:(?:the\s+)?same\s+as|(?:much\s+|just\s+)?like|unlike|similar\s+to|analogous\s+to|"
    r"(?:the\s+)?(?:opposite|complement|inverse|counterpart|relative|variant|version|"
    r"alias)\s+(?:of|to|for))\s+(?:the\s+(?=\S+\s+(?:function|method)\b))?"
    r"\[?[`'\"]?(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)(?:\(\))?",
    re.IGNORECASE,
)
VARIANT_BOOST = NAME_COVER_BOOST  # a variant of the name a question likens its answer to: as much as a full cover
# "The same as `map` but runs a maximum of `limit` ...", "Similar to `pick` except ...", "This method is like
# `_.uniq` except ...", "An Object-specific version of `map`": the answer is a variant of the name, often named
# by it and one more word (``mapLimit``, ``pickAll``, ``uniqBy``, ``mapObjIndexed``, ``sortedUniq``); not the
# opposite, complement or inverse of it (``reject`` is no ``filterLimit``), nor an alias or relative
_LIKENED = re.compile(
    r"\b(?:(?:the\s+)?same\s+as|(?:much\s+|just\s+)?like|similar\s+to|analogous\s+to|(?:version|variant)\s+of)"
    r"\s+(?:the\s+(?=\S+\s+(?:function|method)\b))?\[?[`'\"]?(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)(?:\(\))?",
    re.IGNORECASE,
)
# a name a doc comment links to is another entry of the docs, not the one it documents: a Markdown link
# ("[`R.equals`](#equals)", "[text][ref]"), a reference-style link as async's docs write them
# ("[map]:Collections.map"), JSDoc's "{@link Observable}", Rust's "[`Vec::push`]"
_LINKED = re.compile(
    r"\{@link(?:code|plain)?\s+(?:[\w$]+[.#])*([A-Za-z_$][\w$]*)"
    r"|\[(?:[`'\"](?:[A-Za-z_$][\w$]*(?:\.|::|#))*([A-Za-z_$][\w$]*)(?:\(\))?[`'\"]\]"  # [`X`], ['X']
    r"|(?:[A-Za-z_$][\w$]*(?:\.|::|#))*([A-Za-z_$][\w$]*)(?:\(\))?\](?=\(|\[|:[A-Za-z]))"  # [X](...), [X]:Ns.X
    r"(?!\(\w+://)"  # not a page elsewhere: "[`String.prototype.match`](https://...)" is the platform's, not ours
)
_COMMENT = re.compile(r"//[^\n]*|#[^\n]*|/\*[\s\S]*?\*/")  # between them
PREDICATE_BOOST = 0.05  # on top of the name cover: a predicate's name for a question asking what a predicate answers
# a predicate whose words the question says its subject is ("... whether the action is pending": isPending): a
# phrase of the name is as much evidence as its whole cover (0.1 and 0.2 measured: only Redux Toolkit's family moved)
PREDICATE_SAID_BOOST = NAME_COVER_BOOST
# a question asking for a yes/no answer, as a predicate's doc comment opens: "Returns `true` if ...", "Returns
# whether ...", "Checks if ...", "Tests whether ...", "Determines if ...", "Whether ..."
_ASKS_PREDICATE = re.compile(
    r"\s*(?:(?:returns?|checks?|tests?|determines?|tells?)\s+(?:[`'\"]?(?:true|false)[`'\"]?\s+(?:if|when|iff)|if|whether)"
    r"|whether)\b",
    re.IGNORECASE,
)


def cover(parts: frozenset[str], query: set[str], names: NameIndex) -> float:
    """The idf-weighted share of a name's parts the query holds (0 for a name with no parts: ``__``)."""
    if not parts:
        return 0.0
    total = max(names.symbols(), 1)
    weights = {p: math.log(1 + total / (1 + names.count(p))) for p in sorted(parts)}  # one order: one float sum
    return sum(w for p, w in weights.items() if p in query) / sum(weights.values())


def name_covered(ctx: QueryContext, ranked: list[Hit], boost: float = NAME_COVER_BOOST) -> list[Hit]:
    """``ranked`` with its ``DEPTH`` best re-ordered after adding ``boost`` x each one's name cover."""
    graph = ctx.snapshot.graph
    if graph is None or not ranked:
        return ranked
    # the parts its words spell ("property": ``prop``, "function composition": ``compos``), less the kind it asks for
    names = name_index(graph)
    query = spelled_parts(ctx.request.query, ctx.query_tokens) - asked_kind(ctx.request.query)
    compared = {n for n in compared_names(ctx.request.query) if _definitions(graph, n) == 1}
    likened = likened_names(ctx.request.query, lambda word: _definitions(graph, word) > 0)
    action = describes_action(ctx.request.query)
    makes = _MAKES.match(ctx.request.query) is not None
    predicate = asks_predicate(ctx.request.query)
    whether = asks_whether(ctx.request.query)
    errors = bool(query & _ERROR_TOKENS)
    # "what is TooManyRedirects", "httpx.ReadTimeout: ...": named, so asked
    written = {part.lower() for n in ctx.intent.code_names for part in re.split(r"\.|::", n)}
    top = ranked[:DEPTH]
    rows = ctx.chunks_of_keys([h.key for h in top])
    nodes = {key: _node_of(graph, row) for key, row in rows.items()}  # each chunk's symbol, looked up once
    for hit in top:
        row = rows.get(hit.key)
        defined = _name_defined(graph, names, row, nodes[hit.key]) if row is not None else None
        if defined and makes and row is not None:
            defined = constructed_class(row) or defined  # "Create a new atom": the constructor's name is its class's
        if defined in compared:
            hit.score -= COMPARED_PENALTY
        elif row is not None and row.source_type == "code" and is_glue_chunk(row):
            hit.score -= GLUE_PENALTY
        elif defined:
            covered = cover(name_parts(defined), query, names)
            if (
                covered
                and not errors
                and row is not None
                and row.symbol_type == "class"
                and defined.lower() not in written
                and is_exception(graph, nodes[hit.key])
            ):
                covered = 0.0  # "set a connect timeout and read timeout": not ConnectTimeout, ReadTimeout
            hit.score += boost * covered
            if predicate and is_predicate_name(defined):  # "Returns true if the value is a draft": isDraft
                hit.score += PREDICATE_BOOST * covered
            if whether and says_predicate(ctx.request.query, defined):  # "... whether an action is pending": isPending
                hit.score += PREDICATE_SAID_BOOST
            if any(is_variant(defined, name) for name in likened):  # "The same as `map` but ... `limit`": mapLimit
                hit.score += VARIANT_BOOST
        elif action and row is not None and is_shape(row):
            hit.score -= SHAPE_PENALTY
    top = members_before_containers(graph, query, sorted(top, key=lambda h: -h.score), rows, nodes)
    top = composers_before_parts(graph, query, top, rows, nodes)
    return aliases_above(ctx, graph, names, top + ranked[DEPTH:], nodes)


EXCEPTION_HOPS = 3  # bases walked for an exception's name: ConnectTimeout -> TimeoutException


def is_exception(graph: CodeGraph, node: str | None, hops: int = EXCEPTION_HOPS) -> bool:
    """Whether a class is an exception: named ``...Error``, ``...Exception`` or ``...Warning``, or built
    on one within ``hops`` (``ConnectTimeout(TimeoutException)``). A question that says no error word
    does not ask for one, though it says its name's words ("a connect timeout and a read timeout")."""
    seen: set[str] = set()
    frontier = [node] if node else []
    for _ in range(hops + 1):
        step = []
        for n in frontier:
            if n in seen:
                continue
            seen.add(n)
            data = graph.get(n)
            name = str(data.get("name") or "") if data else n.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
            if _EXCEPTION_NAME.search(name):
                return True
            step += [e.target for e in graph.out_edges(n) if e.relation == "extends"]
        frontier = step
    return False


_EXCEPTION_NAME = re.compile(r"(?:Error|Exception|Warning)$")
_ERROR_TOKENS = frozenset(
    tokenize("error errors exception exceptions raise raised raises throw throws thrown fail fails failed failure")
    + tokenize("catch except handle handling warning warnings")
)


def asked_kind(query: str) -> frozenset[str]:
    """The tokens of the kind of thing a question asks for ("which option sets how many redirects ...",
    "what environment variable ..."): the question's words for what it wants, not the answer's name
    (an ``options()`` method sending HTTP OPTIONS is no answer to "which option ...")."""
    return frozenset(t for m in _ASKED_KIND.finditer(query) for t in tokenize(m.group(1)))


_ASKED_KIND = re.compile(
    r"\b(?:which|what)\s+(?:[A-Za-z]+\s+)?(options?|settings?|parameters?|flags?|arguments?|variables?)\b",
    re.IGNORECASE,
)


def aliases_above(
    ctx: QueryContext, graph: CodeGraph, names: NameIndex, ranked: list[Hit], nodes: dict[int, str | None]
) -> list[Hit]:
    """``ranked`` with the public alias of one of its ``ALIAS_DEPTH`` best just above it: a short piece of
    module code in the same file that makes one name from that function (``export const createSlice =
    buildCreateSlice()``, ``export const createDraftSafeSelector = createDraftSafeSelectorCreator(…)``). The
    doc comment is written on the alias, the body it describes is the function's: a question in the
    comment's words finds the function, and the alias is what it documents. An alias outside the fused
    pool comes in (one line says too little for either leg to find it: Redux Toolkit's ``createSlice``
    was in neither leg's first 50), unless the request's filters leave it out. A method's alias is also the
    public name another file binds to it (``export const applyPatches = immer.applyPatches.bind(immer)``,
    :func:`_bound_aliases`), whatever else that chunk of module code makes; and an implementation's is the
    function of any file that calls it and is the name it is named for (``current`` of ``currentImpl``,
    :func:`is_front_for`). ``nodes``: the symbol node each of the best candidates defines (:func:`_node_of`)."""
    at = {h.key: h for h in ranked}
    lifted = False
    for hit in ranked[:ALIAS_DEPTH]:
        node = nodes.get(hit.key)
        if node is None:
            continue
        source, name = graph.attrs(node).get("source"), str(graph.attrs(node).get("name", ""))
        made, fronts = {}, set()
        for edge in graph.in_edges(node):
            data = graph.attrs(edge.source)
            if edge.relation != "calls" or data.get("kind") not in _KINDS:
                continue
            chunk, front = str(data.get("chunk_id", "")), is_front_for(str(data.get("name", "")), name)
            if front:  # the public function of any file this one implements: ``current`` of ``currentImpl``
                fronts.add(chunk)
            if front or data.get("source") == source:
                made[chunk] = edge.source
        made.update(_bound_aliases(graph, node))  # another file's public name for a method
        given = {c: n for c, n in _short_functions(graph, node).items() if c not in made}  # made by passing it
        made.update(given)
        keys = ctx.keys_of_chunk_ids(sorted(made)) if made else {}
        for key, row in ctx.chunks_of_keys(sorted(keys.values())).items():
            if row.chunk_id in given and not _passes(row, name):
                continue
            short = row.end_line - row.start_line < ALIAS_LINES
            one = short and names.defined_in(row.chunk_id) == [made[row.chunk_id]]
            alias = not row.symbol_name and (one or _binds(row, graph.attrs(made[row.chunk_id])))
            if alias or (row.symbol_name and row.chunk_id in fronts):
                if key not in at:  # not among the fused pool's: the body's words found the function, not it
                    if not ctx.allowed_keys(np.array([key]))[0]:
                        continue
                    at[key] = Hit(key, hit.score)
                    ranked = [*ranked, at[key]]
                at[key].score = max(at[key].score, _just_above(hit.score))
                lifted = True
    return sorted(ranked, key=lambda h: -h.score) if lifted else ranked


# how a name says it is the implementation behind a public function of the name without it: ``currentImpl``
# behind ``current``, ``toJSHelper`` behind ``toJS``, ``baseFlatten`` behind ``flatten``, ``send_impl``
_IMPLEMENTATION = re.compile(
    r"^(?:base|inner|internal)(?=[A-Z])|^(?:base|inner|internal)_|(?<=[A-Za-z0-9])(?:Impl|Helper|Internal|Inner)$"
    r"|_(?:impl|helper|internal|inner)$"
)


def is_front_for(public: str, implementation: str) -> bool:
    """Whether ``public`` is the function ``implementation``'s name says it implements (``current`` for
    ``currentImpl``): a caller of that name is the entry its doc comment documents, the body it hands
    the work to is where a question's words are."""
    bare = _IMPLEMENTATION.sub("", implementation)
    return bare != implementation and bare.lower() == public.lower()


def _short_functions(graph: CodeGraph, node: str) -> dict[str, str]:
    """For a function, the other functions its file defines in fewer than ``ALIAS_LINES`` lines, by their
    chunk id: where a name made by passing it to a call may be (:func:`_passes`)."""
    data = graph.attrs(node)
    source = data.get("source")
    if data.get("kind") != "function" or not source:
        return {}
    found = {}
    for edge in graph.out_edges(str(source)):
        other = graph.attrs(edge.target)
        lines = int(other.get("end_line") or 0) - int(other.get("start_line") or 0)
        if (
            edge.relation == "contains"
            and edge.target != node
            and other.get("kind") == "function"
            and lines < ALIAS_LINES
        ):
            found[str(other.get("chunk_id", ""))] = edge.target
    return found


def _passes(row: Chunk, name: str) -> bool:
    """Whether the chunk makes a name by passing ``name`` first to the call that gives its value (``export
    const retry = Object.assign(retryWithBackoff, { fail })``, ``const Button = forwardRef(ButtonImpl)``,
    ``var path = _curry2(_path)``): the doc comment is on the name made, the words on the function given."""
    given = rf"=\s*(?:/\*[^*]*\*/\s*)?[\w$.]+\(\s*{re.escape(name)}\s*[,)]"
    return re.search(given, row.text) is not None


def _bound_aliases(graph: CodeGraph, node: str) -> dict[str, str]:
    """The module-level names another file makes from a method by its own name (``export const
    applyPatches = immer.applyPatches.bind(immer)``), by their chunk id: ``{chunk id: node}``."""
    data = graph.attrs(node)
    if data.get("kind") != "method":
        return {}
    name, source = str(data.get("name", "")), data.get("source")
    found = {}
    for other in graph.lookup(name):
        attrs = graph.attrs(other)
        if attrs.get("kind") == "function" and attrs.get("name") == name and attrs.get("source") != source:
            found[str(attrs.get("chunk_id", ""))] = other
    return found


def _binds(row: Chunk, data: Mapping[str, Any]) -> bool:
    """Whether the chunk's line defining ``data``'s name is a top-level statement (not indented) giving it
    a member of the same name, bound or as it is (``export const applyPatches = immer.applyPatches.bind(immer)``,
    ``export const produce = immer.produce``): not what a call of it returns (``var route =
    this._router.route(path)`` in a callback is a value, and another thing than the method)."""
    name, line = str(data.get("name", "")), int(data.get("start_line") or 0) - row.start_line
    lines = row.text.splitlines()
    if not name or not 0 <= line < len(lines):
        return False
    member = rf"^\S.*\b{re.escape(name)}\b[^=]*=[^=]*\.{re.escape(name)}(?:\.bind\(|\s*[;,]?\s*$)"
    return re.search(member, lines[line]) is not None


def compared_names(query: str) -> frozenset[str]:
    """The names a question compares its answer with ("Like `doWhilst`, except the test is inverted":
    ``doWhilst``) or links to ("[`R.equals`](#equals) is used to determine equality": ``equals``; not
    a link to a page elsewhere), as written: a doc comment does not liken or link a function to itself.
    Only a name defined once goes below: "Same as `attr.asdict`, except ..." describes attrs's own
    ``asdict``, and which of two functions so named the comparison means, the name alone does not say."""
    compared = {m.group(1) for m in _COMPARED.finditer(query)}
    return frozenset(compared | {m.group(1) or m.group(2) or m.group(3) for m in _LINKED.finditer(query)})


LIKENED_WORDS = 4  # words before "like X" at most: "This method is like `_.uniq` ...", "An Object-specific version of"


def likened_names(query: str, defined: Callable[[str], bool]) -> frozenset[str]:
    """The names a question opens by likening its answer to ("The same as `map` but ...", "This method is
    like `_.uniq` except ...", "An Object-specific version of `map`"), those ``defined`` says are names: the
    answer may be a variant named by them (:func:`is_variant`). Not when the question names its subject
    first ("Scan is similar to `reduce`", "`mathMod` behaves like ..."): that is the answer, whatever it is
    called."""
    found = set()
    for match in _LIKENED.finditer(query):
        before = query[: match.start()].split()
        if len(before) > LIKENED_WORDS:
            break
        if any("`" in w or defined(w.strip("'\",.:;")) or defined(w.strip("'\",.:;").lower()) for w in before):
            break
        if defined(match.group(1)):
            found.add(match.group(1))
    return frozenset(found)


def is_variant(name: str, base: str) -> bool:
    """Whether ``name`` is a variant named by ``base``: ``base``'s words and at least one more, ``base``'s
    first or last (``mapLimit``, ``mapValuesSeries``, ``sortedUniq``, ``find_last`` of ``find``), public (not
    ``_asyncMap``: a private helper is no documented variant)."""
    if name.startswith("_") or name.startswith("$"):
        return False
    words, own = [p.lower() for p in PARTS.findall(name)], [p.lower() for p in PARTS.findall(base)]
    if not own or len(words) <= len(own):
        return False
    return words[: len(own)] == own or words[-len(own) :] == own


def _definitions(graph: CodeGraph, name: str) -> int:
    """How many functions, methods and classes are named exactly ``name``."""
    found = (graph.attrs(node) for node in graph.lookup(name))
    return sum(1 for data in found if data.get("kind") in _KINDS and data.get("name") == name)


def describes_action(query: str) -> bool:
    """Whether the query says what a function does, as a doc comment's summary does: it opens with a
    verb ("Returns ...", "Creates ...", "Create a ...", "Tests if ...") or with "A (...) function that"."""
    if _ACTION_SUBJECT.match(query):
        return True
    first = query.split(maxsplit=1)[0].strip("`'\"").lower() if query.strip() else ""
    if first in _ACTION_VERBS:
        return True
    for suffix, stem in (("ies", "y"), ("es", ""), ("s", "")):
        if first.endswith(suffix) and first[: -len(suffix)] + stem in _ACTION_VERBS:
            return True
    third = _THIRD_PERSON.match(query)
    return third is not None and third.group(2).strip("`'\"").lower() not in _NOUN_FOLLOWERS


def says_predicate(query: str, name: str) -> bool:
    """Whether the query says its subject is what a predicate's name says after its verb, in the name's
    words and order: "... check whether an action ... is pending" of ``isPending``, "the value is an Immer
    draft" of ``isDraft``, "has own property" of ``hasOwnProperty`` (an article and one more word allowed
    before them). A name of the verb alone (``is``, ``has``) says nothing."""
    match = PREDICATE_NAME.match(name)
    words = [w.lower() for w in PARTS.findall(name[match.end() :])] if match else []
    if match is None or not words:
        return False
    said = r"[\s`'\"-]+".join(re.escape(w) for w in words)
    pattern = rf"\b{match.group(1)}\s+(?:(?:an?|the)\s+)?(?:[\w-]+\s+)?{said}\b"
    return re.search(pattern, query, re.IGNORECASE) is not None


def asks_predicate(query: str) -> bool:
    """Whether the query asks what a predicate answers, as a predicate's doc comment opens ("Returns
    `true` if ...", "Returns whether ...", "Checks if ...", "Tests whether ...")."""
    return _ASKS_PREDICATE.match(query) is not None


# what a constructor's doc comment opens with: "Create a new atom", "Constructs a new ...", "Creates an instance
# of ..."; not "Constructs a `PreparedRequest` for transmission" (requests' Session.prepare_request: a factory)
_MAKES = re.compile(
    r"\s*(?:creates?|constructs?|makes?|instantiates?|initiali[sz]es?|builds?)\s+(?:(?:an?|the)\s+)?(?:new|instance)\b",
    re.IGNORECASE,
)
CONSTRUCTORS = frozenset({"__init__", "constructor", "init"})  # Python, JavaScript/TypeScript, Swift/Kotlin


def constructed_class(row: Chunk) -> str | None:
    """The class a constructor's chunk makes (a method named ``__init__``, ``constructor``, ``init`` or as
    its class, C++/Java/C#-style), else None: its doc comment says what it makes ("Create a new atom")."""
    owner = (row.parent_symbol or "").rsplit(".", 1)[-1]
    if row.symbol_type == "method" and owner and row.symbol_name in CONSTRUCTORS | {owner}:
        return owner
    return None


def is_shape(row: Chunk) -> bool:
    """A declaration of a shape only: an interface, or a type alias (TypeScript's ``type``, Rust's). Go's
    ``type sorter []*Command`` is a type of its own, with methods that do things: not a shape."""
    return row.symbol_type in _SHAPE_KINDS and not (row.symbol_type == "type" and row.language == "go")


def is_glue_chunk(row: Chunk) -> bool:
    """A chunk of module code that only imports and exports (:func:`is_glue`), or the definition of a
    transpiler's module helper, which Babel writes into every file it compiles (``function
    _interopRequireDefault(obj) {…}``; the helpers the grammar reads as imports, ``LanguageSpec.import_calls``)."""
    if row.symbol_name:
        spec = spec_for(row.language)
        return spec is not None and not row.parent_symbol and row.symbol_name in spec.import_calls
    return is_glue(row.text)


def is_glue(text: str) -> bool:
    """Whether a chunk of module code only imports and exports names (``var _curry2 =
    require("./internal/_curry2.js");``, ``module.exports = equals;``, ``export * from "./x"``, ``from
    .app import Flask``): no statement of it does what a question describes."""
    code = _COMMENT.sub("", text)
    rest = _GLUE.sub("", code)
    return rest != code and not rest.strip(" \t\r\n;")


def members_before_containers(
    graph: CodeGraph, query: set[str], ranked: list[Hit], rows: dict[int, Chunk], nodes: dict[int, str | None]
) -> list[Hit]:
    """``ranked`` with a method just above its class when the query names both and no other of the
    class's methods: "what happens when the request context is popped" names ``RequestContext`` and
    its ``pop``, and the more specific symbol is the answer. The class's chunk (its header, fields and
    every method's signature) holds the method's words too and wins on the blend and on its longer
    name. A query naming several of its methods ("pushed ... and popped") is about the class, and a
    method named only by the class's own words (``View.as_view`` for "class-based views") is not
    named apart from it. ``nodes``: the symbol node each of the ``rows`` defines (:func:`_node_of`)."""
    key_of = {row.chunk_id: key for key, row in rows.items()}
    at = {h.key: n for n, h in enumerate(ranked)}
    lifted: dict[int, float] = {}
    for hit in ranked:
        node = nodes.get(hit.key)
        if node is None:
            continue
        own = _spelled(graph.attrs(node), query)
        if not own:
            continue
        named = [
            e.target
            for e in graph.out_edges(node)
            if e.relation == "contains" and _is_member(graph, e.target, query, own)
        ]
        if len(named) != 1:
            continue
        member = key_of.get(str(graph.attrs(named[0]).get("chunk_id", "")))
        if member is not None and at[member] > at[hit.key] and member not in lifted:
            lifted[member] = _just_above(hit.score)
    return _lifted(ranked, lifted)


def _spelled(data: Mapping[str, Any], query: set[str]) -> frozenset[str]:
    """The parts of the symbol's name when the query holds every one of them, else none."""
    parts = name_parts(str(data.get("name", "")))
    return parts if parts <= query else frozenset()


def _is_member(graph: CodeGraph, node: str, query: set[str], container: frozenset[str]) -> bool:
    """Whether ``node`` is a method the query names by a word its container's name does not hold."""
    data = graph.get(node)
    return data is not None and data.get("kind") == "method" and bool(_spelled(data, query) - container)


def _name_defined(graph: CodeGraph, names: NameIndex, row: Chunk, node: str | None) -> str | None:
    """The name of the function, method or class this chunk defines: its own symbol's (``node``, whose
    definition starts in it: not the later parts of a long body, where it is not named), or for a chunk
    of module code, the one function the graph found defined in it (``var toLower = invoker(0,
    'toLowerCase')``: made by a factory, named by the variable). A chunk assigning several names
    (``var _map2 = _interopRequireDefault(_map);`` and the like, one after another) names none of them."""
    if row.symbol_name:
        return (str(graph.attrs(node).get("name", "")) or None) if node is not None else None
    made = {str(graph.attrs(n).get("name", "")) for n in names.defined_in(row.chunk_id)} - {""}
    return made.pop() if len(made) == 1 else None


def _node_of(graph: CodeGraph, row: Chunk) -> str | None:
    """The function, method or class node whose definition starts in this chunk."""
    if not row.symbol_name:
        return None
    for node in graph.lookup(str(row.symbol_name)):
        data = graph.attrs(node)
        if data.get("chunk_id") == row.chunk_id and data.get("kind") in _KINDS:
            return node
    return None


def composers_before_parts(
    graph: CodeGraph, query: set[str], ranked: list[Hit], rows: dict[int, Chunk], nodes: dict[int, str | None]
) -> list[Hit]:
    """``ranked`` with a function just above the first of its callees when the query spells its name
    and the names of ``COMPOSED_PARTS`` or more of the functions it calls, ranked above it: "how is a
    validation error object with instancePath and schemaPath built" names ``errorObject`` and the two
    helpers it builds the object from (``errorInstancePath``, ``errorSchemaPath``); each helper says
    more of the question's words, the function calling them is what it asks about."""
    key_of = {row.chunk_id: key for key, row in rows.items()}
    at = {h.key: n for n, h in enumerate(ranked)}
    lifted: dict[int, float] = {}
    for hit in ranked:
        node = nodes.get(hit.key)
        if node is None or graph.attrs(node).get("kind") not in ("function", "method"):
            continue
        if not _spelled(graph.attrs(node), query):
            continue
        parts = {
            key_of.get(str(graph.attrs(e.target).get("chunk_id", "")))
            for e in graph.out_edges(node)
            if e.relation == "calls" and e.target != node and _spelled(graph.attrs(e.target), query)
        }
        above = [at[k] for k in parts if k is not None and k != hit.key and at[k] < at[hit.key]]
        if len(above) >= COMPOSED_PARTS:
            first = ranked[min(above)]
            lifted[hit.key] = _just_above(first.score)
    return _lifted(ranked, lifted)


def _just_above(score: float) -> float:
    """A score that ranks just above ``score`` and below anything clearly above it."""
    return score + max(abs(score), 1e-3) * 1e-3


def _lifted(ranked: list[Hit], lifted: dict[int, float]) -> list[Hit]:
    """``ranked`` with the ``lifted`` hits (by key) given their new scores, in score order again."""
    for hit in ranked:
        if hit.key in lifted:
            hit.score = lifted[hit.key]
    return sorted(ranked, key=lambda h: -h.score) if lifted else ranked
