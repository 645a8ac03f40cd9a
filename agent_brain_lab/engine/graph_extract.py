"""Code-graph facts read off a syntax tree: imports, calls, extends/implements.

Targets are kept as written (``os.path``, ``self.save``, ``fmt::Display``); resolving them to known
symbols is the graph builder's job. The chunker (chunking/code.py) calls these readers from its one
walk over the tree, so every file is parsed once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from .chunking.languages import BODY_TYPES, LanguageSpec, strip_generics, text_of

RELATIONS = ("imports", "calls", "extends", "implements")


@dataclass(frozen=True)
class Relation:
    source_id: str  # a Symbol.node_id, or the file path for module-level facts
    relation: str  # one of RELATIONS
    target: str  # the name as written
    chunk_id: str
    # a call's receiver types as the file writes them (parameter or field annotations, the class for
    # `this`/`self`, its bases for `super`), most specific first: they pick among same-named methods
    receiver_types: tuple[str, ...] = ()

    def facts(self) -> dict[str, object]:
        """As the per-file facts store it (``receiver_types`` only when known)."""
        out: dict[str, object] = {
            "source_id": self.source_id,
            "relation": self.relation,
            "target": self.target,
            "chunk_id": self.chunk_id,
        }
        if self.receiver_types:
            out["receiver_types"] = list(self.receiver_types)
        return out


# --------------------------------------------------------------------------- calls

_ARGUMENT_FIELDS = ("arguments", "block")
_ARGUMENT_TYPES = frozenset({"arguments", "argument_list", "call_suffix", "value_arguments"})
_TRAILING_NAME = re.compile(r"[A-Za-z_$@][\w$@!?]*(?:(?:\.|::|->)[A-Za-z_$@][\w$@!?]*)*$")
MAX_NAME_CHARS = 120


def _arguments(node: Node) -> Node | None:
    for name in _ARGUMENT_FIELDS:
        child = node.child_by_field_name(name)
        if child is not None:
            return child
    return next((c for c in node.named_children if c.type in _ARGUMENT_TYPES), None)


def _written(node: Node, spec: LanguageSpec) -> str:
    """The call's text before the argument list (or the spec's callee field), without spaces."""
    field_name = spec.calls.get(node.type)
    if field_name:
        raw = text_of(node.child_by_field_name(field_name))
    else:
        args = _arguments(node)
        end = args.start_byte if args is not None else node.end_byte
        raw = (node.text or b"")[: end - node.start_byte].decode("utf-8", "replace")
    written = "".join(re.sub(r"^\s*new\s+", "", raw).split())  # `new Foo` (PHP, Scala) -> Foo
    function, dot, method = written.rpartition(".")
    if dot and method in spec.function_methods and _TRAILING_NAME.fullmatch(function):
        return function  # `compileSchema.call(this, sch)` calls compileSchema
    return written


def call_receiver(node: Node, spec: LanguageSpec) -> str:
    """What the call is made on, as written (see :func:`receiver_of`)."""
    return receiver_of(_written(node, spec))


def callee(node: Node, spec: LanguageSpec) -> str | None:
    """The called name as written: the text before the argument list (or the spec's callee field)."""
    raw = _written(node, spec)
    if "(" in raw or ")" in raw:  # a chained call `a.b().c`: keep the trailing name
        raw = raw.rsplit(")", 1)[-1].lstrip(".:->")
    name = strip_generics(raw)
    if name in spec.import_calls:  # may not look like a name: the shell's `.`
        return name
    if not name or len(name) > MAX_NAME_CHARS or not _TRAILING_NAME.search(name):
        return None
    return name


def import_call_target(node: Node, spec: LanguageSpec) -> str | None:
    """`require("x")`, `library(stats)`, `source ./lib.sh`: the first argument, if it is literal."""
    args = _arguments(node) or node.child_by_field_name("argument")
    if args is None:
        return None
    literal = "string" in args.type or args.type == "word" or not args.named_child_count
    first = args if literal else args.named_children[0]
    if first.type == "argument":  # R wraps each argument
        first = first.child_by_field_name("value") or first
    bare = first.type == "word" or (first.type == "identifier" and spec.bare_import_names)
    if "string" not in first.type and not bare:
        return None
    return _unquote(text_of(first)) or None


# --------------------------------------------------------------------------- imports

_IMPORT_WORDS = re.compile(
    r"^(?:(?:import|use|using|static|global|pub(?:\([^)]*\))?|require_once|require|include_once|include|"
    r"typealias|struct|class|enum|protocol|func|let|var|function|const)\s+)+"
)


def _unquote(text: str) -> str:
    return text.strip().strip("'\"`<>").strip()


def _split_top(text: str) -> list[str]:
    """Split on commas that are not inside braces."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _expand(item: str) -> Iterator[str]:
    """`a::{b, c}` -> `a::b`, `a::c`; drops aliases (`as x`, `=>`, C# `X = Y`)."""
    if "{" in item and item.endswith("}"):
        prefix, inner = item.split("{", 1)
        for sub in _split_top(inner[:-1]):
            yield from _expand(prefix + sub)
        return
    item = re.split(r"\s+as\s+|\s*=>\s*", item)[0]
    if "=" in item:
        item = item.split("=", 1)[1]
    for suffix in ("::self", ".self"):
        item = item.removesuffix(suffix)
    item = _unquote(item)
    if item:
        yield item


def _text_imports(node: Node) -> list[str]:
    text = " ".join(text_of(node).split()).rstrip(";").strip()
    text = _IMPORT_WORDS.sub("", text)
    text = re.sub(r"^([\w.]+)\s*:(?!:).*", r"\1", text)  # Julia `import Base: show, +`: the module
    return [target for part in _split_top(text) for target in _expand(part)]


def _python_imports(node: Node) -> list[str]:
    if node.type == "import_statement":
        return [text_of(n.child_by_field_name("name") or n) for n in node.children_by_field_name("name")]
    return [text_of(node.child_by_field_name("module_name"))]  # from x import a, b: the module is the target


def _path_import(node: Node) -> list[str]:
    path = node.child_by_field_name("source") or node.child_by_field_name("path")
    return [_unquote(text_of(path))] if path is not None else []


_IMPORT_STYLES = {"python": _python_imports, "path": _path_import, "text": _text_imports}


def import_targets(node: Node, spec: LanguageSpec) -> list[str]:
    return [t for t in _IMPORT_STYLES[spec.imports[node.type]](node) if t]


# --------------------------------------------------------------------------- extends / implements

_NOT_BASES = frozenset(
    {
        "access_specifier",
        "type_arguments",
        "keyword_argument",
        "comment",
        "value_arguments",
        "virtual",
        "dictionary_splat",
        "list_splat",
    }
)
_BASE_LISTS = frozenset({"type_list", "delegation_specifiers", "class_heritage"})


def _clauses(node: Node, spec: LanguageSpec) -> Iterator[Node]:
    """Base clauses among a type's children and grandchildren (never inside its body)."""
    for child in node.named_children:
        if child.type in BODY_TYPES or node.child_by_field_name("body") == child:
            continue
        if child.type in spec.bases:
            yield child
        else:
            yield from (g for g in child.named_children if g.type in spec.bases)


def _targets(clause: Node) -> Iterator[tuple[Node, str]]:
    for child in clause.named_children:
        if child.type in _NOT_BASES:
            continue
        if child.type in _BASE_LISTS:
            yield from _targets(child)
        else:
            yield child, strip_generics(text_of(child).split("(", 1)[0])


def _relation(rule: str, index: int, target: Node, name: str, kind: str) -> str:
    if rule == "first_extends":  # Scala `extends A with B`, Swift `class C: Super, Proto`
        if kind == "interface":
            return "extends"
        return "extends" if index == 0 and kind in ("class", "object") else "implements"
    if rule == "kotlin":  # a constructor call names the superclass; bare types are interfaces
        return "extends" if target.type == "constructor_invocation" or kind == "interface" else "implements"
    if rule == "csharp":  # C# base lists mix both; interfaces are conventionally IName
        return "implements" if re.match(r"^(?:[\w.]*\.)?I[A-Z]", name) and kind != "interface" else "extends"
    return rule


def base_relations(node: Node, spec: LanguageSpec, kind: str) -> list[tuple[str, str]]:
    """(relation, target) pairs for a class-like symbol node, in source order."""
    found: list[tuple[str, str]] = []
    index = 0
    for clause in _clauses(node, spec):
        rule = spec.bases[clause.type]
        if rule == "subtype":  # Julia `struct A <: B`
            sub = next((c for c in clause.named_children if c.type == "binary_expression"), None)
            if sub is not None and sub.named_child_count >= 2:
                found.append(("extends", strip_generics(text_of(sub.named_children[-1]))))
            continue
        for target, name in _targets(clause):
            if name:
                found.append((_relation(rule, index, target, name, kind), name))
                index += 1
    if node.type == "impl_item" and node.child_by_field_name("trait") is not None:  # Rust: Type implements Trait
        found.append(("implements", strip_generics(text_of(node.child_by_field_name("trait")))))
    if node.type == "type_spec":
        found.extend(("extends", strip_generics(text_of(t))) for t in _go_embedded(node.child_by_field_name("type")))
    if spec.derives is not None:
        found.extend(("implements", name) for name in derived(node, spec))
    return found


_MIXIN_TARGETS = frozenset({"constant", "scope_resolution", "name", "qualified_name"})


def mixins(node: Node, spec: LanguageSpec) -> list[tuple[str, int]]:
    """(target, 0-based line) of each module or trait a type's body mixes in (:attr:`LanguageSpec.mixins`):
    Ruby's `include Comparable`, `extend Forwardable`, `prepend Foo::Bar` (a constant, not `extend self`),
    PHP's `use A, B { x as y; }`, in source order."""
    if not spec.mixins:
        return []
    body = node.child_by_field_name("body") or next((c for c in node.named_children if c.type in BODY_TYPES), None)
    found: list[tuple[str, int]] = []
    for statement in body.named_children if body is not None else ():
        if statement.type in spec.mixins:  # PHP `use Trait;`
            targets = statement.named_children
        elif statement.type in spec.calls and statement.child_by_field_name("receiver") is None:
            method = statement.child_by_field_name("method")
            args = statement.child_by_field_name("arguments")
            if method is None or args is None or text_of(method) not in spec.mixins:
                continue
            targets = args.named_children
        else:
            continue
        found.extend((text_of(t).lstrip("\\:"), t.start_point[0]) for t in targets if t.type in _MIXIN_TARGETS)
    return found


def derived(node: Node, spec: LanguageSpec) -> list[str]:
    """The traits the attributes right above ``node`` derive for it (``#[derive(Debug, Clone)]``), in
    source order."""
    pattern = spec.derives
    if pattern is None:
        return []
    found: list[str] = []
    for text in attributes_above(node, spec):
        match = pattern.match(text)
        if match:
            found[:0] = [n for n in (strip_generics(p.strip()) for p in match.group(1).split(",")) if n]
    return found


def attributes_above(node: Node, spec: LanguageSpec) -> Iterator[str]:
    """The texts of the attributes right above ``node`` (the lines attached to it but comments: Rust's
    ``#[derive(...)]``, ``#[test]``), nearest first."""
    above = node.prev_named_sibling
    while above is not None and above.type in spec.attached:
        if "comment" not in above.type:
            yield text_of(above)
        above = above.prev_named_sibling


_GO_TYPES = frozenset({"type_identifier", "qualified_type", "generic_type"})


def _go_embedded(body: Node | None) -> list[Node]:
    """Go: embedded struct fields (`Base`, `*pkg.Other`) and embedded interfaces (`io.Reader`)."""
    if body is None:
        return []
    if body.type == "struct_type":
        fields = next((c for c in body.named_children if c.type == "field_declaration_list"), None)
        found = [
            f.child_by_field_name("type")
            for f in (fields.named_children if fields else ())
            if f.type == "field_declaration" and f.child_by_field_name("name") is None
        ]
    elif body.type == "interface_type":
        found = [e.named_children[0] for e in body.named_children if e.type == "type_elem" and e.named_child_count == 1]
    else:
        return []
    return [t for t in found if t is not None and t.type in _GO_TYPES]


# --------------------------------------------------------------------------- receiver types

# Declarations that give a name a type as written: parameters, fields, typed locals.
TYPED_DECLARATIONS = frozenset(
    {
        "required_parameter",  # TS
        "optional_parameter",
        "public_field_definition",
        "variable_declarator",  # TS `const s: Subscriber = ...`
        "formal_parameter",  # Java
        "field_declaration",  # Java, C#, Go, Rust
        "local_variable_declaration",
        "parameter",  # C#, Rust, Kotlin, Swift
        "variable_declaration",  # C#
        "parameter_declaration",  # Go
        "var_spec",
        "typed_parameter",  # Python
        "typed_default_parameter",
        "assignment",  # Python `x: T = ...` (only with a type)
        "property_declaration",  # Kotlin, Swift
        "class_parameter",  # Kotlin
    }
)
SELF_WORDS = frozenset({"this", "self", "Self", "@", "$this", "static"})  # PHP: $this->f(), self::f(), static::f()
SUPER_WORDS = frozenset({"super", "base"})
_NAME_FIELDS = ("name", "pattern", "left", "declarator")
_NOT_TYPE_WORDS = frozenset(
    {"mut", "const", "readonly", "dyn", "impl", "final", "var", "val", "let", "ref", "out", "in"}
)
_BARE_NAMES = frozenset({"identifier", "simple_identifier", "variable_declaration"})  # Python, Kotlin
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_SEPARATOR = re.compile(r"(?:\?\.|\.|::|->|:)(?=[^.:>]*$)")


def typed_names(node: Node) -> list[tuple[str, str]]:
    """(name, type) pairs a declaration writes: ``s: Subscriber<T>`` -> (s, Subscriber),
    ``Foo foo`` -> (foo, Foo), ``c *Cart`` -> (c, Cart); none when it writes no type."""
    type_node = node.child_by_field_name("type") or next(
        (c for c in node.named_children if c.type in ("user_type", "type_annotation")), None
    )
    type_name = _type_name(text_of(type_node)) if type_node is not None else None
    if not type_name:
        return []
    names = [n for f in _NAME_FIELDS for n in node.children_by_field_name(f)]
    if not names:
        names = [
            c for c in node.named_children if c.type in ("identifier", "simple_identifier", "variable_declaration")
        ]
    out = []
    for name in names:
        while name.type in ("variable_declarator", "variable_declaration", "pattern", "type_annotation"):
            inner = name.child_by_field_name("name") or next(iter(name.named_children), None)
            if inner is None or inner == name:
                break
            name = inner
        text = text_of(name).strip()
        if _WORD.fullmatch(text):
            out.append((text, type_name))
    return out


# a type that wraps the one a value has (Python's ``t.Optional[Context]``, ``Final[int]``): that one
_WRAPPING = re.compile(
    r"^(?:[\w$]+\.)*(?:Optional|Final|ClassVar|Annotated|Required|NotRequired|ReadOnly)\s*\[\s*([^,\[\]]+)"
)
_UNION = re.compile(r"^(?:[\w$]+\.)*Union\s*\[(.*)\]$")
_NOTHING = frozenset({"None", "null", "undefined", "nil", "void"})  # the "no value" side of an optional


def _type_name(text: str) -> str | None:
    """The class a written type names: generics, pointers, nullability and modifiers dropped; the
    last part of a qualified name. An optional one is its value's type (``t.Optional[Context]``,
    ``Context | None``, ``Union[Context, None]``: Context); a union of several types names none."""
    text = text.lstrip(":").strip().strip("'\"")
    wrapped = _WRAPPING.match(text)
    if wrapped:
        text = wrapped.group(1)
    union = _UNION.match(text)
    members = [m.strip() for m in (union.group(1).split(",") if union else text.split("|"))]
    members = [m for m in members if m and m not in _NOTHING]
    if len(members) != 1:
        return None
    words = [w for w in _WORD.findall(strip_generics(members[0])) if w not in _NOT_TYPE_WORDS]
    return words[-1] if words and len(words) <= 3 else None


def receiver_of(written: str) -> str:
    """What a call's name is called on: ``this.destination.next`` -> ``this.destination``; ``super().f``
    -> ``super``; "" for a plain name or a receiver that is itself an unknown call's result."""
    parts = _SEPARATOR.split(written, maxsplit=1) if _SEPARATOR.search(written) else [written]
    if len(parts) < 2:
        return ""
    receiver = parts[0]
    if receiver.split("(", 1)[0] in SUPER_WORDS or (receiver == "parent" and written.startswith("parent::")):
        return "super"  # PHP's parent::f()
    return "" if "(" in receiver else receiver
