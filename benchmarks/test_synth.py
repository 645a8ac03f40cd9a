"""The generated workspace is deterministic, valid Python, and its queries never repeat."""

import ast

from benchmarks.synth import generate, queries


def test_generated_workspace_is_deterministic_and_parses(tmp_path):
    a = generate(tmp_path / "a", 12)
    b = generate(tmp_path / "b", 12)
    assert [p.relative_to(tmp_path / "a") for p in a.files] == [p.relative_to(tmp_path / "b") for p in b.files]
    for pa, pb in zip(a.files, b.files):
        assert pa.read_bytes() == pb.read_bytes()
        if pa.suffix == ".py":
            ast.parse(pa.read_text())
    assert any(p.suffix == ".md" for p in a.files)
    # modules call functions imported from their neighbours: the graph has edges to find
    text = a.files[-1].read_text() if a.files[-1].suffix == ".py" else a.files[-2].read_text()
    assert "from pkg000." in text


def test_queries_are_distinct_and_use_real_names(tmp_path):
    g = generate(tmp_path, 10)
    qs = queries(60, g)
    assert len(set(qs)) == 60
    assert any(q in g.functions for q in qs)
    assert any(c in q for q in qs for c in g.classes)
