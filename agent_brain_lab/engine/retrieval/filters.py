"""Filter columns of a generation and the boolean mask a request's filters select.

Row i of every column is the i-th live chunk in key order, which is also the BM25 document order.
Filters are evaluated per distinct file / language, then broadcast, so a mask over 100k chunks
costs microseconds; every mode applies it before cutting to ``top_k``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..globs import compile_glob
from ..store.datafiles import NPY_LOCK
from ..types import SOURCE_TYPES, QueryRequest

FILE = "columns.npz"
NAMES = "columns.json"


@dataclass
class FilterColumns:
    keys: np.ndarray  # int64 chunk keys, ascending
    file_idx: np.ndarray  # int32 index into files
    type_idx: np.ndarray  # int8 index into SOURCE_TYPES
    lang_idx: np.ndarray  # int16 index into languages
    files: list[str]
    languages: list[str]

    @classmethod
    def build(cls, rows: Sequence[tuple[int, str, str, str]]) -> FilterColumns:
        """rows: (key, source, source_type, language) in key order."""
        files: dict[str, int] = {}
        langs: dict[str, int] = {}
        n = len(rows)
        keys = np.empty(n, dtype=np.int64)
        file_idx = np.empty(n, dtype=np.int32)
        type_idx = np.empty(n, dtype=np.int8)
        lang_idx = np.empty(n, dtype=np.int16)
        types = {t: i for i, t in enumerate(SOURCE_TYPES)}
        for i, (key, source, stype, lang) in enumerate(rows):
            keys[i] = key
            file_idx[i] = files.setdefault(source, len(files))
            type_idx[i] = types[stype]
            lang_idx[i] = langs.setdefault(lang, len(langs))
        return cls(keys, file_idx, type_idx, lang_idx, list(files), list(langs))

    def save(self, gen_dir: Path) -> None:
        np.savez(gen_dir / FILE, keys=self.keys, file_idx=self.file_idx, type_idx=self.type_idx, lang_idx=self.lang_idx)
        (gen_dir / NAMES).write_text(json.dumps({"files": self.files, "languages": self.languages}))

    @classmethod
    def open(cls, gen_dir: Path) -> FilterColumns:
        with NPY_LOCK, np.load(gen_dir / FILE, allow_pickle=False) as npz:
            keys, file_idx, type_idx, lang_idx = (npz[name] for name in ("keys", "file_idx", "type_idx", "lang_idx"))
        names = json.loads((gen_dir / NAMES).read_text())
        return cls(
            keys,
            file_idx,
            type_idx,
            lang_idx,
            names["files"],
            names["languages"],
        )

    def __len__(self) -> int:
        return len(self.keys)

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Row positions of chunk keys (keys must be live in this generation)."""
        return np.searchsorted(self.keys, keys)

    def mask(self, request: QueryRequest) -> np.ndarray | None:
        """Rows the request's filters allow, or None when it has no filters."""
        if not (request.source_types or request.languages or request.file_paths):
            return None
        allowed = np.ones(len(self.keys), dtype=bool)
        if request.source_types:
            wanted = [SOURCE_TYPES.index(t) for t in request.source_types]
            allowed &= np.isin(self.type_idx, wanted)
        if request.languages:
            wanted = [i for i, lang in enumerate(self.languages) if lang.lower() in request.languages]
            allowed &= np.isin(self.lang_idx, wanted)
        if request.file_paths:
            globs = [compile_glob(g) for g in request.file_paths]
            wanted = [i for i, f in enumerate(self.files) if any(g.match(f) for g in globs)]
            allowed &= np.isin(self.file_idx, wanted)
        return allowed
