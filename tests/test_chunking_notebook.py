"""The notebook chunker on the fixture notebooks and on notebooks written in the tests."""

from __future__ import annotations

import json

import pytest
from workspace_fixture import FIXTURE

from agent_brain_lab.engine.chunking.notebook import chunk_notebook
from agent_brain_lab.engine.workspace import Unreadable


def notebook(*cells, metadata=None, nbformat=4) -> str:
    return json.dumps({"cells": list(cells), "metadata": metadata or {}, "nbformat": nbformat, "nbformat_minor": 5})


def md(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def code(source, outputs=()):
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": list(outputs), "source": source}


def run(text: str, chunk_size: int = 1500):
    return chunk_notebook("nb.ipynb", text, "notebook", chunk_size, 200)


@pytest.fixture(scope="module")
def analysis():
    text = (FIXTURE / "analysis.ipynb").read_text(encoding="utf-8")
    return json.loads(text), chunk_notebook("analysis.ipynb", text, "notebook", 1500, 200)


def cell_lines(nb: dict, chunk) -> str:
    source = "".join(nb["cells"][chunk.cell_index]["source"])
    return "\n".join(source.split("\n")[chunk.start_line - 1 : chunk.end_line])


def test_fixture_notebook_cells_become_chunks(analysis):
    nb, (chunks, _, _) = analysis
    assert sorted({c.cell_index for c in chunks}) == [0, 1, 2, 3, 6]  # raw cell 4 and empty cell 5 left out
    assert all(c.source == "analysis.ipynb" and c.source_type == "notebook" for c in chunks)
    docs = [c for c in chunks if c.language == "markdown"]
    assert [(c.cell_index, c.section_path) for c in docs] == [
        (0, "Sales analysis"),
        (2, "Sales analysis > Discount curve"),  # a heading nests under the cells' headings above it
        (6, "Sales analysis > Conclusion"),
    ]
    assert {c.language for c in chunks if c.cell_index in (1, 3)} == {"python"}
    for c in chunks:
        assert c.text == cell_lines(nb, c)  # lines count from the start of the cell


def test_outputs_and_raw_cells_are_not_indexed(analysis):
    _, (chunks, _, _) = analysis
    joined = "\n".join(c.text for c in chunks)
    assert "[1200, 1080" not in joined
    assert "raw cells are not indexed" not in joined
    assert "def discount_curve" in joined


def test_code_cell_symbols_point_at_the_cell_chunks(analysis):
    _, (chunks, symbols, relations) = analysis
    by_id = {c.chunk_id: c for c in chunks}
    assert len(by_id) == len(chunks)
    curve = next(s for s in symbols if s.name == "discount_curve")
    assert by_id[curve.chunk_id].cell_index == 3
    assert by_id[curve.chunk_id].symbol_name == "discount_curve"
    assert relations and all(r.chunk_id in by_id for r in relations)
    assert any(r.relation == "calls" and r.target == "compute_total" for r in relations)
    assert any(r.relation == "imports" and r.target == "shop.pricing" for r in relations)


def test_identical_cells_get_different_ids():
    chunks, symbols, _ = run(
        notebook(
            md("# Same\n\ntext"),
            md("# Same\n\ntext"),
            code("def f():\n    return 1\n"),
            code("def f():\n    return 1\n"),
        )
    )
    assert [c.cell_index for c in chunks] == [0, 1, 2, 3]
    assert len({c.chunk_id for c in chunks}) == 4
    assert [s.chunk_id for s in symbols] == [chunks[2].chunk_id, chunks[3].chunk_id]
    again, _, _ = run(
        notebook(
            md("# Same\n\ntext"),
            md("# Same\n\ntext"),
            code("def f():\n    return 1\n"),
            code("def f():\n    return 1\n"),
        )
    )
    assert [c.chunk_id for c in again] == [c.chunk_id for c in chunks]  # stable across runs


def test_long_markdown_cell_is_split_with_cell_relative_lines():
    body = "\n\n".join(f"Paragraph {i} about the discount curve and its totals." for i in range(20))
    source = f"# Notes\n\n{body}\n"
    chunks, _, _ = run(notebook(code("x = 1"), md(source)), chunk_size=300)
    docs = [c for c in chunks if c.cell_index == 1]
    assert len(docs) > 2 and all(len(c.text) <= 300 for c in docs)
    lines = source.split("\n")
    assert all(c.text == "\n".join(lines[c.start_line - 1 : c.end_line]) for c in docs)


def test_kernel_language_from_metadata():
    r_nb = notebook(code("f <- function(x) {\n  x + 1\n}\n"), metadata={"kernelspec": {"language": "R", "name": "ir"}})
    chunks, symbols, _ = run(r_nb)
    assert {c.language for c in chunks} == {"r"}
    assert [s.name for s in symbols] == ["f"]
    info_only = notebook(code("function g() { return 1; }"), metadata={"language_info": {"name": "javascript"}})
    assert {c.language for c in run(info_only)[0]} == {"javascript"}
    assert {c.language for c in run(notebook(code("def h():\n    pass\n")))[0]} == {"python"}


def test_cell_magics_switch_the_language():
    chunks, _, _ = run(notebook(code("%%bash\nbackup() {\n  cp a b\n}\n"), code("import os\n")))
    assert {c.cell_index: c.language for c in chunks} == {0: "bash", 1: "python"}
    assert any(c.symbol_name == "backup" for c in chunks)


def test_source_as_a_single_string_and_crlf():
    chunks, _, _ = run(notebook(md("# Title\r\n\r\nBody line\r\n")))
    assert [(c.text, c.start_line, c.end_line) for c in chunks] == [("# Title\n\nBody line", 1, 3)]


def test_nbformat_3_worksheets():
    text = json.dumps(
        {
            "nbformat": 3,
            "metadata": {},
            "worksheets": [
                {
                    "cells": [
                        {"cell_type": "markdown", "source": ["# Old\n", "format"]},
                        {
                            "cell_type": "code",
                            "language": "python",
                            "input": ["def old():\n", "    return 3\n"],
                            "outputs": [],
                        },
                    ]
                }
            ],
        }
    )
    chunks, symbols, _ = run(text)
    assert [c.cell_index for c in chunks] == [0, 1]
    assert [s.name for s in symbols] == ["old"]


def test_broken_fixture_notebook():
    text = (FIXTURE / "broken.ipynb").read_text(encoding="utf-8")
    with pytest.raises(Unreadable, match=r"^broken notebook: invalid JSON at line \d+"):
        chunk_notebook("broken.ipynb", text, "notebook", 1500, 200)


@pytest.mark.parametrize(
    "text, why",
    [
        ("[1, 2]", "no list of cells"),
        ('{"cells": {}}', "no list of cells"),
        ("{}", "no list of cells"),
        ('{"cells": [3]}', "cell 0 is not an object"),
        ('{"cells": [{"cell_type": "code", "source": 5}]}', "cell 0 has no text source"),
        ('{"cells": [{"cell_type": "markdown", "source": ["a", 1]}]}', "cell 0 has no text source"),
        # was 'could not be analysed (ValueError: Exceeds the limit (4300 digits) ... use sys.set_int_max_str_digits()'
        ('{"cells": [], "nbformat": ' + "9" * 5000 + "}", "a number longer than 4300 digits"),
    ],
)
def test_not_a_notebook(text, why):
    with pytest.raises(Unreadable) as err:
        run(text)
    assert str(err.value) == f"broken notebook: {why}"


def test_empty_notebook_has_no_chunks():
    assert run(notebook()) == ([], [], [])
    assert run(notebook(code(""), md("  \n"))) == ([], [], [])


def test_cells_holding_only_brain_magics_are_not_indexed():
    """A scratch notebook of %brain queries must not become the top result for its own questions."""
    cells = [
        code("%load_ext agent_brain_lab\n"),  # 0
        code("%brain query --mode bm25 where is the cart total computed\n"),  # 1
        code("# the same question, other modes\n\n%brain query --mode multi where is the cart total computed\n"),  # 2
        code("%%brain query --top-k 3\nwhere is the cart total computed\n"),  # 3
        code("%brain status\ntotal = cart_total(items)\n"),  # 4: real code beside the magic
        code("%brainstorm where is the cart total computed\n"),  # 5: another magic
        code("def cart_total(items):\n    return sum(items)\n"),  # 6
        md("%brain query in markdown is prose\n"),  # 7
    ]
    chunks, symbols, _ = run(notebook(*cells))
    assert sorted({c.cell_index for c in chunks}) == [4, 5, 6, 7]
    assert any(s.name == "cart_total" for s in symbols)


def test_headings_make_one_outline_across_cells():
    """A notebook's headings are in force over the cells below them: a markdown cell with no heading
    of its own and a code cell carry the path of the headings above them (and it is in what gets
    embedded), and a heading in a later cell nests under an earlier cell's."""
    text = notebook(
        md("# Fitting a model to data\n\nIntro."),
        code("import numpy as np"),
        md("## Results\n\nA corner plot of the samples:"),
        code("import corner\n\nfig = corner.corner(flat_samples, labels=labels)"),
        md("It shows every projection."),
        md("# Appendix"),
        code("def helper():\n    return 1"),
    )
    chunks, _, _ = run(text)
    by_cell = {}
    for c in chunks:
        by_cell.setdefault(c.cell_index, []).append(c)
    assert by_cell[1][0].section_path == "Fitting a model to data"
    assert by_cell[2][0].section_path == "Fitting a model to data > Results"
    assert {c.section_path for c in by_cell[3]} == {"Fitting a model to data > Results"}
    assert "Fitting a model to data > Results" in by_cell[3][0].indexed_text()
    assert by_cell[4][0].section_path == "Fitting a model to data > Results"
    assert by_cell[6][0].section_path == "Appendix"  # a function keeps its own name as the anchor
    assert by_cell[6][0].qualified_symbol == "helper"
