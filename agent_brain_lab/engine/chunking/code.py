"""Code chunking with tree-sitter: one chunk per symbol, the code between symbols in windows.

One parse per file yields the chunks, the symbols and the raw relations for the code graph, and
every non-blank line of the file lands in at least one chunk:

- a function or method chunk holds its lines, with decorators and the comments right above it;
- a class-like chunk (class, struct, interface, impl, module...) holds its own lines with each
  nested symbol cut down to its signature lines, so its text is a subsequence of the file's lines
  and method bodies live only in the method chunks;
- lines outside every top-level symbol become "module" chunks (no symbol name): contiguous runs
  packed into windows of up to ``chunk_size`` characters at statement boundaries;
- anything longer than ``chunk_size`` is split at statement boundaries into parts that keep the
  symbol's name and parent.

Files with no grammar, a failed parse or minified content fall back to line windows (:func:`chunk_lines`).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from tree_sitter import Node, Parser, Range, Tree

from ..graph_extract import (
    SELF_WORDS,
    TYPED_DECLARATIONS,
    Relation,
    attributes_above,
    base_relations,
    call_receiver,
    callee,
    import_call_target,
    import_targets,
    mixins,
    typed_names,
)
from ..types import Chunk
from .languages import (
    BODY_TYPES,
    FUNCTION_KINDS,
    NAME_TYPES,
    LanguageSpec,
    own_alias,
    parser_for,
    spec_for,
    text_of,
)

__all__ = ["CodeAnalysis", "Relation", "Symbol", "analyze_code", "chunk_lines"]


@dataclass(frozen=True)
class Symbol:
    name: str
    qualname: str  # "Class.method"
    kind: str  # function | method | class | interface | struct | enum | trait | impl | module | type | ...
    source: str
    chunk_id: str  # the chunk holding the symbol's first lines
    start_line: int
    end_line: int

    @property
    def node_id(self) -> str:
        return f"{self.source}::{self.qualname}"


@dataclass
class CodeAnalysis:
    chunks: list[Chunk]
    symbols: list[Symbol]
    relations: list[Relation]


def analyze_code(source: str, text: str, language: str, source_type: str, chunk_size: int) -> CodeAnalysis:
    """Chunks, symbols and raw relations of one code file (see the module docstring for the scheme)."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    lines = _lines(text)
    if not text.strip():
        return CodeAnalysis([], [], [])
    spec = spec_for(language)
    parser = parser_for(spec) if spec is not None else None
    minified = sum(len(line) for line in lines) > chunk_size * len(lines)  # average line longer than a chunk
    parsed = _without_split_guards(lines) if spec is not None and spec.grammar in ("c", "cpp") else text
    data = parsed.encode("utf-8", "replace")
    tree = parser.parse(data) if parser is not None and not minified else None
    if tree is None or spec is None or parser is None:
        return CodeAnalysis(chunk_lines(source, text, language, source_type, chunk_size), [], [])
    # A root the grammar made an ERROR node is read both ways, as its error recovery placed the file's
    # nodes and section by section, and the reading that finds more definitions is kept (lz4.c, 3 bytes
    # unplaced: 102 against 58; bats' common.bash, one construct swallowing the rest: the sections).
    analysis = None
    if not _broken(tree):
        analysis = _Analysis(source, lines, language, source_type, chunk_size, spec).run([tree.root_node])
    if analysis is None or tree.root_node.type == "ERROR":
        roots = _section_roots(parser, data, lines)
        if roots:
            sections = _Analysis(source, lines, language, source_type, chunk_size, spec).run(roots)
            if analysis is None or len(sections.symbols) >= len(analysis.symbols):
                return sections
    if analysis is None:
        return CodeAnalysis(chunk_lines(source, text, language, source_type, chunk_size), [], [])
    return analysis


def _section_roots(parser: Parser, data: bytes, lines: list[str]) -> list[Node]:
    """The syntax trees of a file's top-level sections, parsed one by one, when the whole file does not
    parse: one construct the grammar gets wrong (a bash `eval "(( \\${#${a}[@]} > 0 ))"`) would
    otherwise cost every other definition of the file its chunk and its symbol. A section starts at a
    line that begins in column 0 after a blank line; each is parsed alone (the parser's included range:
    its nodes keep the file's rows) and kept only if it parses; the others' lines are module lines.
    Fewer than half kept: the file is unparsable, line windows serve it better."""
    starts = [0] + [r for r in range(1, len(lines)) if lines[r][:1].strip() and not lines[r - 1].strip()]
    offsets = [0] + [m.end() for m in re.finditer(b"\n", data)]  # the byte each row starts at
    whole = parser.included_ranges
    roots = []
    try:
        for first, stop in zip(starts, [*starts[1:], len(lines)], strict=True):
            end = offsets[stop] if stop < len(offsets) else len(data)
            end_point = (stop, 0) if stop < len(offsets) else (len(offsets) - 1, len(data) - offsets[-1])
            parser.included_ranges = [Range((first, 0), end_point, offsets[first], end)]
            root = parser.parse(data).root_node
            if not root.has_error and root.named_child_count:
                roots.append(root)
    finally:
        parser.included_ranges = whole  # the parser is shared: the next file is parsed whole
    return roots if len(roots) * 2 >= len(starts) else []


def chunk_lines(source: str, text: str, language: str, source_type: str, chunk_size: int) -> list[Chunk]:
    """Windows of whole lines up to ``chunk_size`` characters, overlapping by a line or two.

    A single line longer than ``chunk_size`` (minified code) is cut into ``chunk_size`` pieces.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    lines = _lines(text)
    chunks: list[Chunk] = []

    def size_of(first: int, stop: int) -> int:
        return sum(len(lines[r]) + 1 for r in range(first, stop))

    def emit(first: int, text_: str) -> None:
        chunks.append(Chunk(source, source_type, language, first + 1, first + 1 + text_.count("\n"), text_))

    start = 0
    while start < len(lines):
        end, size = start, 0
        while end < len(lines) and (end == start or size + len(lines[end]) + 1 <= chunk_size):
            size += len(lines[end]) + 1
            end += 1
        if end - start == 1 and len(lines[start]) > chunk_size:
            for i in range(0, len(lines[start]), chunk_size):
                if lines[start][i : i + chunk_size].strip():
                    emit(start, lines[start][i : i + chunk_size])
        else:
            rows = _trim(list(range(start, end)), lines)
            if rows:
                emit(rows[0], "\n".join(lines[rows[0] : rows[-1] + 1]))
        if end >= len(lines):
            break
        back = end  # overlap: up to two lines, at most an eighth of a chunk
        while back - 1 > start and end - back < 2 and size_of(back - 1, end) <= chunk_size // 8:
            back -= 1
        start = back
    return _unique_ids(chunks)


# --------------------------------------------------------------------------- helpers


def _lines(text: str) -> list[str]:
    """Lines as tree-sitter counts rows (on "\\n" only), without a trailing "\\r"."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def _trim(rows: list[int], lines: list[str]) -> list[int]:
    lo, hi = 0, len(rows)
    while lo < hi and not lines[rows[lo]].strip():
        lo += 1
    while hi > lo and not lines[rows[hi - 1]].strip():
        hi -= 1
    return rows[lo:hi]


def _broken(tree: Tree) -> bool:
    """Mostly unparsable (wrong language, garbage): line windows serve it better than a guessed structure."""
    root = tree.root_node
    if not root.named_child_count:
        return True
    if not root.has_error:
        return False
    size = root.end_byte - root.start_byte
    if root.type == "ERROR":  # a few tokens the grammar could not place (lz4.c: 3 bytes) can make the root one
        return sum(c.end_byte - c.start_byte for c in root.named_children if c.type != "ERROR") * 2 < size
    broken = sum(c.end_byte - c.start_byte for c in root.children if c.type == "ERROR")
    return broken * 2 > size


_GUARD_OPEN = re.compile(r'\s*extern\s+"C(?:\+\+)?"\s*\{\s*(?://.*|/\*.*\*/\s*)?')
_GUARD_CLOSE = re.compile(r"\s*\}\s*(?://.*|/\*.*\*/\s*)?")
_PREPROC_IF = re.compile(r"\s*#\s*if")
_PREPROC_END = re.compile(r"\s*#\s*(?:endif|else|elif)")


def _without_split_guards(lines: list[str]) -> str:
    """The text a C/C++ parser can read: a header's ``extern "C" {`` and its ``}`` each alone in an
    ``#ifdef __cplusplus`` block open a brace in one conditional and close it in another, which no
    grammar follows (the whole header parses as one error). Those lines become blanks of the same
    length, so every row and column stays where it was; and a label with a preprocessor line below it
    (``safe_decode:`` above ``#endif``) a statement of the same length."""
    out = list(lines)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for k, i in enumerate(filled):
        line = lines[i]
        if not (_GUARD_OPEN.fullmatch(line) or _GUARD_CLOSE.fullmatch(line)) or k == 0 or k + 1 == len(filled):
            continue
        if _PREPROC_IF.match(lines[filled[k - 1]]) and _PREPROC_END.match(lines[filled[k + 1]]):
            out[i] = " " * len(line)
    for k, i in enumerate(filled[:-1]):
        label = _LABEL.fullmatch(lines[i])
        if label and label[1] not in _NOT_LABELS and _PREPROC.match(lines[filled[k + 1]]):
            out[i] = lines[i][: label.start(2)] + ";" + lines[i][label.end(2) :]
    _blank_bare_macros(lines, filled, out)
    return "\n".join(out)


# `safe_decode:` right above `#endif` (lz4.c): a label needs a statement after it, and the grammar
# does not look past the directive, so the whole function fails to parse: the parser reads `safe_decode;`
_LABEL = re.compile(r"\s*([A-Za-z_]\w*)\s*(:)\s*(?://.*|/\*.*\*/\s*)?")
_NOT_LABELS = frozenset({"default", "public", "private", "protected"})
_PREPROC = re.compile(r"\s*#")


_BARE_MACRO = re.compile(r"\s*([A-Z][A-Z0-9_]*[A-Z0-9])\s*")
_STATEMENT_END = re.compile(r".*(?:[;{}:]|\*/)\s*(?://.*)?|\s*(?://.*|#.*[^\\\s]\s*|#\w+)")


def _blank_bare_macros(lines: list[str], filled: list[int], out: list[str]) -> None:
    """A macro that stands alone on its line between declarations (``CXXOPTS_NODISCARD`` above a
    method, ``CXXOPTS_DIAGNOSTIC_POP`` above ``namespace exceptions {``, ``Q_OBJECT``) expands to an
    attribute, a pragma or nothing; the grammar reads it as a type and the declaration after it goes
    wrong (the method is named ``std`` after its ``std::string`` return type, the namespace and its
    classes become one function). It becomes a comment of the same length (a blank when shorter than
    ``/**/``), which stays with the declaration below it as a comment does, where a statement ended
    on the line before (not an enumerator after a comma, nor a line a ``\\`` continues)."""
    for k, i in enumerate(filled):
        macro = _BARE_MACRO.fullmatch(lines[i])
        if not macro:
            continue
        before = lines[filled[k - 1]] if k else ";"
        after = lines[filled[k + 1]].lstrip() if k + 1 < len(filled) else ""
        if _STATEMENT_END.fullmatch(before) and not after.startswith((",", "}", "=", ";", "(", ")", "[", ".")):
            start, end = macro.span(1)
            name = "/*" + " " * (end - start - 4) + "*/" if end - start >= 4 else " " * (end - start)
            out[i] = lines[i][:start] + name + lines[i][end:]


def _end_row(node: Node) -> int:
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is None:
        body = next((c for c in reversed(node.named_children) if c.type in BODY_TYPES), None)
    return body


def _statements(body: Node) -> list[Node]:
    """The body's statements, looking through a lone wrapper (Go statement_list, Kotlin statements)."""
    kids = body.named_children
    if len(kids) == 1 and kids[0].named_child_count and kids[0].type in ("statement_list", "statements", "block"):
        return kids[0].named_children
    return kids


def _breaks(nodes: Iterable[Node], limit: int) -> list[Node]:
    """The nodes a part may begin at: ``nodes``, and within each longer than ``limit`` characters its
    own parts, down to those that fit (a method body wrapped in one ``try``, an ``if`` of 80 lines):
    a statement too long for one chunk is cut where a statement, clause or element inside it starts,
    not at whichever line fills the chunk."""
    out: list[Node] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        out.append(node)
        if node.end_byte - node.start_byte > limit:
            stack.extend(node.named_children)
    return out


def _is_docstring(node: Node) -> bool:
    """A statement that is a lone string: a Python module's docstring, JavaScript's ``'use strict'``."""
    return node.type == "string" or (
        node.type == "expression_statement" and [c.type for c in node.named_children] == ["string"]
    )


# a file's package line and import blocks, beside each language's own import statements (LanguageSpec.imports)
_PREAMBLE = frozenset({"package_header", "package_declaration", "package_clause", "import_list", "import_declaration"})
_FILE_SCOPED = frozenset({"file_scoped_namespace_declaration"})  # `namespace X;`: the rest of the file is its
# blocks whose statements are the file's own: a C header's `#ifndef GUARD` body, `extern "C" { … }`
_TRANSPARENT = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "linkage_specification"}
)


def _top_level(root: Node) -> list[Node]:
    """The file's statements, looking into preprocessor conditionals and linkage blocks: a header
    wrapped in an include guard is one node, and its declarations must still be where parts begin."""
    out: list[Node] = []
    stack = list(reversed(root.named_children))
    while stack:
        node = stack.pop()
        out.append(node)
        if node.type in _TRANSPARENT or (
            node.type == "declaration_list" and node.parent is not None and node.parent.type == "linkage_specification"
        ):
            stack.extend(reversed(node.named_children))
    return out


def _default_name(node: Node) -> str | None:
    """The name field (or first name-like child). A JS/TS member keyed by a number (mobx's error table
    `{ 37(method) {…} }`) is an entry of its table, named by no symbol: its lines stay the table's; one
    keyed by a string (`"quoted"() {…}`) is named by the string's content, as `obj.quoted` reads it."""
    name = node.child_by_field_name("name")
    if name is None:
        name = next((c for c in node.named_children if c.type in NAME_TYPES), None)
    if name is not None and name.type == "number":
        return None
    if name is not None and name.type == "string":
        return "".join(text_of(c) for c in name.named_children if c.type == "string_fragment") or None
    return text_of(name) or None


def _alone(node: Node) -> bool:
    """No sibling of the same type: `type (A struct{}; B int)` or `const a = ..., b = ...` keep their own lines."""
    siblings = node.parent.named_children if node.parent is not None else [node]
    return [c.type for c in siblings].count(node.type) == 1


_FILE_DOC = re.compile(r"@(?:file|fileoverview|overview|module|license|copyright|preserve)\b")  # a file's doc
_QUALIFIED = re.compile(r"^(.+?)\s*(?:\.|::|:|->)\s*([^.:>\s]+)$")


def _declares_field(node: Node) -> bool:
    """A constructor parameter that is also a field (TypeScript's parameter properties)."""
    return any(c.type == "accessibility_modifier" or c.type == "readonly" for c in node.children)


def _unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    """Identical chunks in one file (two `#endif` runs) get distinct but still stable ids."""
    seen: dict[str, int] = {}
    for chunk in chunks:
        n = seen.get(chunk.chunk_id, 0)
        seen[chunk.chunk_id] = n + 1
        if n:
            chunk.chunk_id = hashlib.blake2b(f"{chunk.chunk_id}#{n}".encode(), digest_size=10).hexdigest()
    return chunks


SMALL_PART = 4  # a part under a quarter of a chunk before a unit cut by lines takes that unit's first lines


def _pack(rows: list[int], starts: set[int], lines: list[str], limit: int, contiguous: bool) -> list[list[int]]:
    """Group rows into parts of at most ``limit`` characters, breaking only at statement starts.

    Units run from one statement start to the next; a unit longer than ``limit`` is cut by lines, its
    first lines filling the part before it when that part holds under ``1/SMALL_PART`` of ``limit``.
    With ``contiguous`` a part never spans a gap in ``rows`` (module code around a symbol).
    """
    units: list[list[int]] = []
    for r in rows:
        if units and r not in starts and r == units[-1][-1] + 1:
            units[-1].append(r)
        else:
            units.append([r])
    parts: list[list[int]] = []
    size = 0
    for unit in units:
        unit_size = sum(len(lines[r]) + 1 for r in unit)
        gap = bool(parts) and unit[0] != parts[-1][-1] + 1
        if parts and size + unit_size <= limit and not (gap and contiguous):
            parts[-1].extend(unit)
            size += unit_size
        elif unit_size <= limit:
            parts.append(list(unit))
            size = unit_size
        else:
            # a unit too long for one part is cut by lines, its first lines filling a small part before it
            # (a signature above a long docstring is no chunk of its own: ``def parse(self, timestr,``)
            if not parts or gap or size > limit // SMALL_PART:
                parts.append([])
                size = 0
            for r in unit:
                if parts[-1] and size + len(lines[r]) + 1 > limit:
                    parts.append([])
                    size = 0
                parts[-1].append(r)
                size += len(lines[r]) + 1
    return [p for p in (_trim(part, lines) for part in parts) if p]


# --------------------------------------------------------------------------- the analysis


@dataclass(eq=False)
class _Sym:
    node: Node  # the symbol's node
    outer: Node  # with its wrappers (export, decorators, typedef)
    name: str
    qualname: str
    kind: str
    container: _Sym | None  # enclosing symbol in the tree
    parent: str | None  # parent qualname (the container's, or the prefix of a dotted name)
    start: int = 0  # rows, 0-based inclusive; start includes attached leading comments
    end: int = 0
    header_end: int = 0
    parts: list[tuple[list[int], Chunk]] = field(default_factory=list)  # (rows, chunk)
    bases: list[str] = field(default_factory=list)  # extends/implements targets, as written
    types: dict[str, str] = field(default_factory=dict)  # name -> type, as its parameters/fields write them
    factory: bool = False  # a module-level name a call assigns (no chunk of its own)
    test: bool = False  # test code inside a code file: marked so (`LanguageSpec.test_attributes`) or held by such


@dataclass
class _Analysis:
    source: str
    lines: list[str]
    language: str
    source_type: str
    chunk_size: int
    spec: LanguageSpec
    symbols: list[_Sym] = field(default_factory=list)
    # entities without chunks of their own: functions nested in functions (closures, inner defs) and
    # module-level names assigned a factory's result (`var camelCase = createCompounder(...)`)
    inner: list[_Sym] = field(default_factory=list)
    attached_rows: set[int] = field(default_factory=set)
    doc_blocks: dict[int, int] = field(default_factory=dict)  # last row -> first row of a `/** … */` comment
    # owner, relation, target, row, receiver as written
    facts: list[tuple[_Sym | None, str, str, int, str]] = field(default_factory=list)
    # a C# `namespace X;` by the id of the node whose later children it holds
    file_scopes: dict[int, _Sym] = field(default_factory=dict)

    def run(self, roots: list[Node]) -> CodeAnalysis:
        for root in roots:
            self._walk(root)
        children: dict[_Sym | None, list[_Sym]] = defaultdict(list)
        for sym in self.symbols:
            children[sym.container].append(sym)
        self._attach_leading_lines(children)
        chunks = self._module_chunks([n for root in roots for n in _top_level(root)], children[None])
        for sym in self.symbols:
            chunks.extend(self._symbol_chunks(sym, children[sym]))
        chunks.sort(key=lambda c: (c.start_line, -c.end_line))
        _unique_ids(chunks)
        module_parts = [
            (list(range(c.start_line - 1, c.end_line)), c)
            for c in chunks
            if c.symbol_type == "module" and c.symbol_name is None
        ]
        symbols = [
            Symbol(s.name, s.qualname, s.kind, self.source, s.parts[0][1].chunk_id, s.start + 1, s.end + 1)
            for s in self.symbols
            if s.parts
        ]
        for s in self.inner:
            chunk_id = self._chunk_at(s.container, s.node.start_point[0], module_parts)
            if chunk_id:
                symbols.append(Symbol(s.name, s.qualname, s.kind, self.source, chunk_id, s.start + 1, s.end + 1))
        return CodeAnalysis(chunks, symbols, self._relations(module_parts, chunks))

    # ---------------------------------------------------------------- one walk

    def _walk(self, root: Node) -> None:
        spec = self.spec
        stack: list[tuple[Node, _Sym | None]] = [(root, None)]
        while stack:
            node, owner = stack.pop()
            kind = node.type
            if owner is None and self.file_scopes and kind in spec.symbols and node.parent is not None:
                scope = self.file_scopes.get(node.parent.id)
                owner = scope if scope is not None and node.start_byte >= scope.node.end_byte else None
            if kind in spec.attached:
                self._mark_attached(node)
                if "comment" in kind:
                    continue
            # a named function inside `var x = make(...)` is chunked as if x were not an entity
            chunked = owner.container if owner is not None and owner.factory else owner
            if kind in spec.symbols and (chunked is None or chunked.kind not in FUNCTION_KINDS):
                sym = self._symbol(node, chunked)
                if sym is not None:
                    if owner is not None and owner.factory and owner.qualname == sym.qualname:
                        self._claim(owner, sym)
                    self.symbols.append(sym)
                    self._alias(node, sym)
                    owner = sym
                    if kind in _FILE_SCOPED:
                        self._scope_rest_of_file(sym)
                    if sym.kind not in FUNCTION_KINDS:
                        for relation, target in base_relations(node, spec, sym.kind):
                            self.facts.append((sym, relation, target, node.start_point[0], ""))
                            sym.bases.append(target)
                        for target, line in mixins(node, spec):
                            self.facts.append((sym, "extends", target, line, ""))
                            sym.bases.append(target)
            elif kind in spec.symbols or (kind in spec.factories and owner is None):
                sym = self._inner_symbol(node, owner)
                if sym is not None:
                    self.inner.append(sym)
                    owner = sym
            if kind in TYPED_DECLARATIONS and owner is not None:
                fields = owner.container if _declares_field(node) else None  # TS `constructor(private s: S)`
                scopes = [owner] if fields is None else [owner, fields]
                for name, type_name in typed_names(node):
                    for scope in scopes:
                        scope.types.setdefault(name, type_name)
            if kind in spec.calls:
                self._call(node, owner)
            elif kind in spec.imports:
                for target in import_targets(node, spec):
                    self.facts.append((owner, "imports", target, node.start_point[0], ""))
            stack.extend((child, owner) for child in reversed(node.named_children))

    def _scope_rest_of_file(self, sym: _Sym) -> None:
        """C#'s file-scoped ``namespace Python.Runtime;`` holds the declarations after it, which the
        grammar gives as its siblings: they are its members (``Python.Runtime.Py``, as a block-scoped
        namespace's are), and its extent runs to the end of its parent, its header staying its line."""
        parent = sym.node.parent
        if parent is None or not parent.named_child_count:
            return
        self.file_scopes[parent.id] = sym
        sym.header_end = sym.end
        sym.end = max(sym.end, _end_row(parent.named_children[-1]))

    def _claim(self, made: _Sym, sym: _Sym) -> None:
        """`var tap = _curry2(function tap(…) {…})`: the function is the factory-made name's own, with
        a chunk; the calls seen so far in the declaration (`_curry2(…)`) are its calls."""
        self.inner.remove(made)
        self.facts = [(sym if o is made else o, r, t, row, w) for o, r, t, row, w in self.facts]

    def _alias(self, node: Node, sym: _Sym) -> None:
        """A function named by what it is assigned to keeps its own name as a second entity in its
        chunk (`isArrayLike` of `var _isArrayLike = _curry1(function isArrayLike(x) {…})`)."""
        own = own_alias(node, sym.name)
        if own is not None:
            alias = _Sym(node, node, own, f"{sym.parent}.{own}" if sym.parent else own, "function", sym, sym.parent)
            alias.start, alias.end = sym.start, sym.end
            self.inner.append(alias)

    def _mark_attached(self, node: Node) -> None:
        row, column = node.start_point
        line = self.lines[row]
        if len(line) - len(line.lstrip()) == column:  # starts its line: not a trailing comment
            end = _end_row(node)
            self.attached_rows.update(range(row, end + 1))
            if line.lstrip().startswith("/**") and not _FILE_DOC.search(text_of(node)):
                self.doc_blocks[end] = row

    def _call(self, node: Node, owner: _Sym | None) -> None:
        parent = node.parent
        if parent is not None and parent.type in self.spec.headers and node.prev_named_sibling is None:
            return
        name = callee(node, self.spec)
        if name is None:
            return
        if name in self.spec.import_calls:
            target = import_call_target(node, self.spec)
            if target:
                self.facts.append((owner, "imports", target, node.start_point[0], ""))
            return
        self.facts.append((owner, "calls", name, node.start_point[0], call_receiver(node, self.spec)))

    def _inner_symbol(self, node: Node, owner: _Sym | None) -> _Sym | None:
        """A function nested in a function, or a module-level name a factory call assigns: an entity
        (calls inside it are its own) that lives in the chunk around it."""
        if node.type in self.spec.factories:
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is None or name.type != "identifier" or value is None or value.type not in self.spec.calls:
                return None
            if value.type == "new_expression" or callee(value, self.spec) in self.spec.import_calls:
                return None  # an object (`new Logger()`) or a module (`require(...)`), not a function
            made = _Sym(node, node, text_of(name), text_of(name), "function", None, None, factory=True)
            made.start, made.end = node.start_point[0], _end_row(node)
            return made
        nested = self._symbol(node, owner)
        if nested is None or nested.kind not in FUNCTION_KINDS:
            return None
        nested.kind = "function"
        return nested

    def _chunk_at(self, container: _Sym | None, row: int, module_parts: list[tuple[list[int], Chunk]]) -> str | None:
        """The chunk holding ``row`` of the nearest enclosing symbol that has chunks (or of the module)."""
        while container is not None and not container.parts:
            container = container.container
        parts = container.parts if container is not None else module_parts
        return next((c.chunk_id for rows, c in parts if row in rows), parts[0][1].chunk_id if parts else None)

    def _symbol(self, node: Node, owner: _Sym | None) -> _Sym | None:
        spec, kind_of = self.spec, self.spec.symbols[node.type]
        kind = kind_of(node) if callable(kind_of) else kind_of
        body = _body(node)
        if body is None and (kind in FUNCTION_KINDS or node.type in spec.needs_body):
            return None  # a declaration without a body (interface method, forward struct) stays in its parent
        namer = spec.namers.get(node.type)
        raw = namer(node) if namer else _default_name(node)
        if not raw:
            return None
        name = " ".join(raw.split())
        parent = owner.qualname if owner is not None else None
        qualified = _QUALIFIED.match(name) if kind in FUNCTION_KINDS else None
        if qualified:  # Lua `Cart:add`, C++ `Circle::area`, Go `Cart.Add`: a method of the prefix
            prefix, name = re.sub(r"\s*(?:::|:|->)\s*", ".", qualified.group(1)), qualified.group(2)
            parent = f"{parent}.{prefix}" if parent else prefix
            kind = "method"
        elif kind == "function" and owner is not None and owner.kind != "module":
            kind = "method"
        outer = node
        while outer.parent is not None and outer.parent.type in spec.wrappers and _alone(outer):
            outer = outer.parent
        sym = _Sym(node, outer, name, f"{parent}.{name}" if parent else name, kind, owner, parent)
        sym.start, sym.end = outer.start_point[0], _end_row(outer)
        sym.test = (owner is not None and owner.test) or self._marked_test(outer)
        if body is None:
            sym.header_end = sym.end
        elif body.child_count and body.children[0].type == "{":
            sym.header_end = body.start_point[0]
        else:  # indentation or keyword blocks: the header ends above the first statement
            sym.header_end = max(node.start_point[0], body.start_point[0] - 1)
        return sym

    def _marked_test(self, node: Node) -> bool:
        """Whether an attribute among the lines right above ``node`` makes it test code."""
        pattern = self.spec.test_attributes
        return pattern is not None and any(pattern.match(text) for text in attributes_above(node, self.spec))

    # ---------------------------------------------------------------- chunks

    def _attach_leading_lines(self, children: dict[_Sym | None, list[_Sym]]) -> None:
        """Comment/attribute lines right above a symbol (no blank line between) become part of it, and
        so does a doc comment (``/** … */``, not a file's own) with only blank lines below it, as
        express and other JavaScript write them: the function's chunk holds its documentation."""
        for container, group in children.items():
            floor = container.node.start_point[0] if container is not None else -1
            for sym in group:
                while sym.start - 1 > floor and sym.start - 1 in self.attached_rows:
                    sym.start -= 1
                above = sym.start - 1
                while above > floor and not self.lines[above].strip():
                    above -= 1
                if above < sym.start - 1 and above > floor and above in self.doc_blocks:
                    sym.start = self.doc_blocks[above]
                floor = max(floor, sym.end)

    def _starts(self, nodes: Iterable[Node], nested: list[_Sym]) -> set[int]:
        """Rows where a part may begin: statement starts, but never right under a leading comment."""
        starts = {n.start_point[0] for n in nodes}
        for child in nested:
            starts.update((child.start, child.outer.start_point[0]))
        return {r for r in starts if r - 1 not in self.attached_rows}

    def _module_chunks(self, statements: list[Node], top: list[_Sym]) -> list[Chunk]:
        covered: set[int] = set()
        for sym in top:
            covered.update(range(sym.start, sym.end + 1))
        rows = [r for r in range(len(self.lines)) if r not in covered]
        starts = self._starts(_breaks(statements, self.chunk_size), top)
        cut = self._after_preamble(statements)
        if sum(len(self.lines[r]) + 1 for r in rows if r < cut) < self.chunk_size // 4:
            cut = len(self.lines)  # a few imports drown nothing: they stay with the code below them
        parts = [
            part
            for run in ([r for r in rows if r < cut], [r for r in rows if r >= cut])
            if run
            for part in _pack(run, starts, self.lines, self.chunk_size, contiguous=True)
        ]
        return [self._chunk(part, None, "module", None) for part in parts]

    def _after_preamble(self, statements: list[Node]) -> int:
        """The row where the file's code after its package and import lines begins (with the comment
        right above it), when module code follows them: there a module part begins (when the lines
        above hold a quarter of a chunk or more), so a constant declared after the imports (Kotlin's
        ``private val DEFAULT_DEBOUNCE = 100.milliseconds``) is not one chunk with twenty imports.
        The file's length when nothing follows them."""
        seen_preamble = False
        for node in statements:
            if node.type in self.spec.attached or _is_docstring(node):
                continue
            if node.type in self.spec.imports or node.type in _PREAMBLE:
                seen_preamble = True
                continue
            if not seen_preamble:
                break
            row = node.start_point[0]
            while row - 1 in self.attached_rows:
                row -= 1
            return row
        return len(self.lines)

    def _symbol_chunks(self, sym: _Sym, nested: list[_Sym]) -> list[Chunk]:
        covered: set[int] = set()
        signatures: set[int] = set()
        for child in nested:
            covered.update(range(child.start, child.end + 1))
            signatures.update(range(child.outer.start_point[0], child.header_end + 1))
        rows = [r for r in range(sym.start, sym.end + 1) if r not in covered or r in signatures or r <= sym.header_end]
        body = _body(sym.node)
        starts = self._starts(_breaks(_statements(body), self.chunk_size) if body is not None else (), nested)
        starts.add(sym.header_end + 1)
        chunks = []
        for part in _pack(rows, starts, self.lines, self.chunk_size, contiguous=False):
            chunks.append(self._chunk(part, sym.name, sym.kind, sym.parent, sym.test))
            sym.parts.append((part, chunks[-1]))
        return chunks

    def _chunk(self, rows: list[int], name: str | None, kind: str, parent: str | None, test: bool = False) -> Chunk:
        return Chunk(
            source=self.source,
            source_type="test" if test and self.source_type == "code" else self.source_type,
            language=self.language,
            start_line=rows[0] + 1,
            end_line=rows[-1] + 1,
            text="\n".join(self.lines[r] for r in rows),
            symbol_name=name,
            symbol_type=kind,
            parent_symbol=parent,
        )

    # ---------------------------------------------------------------- relations

    def _relations(self, module_parts: list[tuple[list[int], Chunk]], chunks: list[Chunk]) -> list[Relation]:
        """Facts with their chunk: the part of the owner holding the line, deduped per owner."""
        seen: set[tuple[str, str, str]] = set()
        out: list[Relation] = []
        fallback = chunks[0].chunk_id if chunks else ""
        for owner, relation, target, row, receiver in self.facts:
            source_id = f"{self.source}::{owner.qualname}" if owner is not None else self.source
            types: tuple[str, ...] = ()
            if relation == "calls":
                target, types = self._typed_call(owner, target, receiver)
                if not target:
                    continue
            key = (source_id, relation, target)
            if key in seen:
                continue
            seen.add(key)
            chunk_id = self._chunk_at(owner, row, module_parts) or fallback
            out.append(Relation(source_id, relation, target, chunk_id, types))
        return out

    def _typed_call(self, owner: _Sym | None, target: str, receiver: str) -> tuple[str, tuple[str, ...]]:
        """A call's target and the types its receiver has as the file writes them: `super(...)` is a
        call of the class's base; `this.f()` looks in the class and its bases; `s.f()` in the type of
        a parameter, local or field `s`; `this.dest.f()` in the type of the field `dest`."""
        cls = owner
        while cls is not None and cls.kind in FUNCTION_KINDS:
            cls = cls.container
        bases = cls.bases if cls is not None else []
        if target in ("super", "base"):  # a constructor's call of its parent's
            return (bases[0], ()) if bases else ("", ())
        if receiver == "super":
            return target, tuple(bases)
        if not receiver:
            return target, ()
        if receiver in SELF_WORDS:
            return target, (cls.name, *bases) if cls is not None else ()
        head, _, field_name = receiver.replace("->", ".").partition(".")  # PHP's $this->field
        if field_name and head in SELF_WORDS:
            found = cls.types.get(field_name) if cls is not None else None
            return target, (found,) if found else ()
        scope = owner
        while scope is not None:  # the innermost declaration of the name: parameters, locals, then fields
            if receiver in scope.types:
                return target, (scope.types[receiver],)
            scope = scope.container
        return target, ()
