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


def callee(node: Node, spec: LanguageSpec) -> str | None:
    """The called name as written: the text before the argument list (or the spec's callee field)."""
    field_name = spec.calls.get(node.type)
    if field_name:
        raw = text_of(node.child_by_field_name(field_name))
    else:
        args = _arguments(node)
        end = args.start_byte if args is not None else node.end_byte
        raw = (node.text or b"")[: end - node.start_byte].decode("utf-8", "replace")
    raw = "".join(re.sub(r"^\s*new\s+", "", raw).split())  # `new Foo` (PHP, Scala) -> Foo
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
    return found


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
