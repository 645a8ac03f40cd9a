"""Tree-sitter code chunking on one real sample file per language, plus splitting and fallbacks."""

from __future__ import annotations

import itertools
import re
import threading

import pytest
from workspace_fixture import FIXTURES

from agent_brain_lab.engine.chunking.code import CodeAnalysis, analyze_code, chunk_lines

SAMPLES = FIXTURES / "code_samples"

# language -> (file, {qualname: (kind, start_line, end_line)}) for every symbol the file defines
EXPECTED_SYMBOLS = {
    "python": (
        "sample.py",
        {
            "helper": ("function", 10, 12),
            "Item": ("class", 15, 33),
            "Item.__init__": ("method", 22, 24),
            "Item.total": ("method", 26, 28),
            "Item.save": ("method", 30, 33),
        },
    ),
    "javascript": (
        "sample.js",
        {
            "addTax": ("function", 7, 12),
            "round": ("function", 14, 14),
            "Cart": ("class", 16, 30),
            "Cart.constructor": ("method", 17, 20),
            "Cart.add": ("method", 22, 25),
            "Cart.total": ("method", 27, 29),
        },
    ),
    "typescript": (
        "sample.ts",
        {
            "Shape": ("interface", 4, 6),
            "Named": ("interface", 8, 10),
            "Point": ("type", 12, 12),
            "Color": ("enum", 14, 17),
            "Circle": ("class", 19, 34),
            "Circle.constructor": ("method", 23, 25),
            "Circle.area": ("method", 27, 29),
            "Circle.describe": ("method", 31, 33),
            "Geometry": ("module", 36, 40),
            "Geometry.unit": ("function", 37, 39),
        },
    ),
    "tsx": (
        "sample.tsx",
        {
            "CounterProps": ("interface", 4, 6),
            "Counter": ("function", 8, 11),
            "Label": ("function", 13, 13),
            "Panel": ("class", 15, 19),
            "Panel.render": ("method", 16, 18),
        },
    ),
    "java": (
        "Sample.java",
        {
            "Sample": ("class", 6, 30),
            "Sample.Sample": ("method", 12, 14),
            "Sample.add": ("method", 16, 21),
            "Sample.compareTo": ("method", 23, 25),
            "Sample.Entry": ("class", 27, 29),
            "Store": ("interface", 32, 34),
            "Status": ("enum", 36, 39),
        },
    ),
    "go": (
        "sample.go",
        {
            "Cart": ("struct", 13, 17),
            "Store": ("interface", 19, 22),
            "Cart.Add": ("method", 24, 28),
            "NewCart": ("function", 30, 32),
            "main": ("function", 34, 38),
        },
    ),
    "rust": (
        "sample.rs",
        {
            "Point": ("struct", 7, 12),
            "Shape": ("enum", 14, 17),
            "Area": ("trait", 19, 21),
            "Point.new": ("method", 24, 26),
            "Point.norm": ("method", 28, 30),
            "Point.fmt": ("method", 34, 36),
            "util": ("module", 39, 43),
            "util.double": ("function", 40, 42),
            "main": ("function", 45, 49),
        },
    ),
    "c": (
        "sample.c",
        {
            "cart": ("struct", 6, 10),
            "point": ("struct", 12, 15),
            "color": ("enum", 17, 17),
            "cart_add": ("function", 19, 24),
            "main": ("function", 26, 32),
        },
    ),
    "cpp": (
        "sample.cpp",
        {
            "geo": ("module", 4, 35),
            "geo.Shape": ("class", 6, 11),
            "geo.Circle": ("class", 13, 23),
            "geo.Circle.Circle": ("method", 15, 15),
            "geo.Circle.area": ("method", 17, 19),
            "geo.Box": ("struct", 25, 27),
            "geo.Circle_total": ("function", 29, 33),
            "main": ("function", 37, 41),
        },
    ),
    "csharp": (
        "Sample.cs",
        {
            "Shop.Models": ("module", 4, 36),
            "Shop.Models.Cart": ("class", 6, 23),
            "Shop.Models.Cart.Add": ("method", 13, 17),
            "Shop.Models.Cart.Dispose": ("method", 19, 22),
            "Shop.Models.IStore": ("interface", 25, 28),
            "Shop.Models.Point": ("struct", 30, 33),
            "Shop.Models.Status": ("enum", 35, 35),
        },
    ),
    "ruby": (
        "sample.rb",
        {
            "Shop": ("module", 4, 23),
            "Shop.Cart": ("class", 6, 22),
            "Shop.Cart.initialize": ("method", 10, 12),
            "Shop.Cart.add": ("method", 14, 17),
            "Shop.Cart.build": ("method", 19, 21),
            "helper": ("function", 25, 27),
        },
    ),
    "php": (
        "sample.php",
        {
            "Cart": ("class", 10, 27),
            "Cart.add": ("method", 17, 21),
            "Cart.count": ("method", 23, 26),
            "Store": ("interface", 29, 32),
            "Loggable": ("trait", 34, 40),
            "Loggable.log": ("method", 36, 39),
            "helper": ("function", 42, 45),
        },
    ),
    "kotlin": (
        "sample.kt",
        {
            "Cart": ("class", 8, 20),
            "Cart.add": ("method", 12, 15),
            "Cart.Companion": ("object", 17, 19),
            "Cart.Companion.empty": ("method", 18, 18),
            "Store": ("interface", 22, 24),
            "Registry": ("object", 26, 28),
            "helper": ("function", 30, 32),
        },
    ),
    "swift": (
        "sample.swift",
        {
            "Cart": ("class", 6, 18),
            "Cart.init": ("method", 10, 12),
            "Cart.add": ("method", 14, 17),
            "Store": ("interface", 20, 22),
            "Point": ("struct", 24, 26),
            "Status": ("enum", 28, 31),
            "Cart.clear": ("method", 34, 36),
            "helper": ("function", 39, 41),
        },
    ),
    "scala": (
        "sample.scala",
        {
            "Cart": ("class", 6, 14),
            "Cart.add": ("method", 10, 13),
            "Store": ("trait", 16, 18),
            "Cart.empty": ("method", 21, 21),
            "Point": ("class", 24, 24),
            "helper": ("function", 26, 26),
        },
    ),
    "r": ("sample.R", {"scale_values": ("function", 6, 10), "normalize": ("function", 12, 14)}),
    "julia": (
        "sample.jl",
        {
            "Shapes": ("module", 1, 21),
            "Shapes.Shape": ("type", 8, 8),
            "Shapes.Circle": ("struct", 10, 13),
            "Shapes.area": ("function", 15, 17),
        },
    ),
    "lua": (
        "sample.lua",
        {"Cart.new": ("method", 8, 10), "Cart.add": ("method", 12, 14), "helper": ("function", 16, 18)},
    ),
    "bash": ("sample.sh", {"greet": ("function", 7, 12), "cleanup": ("function", 14, 16)}),
    "sql": (
        "sample.sql",
        {
            "customers": ("table", 1, 5),
            "orders": ("table", 7, 11),
            "big_orders": ("view", 13, 15),
            "order_total": ("function", 17, 19),
        },
    ),
}
# symbols sharing a qualname with another one in the same file (Rust impl blocks, Swift extensions, Scala companions)
EXTRA_SYMBOLS = {
    "rust": {("Point", "impl", 23, 31), ("Point", "impl", 33, 37)},
    "swift": {("Cart", "extension", 33, 37)},
    "scala": {("Cart", "object", 20, 22)},
    "python": {("Item.save.inner", "function", 31, 32)},  # nested in a function: an entity, in its chunk
    "csharp": {("Shop.Models.Cart.Count", "method", 11, 11)},  # `int Count => _items.Count;` runs code
}


def analyze(language: str, chunk_size: int = 1500) -> tuple[CodeAnalysis, list[str]]:
    name = EXPECTED_SYMBOLS[language][0]
    text = (SAMPLES / name).read_text()
    return analyze_code(name, text, language, "code", chunk_size), text.split("\n")


def assert_lines_faithful(chunks, lines):
    """Every chunk's text is file lines, in order, starting and ending on its line range."""
    for c in chunks:
        assert c.text.strip(), "blank chunk"
        text_lines = c.text.split("\n")
        assert text_lines[0] == lines[c.start_line - 1] and text_lines[-1] == lines[c.end_line - 1]
        window = iter(lines[c.start_line - 1 : c.end_line])
        assert all(any(t == w for w in window) for t in text_lines), f"not a subsequence: {c.start_line}"


def covered_lines(chunks, lines):
    covered = set()
    for c in chunks:
        rows = iter(range(c.start_line, c.end_line + 1))
        for t in c.text.split("\n"):
            covered.add(next(r for r in rows if lines[r - 1] == t))
    return covered


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_sample_symbols_chunks_and_coverage(language):
    analysis, lines = analyze(language)
    got = {(s.qualname, s.kind, s.start_line, s.end_line) for s in analysis.symbols}
    want = {(q, *v) for q, v in EXPECTED_SYMBOLS[language][1].items()} | EXTRA_SYMBOLS.get(language, set())
    assert got == want

    by_id = {c.chunk_id: c for c in analysis.chunks}
    assert len(by_id) == len(analysis.chunks), "chunk ids must be unique"
    for sym in analysis.symbols:
        chunk = by_id[sym.chunk_id]
        if chunk.qualified_symbol != sym.qualname:  # a function nested in a function lives in its chunk
            assert sym.qualname.startswith(f"{chunk.qualified_symbol}.")
            assert chunk.start_line <= sym.start_line <= sym.end_line <= chunk.end_line
            continue
        assert chunk.qualified_symbol == sym.qualname and chunk.symbol_type == sym.kind
        assert chunk.start_line == sym.start_line
        if sym.kind in ("function", "method"):  # leaf symbols: the exact lines of the file
            assert chunk.text == "\n".join(lines[sym.start_line - 1 : sym.end_line])
        assert all(c.language == language and c.source_type == "code" for c in analysis.chunks)

    assert_lines_faithful(analysis.chunks, lines)
    non_blank = {i + 1 for i, line in enumerate(lines) if line.strip()}
    assert non_blank <= covered_lines(analysis.chunks, lines)
    for c in analysis.chunks:
        if c.symbol_name is None:
            assert c.symbol_type == "module" and c.parent_symbol is None


def test_parents_and_symbol_fields():
    analysis, _ = analyze("python")
    chunks = {c.qualified_symbol: c for c in analysis.chunks if c.symbol_name}
    assert chunks["Item.save"].symbol_name == "save" and chunks["Item.save"].parent_symbol == "Item"
    assert chunks["Item"].parent_symbol is None and chunks["helper"].symbol_type == "function"
    # decorators and the comment right above belong to the symbol
    assert chunks["Item"].text.startswith("# A stock item kept in memory.\n@dataclass_like\nclass Item(")
    assert chunks["Item.total"].text.startswith("    @property\n    def total(self):")
    # nested functions stay inside their function
    assert "def inner():" in chunks["Item.save"].text and "Item.save.inner" not in chunks


def test_class_chunk_keeps_signatures_not_method_bodies():
    analysis, _ = analyze("python")
    item = next(c for c in analysis.chunks if c.symbol_name == "Item")
    assert '"""An item with a price."""' in item.text and 'currency = "EUR"' in item.text
    assert "    def __init__(self, name, price):" in item.text and "    def save(self):" in item.text
    assert "self.price = price" not in item.text and "compute_tax" not in item.text
    java, _ = analyze("java")
    cls = next(c for c in java.chunks if c.symbol_name == "Sample" and c.symbol_type == "class")
    assert (
        "private final List<String> items" in cls.text
        and "    @Override\n    public void add(String item) {" in cls.text
    )
    assert "log(item);" not in cls.text and cls.text.endswith("\n}")


def test_module_level_code_merged_into_windows():
    analysis, lines = analyze("python")
    module = [c for c in analysis.chunks if c.symbol_type == "module"]
    assert [(c.start_line, c.end_line) for c in module] == [(1, 7), (36, 37)]
    assert "import os.path" in module[0].text and "LIMIT = 10" in module[0].text  # statements merged
    small, _ = analyze("python", chunk_size=60)
    heads = [c for c in small.chunks if c.symbol_type == "module" and c.start_line < 10]
    assert len(heads) > 1 and all(len(c.text) <= 60 for c in heads)
    assert heads[0].text == lines[0]  # the module docstring alone: the import would overflow it


def oversized_source(n: int = 40) -> str:
    body = "\n".join(f"    total_{i} = compute_{i}(value, {i})" for i in range(n))
    return f'import math\n\n\ndef big(value):\n    """Lots of steps."""\n{body}\n    return total_0\n'


def test_oversized_symbol_split_on_statement_boundaries():
    text = oversized_source()
    lines = text.split("\n")
    analysis = analyze_code("big.py", text, "python", "code", 300)
    parts = [c for c in analysis.chunks if c.symbol_name == "big"]
    assert len(parts) > 3
    assert all(c.symbol_type == "function" and c.parent_symbol is None for c in parts)
    assert all(len(c.text) <= 300 for c in parts)
    assert parts[0].text.startswith("def big(value):")
    assert [c.start_line for c in parts[1:]] == [c.end_line + 1 for c in parts[:-1]]  # contiguous, no gaps
    assert parts[-1].end_line == lines.index("    return total_0") + 1
    for c in parts:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    symbol = next(s for s in analysis.symbols if s.name == "big")
    assert symbol.chunk_id == parts[0].chunk_id and (symbol.start_line, symbol.end_line) == (4, 46)
    # a call made in a later part is tied to that part
    call = next(r for r in analysis.relations if r.target == "compute_39")
    assert call.chunk_id == parts[-1].chunk_id


def test_multiline_statement_is_not_cut_when_it_fits():
    stmt = "    result = combine(\n" + "".join(f"        arg_{i},\n" for i in range(6)) + "    )\n"
    text = "def f():\n" + stmt * 4 + "    return result\n"
    analysis = analyze_code("f.py", text, "python", "code", 200)
    for c in analysis.chunks:
        first = c.text.split("\n")[0]
        assert first.startswith(("def f", "    result = combine(", "    return")), first


def test_stable_ids_when_lines_move():
    text = (SAMPLES / "sample.py").read_text()
    before = analyze_code("sample.py", text, "python", "code", 1500)
    after = analyze_code("sample.py", "# new header line\n\n" + text, "python", "code", 1500)
    ids = lambda a: {c.qualified_symbol: c.chunk_id for c in a.chunks if c.symbol_name}  # noqa: E731
    assert ids(before) == ids(after)
    assert {c.chunk_id for c in before.chunks} == {c.chunk_id for c in analyze("python")[0].chunks}


def test_duplicate_module_text_gets_distinct_ids():
    text = "#ifdef A\nint a;\n#endif\nint f(void) { return 1; }\n#ifdef A\nint a;\n#endif\n"
    analysis = analyze_code("d.c", text, "c", "code", 1500)
    module = [c for c in analysis.chunks if c.symbol_type == "module"]
    assert len(module) == 2 and module[0].text == module[1].text
    assert module[0].chunk_id != module[1].chunk_id


def test_crlf_lines():
    text = (SAMPLES / "sample.py").read_text().replace("\n", "\r\n")
    analysis = analyze_code("sample.py", text, "python", "code", 1500)
    helper = next(c for c in analysis.chunks if c.symbol_name == "helper")
    assert helper.text == 'def helper(value):\n    """Double a value."""\n    return os.path.join(str(value), "x")'


def test_language_aliases_and_case():
    text = (SAMPLES / "Sample.cs").read_text()
    for language in ("c#", "C_Sharp", "cs"):
        analysis = analyze_code("Sample.cs", text, language, "code", 1500)
        assert "Shop.Models.Cart.Add" in {s.qualname for s in analysis.symbols}


def test_syntax_error_keeps_the_rest():
    text = "def good():\n    return 1\n\n\ndef bad(:\n    pass\n\n\ndef also_good():\n    return good()\n"
    analysis = analyze_code("e.py", text, "python", "code", 1500)
    names = {s.name for s in analysis.symbols}
    assert {"good", "also_good"} <= names
    assert {i + 1 for i, l in enumerate(text.split("\n")) if l.strip()} <= covered_lines(
        analysis.chunks, text.split("\n")
    )


# --------------------------------------------------------------------------- fallback


def test_fallback_unknown_language_line_windows():
    lines = [f"key_{i}: value number {i}" for i in range(200)]
    text = "\n".join(lines) + "\n"
    analysis = analyze_code("conf.yaml", text, "yaml", "code", 300)
    assert analysis.symbols == [] and analysis.relations == []
    chunks = analysis.chunks
    assert chunks == chunk_lines("conf.yaml", text, "yaml", "code", 300)
    assert len(chunks) > 10 and all(len(c.text) <= 300 for c in chunks)
    assert all(c.symbol_name is None and c.language == "yaml" for c in chunks)
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 200
    assert all(b.start_line <= a.end_line + 1 for a, b in itertools.pairwise(chunks))  # no gaps
    assert any(b.start_line <= a.end_line for a, b in itertools.pairwise(chunks))  # small overlap
    assert all(b.start_line > a.start_line for a, b in itertools.pairwise(chunks))  # always progresses


def test_fallback_for_garbage_and_minified():
    garbage = "\n".join(")))) ((( }}} {{ ;;; ]]] " * 3 for _ in range(30))
    analysis = analyze_code("weird.py", garbage, "python", "code", 500)
    assert analysis.symbols == [] and analysis.chunks and all(c.symbol_type is None for c in analysis.chunks)
    minified = "function a(){return 1}" * 500
    analysis = analyze_code("app.min.js", minified, "javascript", "code", 1000)
    assert analysis.symbols == []
    assert "".join(c.text for c in analysis.chunks) == minified
    assert all(len(c.text) <= 1000 and c.start_line == 1 for c in analysis.chunks)


def test_blank_input_gives_nothing():
    assert analyze_code("e.py", "  \n\n", "python", "code", 1500).chunks == []
    assert chunk_lines("e.txt", "\n\n  \n", "text", "code", 1500) == []


def test_parsers_are_safe_across_threads():
    text = (SAMPLES / "sample.rs").read_text()
    expected = [c.chunk_id for c in analyze_code("s.rs", text, "rust", "code", 1500).chunks]
    results, errors = [], []

    def run():
        try:
            for _ in range(20):
                results.append([c.chunk_id for c in analyze_code("s.rs", text, "rust", "code", 1500).chunks])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 60 and all(r == expected for r in results)


def test_split_keeps_doc_comments_with_their_statement():
    props = "".join(
        f"  /** The {i}th option{'!' * (i % 7)} */\n  option{i}: {'string' * (i % 3 + 1)};\n" for i in range(30)
    )
    text = f"export interface Options {{\n{props}}}\n"
    analysis = analyze_code("o.ts", text, "typescript", "code", 200)
    parts = [c for c in analysis.chunks if c.symbol_name == "Options"]
    assert len(parts) > 3 and all(c.symbol_type == "interface" for c in parts)
    for part in parts[1:]:
        assert part.text.startswith("  /** The "), part.text.split("\n")[0]


def test_grouped_declarations_keep_their_own_lines():
    go = analyze_code("x.go", "package x\n\ntype (\n\tA struct{ x int }\n\tB interface{ F() }\n)\n", "go", "code", 1500)
    assert {(s.qualname, s.kind, s.start_line, s.end_line) for s in go.symbols} == {
        ("A", "struct", 4, 4),
        ("B", "interface", 5, 5),
    }
    js = analyze_code(
        "x.js",
        "const a = () => 1,\n  b = function () { return 2; };\nexport default function main() {}\n",
        "javascript",
        "code",
        1500,
    )
    assert {(s.qualname, s.start_line, s.end_line) for s in js.symbols} == {("a", 1, 1), ("b", 2, 2), ("main", 3, 3)}


def test_identical_symbol_chunks_keep_symbols_pointing_at_their_own_chunk():
    body = "int f(void)\n{\n    return g();\n}\n"
    text = f"#ifdef A\n{body}#else\n{body}#endif\n"
    analysis = analyze_code("v.c", text, "c", "code", 1500)
    fs = [s for s in analysis.symbols if s.name == "f"]
    chunks = {c.chunk_id: c for c in analysis.chunks}
    assert len(fs) == 2 and fs[0].chunk_id != fs[1].chunk_id
    assert [chunks[s.chunk_id].start_line for s in fs] == [s.start_line for s in fs]
    assert all(r.chunk_id in chunks for r in analysis.relations)


def test_a_doc_comment_above_a_blank_line_is_its_symbols():
    """express writes `/** … */`, a blank line, then the function: the function's chunk holds its
    documentation; a file's own doc comment and a plain comment stay where they are."""
    text = (
        "/**\n * @fileoverview The request.\n */\n\nfunction first() {}\n\n"
        "/**\n * Check the content type.\n */\n\nreq.is = function is(types) {\n  return types;\n};\n\n"
        "// a plain comment\n\nfunction plain() {}\n"
    )
    analysis = analyze_code("req.js", text, "javascript", "code", 1500)
    spans = {c.symbol_name: (c.start_line, c.end_line) for c in analysis.chunks if c.symbol_name}
    assert spans == {"first": (5, 5), "is": (7, 13), "plain": (17, 17)}
    assert {s.qualname for s in analysis.symbols} == {"first", "req.is", "plain"}


def test_a_function_a_factory_wraps_is_its_variables_function():
    """ramda's `var tap = _curry2(function tap(fn, x) {…})`, `var _isArrayLike = _curry1(function
    isArrayLike(x) {…})`, lodash's `var camelCase = createCompounder(function(…) {…})`: the function is
    the variable's symbol with a chunk of its own, and a name of its own that differs stays a second
    entity in that chunk. A call given two functions names neither (its lines stay module code); a
    factory given no function (`createBaseFor(true)`) makes an entity in the module's chunk."""
    text = (
        'var _curry2 = require("./internal/_curry2.js");\n'
        "var tap = _curry2(_dispatchable([], _xtap, function tap(fn, x) {\n  fn(x);\n  return x;\n}));\n"
        "exports.always = _curry1(function always(val) {\n  return val;\n});\n"
        "var camelCase = createCompounder(function(result, word) {\n  return result + word;\n});\n"
        "var _isArrayLike = _curry1(function isArrayLike(x) {\n  return isArray(x);\n});\n"
        "var both = pipe(function(a) {\n  return a;\n}, function(b) {\n  return b;\n});\n"
        "var baseForRight = createBaseFor(true);\n"
        "module.exports = tap;\n"
    )
    analysis = analyze_code("tap.js", text, "javascript", "code", 1500)
    spans = {c.symbol_name: (c.start_line, c.end_line) for c in analysis.chunks if c.symbol_name}
    assert spans == {"tap": (2, 5), "always": (6, 8), "camelCase": (9, 11), "_isArrayLike": (12, 14)}
    chunk_of = {s.qualname: s.chunk_id for s in analysis.symbols}
    assert {(s.qualname, s.kind) for s in analysis.symbols} == {
        ("tap", "function"),
        ("always", "function"),
        ("camelCase", "function"),
        ("_isArrayLike", "function"),
        ("isArrayLike", "function"),  # its own name: a second entity in the same chunk
        ("both", "function"),  # made by a factory: an entity in the module's chunk
        ("baseForRight", "function"),
    }
    assert chunk_of["isArrayLike"] == chunk_of["_isArrayLike"]
    module = [c for c in analysis.chunks if c.symbol_name is None]
    assert any(c.start_line <= 15 and c.end_line >= 19 for c in module)  # `both` stays module code
    tap = next(s for s in analysis.symbols if s.qualname == "tap")
    calls = {r.target for r in analysis.relations if r.source_id == "tap.js::tap" and r.relation == "calls"}
    assert calls == {"_curry2", "_dispatchable", "fn"}
    assert all(r.chunk_id == tap.chunk_id for r in analysis.relations if r.source_id == "tap.js::tap")
    calls = {r.target for r in analysis.relations if r.source_id == "tap.js::_isArrayLike"}
    assert calls == {"_curry1", "isArray"}
    assert_lines_faithful(analysis.chunks, text.split("\n"))


def test_a_callback_a_local_value_is_made_with_stays_its_functions_code():
    """Inside a function `const total = items.reduce((sum, item) => …)` is a value: the callback is no
    entity named `total`, and its calls stay the enclosing function's."""
    text = (
        "function cart(items) {\n"
        "  const total = items.reduce((sum, item) => sum + price(item), 0);\n"
        "  return total;\n"
        "}\n"
    )
    analysis = analyze_code("cart.js", text, "javascript", "code", 1500)
    assert {s.qualname for s in analysis.symbols} == {"cart"}
    calls = {(r.source_id, r.target) for r in analysis.relations if r.relation == "calls"}
    assert ("cart.js::cart", "price") in calls


def test_an_arrow_or_named_function_a_typescript_factory_wraps_is_its_constants_function():
    """`export const add = curry((a, b) => …)` and `const fib = memoize(function computeFib(n) {…})`:
    chunks named `add` and `fib` (with their doc comments), `computeFib` an entity in `fib`'s chunk."""
    text = (
        "/** Adds two numbers. */\n"
        "export const add = curry((a: number, b: number) => a + b);\n"
        "\n"
        "/** The n-th Fibonacci number. */\n"
        "const fib = memoize(function computeFib(n: number): number {\n"
        "  return n < 2 ? n : computeFib(n - 1) + computeFib(n - 2);\n"
        "});\n"
    )
    analysis = analyze_code("math.ts", text, "typescript", "code", 1500)
    spans = {c.symbol_name: (c.start_line, c.end_line) for c in analysis.chunks if c.symbol_name}
    assert spans == {"add": (1, 2), "fib": (4, 7)}
    chunk_of = {s.qualname: s.chunk_id for s in analysis.symbols}
    assert set(chunk_of) == {"add", "fib", "computeFib"}
    assert chunk_of["computeFib"] == chunk_of["fib"]
    assert_lines_faithful(analysis.chunks, text.split("\n"))


def test_an_object_member_keyed_by_a_number_is_no_symbol_and_a_string_key_names_by_its_content():
    """mobx's error table `{ 37(method) {…} }`: an entry of the table, no function named `37` (its
    lines stay the table's module code); `"quoted"(x) {…}` is `quoted`, as `obj.quoted` reads it."""
    text = (
        "const niceErrors = {\n"
        '  0: "Invalid value",\n'
        "  37(method: string) {\n"
        '    return "Cannot apply " + method;\n'
        "  },\n"
        '  "quoted"(x: number) {\n'
        "    return x;\n"
        "  },\n"
        "};\n"
    )
    analysis = analyze_code("errors.ts", text, "typescript", "code", 1500)
    assert {s.qualname for s in analysis.symbols} == {"quoted"}
    named = {c.symbol_name for c in analysis.chunks if c.symbol_name}
    assert named == {"quoted"}
    assert any(c.symbol_name is None and c.start_line <= 3 <= c.end_line for c in analysis.chunks)
    assert_lines_faithful(analysis.chunks, text.split("\n"))


def test_a_body_wrapped_in_one_long_statement_is_cut_at_the_statements_inside_it():
    """A Java method whose whole body is one ``try`` (a Kotlin ``use {}``, a Swift ``do {}``) longer than
    a chunk: its parts begin where a statement or clause inside it begins, never inside a statement, and
    the first part holds the signature with the first statements (not the signature alone)."""
    statement = "      Request request{i} = client.newRequest(url, headers, {i});\n      send(request{i}, {i});\n"
    text = (
        "class Downloader {\n"
        "  @Override\n"
        "  public void download(String url, Map<String, String> headers) {\n"
        "    try {\n" + "".join(statement.format(i=i) for i in range(12)) + "    } catch (IOException ex) {\n"
        "      reject(url, ex);\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    lines = text.split("\n")
    starts = {i + 1 for i, line in enumerate(lines) if line.lstrip().startswith(("Request request", "} catch"))}
    parts = [
        c for c in analyze_code("Downloader.java", text, "java", "code", 300).chunks if c.symbol_name == "download"
    ]
    assert len(parts) > 2 and all(len(c.text) <= 300 for c in parts)
    assert parts[0].text.startswith("  @Override\n  public void download(") and "Request request0" in parts[0].text
    assert all(c.start_line in starts for c in parts[1:]), [c.text.split("\n")[0] for c in parts]


C_HEADER = """/* lib.h: the library's interface. */
#ifndef LIB_H
#define LIB_H

#if defined (__cplusplus)
extern "C" {
#endif

/*! lib_bound() :
 *  The largest size compression may output for an input of `size` bytes,
 *  for allocating the destination buffer.
 */
int lib_bound(int size);

/* Linked blocks compress better; independent blocks can be decoded alone. */
typedef enum {
    lib_linked = 0,
    lib_independent
} lib_mode_t;

/*! LIB_MEMORY :
 *  Memory usage formula : N->2^N bytes.
 */
#define LIB_MEMORY 14

/*! lib_decode() :
 *  Decodes `src` into `dst`; a negative result is an error code.
 */
int lib_decode(const char* src, char* dst, int size);

#if defined (__cplusplus)
}
#endif

#endif /* LIB_H */

#if defined(LIB_STATIC) && !defined(LIB_H_STATIC)
#define LIB_H_STATIC

#if defined (__cplusplus)
extern "C" {
#endif

int lib_decode_usingDict(const char* src, char* dst, int size, const void* dict);

#if defined (__cplusplus)
}
#endif

#endif
"""


def test_a_c_header_behind_a_split_extern_c_guard_is_parsed():
    """`extern "C" {` opened in one `#if __cplusplus` block and closed in another (twice, as
    lz4frame.h does for its static section) made the whole header one parse error (line windows, no
    symbols): the guard's brace lines are read as blanks, rows unchanged, and the text of every chunk
    is still the file's own."""
    analysis = analyze_code("lib.h", C_HEADER, "c", "code", 1500)
    assert {(s.qualname, s.kind, s.start_line, s.end_line) for s in analysis.symbols} == {
        ("lib_mode_t", "enum", 15, 19)  # an anonymous typedef'd enum is named by its typedef
    }
    assert_lines_faithful(analysis.chunks, C_HEADER.split("\n"))
    assert any('extern "C" {' in c.text for c in analysis.chunks)


def test_a_c_headers_module_chunks_begin_at_its_declarations_doc_comments():
    """A header inside its include guard is one statement: parts must still begin at the declarations
    inside it, so a prototype's doc comment is never cut from the prototype."""
    text = re.sub(r'#if defined \(__cplusplus\)\n(?:extern "C" \{|\})\n#endif\n', "", C_HEADER)
    analysis = analyze_code("lib.h", text, "c", "code", 230)
    texts = [c.text for c in analysis.chunks if c.symbol_type == "module"]
    for declaration, doc in (
        ("int lib_bound(int size);", "/*! lib_bound() :"),
        ("int lib_decode(", "/*! lib_decode() :"),
        ("#define LIB_MEMORY 14", "/*! LIB_MEMORY :"),
    ):
        assert doc in next(t for t in texts if declaration in t)
    assert not [t for t in texts if t.startswith(" *")]


def test_a_c_file_whose_root_the_grammar_gives_up_on_keeps_the_symbols_it_parsed():
    """A label right above an `#endif` (lz4.c's decoder: `safe_literal_copy:` then `#endif`) makes
    tree-sitter's root an ERROR node though it holds every other function whole: those stay symbols
    (lz4.c was 2700 lines of line windows), the broken function's lines module code."""
    fn = "int {0}(int x)\n{{\n    return x + {1};\n}}\n\n"
    decode = (
        "int decode(const char* src, int n)\n{\n    int length = 0;\n    while (1) {\n        length = n;\n"
        "#if FAST_LOOP\n    safe_literal_copy:\n#endif\n        length += 4;\n"
        "#if FAST_LOOP\n    safe_match_copy:\n#endif\n"
        "        if (length < 8) {\n            break;\n        }\n    }\n    return length;\n}\n\n"
    )
    text = fn.format("first", 1) + fn.format("second", 2) + decode + fn.format("third", 3) + fn.format("fourth", 4)
    analysis = analyze_code("lz.c", text, "c", "code", 1500)
    assert {s.qualname for s in analysis.symbols} >= {"first", "second", "third", "fourth"}
    lines = text.split("\n")
    assert_lines_faithful(analysis.chunks, lines)
    assert {i + 1 for i, line in enumerate(lines) if line.strip()} <= covered_lines(analysis.chunks, lines)


def test_csharp_destructors_and_operators_are_methods_of_their_own():
    """A finalizer (`~GILState()`, which throws when the GIL was never released) and operators were no
    symbols: their bodies sat in the class's skeleton chunk, the throw's message with them."""
    text = (
        "namespace Python.Runtime;\n\npublic class GILState : IDisposable\n{\n"
        "    internal GILState()\n    {\n        state = PythonEngine.AcquireLock();\n    }\n\n"
        "    ~GILState()\n    {\n"
        '        throw new InvalidOperationException("GIL must always be released, and it must be released '
        'from the same thread that acquired it.");\n    }\n\n'
        "    public static GILState operator +(GILState a, GILState b)\n    {\n        return a;\n    }\n\n"
        "    public static implicit operator bool(GILState s) => s.state != null;\n}\n"
    )
    analysis = analyze_code("Py.cs", text, "csharp", "code", 1500)
    spans = {(s.qualname, s.kind, s.start_line, s.end_line) for s in analysis.symbols}
    assert {
        ("Python.Runtime.GILState.~GILState", "method", 10, 13),
        ("Python.Runtime.GILState.operator+", "method", 15, 18),
        ("Python.Runtime.GILState.operator bool", "method", 20, 20),
    } <= spans
    finalizer = next(c for c in analysis.chunks if c.symbol_name == "~GILState")
    assert "GIL must always be released" in finalizer.text
    skeleton = next(c for c in analysis.chunks if c.symbol_type == "class")
    assert "GIL must always be released" not in skeleton.text


def test_a_csharp_file_scoped_namespace_holds_the_declarations_after_it():
    """`namespace Python.Runtime;` (C# 10) gives its classes as its siblings: they are its members, with
    the qualified names a block-scoped `namespace Python.Runtime { … }` gives, and every line is in a
    chunk once, the usings and the namespace line in the namespace's own."""
    body = (
        "    /// <summary>Holds the GIL while alive.</summary>\n    public class GILState : IDisposable\n    {\n"
        "        public void Dispose()\n        {\n            PythonEngine.ReleaseLock(state);\n        }\n    }\n"
    )
    scoped = f"using System;\n\nnamespace Python.Runtime;\n\nusing System.Threading;\n\n{body}"
    block = f"using System;\n\nnamespace Python.Runtime\n{{\n{body}}}\n"
    names = []
    for text in (scoped, block):
        analysis = analyze_code("Py.cs", text, "csharp", "code", 1500)
        names.append({(s.qualname, s.kind) for s in analysis.symbols})
        lines = text.split("\n")
        assert_lines_faithful(analysis.chunks, lines)
        assert {i + 1 for i, line in enumerate(lines) if line.strip()} <= covered_lines(analysis.chunks, lines)
    assert (
        names[0]
        == names[1]
        == {
            ("Python.Runtime", "module"),
            ("Python.Runtime.GILState", "class"),
            ("Python.Runtime.GILState.Dispose", "method"),
        }
    )
    analysis = analyze_code("Py.cs", scoped, "csharp", "code", 1500)
    dispose = next(c for c in analysis.chunks if c.symbol_name == "Dispose")
    assert dispose.parent_symbol == "Python.Runtime.GILState"
    module_rows = [r for c in analysis.chunks if c.symbol_name is None for r in range(c.start_line, c.end_line + 1)]
    assert 7 not in module_rows  # the class's doc comment is the class's, not module code


def test_a_construct_the_grammar_gets_wrong_costs_only_its_own_section():
    """bats' common.bash: one `eval "(( \\${#${array}[@]} > 0 ))"` the bash grammar cannot parse made
    the whole file one ERROR node, so none of its thirteen functions had a chunk or a symbol. The
    file's top-level sections are parsed one by one: every other function keeps its chunk, symbol and
    calls, at its own lines; the section that does not parse is module lines."""
    text = (
        "#!/usr/bin/env bash\n\n"
        "# compares two versions\n"
        'bats_version_lt() {\n  bats_check_valid_version "$1"\n  return 2\n}\n\n'
        "bats_append_arrays_as_args() {\n"
        "  local -a trailing_args=()\n"
        "  while (($# > 0)) && [[ $1 != -- ]]; do\n"
        "    local array=$1\n    shift\n\n"
        '    if eval "(( \\${#${array}[@]} > 0 ))"; then\n'
        '      eval "trailing_args+=(\\"\\${${array}[@]}\\")"\n'
        "    fi\n  done\n}\n\n"
        "bats_require_minimum_version() {\n"
        '  if bats_version_lt "$BATS_VERSION" "$1"; then\n'
        '    printf "BATS_VERSION=%s does not meet required minimum %s\\n" "$BATS_VERSION" "$1"\n'
        "    exit 1\n  fi\n}\n"
    )
    from agent_brain_lab.engine.chunking.languages import parser_for, spec_for

    spec = spec_for("bash")
    assert spec is not None
    parser = parser_for(spec)
    assert parser is not None and parser.parse(text.encode()).root_node.type == "ERROR"  # the grammar's failure
    whole = parser.included_ranges
    analysis = analyze_code("common.bash", text, "bash", "code", 1500)
    spans = {c.symbol_name: (c.start_line, c.end_line) for c in analysis.chunks if c.symbol_name}
    assert spans == {"bats_version_lt": (3, 7), "bats_require_minimum_version": (21, 26)}
    calls = {(r.source_id, r.target) for r in analysis.relations if r.relation == "calls"}
    assert ("common.bash::bats_require_minimum_version", "bats_version_lt") in calls
    module = [c for c in analysis.chunks if c.symbol_name is None]
    assert any(c.start_line <= 9 and c.end_line >= 19 for c in module)  # the unparsed section, as lines
    assert_lines_faithful(analysis.chunks, text.split("\n"))
    assert parser.included_ranges == whole  # the shared parser reads the next file whole again


def test_a_function_a_factory_is_given_spans_its_whole_statement():
    """rxjs' `export const SequenceError = createErrorClass((_super) => function …);`: one chunk from the
    doc comment to the closing `);`, not the function expression cut out of its declaration."""
    text = (
        "/** An error thrown when the sequence is wrong. */\n"
        "export const SequenceError = createErrorClass(\n"
        "  (_super) =>\n"
        "    function SequenceErrorImpl(this: any, message: string) {\n"
        "      _super(this);\n"
        "      this.message = message;\n"
        "    }\n"
        ");\n"
    )
    analysis = analyze_code("SequenceError.ts", text, "typescript", "code", 1500)
    assert [(c.start_line, c.end_line) for c in analysis.chunks] == [(1, 8)]
    assert {s.qualname for s in analysis.symbols} >= {"SequenceError"}
    assert_lines_faithful(analysis.chunks, text.split("\n"))
