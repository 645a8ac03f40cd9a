"""Per-language syntax tables for code chunking and graph extraction.

Each grammar gets one :class:`LanguageSpec` saying which tree-sitter node types are symbols (and
of what kind), which nodes wrap a lone symbol (``export``, decorators, ``typedef``), which attach to
the symbol below them (comments, attributes), and which are calls, imports and base-class clauses.
Names that are not simply the node's ``name`` field are read by the small functions below.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, cast

if TYPE_CHECKING:  # the specs are data queries read too (retrieval.symbols): no parser is loaded for them
    from tree_sitter import Node, Parser

FUNCTION_KINDS = frozenset({"function", "method"})
NAME_TYPES = frozenset({"identifier", "type_identifier", "simple_identifier", "constant", "name", "word"})
BODY_TYPES = frozenset(
    {
        "block",
        "statement_block",
        "class_body",
        "declaration_list",
        "field_declaration_list",
        "compound_statement",
        "function_body",
        "body_statement",
        "template_body",
        "enum_body",
        "interface_body",
        "constructor_body",
        "enum_class_body",
        "protocol_body",
        "enum_variant_list",
        "enum_member_declaration_list",
        "arrow_expression_clause",
        "statements",
        "column_definitions",
        "accessor_list",  # C# `{ get { … } set { … } }`
    }
)

Kind: TypeAlias = "str | Callable[[Node], str]"
Namer: TypeAlias = "Callable[[Node], str | None]"


@dataclass(frozen=True)
class LanguageSpec:
    grammar: str
    symbols: Mapping[str, Kind]  # node type -> kind, or a function of the node giving the kind
    namers: Mapping[str, Namer] = field(default_factory=dict)  # node type -> name reader (default: `name` field)
    wrappers: frozenset[str] = frozenset()  # a symbol's range grows to these ancestors
    attached: frozenset[str] = frozenset({"comment"})  # leading lines joined to the next symbol
    needs_body: frozenset[str] = frozenset()  # node types that are only symbols when they have a body
    # call node type -> the field naming the callee (None: the text before the argument list)
    calls: Mapping[str, str | None] = field(default_factory=dict)
    import_calls: frozenset[str] = frozenset()  # callees that import (require, library, source)
    imports: Mapping[str, str] = field(default_factory=dict)  # node type -> "python" | "path" | "text"
    bases: Mapping[str, str] = field(default_factory=dict)  # clause node type -> rule (see graph_extract)
    bare_import_names: bool = False  # R's `library(stats)` names a package without quotes
    headers: frozenset[str] = frozenset()  # a call-shaped first child of these is a definition, not a call
    factories: frozenset[str] = frozenset()  # module-level `name = call(...)` declarations: the name is an entity
    # methods every function has that call it (JavaScript's `f.call(this, x)`, `f.apply(this, args)`): a call
    # of `f`, made on what `f` is a member of (not `f.bind(this)`: it makes a function, calling nothing)
    function_methods: frozenset[str] = frozenset()
    # an attribute above an item that makes it test code, and all it holds (Rust's `#[cfg(test)] mod
    # tests`, `#[test] fn`, `#[tokio::test]`): its chunks are tests, as a test file's are
    test_attributes: re.Pattern[str] | None = None
    # an attribute above a type that implements traits for it (Rust's `#[derive(Debug, Clone)]`): group 1
    # lists them
    derives: re.Pattern[str] | None = None
    # statements in a type's body that mix another type's members in: Ruby's `include M` / `extend M` /
    # `prepend M` (the call's name) and PHP's `use SomeTrait;` (the node type); each is an `extends` edge,
    # as the mixed-in module is an ancestor (Ruby's `ancestors`) or its members are copied in (PHP)
    mixins: frozenset[str] = frozenset()


# --------------------------------------------------------------------------- name readers


def text_of(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


_GENERICS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}")


def strip_generics(name: str) -> str:
    """``Foo<T>`` / ``Foo[T]`` / ``Foo{T}`` -> ``Foo``; also drops pointer/reference marks."""
    previous = None
    while previous != name:
        previous, name = name, _GENERICS.sub("", name)
    return name.strip().lstrip("*&").strip()


def _c_declarator(node: Node) -> str | None:
    """C/C++ functions hide their name under nested declarators (pointer, function, reference)."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in (
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
    ):
        nxt = d.child_by_field_name("declarator")
        if nxt is None:  # reference_declarator has no field: its last named child is the inner declarator
            nxt = d.named_children[-1] if d.named_child_count else None
        d = nxt
    return text_of(d) or None


def _c_type_name(node: Node) -> str | None:
    """``struct s {…}`` is ``s``; an anonymous ``typedef struct {…} name_t;`` (or enum, union) is the
    name the typedef gives it."""
    name = node.child_by_field_name("name")
    if name is not None:
        return text_of(name)
    parent = node.parent
    if parent is None or parent.type != "type_definition":
        return None
    declarator = parent.child_by_field_name("declarator")
    return text_of(declarator) if declarator is not None and declarator.type == "type_identifier" else None


def _csharp_destructor(node: Node) -> str | None:
    """``~GILState()`` is ``~GILState``, as C++ names its destructors: not the constructor's name."""
    name = text_of(node.child_by_field_name("name"))
    return f"~{name}" if name else None


def _property_with_code(node: Node) -> str | None:
    """A C# property whose accessors run code is a method of its class, as a TypeScript ``get
    name()`` or a Python ``@property`` is: ``bool IsOpen { get { … } }``, ``int Count =>
    _items.Count;``. A property that only stores a value (``string Name { get; set; }``) is a field:
    it stays in its class's chunk, a declared member. (Kotlin and Swift computed properties stay in
    their type's chunk too: Kotlin's grammar makes a getter a sibling of its property, and measured
    on expofs, a Swift enum's computed ``var``s cut out of it lost the enum its place.)"""
    computes = any(
        c.type == "arrow_expression_clause"
        or (c.type == "accessor_list" and any(a.child_by_field_name("body") is not None for a in c.named_children))
        for c in node.named_children
    )
    name = node.child_by_field_name("name")
    return text_of(name) or None if computes else None


def _csharp_operator(node: Node) -> str | None:
    """``operator +(A a, A b)`` is ``operator+``; a conversion ``implicit operator int(A a)`` is
    ``operator int``."""
    op = node.child_by_field_name("operator")
    if op is not None:
        return f"operator{text_of(op)}"
    target = text_of(node.child_by_field_name("type"))
    return f"operator {target}" if target else None


def _assigned_name(node: Node) -> str | None:
    """`const f = () => {}` (JS/TS) or `f <- function(x) {}` (R): the name is on the parent. Assigned
    to a member (JS/TS), a function is a method of the object: `res.send = function send() {}` is
    `res.send`, `Router.prototype.handle = ...` is `Router.handle`, `this.f = ...` is `f` of the
    enclosing symbol, and `exports.f` / `module.exports.f` are the module's own `f`."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "assignment_expression":
        return _member_name(parent.child_by_field_name("left"))
    if parent.type == "arguments":
        return _wrapped_name(node)
    target = parent.child_by_field_name("name") or parent.child_by_field_name("lhs")
    if target is None or target.type not in ("identifier", "property_identifier"):
        return None
    return text_of(target)


_FUNCTION_VALUES = frozenset({"function_expression", "function", "arrow_function"})


def _wrapped_name(node: Node) -> str | None:
    """A function passed through calls to make the name it is assigned to is that name's function:
    ramda's `var tap = _curry2(function tap(fn, x) {…})` and `var _isArrayLike = _curry1(function
    isArrayLike(x) {…})`, `export const add = curry((a, b) => …)`, React's `const Button =
    forwardRef(function Button(props, ref) {…})`, lodash's `var camelCase = createCompounder(function(…)
    {…})` (its own name, if any and other, stays a name of it: see ``own_alias``). A call given two
    functions (`const x = pipe(f => …, g => …)`) names neither; an argument whose calls are not
    assigned to a name names nothing. Inside a function only a function whose own name is the
    variable's is named so: `const total = items.reduce((sum, item) => …)` there is a local value,
    and the callback's calls stay the enclosing function's."""
    own = text_of(node.child_by_field_name("name"))
    made = node.parent
    while made is not None and made.type in ("arguments", "call_expression"):
        if made.type == "arguments" and sum(c.type in _FUNCTION_VALUES for c in made.named_children) > 1:
            return None
        made = made.parent
    if made is None:
        return None
    name = None
    if made.type == "variable_declarator":
        target = made.child_by_field_name("name")
        name = text_of(target) if target is not None and target.type == "identifier" else None
    elif made.type == "assignment_expression":
        name = _member_name(made.child_by_field_name("left"))
    if name is None or name.rpartition(".")[2] == own or not _in_function(made):
        return name
    return None


_FUNCTION_SCOPES = _FUNCTION_VALUES | {"function_declaration", "generator_function_declaration", "method_definition"}


def _in_function(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in _FUNCTION_SCOPES:
            return True
        parent = parent.parent
    return False


def own_alias(node: Node, name: str) -> str | None:
    """The own name of a function expression named otherwise by what it is assigned to (`isArrayLike`
    in `var _isArrayLike = _curry1(function isArrayLike(x) {…})`, `computeFib` in `const fib =
    memoize(function computeFib(n) {…})`): a second name of the same function, or None. Only a function
    a call is given: one assigned as it is (`res.type = function contentType(…)`) is its assignment's."""
    if node.type not in _FUNCTION_VALUES or node.parent is None or node.parent.type != "arguments":
        return None
    own = text_of(node.child_by_field_name("name"))
    return own if own and own != name else None


_MODULE_OBJECTS = frozenset({"exports", "module.exports", "this"})  # their members are no object's methods


def _member_name(target: Node | None) -> str | None:
    """The name an assignment gives: ``f``, ``obj.f`` (prototype left out), or None for a target no
    code names (``a[i]``, ``make().f``)."""
    if target is None or target.type == "identifier":
        return text_of(target) or None
    prop, obj = target.child_by_field_name("property"), target.child_by_field_name("object")
    if target.type != "member_expression" or prop is None or prop.type != "property_identifier" or obj is None:
        return None
    owner = text_of(obj).removesuffix(".prototype")
    if owner in _MODULE_OBJECTS:
        return text_of(prop)
    if not re.fullmatch(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*", owner):
        return None
    return f"{owner}.{text_of(prop)}"


def _go_method(node: Node) -> str | None:
    """Go methods are named ``Receiver.Method`` so they nest under their type."""
    name = text_of(node.child_by_field_name("name"))
    receiver = node.child_by_field_name("receiver")
    params = [c for c in receiver.named_children if c.type == "parameter_declaration"] if receiver else []
    rtype = strip_generics(text_of(params[0].child_by_field_name("type"))) if params else ""
    return f"{rtype}.{name}" if rtype else name or None


def _kotlin_function(node: Node) -> str | None:
    """A Kotlin extension function is named ``Receiver.name`` (``fun Uri.isSAFUri(…)``: a method of
    ``Uri`` as calls on a ``Uri`` find it), any other by its own name."""
    name = next((c for c in node.named_children if c.type == "simple_identifier"), None)
    receiver = next((c for c in node.named_children if c.type == "receiver_type"), None)
    rtype = strip_generics(text_of(receiver)).rstrip("?") if receiver is not None else ""
    return f"{rtype}.{text_of(name)}" if rtype and name is not None else text_of(name) or None


def _csharp_method(node: Node) -> str | None:
    """A C# extension method (``static bool IsBlank(this string s)``) is named ``Type.Name`` like a
    Kotlin extension function; any other method by its own name."""
    name = text_of(node.child_by_field_name("name")) or None
    params = node.child_by_field_name("parameters")
    first = next((c for c in params.named_children if c.type == "parameter"), None) if params else None
    extends = first is not None and any(c.type == "modifier" and text_of(c) == "this" for c in first.children)
    rtype = strip_generics(text_of(first.child_by_field_name("type"))) if extends and first is not None else ""
    return f"{rtype}.{name}" if rtype and name else name


def _go_type_kind(node: Node) -> str:
    return {"struct_type": "struct", "interface_type": "interface"}.get(
        getattr(node.child_by_field_name("type"), "type", ""), "type"
    )


def _type_field(node: Node) -> str | None:
    return strip_generics(text_of(node.child_by_field_name("type"))) or None


def _first_named_leaf(node: Node | None) -> Node | None:
    while node is not None and node.type not in ("identifier", "field_expression", "scoped_identifier"):
        node = node.named_children[0] if node.named_child_count else None
    return node


def _julia_function(node: Node) -> str | None:
    signature = next((c for c in node.named_children if c.type == "signature"), None)
    return text_of(_first_named_leaf(signature)) or None


def _julia_type(node: Node) -> str | None:
    head = next((c for c in node.named_children if c.type == "type_head"), None)
    return strip_generics(text_of(_first_named_leaf(head))) or None


def _sql_object(node: Node) -> str | None:
    ref = next((c for c in node.named_children if c.type == "object_reference"), None)
    return text_of(ref) or None


def _constant(value: str) -> Namer:
    return lambda node: value


def keyword_kind(default: str, **by_keyword: str) -> Callable[[Node], str]:
    """Kotlin and Swift use one node type for class/struct/interface...: the keyword token decides."""

    def kind(node: Node) -> str:
        for child in node.children:
            if not child.is_named and child.type in by_keyword:
                return by_keyword[child.type]
        return default

    return kind


# --------------------------------------------------------------------------- the tables

_C_LIKE_CALLS = {"call_expression": None}
_JS_SYMBOLS: dict[str, Kind] = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "class": "class",
    "method_definition": "function",
    "arrow_function": "function",
    "function_expression": "function",
    "function": "function",
}
_JS_NAMERS: dict[str, Namer] = {
    "arrow_function": _assigned_name,
    "function_expression": _assigned_name,
    "function": _assigned_name,
}
_JS: dict[str, Any] = dict(
    namers=_JS_NAMERS,
    wrappers=frozenset(
        {
            "export_statement",
            "variable_declarator",
            "lexical_declaration",
            "variable_declaration",
            "assignment_expression",
            "expression_statement",
            # a function a factory is given (`export const f = curry((a, b) => …)`) spans the whole
            # statement: its declaration line, doc comment and closing `);` are its chunk's
            "arguments",
            "call_expression",
        }
    ),
    attached=frozenset({"comment", "decorator"}),
    calls={"call_expression": None, "new_expression": "constructor"},
    # a transpiler's module helpers (Babel, tsc): `var _map2 = _interopRequireDefault(_map)` is an import
    import_calls=frozenset(
        {"require", "_interopRequireDefault", "_interopRequireWildcard", "__importDefault", "__importStar"}
    ),
    factories=frozenset({"variable_declarator"}),
    imports={"import_statement": "path", "export_statement": "path"},
    function_methods=frozenset({"call", "apply"}),
)
_TS_SYMBOLS = {
    **_JS_SYMBOLS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "type_alias_declaration": "type",
    "internal_module": "module",
    "module": "module",
}
_TS_BASES = {"extends_clause": "extends", "implements_clause": "implements", "extends_type_clause": "extends"}
_C_SYMBOLS = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}
_C_COMMON: dict[str, Any] = dict(
    namers={
        "function_definition": _c_declarator,
        "struct_specifier": _c_type_name,
        "union_specifier": _c_type_name,
        "enum_specifier": _c_type_name,
    },
    wrappers=frozenset({"type_definition", "template_declaration", "declaration"}),
    needs_body=frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}),
    calls=_C_LIKE_CALLS,
    imports={"preproc_include": "path"},
)

SPECS: dict[str, LanguageSpec] = {
    "python": LanguageSpec(
        "python",
        symbols={"function_definition": "function", "class_definition": "class"},
        wrappers=frozenset({"decorated_definition"}),
        calls={"call": None},
        imports={"import_statement": "python", "import_from_statement": "python"},
        bases={"argument_list": "extends"},
    ),
    "javascript": LanguageSpec("javascript", symbols=_JS_SYMBOLS, bases={"class_heritage": "extends"}, **_JS),
    "typescript": LanguageSpec("typescript", symbols=_TS_SYMBOLS, bases=_TS_BASES, **_JS),
    "tsx": LanguageSpec("tsx", symbols=_TS_SYMBOLS, bases=_TS_BASES, **_JS),
    "java": LanguageSpec(
        "java",
        symbols={
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "annotation_type_declaration": "interface",
            "method_declaration": "function",
            "constructor_declaration": "function",
        },
        attached=frozenset({"line_comment", "block_comment"}),
        calls={
            "method_invocation": None,
            "object_creation_expression": "type",
            "explicit_constructor_invocation": None,
        },
        imports={"import_declaration": "text"},
        bases={"superclass": "extends", "super_interfaces": "implements", "extends_interfaces": "extends"},
    ),
    "go": LanguageSpec(
        "go",
        symbols={"function_declaration": "function", "method_declaration": "method", "type_spec": _go_type_kind},
        namers={"method_declaration": _go_method},
        wrappers=frozenset({"type_declaration"}),
        calls=_C_LIKE_CALLS,
        imports={"import_spec": "path"},
    ),
    "rust": LanguageSpec(
        "rust",
        symbols={
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "struct",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "type_item": "type",
        },
        namers={"impl_item": _type_field},
        attached=frozenset({"line_comment", "block_comment", "attribute_item"}),
        derives=re.compile(r"#\[\s*derive\s*\(([^)]*)\)"),
        test_attributes=re.compile(r"#\[\s*(?:cfg\s*\(\s*(?:all\s*\(\s*)?test\b|(?:\w+\s*::\s*)*test\s*\])"),
        needs_body=frozenset({"mod_item"}),
        calls=_C_LIKE_CALLS,
        imports={"use_declaration": "text"},
    ),
    "c": LanguageSpec("c", symbols=_C_SYMBOLS, **_C_COMMON),
    "cpp": LanguageSpec(
        "cpp",
        symbols={**_C_SYMBOLS, "class_specifier": "class", "namespace_definition": "module"},
        bases={"base_class_clause": "extends"},
        **_C_COMMON,
    ),
    "csharp": LanguageSpec(
        "csharp",
        symbols={
            "class_declaration": "class",
            "interface_declaration": "interface",
            "struct_declaration": "struct",
            "enum_declaration": "enum",
            "record_declaration": "class",
            "namespace_declaration": "module",
            "file_scoped_namespace_declaration": "module",
            "method_declaration": "function",
            "constructor_declaration": "function",
            "destructor_declaration": "function",
            "operator_declaration": "function",
            "conversion_operator_declaration": "function",
            "local_function_statement": "function",
            "property_declaration": "function",
        },
        namers={
            "property_declaration": _property_with_code,
            "method_declaration": _csharp_method,
            "destructor_declaration": _csharp_destructor,
            "operator_declaration": _csharp_operator,
            "conversion_operator_declaration": _csharp_operator,
        },
        needs_body=frozenset({"method_declaration"}),
        calls={"invocation_expression": None, "object_creation_expression": "type"},
        imports={"using_directive": "text"},
        bases={"base_list": "csharp"},
    ),
    "ruby": LanguageSpec(
        "ruby",
        symbols={
            "method": "function",
            "singleton_method": "function",
            "class": "class",
            "module": "module",
            "singleton_class": "class",
        },
        namers={"singleton_class": _constant("self")},
        calls={"call": None},
        import_calls=frozenset({"require", "require_relative", "load"}),
        bases={"superclass": "extends"},
        mixins=frozenset({"include", "extend", "prepend"}),
    ),
    "php": LanguageSpec(
        "php",
        symbols={
            "function_definition": "function",
            "method_declaration": "function",
            "class_declaration": "class",
            "interface_declaration": "interface",
            "trait_declaration": "trait",
            "enum_declaration": "enum",
            "namespace_definition": "module",
        },
        needs_body=frozenset({"namespace_definition", "method_declaration"}),
        calls={
            "function_call_expression": None,
            "member_call_expression": None,
            "scoped_call_expression": None,
            "object_creation_expression": None,
        },
        imports={
            "namespace_use_clause": "text",
            "require_expression": "text",
            "require_once_expression": "text",
            "include_expression": "text",
            "include_once_expression": "text",
        },
        bases={"base_clause": "extends", "class_interface_clause": "implements"},
        mixins=frozenset({"use_declaration"}),
    ),
    "kotlin": LanguageSpec(
        "kotlin",
        symbols={
            "class_declaration": keyword_kind("class", interface="interface"),
            "object_declaration": "object",
            "companion_object": "object",
            "function_declaration": "function",
        },
        namers={"companion_object": _constant("Companion"), "function_declaration": _kotlin_function},
        attached=frozenset({"comment", "line_comment", "multiline_comment"}),
        needs_body=frozenset({"function_declaration"}),
        calls={"call_expression": None},
        imports={"import_header": "text"},
        bases={"delegation_specifier": "kotlin"},
    ),
    "swift": LanguageSpec(
        "swift",
        symbols={
            "class_declaration": keyword_kind(
                "class", struct="struct", enum="enum", extension="extension", actor="class"
            ),
            "protocol_declaration": "interface",
            "function_declaration": "function",
            "init_declaration": "function",
        },
        namers={"init_declaration": _constant("init")},
        attached=frozenset({"comment", "multiline_comment"}),
        calls={"call_expression": None},
        imports={"import_declaration": "text"},
        bases={"inheritance_specifier": "first_extends"},
    ),
    "scala": LanguageSpec(
        "scala",
        symbols={
            "class_definition": "class",
            "object_definition": "object",
            "trait_definition": "trait",
            "enum_definition": "enum",
            "function_definition": "function",
        },
        attached=frozenset({"comment", "block_comment"}),
        calls={"call_expression": None, "instance_expression": None},
        imports={"import_declaration": "text"},
        bases={"extends_clause": "first_extends"},
    ),
    "r": LanguageSpec(
        "r",
        symbols={"function_definition": "function"},
        namers={"function_definition": _assigned_name},
        wrappers=frozenset({"binary_operator"}),
        calls={"call": None},
        import_calls=frozenset({"library", "require", "source", "requireNamespace"}),
        bare_import_names=True,
    ),
    "julia": LanguageSpec(
        "julia",
        symbols={
            "function_definition": "function",
            "macro_definition": "function",
            "module_definition": "module",
            "struct_definition": "struct",
            "abstract_definition": "type",
        },
        namers={
            "function_definition": _julia_function,
            "macro_definition": _julia_function,
            "struct_definition": _julia_type,
            "abstract_definition": _julia_type,
        },
        attached=frozenset({"line_comment", "block_comment", "string_literal"}),  # docstrings sit above
        calls={"call_expression": None},
        imports={"using_statement": "text", "import_statement": "text"},
        bases={"type_head": "subtype"},
        headers=frozenset({"signature", "assignment"}),  # `function f(x)`, `f(x) = x + 1`
    ),
    "lua": LanguageSpec(
        "lua",
        symbols={"function_declaration": "function"},
        calls={"function_call": None},
        import_calls=frozenset({"require"}),
    ),
    "bash": LanguageSpec(
        "bash",
        symbols={"function_definition": "function"},
        calls={"command": "name"},
        import_calls=frozenset({"source", "."}),
    ),
    "sql": LanguageSpec(
        "sql",
        symbols={
            "create_table": "table",
            "create_view": "view",
            "create_materialized_view": "view",
            "create_function": "function",
            "create_index": "index",
            "create_type": "type",
            "create_trigger": "function",
        },
        namers={
            t: _sql_object
            for t in (
                "create_table",
                "create_view",
                "create_materialized_view",
                "create_function",
                "create_index",
                "create_type",
                "create_trigger",
            )
        },
        wrappers=frozenset({"statement"}),
    ),
}

ALIASES = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "c++": "cpp",
    "cc": "cpp",
    "c#": "csharp",
    "c_sharp": "csharp",
    "cs": "csharp",
    "golang": "go",
    "rs": "rust",
    "rb": "ruby",
    "kt": "kotlin",
    "jl": "julia",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
}


def spec_for(language: str) -> LanguageSpec | None:
    """The spec for a language name (case-insensitive, common aliases accepted), or None."""
    key = (language or "").strip().lower()
    return SPECS.get(ALIASES.get(key, key))


_local = threading.local()


def parser_for(spec: LanguageSpec) -> Parser | None:
    """One parser per grammar per thread (parsers are not thread-safe); None if the grammar is missing."""
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    if spec.grammar not in cache:
        try:
            from tree_sitter_language_pack import get_parser

            cache[spec.grammar] = get_parser(cast(Any, spec.grammar))  # the pack types names as a Literal
        except (ImportError, LookupError, ValueError, OSError):
            cache[spec.grammar] = None
    return cache[spec.grammar]
