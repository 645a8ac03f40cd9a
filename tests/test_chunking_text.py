"""The doc chunker on the fixture's documents and on generated long documents."""

from __future__ import annotations

import itertools

import pytest
from workspace_fixture import FIXTURE

from agent_brain_lab.engine.chunking.text import chunk_document


def chunks_of(rel: str, language: str, chunk_size: int = 1500, overlap: int = 200):
    text = (FIXTURE / rel).read_text(encoding="utf-8")
    return text, chunk_document(rel, text, language, "doc", chunk_size, overlap)


def lines_of(text: str, chunk) -> str:
    return "\n".join(text.split("\n")[chunk.start_line - 1 : chunk.end_line])


def line_no(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


# --------------------------------------------------------------------------- markdown


def test_markdown_sections_and_exact_lines():
    text, chunks = chunks_of("README.md", "markdown")
    assert [(c.section_path, c.start_line, c.end_line) for c in chunks] == [
        ("Shop Demo", 1, 3),
        ("Shop Demo > Install > From source", 5, 9),  # the bare "## Install" joins its first subsection
        ("Shop Demo > Install > From a wheel", 11, 13),
        ("Shop Demo > Usage", 15, 26),
        ("Shop Demo > Errors", 28, 31),
    ]
    for c in chunks:
        assert c.text == lines_of(text, c)
        assert (c.source, c.source_type, c.language) == ("README.md", "doc", "markdown")
        assert c.symbol_name is None and c.cell_index is None


def test_hash_inside_a_fence_is_not_a_heading():
    _, chunks = chunks_of("README.md", "markdown")
    usage = next(c for c in chunks if c.section_path == "Shop Demo > Usage")
    assert "# this line is a comment inside a fence" in usage.text
    assert not [c for c in chunks if "comment" in (c.section_path or "")]


def test_setext_headings_mix_with_atx():
    text, chunks = chunks_of("docs/architecture.md", "markdown")
    assert [c.section_path for c in chunks] == [
        "Architecture",
        "Architecture > Models",
        "Architecture > Pricing",
        "Architecture > Order flow",
        "Architecture > Order flow > Persistence",
    ]
    pricing = chunks[2]
    assert pricing.start_line == line_no(text, "Pricing") and "# pricing pipeline" in pricing.text
    assert all(c.text == lines_of(text, c) for c in chunks)


def test_markdown_heading_cleanup_front_matter_and_thematic_breaks():
    text = (
        "---\ntitle: Not a heading\n---\n\n# The `compute_total` [guide](http://x)\n\nIntro.\n\n"
        "---\n\nAfter a break.\n\n- item\n---\n"
    )
    chunks = chunk_document("g.md", text, "markdown", "doc", 1500, 200)
    assert [c.section_path for c in chunks] == [None, "The compute_total guide"]
    assert chunks[0].text == "---\ntitle: Not a heading\n---"
    assert chunks[1].start_line == 5 and chunks[1].end_line == 14


def test_a_closed_fence_needs_the_same_marker():
    text = "# A\n\n````\n```\n# inside\n```\n````\n\n# B\n\nb\n"
    chunks = chunk_document("f.md", text, "markdown", "doc", 1500, 200)
    assert [c.section_path for c in chunks] == ["A", "B"]


def test_deeper_headings_pop_back_to_their_level():
    text = "# A\n\na\n\n### C\n\nc\n\n## D\n\nd\n\n# E\n\ne\n"
    chunks = chunk_document("h.md", text, "markdown", "doc", 1500, 200)
    assert [c.section_path for c in chunks] == ["A", "A > C", "A > D", "E"]


# --------------------------------------------------------------------------- rst, html, plain


def test_rst_titles_with_overlines_and_levels_by_first_appearance():
    text, chunks = chunks_of("docs/api.rst", "rst")
    assert [(c.section_path, c.start_line) for c in chunks] == [
        ("Shop API", 1),
        ("Shop API > Pricing functions > compute_total", 7),
        ("Shop API > Pricing functions > apply_tax", 17),
        ("Shop API > Inventory", 22),
    ]
    assert all(c.text == lines_of(text, c) for c in chunks)
    assert "``compute_total`` applies the discount" in chunks[1].text


def test_rst_transition_and_short_underline_are_not_titles():
    text = "Title\n=====\n\nText.\n\n----------\n\nMore text\n---\n\nEnd.\n"
    chunks = chunk_document("t.rst", text, "rst", "doc", 1500, 200)
    assert [c.section_path for c in chunks] == ["Title"]


def test_html_visible_text_sections_and_source_lines():
    text, chunks = chunks_of("docs/guide.html", "html")
    assert [c.section_path for c in chunks] == [
        "Shop guide",
        "Shop guide > Checkout",
        "Shop guide > Checkout > Refunds",
        "Shop guide > Troubleshooting",
    ]
    joined = "\n".join(c.text for c in chunks)
    assert "trackingMarker" not in joined and "hidden-style-marker" not in joined and "<" not in joined
    assert "validates the cart & reserves stock." in joined
    assert "Press Checkout to create an order." in joined
    refunds = chunks[2]
    assert refunds.start_line == line_no(text, "<h3>Refunds")
    assert refunds.end_line == line_no(text, "Refunds are issued")
    checkout = chunks[1]
    assert (checkout.start_line, checkout.end_line) == (line_no(text, "<h2>Checkout"), line_no(text, "e-mailed"))


def test_html_on_one_line_still_splits_into_sections():
    text = "<html><body><h1>One</h1><p>first</p><h2>Two</h2><p>second<br>line</p></body></html>"
    chunks = chunk_document("m.html", text, "html", "doc", 1500, 200)
    assert [(c.section_path, c.text) for c in chunks] == [("One", "One\n\nfirst"), ("One > Two", "Two\n\nsecond\nline")]
    assert all(c.start_line == c.end_line == 1 for c in chunks)


def test_plain_text_and_config_have_no_sections():
    text, chunks = chunks_of("settings/shop.yaml", "yaml")
    assert len(chunks) == 1 and chunks[0].section_path is None
    assert (chunks[0].start_line, chunks[0].end_line, chunks[0].language) == (1, 6, "yaml")
    assert chunks[0].text == text.rstrip("\n")


# --------------------------------------------------------------------------- splitting


def long_markdown(paragraphs: int = 30) -> str:
    body = "\n\n".join(
        f"Paragraph {i} talks about order {i}.\nIt has a second line about stock level {i}." for i in range(paragraphs)
    )
    return f"# Intro\n\nShort intro.\n\n## Big\n\n{body}\n\n## After\n\nThe end.\n"


def test_large_sections_split_on_paragraphs_with_overlap():
    text = long_markdown()
    chunks = chunk_document("big.md", text, "markdown", "doc", 400, 100)
    big = [c for c in chunks if c.section_path == "Intro > Big"]
    assert len(big) > 3
    for c in chunks:
        assert 0 < len(c.text) <= 400
        assert c.text == lines_of(text, c)
        assert c.text.strip() == c.text.strip("\n") and c.text.strip()
    for a, b in itertools.pairwise(big):
        assert b.start_line <= a.end_line  # overlapping lines
        shared = "\n".join(text.split("\n")[b.start_line - 1 : a.end_line])
        assert len(shared) <= 100
        assert b.start_line > a.start_line
    # every line of the section is covered
    covered = {n for c in big for n in range(c.start_line, c.end_line + 1)}
    first, last = big[0].start_line, big[-1].end_line
    assert all(n in covered for n in range(first, last + 1))
    assert next(c.section_path for c in chunks) == "Intro" and chunks[-1].section_path == "Intro > After"


def test_windows_end_on_paragraph_boundaries_when_possible():
    text = long_markdown()
    lines = text.split("\n")
    chunks = chunk_document("big.md", text, "markdown", "doc", 400, 0)
    for c in chunks[:-1]:
        assert c.end_line == len(lines) or not lines[c.end_line].strip()  # next line is blank
    assert all(b.start_line > a.end_line for a, b in itertools.pairwise(chunks))  # no overlap asked


def test_a_paragraph_larger_than_a_chunk_splits_on_lines():
    text = "\n".join(f"line {i} of one long paragraph without blank lines" for i in range(40))
    chunks = chunk_document("p.txt", text, "text", "doc", 300, 60)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 and c.text == lines_of(text, c) for c in chunks)
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 40


def test_a_single_line_longer_than_a_chunk_is_cut_by_characters():
    line = "".join(f"token{i} " for i in range(300))
    text = f"before\n\n{line}\n\nafter\n"
    chunks = chunk_document("l.txt", text, "text", "doc", 500, 50)
    pieces = [c for c in chunks if c.start_line == 3]
    assert len(pieces) >= len(line) // 500
    assert all(len(c.text) <= 500 and c.end_line == 3 for c in pieces)
    assert pieces[0].text == line[:500]
    assert pieces[1].text.startswith(line[450:460])  # 50 characters of overlap
    assert "".join(p.text[50 if i else 0 :] for i, p in enumerate(pieces)).rstrip() == line.rstrip()
    assert chunks[0].text == "before" and chunks[-1].text == "after"


@pytest.mark.parametrize("language", ["markdown", "rst", "html", "text"])
def test_no_empty_chunks(language):
    for text in ("", "\n\n   \n", "<html><script>x=1</script><p> </p></html>" if language == "html" else "\t\n"):
        assert chunk_document("e", text, language, "doc", 100, 10) == []
    text = "# T\n\n\n\n   \n\nbody\n\n\n"
    chunks = chunk_document("e", text, language, "doc", 5, 2)
    assert chunks and all(c.text.strip() for c in chunks)


def test_bare_headings_stay_when_no_subsection_follows():
    text = "# A\n\n# B\n\nbody\n"
    chunks = chunk_document("b.md", text, "markdown", "doc", 1500, 200)
    assert [(c.section_path, c.text) for c in chunks] == [("A", "# A"), ("B", "# B\n\nbody")]


def test_chunk_ids_survive_moved_lines_but_not_edits():
    text = "# A\n\nalpha\n\n# B\n\nbeta\n"
    before = chunk_document("s.md", text, "markdown", "doc", 1500, 200)
    moved = chunk_document("s.md", "\n\n\n" + text, "markdown", "doc", 1500, 200)
    edited = chunk_document("s.md", text.replace("beta", "gamma"), "markdown", "doc", 1500, 200)
    assert [c.chunk_id for c in before] == [c.chunk_id for c in moved]
    assert before[0].start_line + 3 == moved[0].start_line
    assert before[0].chunk_id == edited[0].chunk_id and before[1].chunk_id != edited[1].chunk_id


def test_invalid_chunk_size():
    with pytest.raises(ValueError):
        chunk_document("x.md", "# x", "markdown", "doc", 0, 0)


def test_identical_chunks_in_one_file_get_distinct_stable_ids():
    text = "# A\n\nsame\n\n# A\n\nsame\n"
    first = chunk_document("d.md", text, "markdown", "doc", 1500, 200)
    second = chunk_document("d.md", text, "markdown", "doc", 1500, 200)
    assert [(c.section_path, c.text) for c in first] == [("A", "# A\n\nsame")] * 2
    assert first[0].chunk_id != first[1].chunk_id
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
