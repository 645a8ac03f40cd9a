"""Where the test fixtures are, the one way tests copy the fixture workspace, and the one way they
index a workspace written from their own texts.

``FIXTURES`` is tests/fixtures; ``FIXTURE`` its sample project, tests/fixtures/workspace.

A test never indexes the fixture in place: ``copy_workspace`` gives it a private copy, the whole
tree or only some of its members, each at its own relative path or at another one. ``indexed_files``
writes a test's own files and indexes them.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from agent_brain_lab import Brain

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "workspace"
F16_INDEX = FIXTURES / "f16_index"  # an index the engine wrote before bf16 vectors (format 2)


def chunk_as_the_f16_index_was(monkeypatch) -> None:
    """Have the indexer chunk as the engine that wrote ``F16_INDEX`` did (its catalog records the
    chunker version). Under a later chunker the next run re-chunks every file and builds a new bf16
    base, instead of writing the next generation on top of the f16 one, which is what such tests are
    about."""
    from agent_brain_lab.engine import indexer

    db = sqlite3.connect(f"file:{F16_INDEX / 'ws' / '.agent-brain' / 'catalog.sqlite'}?mode=ro", uri=True)
    try:
        (chunking,) = db.execute("SELECT value FROM meta WHERE key = 'chunking'").fetchone()
    finally:
        db.close()
    monkeypatch.setattr(indexer, "CHUNKER_VERSION", int(re.search(r"chunker=(\d+)", chunking).group(1)))


def copy_workspace(dest: Path, members: Iterable[str] | None = None, renames: Mapping[str, str] | None = None) -> Path:
    """Copy the fixture workspace to ``dest`` and return ``dest``.

    Without ``members`` or ``renames`` the whole tree is copied. Otherwise ``dest`` is created and
    holds only ``members`` (files or folders, relative to the fixture, at the same relative path)
    and each ``renames`` key copied to its value (``{"README.md": "docs/README.md"}``).
    Links are copied as links.
    """
    if members is None and renames is None:
        shutil.copytree(FIXTURE, dest, symlinks=True)
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    pairs = [(rel, rel) for rel in members or ()] + list((renames or {}).items())
    for rel, target in pairs:
        source, to = FIXTURE / rel, dest / target
        to.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, to, symlinks=True)
        else:
            shutil.copy(source, to)
    return dest


def indexed_files(root: Path, files: Mapping[str, str]) -> Brain:
    """Write ``files`` (relative path -> text, folders made as needed) under ``root`` and index them."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    brain = Brain(root)
    brain.index()
    return brain


def top10(brain: Brain, query: str, mode: str = "multi") -> list:
    """The first ten results of ``query`` in ``mode``: the page the ranking tests read."""
    return brain.query(query, mode=mode, top_k=10).results
