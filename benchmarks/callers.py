"""Relation questions ("what calls X?") with their answers, from Python's ``ast``.

The ground truth is every function whose body calls X, found by ``ast`` and so independent of the
engine's tree-sitter graph. X is a function or method whose name is defined once in the package
(a call by that name can only mean it) and called from 1 to ``MAX_CALLERS`` other functions.
"""

from __future__ import annotations

import ast
import random
from collections import defaultdict
from pathlib import Path
from typing import Iterator

from .docstrip import Target

MAX_CALLERS = 10
MIN_NAME = 4  # shorter names (``get``, ``run``) are too generic to ask about
TEMPLATES = ("what calls {name}", "which functions call {name}?", "where is {name} called",
             "who uses {name}")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def caller_questions(root: Path, seed: int = 0) -> list[tuple[str, tuple[Target, ...]]]:
    """``(question, callers)`` pairs for the ``.py`` files under ``root``; callers as spans to find."""
    defined: dict[str, list[str]] = defaultdict(list)  # simple name -> qualnames defining it
    callers: dict[str, dict[tuple[str, str], Target]] = defaultdict(dict)  # called name -> callers
    for path in sorted(root.rglob("*.py")):
        if ".agent-brain" in path.parts:
            continue
        source = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for qualname, node in _functions(tree, ""):
            defined[node.name].append(qualname)
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            span = Target("", source, qualname, start, node.end_lineno)
            for name in _called_names(node):
                if name != node.name:
                    callers[name][(source, qualname)] = span
    rng = random.Random(seed)
    questions = []
    for name in sorted(callers):
        found = list(callers[name].values())
        if len(defined.get(name, ())) != 1 or len(name) < MIN_NAME or name.startswith("__") \
                or not 1 <= len(found) <= MAX_CALLERS:
            continue
        qualname = defined[name][0]
        written = qualname if "." in qualname and rng.random() < 0.5 else name  # Class.method or method
        questions.append((rng.choice(TEMPLATES).format(name=written), tuple(found)))
    return questions


def _functions(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Every function and method with its qualified name (``Class.method``, ``outer.inner``)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (*_FUNCS, ast.ClassDef)):
            qualname = f"{prefix}{child.name}"
            if isinstance(child, _FUNCS):
                yield qualname, child
            yield from _functions(child, qualname + ".")
        else:
            yield from _functions(child, prefix)


def _called_names(function: ast.AST) -> set[str]:
    """Names called in the function's own body (nested functions answer for their own calls)."""
    names: set[str] = set()
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCS, ast.ClassDef, ast.Lambda)) and node is not function:
            if isinstance(node, ast.Lambda):
                stack.extend(ast.iter_child_nodes(node))
            continue
        if isinstance(node, ast.Call):
            target = node.func
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif isinstance(target, ast.Attribute):
                names.add(target.attr)
        stack.extend(ast.iter_child_nodes(node))
    return names
