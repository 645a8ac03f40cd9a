"""Header-aware chunks of prose: Markdown, reStructuredText, HTML, plain text and config files.

A document becomes a list of units (one per source line, or per block of visible text for
HTML), grouped into sections by its headings. A heading with no text of its own joins its first
subsection; large sections are cut on paragraph, then line boundaries with some overlap; runs of
small sections are merged into chunks of up to ``chunk_size`` (see :func:`merge_small`). Line numbers
always point into the original file.

The text is untrusted: every parser here runs in time linear in its input (no regular expression
that can backtrack over a line more than a constant number of times), and calls ``check`` (cancel,
time budget) every ``CHECK_EVERY`` lines.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from itertools import accumulate

from ..types import Chunk

CHECK_EVERY = 2048  # lines (or pieces) between two calls of ``check`` while one file is parsed
SMALL_SECTION = 4  # a chunk shorter than chunk_size / SMALL_SECTION is small
MERGE_RUN = 8  # this many small chunks in a row (or more) are packed together up to chunk_size
HTML_PIECE = 65_536  # characters fed to the HTML parser between two checks
MAX_TITLE_CHARS = 200  # a longer heading is cut (with "…") in the section path every chunk of it carries


def no_check() -> None:
    return None


@dataclass
class Unit:
    """A piece of visible text at lines start..end (1-based, inclusive); blank text is a paragraph break."""

    start: int
    end: int
    text: str
    heading: tuple[int, str] | None = None  # (level, title) when this unit opens a section
    decor: bool = False  # a title's underline or overline


@dataclass
class Section:
    path: tuple[str, ...]
    units: list[Unit]


def chunk_document(
    source: str,
    text: str,
    language: str,
    source_type: str,
    chunk_size: int,
    chunk_overlap: int,
    check: Callable[[], None] = no_check,
    outline: list[tuple[int, str]] | None = None,
) -> list[Chunk]:
    """Chunks of one document; ``language`` picks the parser (markdown, rst, html, else plain text).
    ``check`` is called every ``CHECK_EVERY`` lines (it raises to stop: cancel, time budget).
    ``outline``: the headings (level, title) in force where the text starts, outermost first (a
    notebook's markdown cell is under the headings of the cells above it); updated in place to those
    in force where it ends."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    overlap = max(0, min(chunk_overlap, chunk_size // 2))
    parse = PARSERS.get(language, plain_units)
    sections = absorb_bare_headings(build_sections(parse(text, check), outline))
    chunks = []
    for n, section in enumerate(sections):
        if n % CHECK_EVERY == 0:
            check()
        section_path = " > ".join(section.path) or None
        for start, end, body in split_units(section.units, chunk_size, overlap):
            chunks.append(Chunk(source, source_type, language, start, end, body, section_path=section_path))
    return distinct_ids(merge_small(chunks, chunk_size)[0])


def merge_small(chunks: list[Chunk], chunk_size: int) -> tuple[list[Chunk], dict[str, str]]:
    """``chunks`` with each run of at least ``MERGE_RUN`` consecutive small ones (shorter than
    ``chunk_size / SMALL_SECTION``, no symbol) packed into chunks of up to ``chunk_size`` characters,
    so a file of thousands of one-line sections or cells is not thousands of chunks, while a document
    with a few short sections keeps one chunk per section. A merged chunk keeps the first one's
    section path, cell and language (a notebook's markdown and code cells merge), and spans their lines. Returns the
    chunks and the new chunk id of every chunk that was merged into another (old id -> new id)."""
    small = chunk_size // SMALL_SECTION
    out: list[Chunk] = []
    moved: dict[str, str] = {}
    pending: list[Chunk] = []  # a run of small chunks not yet known to be long enough to merge
    run: list[Chunk] = []
    size = 0  # of the run's texts joined by newlines

    def pack() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            merged = joined(run)
            moved.update((c.chunk_id, merged.chunk_id) for c in run)
            out.append(merged)
        run.clear()

    def flush() -> None:  # the end of a run of small chunks: packed if it was long enough
        nonlocal size
        if len(pending) < MERGE_RUN:
            out.extend(pending)
        else:
            for chunk in pending:
                if run and size + 1 + len(chunk.text) > chunk_size:
                    pack()
                size = size + 1 + len(chunk.text) if run else len(chunk.text)
                run.append(chunk)
            pack()
        pending.clear()

    for chunk in chunks:
        mergeable = len(chunk.text) < small and chunk.symbol_name is None
        if pending and not mergeable:
            flush()
        if mergeable:
            pending.append(chunk)
        else:
            out.append(chunk)
    flush()
    return out, moved


def cap_chunks(chunks: list[Chunk], limit: int) -> tuple[list[Chunk], dict[str, str]]:
    """At most ``limit`` chunks: the first ``limit - 1`` as they are and the rest joined into one
    trailing chunk (keyword search still finds its words; its vector stands for its start). Returns
    the chunks and the new id of every chunk folded into the trailing one (old id -> new id)."""
    if len(chunks) <= limit:
        return chunks, {}
    rest = chunks[limit - 1 :]
    tail = joined(rest)
    return [*chunks[: limit - 1], tail], {c.chunk_id: tail.chunk_id for c in rest}


def joined(chunks: list[Chunk]) -> Chunk:
    """One chunk of ``chunks`` (consecutive, of one file): their texts joined by newlines, the first
    one's anchor (section path, or cell: its lines then count on from that cell's start) and symbol
    dropped."""
    first, body = chunks[0], "\n".join(c.text for c in chunks)
    end = first.start_line + body.count("\n") if first.cell_index is not None else max(c.end_line for c in chunks)
    return replace(
        first,
        end_line=max(end, first.end_line),
        text=body,
        symbol_name=None,
        symbol_type=None,
        parent_symbol=None,
        chunk_id="",
    )


def distinct_ids(chunks: list[Chunk]) -> list[Chunk]:
    """Identical chunks of one file (same anchor, same text) get distinct ids that are still stable."""
    seen: Counter[str] = Counter()
    out = []
    for chunk in chunks:
        n = seen[chunk.chunk_id]
        seen[chunk.chunk_id] += 1
        if n:
            chunk = replace(
                chunk, chunk_id=hashlib.blake2b(f"{chunk.chunk_id}#{n}".encode(), digest_size=10).hexdigest()
            )
        out.append(chunk)
    return out


# --------------------------------------------------------------------------- parsers


def plain_units(text: str, check: Callable[[], None] = no_check) -> list[Unit]:
    return [Unit(n, n, line) for n, line in enumerate(text.split("\n"), 1)]


def atx_heading(line: str) -> tuple[int, str] | None:
    """(level, raw title) of a Markdown ATX heading line (``## Title ##``), else None. Linear in the
    line: string methods only (the regular expression this replaces backtracked quadratically)."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith("#"):
        return None
    rest = body.lstrip("#")
    level = len(body) - len(rest)
    if level > 6 or (rest and rest[0] not in " \t"):
        return None
    title = rest.strip(" \t")
    bare = title.rstrip("#")
    if not bare:
        return level, ""  # only a closing sequence
    if len(bare) < len(title) and bare[-1] in " \t":
        title = bare.rstrip(" \t")  # a closing sequence of #s after a space
    return level, title


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
LIST_OR_QUOTE = re.compile(r"^ {0,3}([-*+>]|\d+[.)])\s")


def markdown_units(text: str, check: Callable[[], None] = no_check) -> list[Unit]:
    units = plain_units(text)
    fence: str | None = None
    front_matter = bool(units) and units[0].text.strip() == "---"
    for i, unit in enumerate(units):
        if i % CHECK_EVERY == 0:
            check()
        line = unit.text
        if front_matter:
            front_matter = not (i > 0 and line.strip() in ("---", "..."))
            continue
        opener = FENCE.match(line)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        atx = atx_heading(line)
        if atx:
            unit.heading = (atx[0], _clean_title(atx[1]))
            continue
        setext = SETEXT.match(line)
        prev = units[i - 1] if i else None
        if (
            setext
            and prev
            and prev.text.strip()
            and prev.heading is None
            and not LIST_OR_QUOTE.match(prev.text)
            and not FENCE.match(prev.text)
            and (i < 2 or not units[i - 2].text.strip())
        ):
            prev.heading = (1 if setext.group(1)[0] == "=" else 2, _clean_title(prev.text))
            unit.decor = True
    return units


RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.!$%&(),/;?@\[\]\\{|}])\1+\s*$")


def rst_units(text: str, check: Callable[[], None] = no_check) -> list[Unit]:
    """Titles are a line underlined (optionally also overlined) by one repeated punctuation character;
    levels follow the order in which adornment styles first appear, as in docutils."""
    units = plain_units(text)
    styles: list[tuple[str, bool]] = []
    i = 0
    while i < len(units) - 1:
        if i % CHECK_EVERY == 0:
            check()
        title, under = units[i], units[i + 1]
        over = units[i - 1] if i else None
        ok = is_rst_title(title.text, under.text) and (
            over is None or not over.text.strip() or _same_adornment(over, under)
        )
        if ok:
            overlined = over is not None and _same_adornment(over, under)
            style = (under.text[0], overlined)
            if style not in styles:
                styles.append(style)
            opener = over if over is not None and overlined else title
            under.decor = True
            if over is not None and overlined:
                over.decor = True
            opener.heading = (styles.index(style) + 1, _clean_title(title.text.strip()))
            i += 2
        else:
            i += 1
    return units


def is_rst_title(line: str, under: str) -> bool:
    """Whether ``line`` is a reStructuredText title underlined by ``under`` (one repeated punctuation
    character, at least as long as the title, which starts at the margin)."""
    return bool(
        line.strip()
        and not line[0].isspace()
        and not RST_ADORNMENT.match(line)
        and RST_ADORNMENT.match(under)
        and len(under.rstrip()) >= len(line.rstrip())
    )


def _same_adornment(a: Unit | None, b: Unit) -> bool:
    return bool(a and RST_ADORNMENT.match(a.text) and a.text.rstrip() == b.text.rstrip())


def html_units(text: str, check: Callable[[], None] = no_check) -> list[Unit]:
    parser = _HTMLText()
    for start in range(0, len(text), HTML_PIECE):
        check()
        parser.feed(text[start : start + HTML_PIECE])
    parser.close()
    return parser.finish()


class _HTMLText(HTMLParser):
    """Visible text of an HTML page, one unit per block and source line, h1-h6 as headings."""

    SKIP = {"script", "style", "noscript", "template", "svg", "head"}
    BLOCKS = {
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    }
    HEADINGS = {f"h{n}": n for n in range(1, 7)}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.units: list[Unit] = []
        self.skip_depth = 0
        self.parts: list[str] = []
        self.start = self.end = 0
        self.heading_level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # also recovers from a <head> that was never closed
            self.skip_depth = 0
        elif tag in self.SKIP:
            self.skip_depth += 1
        elif tag in self.HEADINGS:
            self._flush(paragraph=True)
            self.heading_level = self.HEADINGS[tag]
        elif tag in self.BLOCKS:
            self._flush(paragraph=tag != "br")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BLOCKS:
            self._flush(paragraph=tag != "br")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif tag in self.HEADINGS or tag in self.BLOCKS:
            self._flush(paragraph=True)

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        line = self.getpos()[0]
        for offset, piece in enumerate(data.split("\n")):
            if offset and not self.heading_level:
                self._flush(paragraph=False)
            if not piece.strip():
                if self.parts:
                    self.parts.append(piece)
                continue
            if not self.parts:
                self.start = line + offset
            self.parts.append(" " + piece if offset else piece)
            self.end = line + offset

    def _flush(self, paragraph: bool) -> None:
        if self.parts:
            words = " ".join("".join(self.parts).split())
            heading = (self.heading_level, words) if self.heading_level else None
            self.units.append(Unit(self.start, self.end, words, heading))
            self.parts = []
        self.heading_level = 0
        if paragraph and self.units and self.units[-1].text:
            last = self.units[-1].end
            self.units.append(Unit(last, last, ""))

    def finish(self) -> list[Unit]:
        self._flush(paragraph=False)
        return self.units


PARSERS = {"markdown": markdown_units, "rst": rst_units, "html": html_units}


def _clean_title(title: str) -> str:
    title = _link_texts(title)  # [text](url) -> text
    return " ".join(title.replace("`", "").replace("*", "").split())


def _link_texts(title: str) -> str:
    """``title`` with each Markdown link ``[text](url)`` replaced by its text: what
    ``re.sub(r"\\[([^\\]]*)\\]\\([^)]*\\)", r"\\1", title)`` gives, in one pass (that expression
    rescans the rest of the line from every ``[``: quadratic on ``[a](`` repeated)."""
    out: list[str] = []
    i = 0
    while True:
        start = title.find("[", i)
        close = title.find("]", start + 1) if start >= 0 else -1
        if close < 0:
            break
        if not title.startswith("(", close + 1):
            out.append(title[i : close + 1])  # every "[" before this "]" fails the same way
            i = close + 1
            continue
        end = title.find(")", close + 2)
        if end < 0:
            break  # no ")" left: no link can complete from here on
        out.append(title[i:start])
        out.append(title[start + 1 : close])
        i = end + 1
    out.append(title[i:])
    return "".join(out)


# --------------------------------------------------------------------------- sections


def build_sections(units: list[Unit], outline: list[tuple[int, str]] | None = None) -> list[Section]:
    """The sections of ``units``; the text starts under ``outline``'s headings (updated in place to
    the headings in force at its end)."""
    stack: list[tuple[int, str]] = outline if outline is not None else []
    sections = [Section(tuple(t for _, t in stack), [])]
    for unit in units:
        if unit.heading:
            level, title = unit.heading
            while stack and stack[-1][0] >= level:
                stack.pop()
            title = title if len(title) <= MAX_TITLE_CHARS else title[: MAX_TITLE_CHARS - 1] + "…"
            stack.append((level, title or "(untitled)"))
            sections.append(Section(tuple(t for _, t in stack), []))
        sections[-1].units.append(unit)
    return [s for s in sections if any(u.text.strip() for u in s.units)]


def absorb_bare_headings(sections: list[Section]) -> list[Section]:
    """A section holding nothing but its heading joins the next one when that is its subsection,
    so "## Install" right before "### From source" is not a chunk of its own."""
    out: list[Section] = []
    pending: Section | None = None
    for section in sections:
        if pending and section.path[: len(pending.path)] == pending.path:
            section = Section(section.path, pending.units + section.units)
        elif pending:
            out.append(pending)
        pending = section if _bare(section) else None
        if pending is None:
            out.append(section)
    if pending:
        out.append(pending)
    return out


def _bare(section: Section) -> bool:
    return all(u.heading or u.decor or not u.text.strip() for u in section.units)


# --------------------------------------------------------------------------- splitting


def split_units(units: list[Unit], chunk_size: int, overlap: int) -> list[tuple[int, int, str]]:
    """(start_line, end_line, text) windows of at most ``chunk_size`` characters (a single line
    longer than that is cut by characters), cut on paragraph boundaries when possible, else on
    line boundaries; consecutive windows share up to ``overlap`` characters of whole lines."""
    ends = [0, *accumulate(len(u.text) + 1 for u in units)]

    def size(i: int, j: int) -> int:  # length of units[i:j] joined by newlines
        return ends[j] - ends[i] - 1

    windows: list[tuple[int, int, str]] = []

    def emit(i: int, j: int) -> None:
        while i < j and not units[i].text.strip():
            i += 1
        while j > i and not units[j - 1].text.strip():
            j -= 1
        if i < j:
            windows.append((units[i].start, units[j - 1].end, "\n".join(u.text for u in units[i:j])))

    def overlap_start(i: int, j: int) -> int:
        k = j
        while k - 1 > i and size(k - 1, j) <= overlap:
            k -= 1
        return k

    current: tuple[int, int] | None = None
    for i, j in _segments(units, size, chunk_size):
        if size(i, j) > chunk_size:  # one over-long line
            if current:
                emit(*current)
                current = None
            windows.extend(_cut_line(units[i], chunk_size, overlap))
        elif current is None:
            current = (i, j)
        elif size(current[0], j) <= chunk_size:
            current = (current[0], j)
        else:
            emit(*current)
            k = overlap_start(*current)
            current = (k, j) if size(k, j) <= chunk_size else (i, j)
    if current:
        emit(*current)
    return windows


def _segments(units: list[Unit], size: Callable[[int, int], int], chunk_size: int) -> list[tuple[int, int]]:
    """Paragraph slices of ``units``; a paragraph larger than a chunk becomes one slice per unit."""
    segments: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        if not units[i].text.strip():
            i += 1
            continue
        j = i
        while j < len(units) and units[j].text.strip():
            j += 1
        if size(i, j) <= chunk_size:
            segments.append((i, j))
        else:
            segments.extend((k, k + 1) for k in range(i, j))
        i = j
    return segments


def _cut_line(unit: Unit, chunk_size: int, overlap: int) -> list[tuple[int, int, str]]:
    step = max(1, chunk_size - overlap)
    pieces = (unit.text[k : k + chunk_size] for k in range(0, len(unit.text) - overlap, step))
    return [(unit.start, unit.end, piece) for piece in pieces if piece.strip()]
