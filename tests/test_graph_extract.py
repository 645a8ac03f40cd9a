"""Code-graph facts (imports, calls, extends, implements) read from the same parse as the chunks."""

from __future__ import annotations

import re

import pytest
from test_chunking_code import EXPECTED_SYMBOLS, analyze

from agent_brain_lab.engine.chunking import code
from agent_brain_lab.engine.chunking.code import analyze_code
from agent_brain_lab.engine.graph_extract import RELATIONS, Relation

F = "<file>"
# language -> exact (source qualname or <file>, relation, target) for imports / extends / implements
STRUCTURE = {
    "python": {
        (F, "imports", "os.path"),
        (F, "imports", "collections"),
        (F, "imports", ".models"),
        ("Item", "extends", "Base"),
        ("Item", "extends", "Mixin"),
    },
    "javascript": {(F, "imports", "./format.js"), (F, "imports", "fs"), ("Cart", "extends", "EventTarget")},
    "typescript": {
        (F, "imports", "./logger"),
        (F, "imports", "path"),
        ("Named", "extends", "Shape"),
        ("Circle", "extends", "BaseShape"),
        ("Circle", "implements", "Shape"),
        ("Circle", "implements", "Named"),
    },
    "tsx": {(F, "imports", "react"), (F, "imports", "./Button"), ("Panel", "extends", "React.Component")},
    "java": {
        (F, "imports", "java.util.List"),
        (F, "imports", "java.util.ArrayList"),
        ("Sample", "extends", "BaseCart"),
        ("Sample", "implements", "Comparable"),
        ("Sample", "implements", "Serializable"),
        ("Store", "extends", "AutoCloseable"),
    },
    "go": {(F, "imports", "fmt"), (F, "imports", "strings"), (F, "imports", "os"), ("Cart", "extends", "Base")},
    "rust": {
        (F, "imports", "std::fmt"),
        (F, "imports", "std::collections::HashMap"),
        (F, "imports", "std::collections::HashSet"),
        ("Point", "implements", "fmt::Display"),
        ("Point", "implements", "Debug"),  # #[derive(Debug, Clone)]
        ("Point", "implements", "Clone"),
    },
    "c": {(F, "imports", "stdio.h"), (F, "imports", "cart.h")},
    "cpp": {
        (F, "imports", "vector"),
        (F, "imports", "shape.hpp"),
        ("geo.Circle", "extends", "Shape"),
        ("geo.Circle", "extends", "Named"),
    },
    "csharp": {
        (F, "imports", "System"),
        (F, "imports", "System.Collections.Generic"),
        ("Shop.Models.Cart", "extends", "BaseCart"),
        ("Shop.Models.Cart", "implements", "IDisposable"),
    },
    "ruby": {(F, "imports", "json"), (F, "imports", "base"), ("Shop.Cart", "extends", "BaseCart")},
    "php": {
        (F, "imports", "App\\Models\\Item"),
        (F, "imports", "Psr\\Log\\LoggerInterface"),
        (F, "imports", "helpers.php"),
        ("Cart", "extends", "BaseCart"),
        ("Cart", "implements", "Countable"),
        ("Cart", "implements", "JsonSerializable"),
    },
    "kotlin": {
        (F, "imports", "kotlin.math.max"),
        (F, "imports", "java.io.Serializable"),
        ("Cart", "extends", "BaseCart"),
        ("Cart", "implements", "Serializable"),
    },
    "swift": {
        (F, "imports", "Foundation"),
        (F, "imports", "UIKit"),
        ("Cart", "extends", "BaseCart"),
        ("Cart", "implements", "Codable"),
        ("Point", "implements", "Equatable"),
    },
    "scala": {
        (F, "imports", "scala.collection.mutable"),
        (F, "imports", "java.io.File"),
        (F, "imports", "java.io.Serializable"),
        ("Cart", "extends", "BaseCart"),
        ("Cart", "implements", "Serializable"),
    },
    "r": {(F, "imports", "stats"), (F, "imports", "helpers.R")},
    "julia": {
        ("Shapes", "imports", "LinearAlgebra"),
        ("Shapes", "imports", "Base"),
        ("Shapes.Circle", "extends", "Shape"),
    },
    "lua": {(F, "imports", "json")},
    "bash": {(F, "imports", "./lib.sh")},
    "sql": set(),
}
# language -> calls that must be found (caller qualname or <file>, callee as written)
CALLS = {
    "python": {
        ("helper", "os.path.join"),
        ("Item.total", "helper"),
        ("Item.total", "self.save"),
        ("Item.save.inner", "compute_tax"),  # an inner function's calls are its own
        ("Item.save", "inner"),
        (F, "print"),
    },
    "javascript": {
        ("addTax", "round"),
        ("Cart.add", "this.items.push"),
        ("Cart.add", "format"),
        ("Cart.total", "addTax"),
        (F, "console.log"),
        (F, "Cart"),
    },
    "typescript": {
        ("Circle.describe", "path.join"),
        ("Circle.describe", "this.area"),
        ("Geometry.unit", "Circle"),
        (F, "logger.info"),
    },
    "tsx": {("Counter", "useState"), ("Counter", "setCount")},
    "java": {
        ("Sample.add", "items.add"),
        ("Sample.add", "log"),
        ("Sample.compareTo", "Integer.compare"),
        ("Sample", "ArrayList"),
    },
    "go": {("Cart.Add", "str.ToUpper"), ("Cart.Add", "fmt.Println"), ("main", "NewCart"), ("main", "c.Add")},
    "rust": {("Point.norm", "sqrt"), ("main", "Point::new"), ("main", "HashMap::new")},
    "c": {("cart_add", "log_item"), ("main", "cart_add"), ("main", "printf")},
    "cpp": {("geo.Circle.area", "square"), ("geo.Circle_total", "c.area"), ("main", "std::printf")},
    "csharp": {("Shop.Models.Cart.Add", "Console.WriteLine"), ("Shop.Models.Cart.Dispose", "Clear")},
    "ruby": {("Shop.Cart.add", "notify"), ("helper", "JSON.generate"), (F, "helper")},
    "php": {("Cart.add", "log_item"), ("Cart.add", "$item->name"), ("helper", "strtoupper"), (F, "helper")},
    "kotlin": {("Cart.add", "println"), ("Cart.add", "max"), ("Cart.Companion.empty", "Cart")},
    "swift": {
        ("Cart.add", "items.append"),
        ("Cart.add", "notify"),
        ("Cart.clear", "items.removeAll"),
        ("helper", "max"),
    },
    "scala": {("Cart.add", "println"), ("Cart.empty", "Cart"), ("helper", "math.max")},
    "r": {("scale_values", "normalize"), ("normalize", "sum"), (F, "scale_values")},
    "julia": {("Shapes.area", "square")},
    "lua": {("Cart.new", "setmetatable"), ("Cart.add", "table.insert"), ("helper", "json.encode"), (F, "helper")},
    "bash": {("greet", "log_line"), (F, "greet"), (F, "cleanup")},
    "sql": set(),
}


def facts(analysis, source):
    def who(source_id):
        return F if source_id == source else source_id.removeprefix(f"{source}::")

    return {(who(r.source_id), r.relation, r.target) for r in analysis.relations}


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_sample_relations(language):
    analysis, _ = analyze(language)
    source = EXPECTED_SYMBOLS[language][0]
    found = facts(analysis, source)
    assert {f for f in found if f[1] != "calls"} == STRUCTURE[language]
    calls = {(who, target) for who, rel, target in found if rel == "calls"}
    assert CALLS[language] <= calls
    # a function never "calls" its own definition header (Julia signatures)
    assert all(not (who.endswith("." + t) or who == t) for who, t in calls if language == "julia")


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_relations_point_at_real_chunks_and_nodes(language):
    analysis, _ = analyze(language)
    source = EXPECTED_SYMBOLS[language][0]
    chunks = {c.chunk_id: c for c in analysis.chunks}
    nodes = {s.node_id for s in analysis.symbols} | {source}
    for rel in analysis.relations:
        assert isinstance(rel, Relation) and rel.relation in RELATIONS
        assert rel.source_id in nodes
        chunk = chunks[rel.chunk_id]
        last = re.split(r"[.:\\/>\-]+", rel.target.rstrip(".h"))[-1] or rel.target
        assert last in chunk.text or re.search(r"\bsuper\s*\(", chunk.text), (rel, chunk.text)  # super(): the base
        owner = rel.source_id.removeprefix(f"{source}::") if rel.source_id != source else None
        if owner and rel.relation == "calls":  # the call's chunk is one of its caller's (or its encloser's)
            assert owner == chunk.qualified_symbol or owner.startswith(f"{chunk.qualified_symbol}.")


def test_calls_deduped_per_function_but_not_across():
    text = "def a():\n    foo()\n    foo()\n    foo(1)\n\n\ndef b():\n    foo()\n\n\nfoo()\nfoo()\n"
    analysis = analyze_code("m.py", text, "python", "code", 1500)
    calls = [(r.source_id, r.target) for r in analysis.relations if r.relation == "calls"]
    assert sorted(calls) == [("m.py", "foo"), ("m.py::a", "foo"), ("m.py::b", "foo")]


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "javascript",
            "function f() { foo.bar(x).baz(); new Thing(); list.map(g); }",
            {"foo.bar", "baz", "Thing", "list.map"},
        ),
        ("python", "def f():\n    a.b().c()\n    (lambda: 1)()\n    self.save()\n", {"a.b", "c", "self.save"}),
        ("typescript", "function f() { make<Item>(1); }", {"make"}),
        ("java", "class A { void f() { new ArrayList<String>(); this.g(); } }", {"ArrayList", "this.g"}),
        ("ruby", "def f\n  items.each do |x|\n    puts x\n  end\nend\n", {"items.each", "puts"}),
    ],
)
def test_callee_names_as_written(language, text, expected):
    analysis = analyze_code("x", text, language, "code", 1500)
    assert {r.target for r in analysis.relations if r.relation == "calls"} == expected


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "rust",
            "use a::{b::{c, d}, e as f, self};\nuse crate::x::*;\n",
            {"a::b::c", "a::b::d", "a::e", "a", "crate::x::*"},
        ),
        ("scala", "import x.{A => B, C}\n", {"x.A", "x.C"}),
        ("csharp", "using static System.Math;\nusing IO = System.IO;\n", {"System.Math", "System.IO"}),
        (
            "java",
            "import static org.junit.Assert.assertEquals;\nimport java.util.*;\n",
            {"org.junit.Assert.assertEquals", "java.util.*"},
        ),
        ("javascript", 'export { x } from "./y";\nconst z = require(name);\nconst w = require("w");\n', {"./y", "w"}),
        ("python", "from . import x\nimport a.b as c, d\nfrom ..pkg.mod import *\n", {".", "a.b", "d", "..pkg.mod"}),
        ("go", 'import (\n\t_ "embed"\n\tm "math"\n)\n', {"embed", "math"}),
        ("php", "<?php\nuse App\\Models\\User as U;\ninclude 'x.php';\n", {"App\\Models\\User", "x.php"}),
        ("julia", "using A, B.C\nimport D: e, f\n", {"A", "B.C", "D"}),
        ("kotlin", "import a.b.*\nimport c.D as E\n", {"a.b.*", "c.D"}),
        ("lua", 'local m = require "mod.sub"\n', {"mod.sub"}),
        ("bash", '. ./env.sh\nsource "$DIR/x.sh"\n', {"./env.sh", "$DIR/x.sh"}),
    ],
)
def test_import_targets(language, text, expected):
    analysis = analyze_code("x", text, language, "code", 1500)
    assert {r.target for r in analysis.relations if r.relation == "imports"} == expected


@pytest.mark.parametrize(
    "language, text, expected",
    [
        (
            "csharp",
            "interface IA : IB {}\nclass A : Base, IFoo, Ns.IBar {}\n",
            {
                ("IA", "extends", "IB"),
                ("A", "extends", "Base"),
                ("A", "implements", "IFoo"),
                ("A", "implements", "Ns.IBar"),
            },
        ),
        (
            "rust",
            "struct Wrapper<T>(T);\nimpl<T: Clone> Into<T> for Wrapper<T> { fn into(self) -> T { self.0 } }\n",
            {("Wrapper", "implements", "Into")},
        ),
        (
            "python",
            "class A(pkg.Base, Generic[T], metaclass=M, **kw):\n    pass\n",
            {("A", "extends", "pkg.Base"), ("A", "extends", "Generic")},
        ),
        (
            "kotlin",
            "interface I : J, K\nclass C : Base(1), I\n",
            {("I", "extends", "J"), ("I", "extends", "K"), ("C", "extends", "Base"), ("C", "implements", "I")},
        ),
        (
            "swift",
            "protocol P: Q {}\nstruct S: P, Hashable {}\n",
            {("P", "extends", "Q"), ("S", "implements", "P"), ("S", "implements", "Hashable")},
        ),
        (
            "go",
            "package x\ntype A struct {\n\tBase\n\t*pkg.Other\n\tName string\n}\n"
            "type I interface {\n\tio.Reader\n\tClose() error\n}\n",
            {("A", "extends", "Base"), ("A", "extends", "pkg.Other"), ("I", "extends", "io.Reader")},
        ),
        (
            "java",
            "interface I extends A, B {}\nclass C extends D<E> implements I {}\n",
            {("I", "extends", "A"), ("I", "extends", "B"), ("C", "extends", "D"), ("C", "implements", "I")},
        ),
    ],
)
def test_base_relations(language, text, expected):
    analysis = analyze_code("x", text, language, "code", 1500)
    got = {
        (r.source_id.removeprefix("x::"), r.relation, r.target)
        for r in analysis.relations
        if r.relation in ("extends", "implements")
    }
    assert got == expected


def test_relation_type_is_shared_with_the_chunker():
    assert code.Relation is Relation


def test_a_factory_made_name_leaves_the_chunks_as_they_were():
    text = (
        "export const ajax = (() => {\n"
        "  const create = (url) => {\n    return fromAjax(url);\n  };\n"
        "  create.get = ajaxGet;\n  return create;\n"
        "})();\n\n"
        "var camelCase = createCompounder(function(result, word) {\n  return result + word;\n});\n"
    )
    analysis = analyze_code("ajax.ts", text, "typescript", "code", 1500)
    chunks = {(c.symbol_name, c.parent_symbol) for c in analysis.chunks}
    assert ("create", None) in chunks  # chunked as a top-level function, as without the factory entity
    assert "ajax" not in {name for name, _ in chunks}  # an entity without a chunk of its own
    assert ("camelCase", None) in chunks  # the function passed to the factory: the variable's own
    symbols = {s.qualname: s for s in analysis.symbols}
    assert {"ajax", "camelCase", "create"} <= set(symbols)
    calls = {(r.source_id, r.target) for r in analysis.relations if r.relation == "calls"}
    assert ("ajax.ts::camelCase", "createCompounder") in calls and ("ajax.ts::create", "fromAjax") in calls
