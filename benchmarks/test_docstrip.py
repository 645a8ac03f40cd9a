"""The docstring stripper keeps code and line numbers intact and leaks no docstring."""

import ast

import pytest

from benchmarks.docstrip import first_paragraph, query_for, strip_docstrings

SOURCE = '''"""Module doc."""
import os


@decorator
def parse(header):
    """Parse an HTTP header into a dict.

    More detail here.
    """
    return dict(header)


class Box:
    """A box."""

    def only_doc(self):
        """Nothing but a docstring in this body."""

    def same_line(self): "Docstring sharing its line with the def."; return 1

    async def fetch(self):
        \'\'\'Fetch the remote resource asynchronously.\'\'\'
        return await os.fetch()
'''


def test_docstrings_removed_and_lines_kept():
    stripped, _functions = strip_docstrings(SOURCE)
    assert len(stripped.splitlines()) == len(SOURCE.splitlines())
    tree = ast.parse(stripped)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            assert ast.get_docstring(node) is None
    for word in ("Module doc", "Parse an HTTP", "A box", "Nothing but", "Docstring sharing", "Fetch the"):
        assert word not in stripped
    # the code that is left sits on its original lines
    original = SOURCE.splitlines()
    for i, line in enumerate(stripped.splitlines()):
        if line.strip() and line.strip() != "...":
            assert line == original[i] or "return 1" in line
    assert "return 1" in stripped and "return dict(header)" in stripped


def test_functions_and_spans():
    _, functions = strip_docstrings(SOURCE)
    by_name = {name: (start, end, doc) for name, start, end, doc in functions}
    assert set(by_name) == {"parse", "Box.only_doc", "Box.same_line", "Box.fetch"}
    start, end, doc = by_name["parse"]
    assert (start, end) == (5, 11)  # starts at the decorator
    assert doc.startswith("Parse an HTTP header")
    assert by_name["Box.fetch"][:2] == (22, 24)


def test_queries():
    assert first_paragraph("Parse an HTTP\n   header.\n\nMore.") == "Parse an HTTP header."
    assert query_for("Return the value.") is None  # under four words
    assert query_for("Return the cached value of x.") == "Return the cached value of x."
    assert len(query_for("word " * 400)) <= 1000


def test_syntax_error_is_raised():
    with pytest.raises(SyntaxError):
        strip_docstrings("def broken(:\n")
