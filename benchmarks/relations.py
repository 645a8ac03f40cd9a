"""Relation questions and their answers, from Python's ``ast``: "what calls X", "subclasses of X",
"which modules import X", "what does X call".

Each kind has two groups of phrasings: ``tuned`` (the ones the query analysis was written and tuned
against) and ``held-out`` (written apart and never used for tuning), so a report can say whether the
analysis holds on phrasings it never saw.

The answers come from ``ast``, independent of the engine's tree-sitter graph. X is named so that it
can mean one thing only: a function or class whose name is defined once in the package, or a module
of the package; and it has from 1 to ``MAX_ANSWERS`` answers.
"""

from __future__ import annotations

import ast
import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from .docstrip import Target

Question = tuple[str, tuple[Target, ...]]  # the query and every span that answers it
MAX_ANSWERS = 10
MIN_NAME = 4  # shorter names (``get``, ``run``) are too generic to ask about
TEMPLATES = {
    "tuned": {
        "callers": (
            "what calls {name}",
            "which functions call {name}?",
            "where is {name} called",
            "who uses {name}",
            "who calls {name}?",
            "callers of {name}",
            "which functions use {name}",
            "find the code that invokes {name}",
        ),
        "subclasses": (
            "subclasses of {name}",
            "which classes extend {name}?",
            "what inherits from {name}",
            "classes derived from {name}",
            "{name}'s subclasses",
            "classes deriving from {name}",
        ),
        "importers": (
            "which modules import {name}",
            "what imports {name}?",
            "where is {name} imported",
            "modules importing {name}",
        ),
        "callees": ("what does {name} call", "functions called by {name}", "callees of {name}"),
    },
    "held-out": {
        "callers": (
            "call sites of {name}",
            "show me every caller of {name}",
            "usages of {name}",
            "which code invokes {name}?",
            "{name} is used where?",
        ),
        "subclasses": (
            "what subclasses {name}",
            "which classes inherit from {name}?",
            "{name} subclasses",
            "classes that subclass {name}",
        ),
        "importers": (
            "who imports {name}",
            "files that import {name}",
            "{name} importers",
            "which files depend on {name}?",
        ),
        "callees": ("which functions does {name} call?", "what is called by {name}", "{name} calls what?"),
    },
}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Facts:
    """What the questions are made of, gathered in one pass over the package."""

    def __init__(self) -> None:
        self.functions: dict[str, list[str]] = defaultdict(list)  # simple name -> qualnames
        self.classes: dict[str, list[str]] = defaultdict(list)
        self.callers: dict[str, dict[tuple, Target]] = defaultdict(dict)  # called name -> caller spans
        self.subclasses: dict[str, dict[tuple, Target]] = defaultdict(dict)  # base name -> class spans
        self.importers: dict[str, dict[tuple, Target]] = defaultdict(dict)  # module -> importing files
        self.modules: set[str] = set()
        self.definitions: dict[str, list[Target]] = defaultdict(list)  # simple name -> function/class spans
        self.calls: dict[str, set[str]] = defaultdict(set)  # function simple name -> names it calls


def relation_questions(root: Path, seed: int = 0, phrasings: str = "tuned") -> dict[str, list[Question]]:
    """Questions of each kind (``callers``, ``subclasses``, ``importers``, ``callees``) about the ``.py``
    files under ``root``, phrased from the ``tuned`` or the ``held-out`` templates."""
    facts = _Facts()
    for path in sorted(root.rglob("*.py")):
        if ".agent-brain" in path.parts:
            continue
        source = path.relative_to(root).as_posix()
        module = source[:-3].replace("/", ".").removesuffix(".__init__")
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        facts.modules.add(module)
        _gather(facts, tree, source, module, is_package=path.name == "__init__.py")
    rng = random.Random(seed)
    unique_functions = {n: q[0] for n, q in facts.functions.items() if len(q) == 1 and not n.startswith("__")}
    unique_classes = {n: q[0] for n, q in facts.classes.items() if len(q) == 1}
    unique = {n: spans[0] for n, spans in facts.definitions.items() if len(spans) == 1}
    callees = {
        n: {(t.source, t.qualname): t for t in (unique.get(c) for c in sorted(facts.calls[n])) if t}
        for n in unique_functions
    }
    # a method may be asked about as Class.method or as method
    as_written = {n: q if "." in q and rng.random() < 0.5 else n for n, q in unique_functions.items()}
    asked = {
        "callers": as_written,
        "subclasses": {n: n for n in unique_classes},
        "importers": {m: m for m in facts.modules if "." in m},  # not the top package: everything imports it
        "callees": as_written,
    }
    answers = {
        "callers": facts.callers,
        "subclasses": facts.subclasses,
        "importers": facts.importers,
        "callees": callees,
    }
    templates = TEMPLATES[phrasings]
    out: dict[str, list[Question]] = {}
    for kind, names in asked.items():
        out[kind] = []
        for name in sorted(names):
            found = list(answers[kind].get(name, {}).values())
            if len(name) >= MIN_NAME and 1 <= len(found) <= MAX_ANSWERS:
                out[kind].append((rng.choice(templates[kind]).format(name=names[name]), tuple(found)))
    return out


def _gather(facts: _Facts, tree: ast.Module, source: str, module: str, is_package: bool) -> None:
    for qualname, node in _definitions(tree, ""):
        span = Target(
            "", source, qualname, min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno
        )
        facts.definitions[node.name].append(span)
        if isinstance(node, ast.ClassDef):
            facts.classes[node.name].append(qualname)
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
                if name:
                    facts.subclasses[name][(source, qualname)] = span
            continue
        facts.functions[node.name].append(qualname)
        for name in _called_names(node):
            if name != node.name:
                facts.callers[name][(source, qualname)] = span
                facts.calls[node.name].add(name)
    package = module if is_package else module.rpartition(".")[0]
    whole_file = Target("", source, "", 1, max(getattr(tree.body[-1], "end_lineno", 1), 1) if tree.body else 1)
    for node in ast.walk(tree):
        for imported in _imported_modules(node, package):
            facts.importers[imported][(source,)] = whole_file  # the answer is the module: any part of it


def _imported_modules(node: ast.AST, package: str) -> list[str]:
    """Modules an import statement names, relative ones made absolute (``from .web import x``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if not node.level:
        return [node.module] if node.module else []
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return [".".join(base + ([node.module] if node.module else []))]


def _definitions(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Every function, method and class with its qualified name (``Class.method``, ``outer.inner``)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (*_FUNCS, ast.ClassDef)):
            qualname = f"{prefix}{child.name}"
            yield qualname, child
            yield from _definitions(child, qualname + ".")
        else:
            yield from _definitions(child, prefix)


def _called_names(function: ast.AST) -> set[str]:
    """Names called in the function's own body (nested functions and classes answer for their own calls)."""
    names: set[str] = set()
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            target = node.func
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(target, ast.Attribute):
                names.add(target.attr)
        stack.extend(ast.iter_child_nodes(node))
    return names
