"""A read-only view of one committed generation: the indexes queries run against."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from .retrieval.filters import FilterColumns
from .store.graph import CodeGraph
from .store.keywords import KeywordIndex
from .store.vectors import VectorIndex

MANIFEST = "manifest.json"


class Snapshot:
    def __init__(self, gen: int, gen_dir: Path, graph: CodeGraph | None = None):
        self.gen = gen
        self.dir = gen_dir
        self.manifest = read_manifest(gen_dir)
        self.columns = FilterColumns.open(gen_dir)
        self.vectors = VectorIndex.open(gen_dir)
        self.keywords = KeywordIndex.open(gen_dir, len(self.columns))
        self._graph = graph  # handed over by the writer that just built it, else loaded on first use
        self._graph_lock = threading.Lock()

    @property
    def graph(self) -> CodeGraph | None:
        """Loaded on first use: most queries never need it, and opening stays fast."""
        if self._graph is None:
            with self._graph_lock:
                if self._graph is None:
                    self._graph = CodeGraph.open(self.dir)
        return self._graph

    def __len__(self) -> int:
        return len(self.columns)


def read_manifest(gen_dir: Path) -> dict:
    """What the writer recorded about a generation: counts, skips, model, graph statistics."""
    return json.loads((gen_dir / MANIFEST).read_text())
