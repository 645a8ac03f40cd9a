"""The heading benchmark's own heading parser (its ground truth does not come from the engine's chunker)."""

from __future__ import annotations

from benchmarks.headings import Section, clean, hit, parent_questions, sections_of

MARKDOWN = """# Guide

Intro.

```python
# not a heading
```

## Making a `request`

Text.
"""

RST = """=========
Top title
=========

Intro.

Using the module
----------------

Text.
"""


def test_markdown_headings_outside_fences_with_their_lines():
    assert sections_of("a.md", MARKDOWN) == [
        Section("Guide", "a.md", 1, 8),
        Section("Making a request", "a.md", 9, 11),
    ]


def test_rst_titles_with_over_and_underlines():
    assert sections_of("a.rst", RST) == [
        Section("Top title", "a.rst", 1, 6),
        Section("Using the module", "a.rst", 7, 10),
    ]


def test_roles_and_links_are_cleaned_and_a_result_must_overlap_the_section():
    assert clean(":class:`ParserElement` and [links](http://x)") == "ParserElement and links"
    section = Section("Using the module", "a.rst", 7, 10)
    assert hit(("a.rst", 1, 8), section, strict=False)
    assert not hit(("a.rst", 1, 6), section, strict=False)
    assert not hit(("b.rst", 7, 10), section, strict=False)


def test_each_heading_knows_its_parent_and_repeated_headings_are_asked_with_it(tmp_path):
    md = "# Tools\n\n## Vim\n\n### With ALE\n\nx\n\n## Neovim\n\n### With ALE\n\ny\n\n## Usage\n"
    assert [s.parent for s in sections_of("a.md", md)] == ["", "Tools", "Vim", "Tools", "Neovim", "Tools"]
    rst = "=====\nTitle\n=====\n\nPart\n----\n\nSub\n~~~\n\nOther\n-----\n"
    assert [(s.query, s.parent) for s in sections_of("a.rst", rst)] == [
        ("Title", ""),
        ("Part", "Title"),
        ("Sub", "Part"),
        ("Other", "Title"),
    ]
    (tmp_path / "a.md").write_text(md)
    asked = parent_questions(tmp_path)
    assert [(s.query, s.start) for s in asked] == [("Vim With ALE", 5), ("Neovim With ALE", 11)]
