"""One file in, its chunks and graph facts out: routes each file to the chunker for its kind."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from .chunking.text import cap_chunks, no_check
from .config import CHUNK_OVERLAP, CHUNK_SIZE
from .types import Chunk
from .workspace import Unreadable, WorkspaceFile

MAX_CHUNKS_PER_FILE = 2000  # more: the rest of the file becomes one trailing chunk (README "Limits")
FILE_SECONDS = 60.0  # analysing one file for longer than this makes it a skip

_BACKTICKED = re.compile(r"`([A-Za-z_][\w.:]*)(?:\(\))?`")
_IDENT = re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\b(\()?")
_CODE_LIKE = re.compile(r"_|[a-z][A-Z]|^[A-Z][a-z0-9]+[A-Z]")


@dataclass(frozen=True)
class ChunkSettings:
    chunk_size: int = CHUNK_SIZE
    chunk_overlap: int = CHUNK_OVERLAP


def file_budget(check_cancel: Callable[[], None], seconds: float = FILE_SECONDS) -> Callable[[], None]:
    """A ``check`` for the analysis of one file: ``check_cancel()`` (raises when the run is cancelled),
    then Unreadable once ``seconds`` have passed since this call."""
    deadline = time.monotonic() + seconds

    def check() -> None:
        check_cancel()
        if time.monotonic() > deadline:
            raise Unreadable(f"took longer than {seconds:g} s to analyse (the per-file limit)")

    return check


def analyze_file(
    file: WorkspaceFile, text: str, settings: ChunkSettings, check: Callable[[], None] = no_check
) -> tuple[list[Chunk], dict]:
    """Chunks of the file (at most ``MAX_CHUNKS_PER_FILE``) and its facts for the graph: symbols, raw
    relations, doc sections. ``check`` is called along the way (it raises to stop)."""
    # The chunkers (tree-sitter and its grammars) load with the first file indexed: a query never needs them.
    from .chunking.code import analyze_code
    from .chunking.notebook import chunk_notebook
    from .chunking.text import chunk_document

    if file.source_type == "notebook":
        chunks, symbols, relations = chunk_notebook(
            file.path, text, file.source_type, settings.chunk_size, settings.chunk_overlap, check
        )
    elif file.source_type == "doc":
        chunks = chunk_document(
            file.path, text, file.language, file.source_type, settings.chunk_size, settings.chunk_overlap, check
        )
        symbols, relations = [], []
    else:
        check()
        analysis = analyze_code(file.path, text, file.language, file.source_type, settings.chunk_size)
        chunks, symbols, relations = analysis.chunks, analysis.symbols, analysis.relations
        check()
    chunks, moved = cap_chunks(chunks, MAX_CHUNKS_PER_FILE)
    if moved:
        symbols = [replace(s, chunk_id=moved.get(s.chunk_id, s.chunk_id)) for s in symbols]
        relations = [replace(r, chunk_id=moved.get(r.chunk_id, r.chunk_id)) for r in relations]
    sections = [
        {
            "section_path": c.section_path,
            "start_line": c.start_line,
            "end_line": c.end_line,
            "chunk_id": c.chunk_id,
            "mentions": mentions(c.text),
        }
        for c in chunks
        if c.symbol_name is None and c.language in ("markdown", "rst", "text", "html")
    ]
    facts: dict[str, object] = {
        "symbols": [asdict(s) for s in symbols],
        "relations": [r.facts() for r in relations],
        "sections": [s for s in sections if s["mentions"]],
    }
    if file.source_type in ("code", "test"):
        facts["language"] = file.language
    return chunks, facts


def mentions(text: str) -> list[str]:
    """Names a passage of prose refers to as code: `backticked`, called(), snake_case or camelCase."""
    names = {m.rpartition(".")[2].rpartition("::")[2] for m in _BACKTICKED.findall(text)}
    for match in _IDENT.finditer(text):
        word = match.group(0).rstrip("(")
        last = word.rpartition(".")[2]
        if match.group(1) or _CODE_LIKE.search(last) or "." in word:
            names.add(last)
    return sorted(n for n in names if len(n) >= 3)
