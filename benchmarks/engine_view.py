"""Read-only access to what the engine indexed, so peers run on the very same chunks and vectors.

This reads the engine's catalog directly (a benchmark may look inside; the product never does).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

import agent_brain_lab.engine as engine_pkg
from agent_brain_lab.engine.store.catalog import Catalog
from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import Chunk


def indexed_chunks(root: Path) -> tuple[list[Chunk], np.ndarray]:
    """The live chunks of the current generation, in key order, and their vectors (same order)."""
    index_dir = IndexDir(root)
    catalog = Catalog(catalog_path(index_dir))
    try:
        gen = index_dir.current()
        rows = catalog.live_chunk_rows(gen)
        by_key = catalog.chunks_by_key([r.key for r in rows])
        model = catalog.get_meta("model") or ""
        cached = catalog.cached_vectors(model, [r.text_hash for r in rows])
    finally:
        catalog.close()
    chunks = [by_key[r.key] for r in rows]
    vectors = np.stack([cached[r.text_hash] for r in rows]) if rows else np.zeros((0, 384), np.float32)
    return chunks, vectors


def catalog_path(index_dir: IndexDir) -> Path:
    found = sorted(index_dir.path.glob("*.sqlite")) + sorted(index_dir.path.glob("*.db"))
    if not found:
        raise FileNotFoundError(f"no catalog database in {index_dir.path}")
    return found[0]


def chunking_fingerprint() -> str:
    """Hash of the engine code that decides what gets indexed (everything but query-time retrieval).

    A cached benchmark index is rebuilt when this changes, so chunker edits are never measured stale.
    """
    base = Path(engine_pkg.__file__).parent
    digest = hashlib.blake2b(digest_size=12)
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base)
        if rel.parts[0] != "retrieval":
            digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
