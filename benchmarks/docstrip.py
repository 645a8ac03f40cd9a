"""Remove docstrings from Python source and turn them into code-search queries.

The stripped source keeps every other byte in place and every line number unchanged, so a
function's definition span in the stripped file is the span recorded here.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass

MIN_QUERY_WORDS = 4
MAX_QUERY_CHARS = 1000  # the engine's request limit

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Target:
    """One query and the function it should find."""

    query: str
    source: str  # POSIX path relative to the workspace root
    qualname: str
    start_line: int  # first decorator or the ``def`` line
    end_line: int

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "source": self.source,
            "qualname": self.qualname,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }


def strip_docstrings(source: str) -> tuple[str, list[tuple[str, int, int, str]]]:
    """Return ``(stripped_source, functions)``.

    ``functions`` lists ``(qualname, start_line, end_line, docstring)`` for every function and
    method that had a docstring. Module and class docstrings are removed too but yield no
    function. Raises ``SyntaxError`` if the source does not parse.
    """
    tree = ast.parse(source)
    lines = _split_lines(source)
    spans: list[tuple[ast.Expr, bool]] = []  # (docstring node, is the only statement)
    functions: list[tuple[str, int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, *_DEFS)) and body and _is_docstring(body[0]):
            spans.append((body[0], len(body) == 1))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                functions.append((prefix.rstrip("."), start, node.end_lineno, inspect.cleandoc(body[0].value.value)))
        for child in ast.iter_child_nodes(node):
            name = f"{prefix}{child.name}." if isinstance(child, _DEFS) else prefix
            visit(child, name)

    visit(tree, "")
    # Blank from the last docstring backwards so earlier offsets stay valid.
    for expr, alone in sorted(spans, key=lambda s: (s[0].lineno, s[0].col_offset), reverse=True):
        lines = _blank(lines, expr, alone)
    stripped = "".join(lines)
    ast.parse(stripped)  # the result must still be valid Python
    return stripped, functions


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _blank(lines: list[str], expr: ast.Expr, alone: bool) -> list[str]:
    """Replace the docstring's characters, keeping its newlines so line numbers stay put."""
    first, last = expr.lineno - 1, expr.end_lineno - 1
    head = lines[first].encode("utf-8")[: expr.col_offset].decode("utf-8")
    tail = lines[last].encode("utf-8")[expr.end_col_offset :].decode("utf-8")
    own_lines = not head.strip() and tail.strip() in ("", ";")
    # A body must keep one statement; a docstring sharing its line with code keeps a placeholder.
    if own_lines and not alone:
        filler, tail = "", tail[len(tail.rstrip("\r\n")) :]
    else:
        filler = "..."
    replaced = head + filler + "\n" * (last - first) + tail
    return lines[:first] + _split_lines(replaced) + lines[last + 1 :]


def _split_lines(text: str) -> list[str]:
    """Split on the line endings Python's tokenizer counts (not form feeds, unlike str.splitlines)."""
    return re.findall(r".*?(?:\r\n|\r|\n)|.+$", text, re.S)


def first_paragraph(docstring: str) -> str:
    """The docstring's summary: its first paragraph, whitespace collapsed, within the query limit."""
    paragraph = re.split(r"\n\s*\n", docstring.strip(), maxsplit=1)[0]
    text = " ".join(paragraph.split())
    return text[:MAX_QUERY_CHARS].strip()


def query_for(docstring: str) -> str | None:
    """A usable query from a docstring, or ``None`` when it says too little."""
    text = first_paragraph(docstring)
    words = re.findall(r"[A-Za-z]{2,}", text)
    return text if len(words) >= MIN_QUERY_WORDS else None
