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

    def patched(self, retired: Sequence[int], added: Sequence[tuple[int, str, str, str]]) -> FilterColumns | None:
        """The columns of the next generation: the rows of ``retired`` keys dropped, ``added`` rows
        (key, source, source_type, language; keys above every key here, ascending) appended. Equal to
        :meth:`build` over the same rows (file and language names numbered in order of first use).
        None when the patch does not fit these columns (a retired key not here, an added key too low)."""
        gone = np.asarray(retired, dtype=np.int64)
        at = np.searchsorted(self.keys, gone)
        if len(gone) and (at.max() >= len(self.keys) or not np.array_equal(self.keys[at], gone)):
            return None
        keep = np.ones(len(self.keys), dtype=bool)
        keep[at] = False
        new = FilterColumns.build(added)
        keys = np.concatenate([self.keys[keep], new.keys])
        if len(new) and not (
            np.all(np.diff(new.keys) > 0) and (len(keys) == len(new) or keys[-len(new) - 1] < new.keys[0])
        ):
            return None
        files, file_idx = _joined(self.files, self.file_idx[keep], new.files, new.file_idx)
        languages, lang_idx = _joined(self.languages, self.lang_idx[keep], new.languages, new.lang_idx)
        return FilterColumns(
            keys, file_idx, np.concatenate([self.type_idx[keep], new.type_idx]), lang_idx, files, languages
        )

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

    def empty_note(self, request: QueryRequest, mask: np.ndarray | None) -> str | None:
        """Why the request's filters (``mask``: :meth:`mask` of it) leave no chunk of this generation, so
        that an empty answer says so: each filter value that matches nothing here, with what the index
        holds, else that they match nothing together. None when some chunk passes (or no filter is set).
        A value the engine cannot read at all is refused before (QueryRequest.build, check_languages)."""
        if mask is None or mask.any():
            return None
        held_types = {SOURCE_TYPES[i] for i in np.unique(self.type_idx)}
        held_languages = {lang.lower() for lang in self.languages}
        said = []
        absent = [t for t in request.source_types if t not in held_types]
        if absent:
            held = ", ".join(sorted(held_types)) or "none"
            said.append(f"source_types {', '.join(absent)} (this index holds: {held})")
        absent = [lang for lang in request.languages if lang not in held_languages]
        if absent:
            held = ", ".join(sorted(held_languages)) or "none"
            said.append(f"languages {', '.join(absent)} (this index holds: {held})")
        absent = [g for g in request.file_paths if not any(compile_glob(g).match(f) for f in self.files)]
        if absent:
            said.append(f"file_paths {', '.join(repr(g) for g in absent)} (no indexed file matches)")
        if not said:
            return "no chunk of this index passes the filters together (each matches some chunks alone)"
        return "no chunk of this index passes the filters: " + "; ".join(said)


def _joined(names: list[str], idx: np.ndarray, more: list[str], more_idx: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Rows indexing ``names`` followed by rows indexing ``more`` as one column, its names numbered in
    order of first use (unused names dropped): what :meth:`FilterColumns.build` makes of the same rows."""
    number = {name: i for i, name in enumerate(names)}
    every = names + [m for m in more if m not in number]
    number.update((m, i) for i, m in enumerate(every) if i >= len(names))
    column = np.concatenate([idx, np.array([number[m] for m in more], dtype=idx.dtype)[more_idx]])
    used, first = np.unique(column, return_index=True)
    order = used[np.argsort(first)]
    renumber = np.zeros(len(every), dtype=idx.dtype)
    renumber[order] = np.arange(len(order), dtype=idx.dtype)
    return [every[i] for i in order], renumber[column]
