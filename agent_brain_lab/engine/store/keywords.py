"""BM25 (Lucene variant, as bm25s computes it) over code-aware tokens, patched per generation.

The index is a term-frequency matrix in segments: a large base and a small delta, each an immutable
set of term postings (rows, term frequencies), plus a per-generation ``live`` mask (tombstones). A
new generation hard-links the base, rebuilds only the delta (its surviving rows and the added
chunks) and merges everything into a new base once the delta or the tombstones grow large. Scores
are computed at query time from collection-wide statistics of the live rows (document count,
document frequency, average length), so a patched index scores exactly like one built from scratch.
Output row i is the i-th live chunk in key order, the row order of the filter columns.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .datafiles import CorruptIndexFile, link_or_copy, load_array, load_json, require, save_array

FOLDER = "keywords"
META = "keywords.json"
FORMAT = 1
ARRAYS = {
    "terms": "uint8",  # the vocabulary: UTF-8 terms, concatenated in byte order
    "term_ptr": "int64",  # term i is terms[term_ptr[i]:term_ptr[i + 1]]
    "post_ptr": "int64",  # term i's postings are rows/tf[post_ptr[i]:post_ptr[i + 1]]
    "rows": "int32",  # row in this segment, ascending within a term
    "tf": "int32",  # the term's count in that row
    "doc_len": "int32",  # tokens per row
    "keys": "int64",  # chunk key per row, ascending
}
DELTA_MIN = 2048  # a delta up to this many rows (or a 16th of the base) is rebuilt, not merged
DEAD_SHARE = 0.25  # a base with this share of tombstones is merged away
_NAME = re.compile(r"s\d{1,12}")


def _encode(term: str) -> bytes:
    return term.encode("utf-8", "surrogatepass")


class _Terms(Sequence):
    """The sorted vocabulary of a segment as a sequence of bytes, for binary search."""

    def __init__(self, blob: np.ndarray, ptr: np.ndarray):
        # plain ndarray views of the (memory-mapped) arrays: a binary search indexes them ~50 times
        # a query term, and np.memmap's per-item __getitem__ costs microseconds each
        self.blob, self.ptr = np.asarray(blob), np.asarray(ptr)

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def __getitem__(self, i):
        return self.blob[self.ptr[i] : self.ptr[i + 1]].tobytes()


@dataclass
class Segment:
    name: str
    arrays: dict[str, np.ndarray]
    origin: Path | None = None  # the folder its files were read from: saved again as hard links

    def __post_init__(self) -> None:
        self._terms = _Terms(self.arrays["terms"], self.arrays["term_ptr"])

    def __len__(self) -> int:
        return len(self.arrays["keys"])

    @property
    def keys(self) -> np.ndarray:
        return self.arrays["keys"]

    def postings(self, term: bytes) -> tuple[np.ndarray, np.ndarray]:
        i = bisect_left(self._terms, term)
        if i == len(self._terms) or self._terms[i] != term:
            return _EMPTY_ROWS, _EMPTY_ROWS
        start, end = self.arrays["post_ptr"][i : i + 2]
        return np.asarray(self.arrays["rows"][start:end]), np.asarray(self.arrays["tf"][start:end])

    def coo(self, keep: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """(vocabulary, term id, row, tf) of every posting in the rows ``keep`` selects."""
        a = self.arrays
        vocab = [self._terms[i].decode("utf-8", "surrogatepass") for i in range(len(self._terms))]
        term_ids = np.repeat(np.arange(len(vocab), dtype=np.int64), np.diff(a["post_ptr"]))
        sel = keep[a["rows"]]
        return vocab, term_ids[sel], np.asarray(a["rows"][sel]), np.asarray(a["tf"][sel])

    @classmethod
    def from_coo(cls, name, vocab, term_ids, rows, tf, doc_len, keys) -> Segment:
        """A segment from postings in any order; rows are renumbered into key order."""
        order = np.argsort(keys, kind="stable")
        new_row = np.empty(len(keys), dtype=np.int64)
        new_row[order] = np.arange(len(keys))
        rows = new_row[rows] if len(rows) else np.asarray(rows, dtype=np.int64)
        encoded = [_encode(t) for t in vocab]
        used = np.flatnonzero(np.bincount(term_ids, minlength=len(vocab)))
        kept = sorted(used.tolist(), key=encoded.__getitem__)
        remap = np.full(len(vocab), -1, dtype=np.int64)
        remap[kept] = np.arange(len(kept))
        tids = remap[term_ids]
        idx = np.lexsort((rows, tids))
        lengths = np.fromiter((len(encoded[i]) for i in kept), dtype=np.int64, count=len(kept))
        arrays = {
            "terms": np.frombuffer(b"".join(encoded[i] for i in kept), dtype=np.uint8),
            "term_ptr": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
            "post_ptr": np.concatenate([[0], np.cumsum(np.bincount(tids, minlength=len(kept)))]).astype(np.int64),
            "rows": rows[idx].astype(np.int32),
            "tf": np.asarray(tf)[idx].astype(np.int32),
            "doc_len": np.asarray(doc_len, dtype=np.int32)[order],
            "keys": np.asarray(keys, dtype=np.int64)[order],
        }
        return cls(name, arrays)

    def save(self, folder: Path) -> None:
        for part in ARRAYS:
            target = folder / f"{self.name}.{part}.npy"
            if self.origin is not None:
                link_or_copy(self.origin / target.name, target)
            else:
                save_array(target, self.arrays[part])

    @classmethod
    def load(cls, folder: Path, name: str) -> Segment:
        arrays = {part: load_array(folder / f"{name}.{part}.npy", dtype) for part, dtype in ARRAYS.items()}
        vocab, nnz, n = len(arrays["term_ptr"]) - 1, len(arrays["rows"]), len(arrays["keys"])
        require(vocab >= 0 and len(arrays["post_ptr"]) == vocab + 1, f"{name}: vocabulary and postings disagree")
        require(len(arrays["tf"]) == nnz and len(arrays["doc_len"]) == n, f"{name}: column lengths disagree")
        for ptr, end in (("term_ptr", len(arrays["terms"])), ("post_ptr", nnz)):
            p = arrays[ptr]
            require(p[0] == 0 and p[-1] == end and bool(np.all(np.diff(p) >= 0)), f"{name}: bad {ptr}")
        require(not nnz or (arrays["rows"].min() >= 0 and arrays["rows"].max() < n), f"{name}: rows out of range")
        require(bool(np.all(np.diff(arrays["keys"]) > 0)), f"{name}: keys not ascending")
        return cls(name, arrays, origin=folder)


_EMPTY_ROWS = np.zeros(0, dtype=np.int32)


class KeywordIndex:
    def __init__(self, segments: list[Segment], live: list[np.ndarray], k1: float, b: float, next_id: int):
        self.segments, self.live = segments, live
        self.k1, self.b, self._next = k1, b, next_id
        live_keys = np.concatenate([s.keys[m] for s, m in zip(segments, live)]) if segments else np.zeros(0, np.int64)
        order = np.argsort(live_keys, kind="stable")
        if len(order) > 1 and not np.all(np.diff(live_keys[order]) > 0):
            raise CorruptIndexFile("keywords: a chunk key is live in two segments")
        out_pos = np.empty(len(order), dtype=np.int64)
        out_pos[order] = np.arange(len(order))
        self.keys = live_keys[order]  # output row -> chunk key
        self._size = len(order)
        total = sum(int(s.arrays["doc_len"][m].sum(dtype=np.int64)) for s, m in zip(segments, live))
        avgdl = total / self._size if total else 1.0
        self._pos: list[np.ndarray] = []  # per segment: row -> output row, -1 for a tombstone
        self._norm: list[np.ndarray] = []  # per segment: k1 * (1 - b + b * dl / avgdl)
        start = 0
        for s, m in zip(segments, live):
            pos = np.full(len(s), -1, dtype=np.int64)
            count = int(m.sum())
            pos[m] = out_pos[start : start + count]
            start += count
            self._pos.append(pos)
            self._norm.append(k1 * (1 - b + b * np.asarray(s.arrays["doc_len"], dtype=np.float64) / avgdl))

    def __len__(self) -> int:
        return self._size

    # ---------------------------------------------------------------- building and patching

    @classmethod
    def build(cls, keys: Sequence[int], docs: Sequence[Sequence[str]], k1: float, b: float) -> KeywordIndex:
        """From scratch: one segment holding every (key, tokens) document."""
        segment = _segment_of("s1", [], keys, docs)
        return cls([segment], [np.ones(len(segment), dtype=bool)], k1, b, 2)

    def patched(self, retired: Sequence[int], added_keys: Sequence[int], added_docs: Sequence[Sequence[str]]):
        """The next generation: ``retired`` keys tombstoned, the added documents in a rebuilt delta
        (or everything merged into one new base when the delta or the tombstones have grown)."""
        retired_keys = np.asarray(retired, dtype=np.int64)
        live = [m.copy() for m in self.live]
        for seg, m in zip(self.segments, live):
            if len(seg) and len(retired_keys):
                at = np.minimum(np.searchsorted(seg.keys, retired_keys), len(seg) - 1)
                m[at[seg.keys[at] == retired_keys]] = False
        name = f"s{self._next}"
        rest = list(zip(self.segments[1:], live[1:]))
        delta_rows = sum(int(m.sum()) for _, m in rest) + len(added_keys)
        base, base_live = (self.segments[0], live[0]) if self.segments else (None, np.ones(0, dtype=bool))
        dead = 1 - base_live.mean() if len(base_live) else 0.0
        if base is None or delta_rows > max(DELTA_MIN, len(base) // 16) or dead > DEAD_SHARE:
            merged = _segment_of(name, list(zip(self.segments, live)), added_keys, added_docs)
            return KeywordIndex([merged], [np.ones(len(merged), dtype=bool)], self.k1, self.b, self._next + 1)
        delta = _segment_of(name, rest, added_keys, added_docs)
        segments, masks = [base], [base_live]
        if len(delta):
            segments.append(delta)
            masks.append(np.ones(len(delta), dtype=bool))
        return KeywordIndex(segments, masks, self.k1, self.b, self._next + 1)

    # ---------------------------------------------------------------- persistence

    def save(self, gen_dir: Path) -> None:
        folder = gen_dir / FOLDER
        folder.mkdir()
        for seg, m in zip(self.segments, self.live):
            seg.save(folder)
            save_array(folder / f"{seg.name}.live.npy", m)
        meta = {
            "format": FORMAT,
            "k1": self.k1,
            "b": self.b,
            "next": self._next,
            "segments": [s.name for s in self.segments],
        }
        (folder / META).write_text(json.dumps(meta))

    @classmethod
    def open(cls, gen_dir: Path, size: int | None = None) -> KeywordIndex | None:
        """The generation's index, None when it has none; :class:`CorruptIndexFile` when it is damaged
        or holds another number of rows than the generation's ``size``."""
        folder = gen_dir / FOLDER
        if not folder.exists():
            return None
        meta = load_json(folder / META)
        names, k1, b, next_id = meta.get("segments"), meta.get("k1"), meta.get("b"), meta.get("next")
        require(meta.get("format") == FORMAT, f"keywords: format {meta.get('format')!r}, expected {FORMAT}")
        if not (isinstance(names, list) and all(isinstance(n, str) and _NAME.fullmatch(n) for n in names)):
            raise CorruptIndexFile("keywords: bad segment list")
        if not (isinstance(k1, (int, float)) and isinstance(b, (int, float)) and math.isfinite(k1 + b)):
            raise CorruptIndexFile("keywords: bad parameters")
        if not isinstance(next_id, int):
            raise CorruptIndexFile("keywords: bad segment counter")
        segments = [Segment.load(folder, n) for n in names]
        live = [load_array(folder / f"{n}.live.npy", "bool", mmap=False) for n in names]
        require(
            all(len(m) == len(s) for s, m in zip(segments, live)), "keywords: tombstones do not match their segment"
        )
        index = cls(segments, live, float(k1), float(b), next_id)
        require(size is None or len(index) == size, f"keywords: {len(index)} rows, the generation has {size}")
        return index

    # ---------------------------------------------------------------- scoring

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every live row in key order (zeros when no query token is in the vocabulary)."""
        out = np.zeros(self._size, dtype=np.float64)
        n = self._size
        for term, count in sorted(Counter(query_tokens).items()):
            found = []
            df = 0
            for seg, pos, norm in zip(self.segments, self._pos, self._norm):
                rows, tf = seg.postings(_encode(term))
                if not len(rows):
                    continue
                where = pos[rows]
                keep = where >= 0
                if not keep.all():
                    rows, tf, where = rows[keep], tf[keep], where[keep]
                df += len(where)
                found.append((where, tf, norm[rows]))
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for where, tf, norm in found:
                tf = tf.astype(np.float64)
                out[where] += count * idf * tf / (norm + tf)
        return out.astype(np.float32)


def _segment_of(name: str, parts: list[tuple[Segment, np.ndarray]], keys: Sequence[int], docs) -> Segment:
    """One segment of the live rows of ``parts`` and the new (key, tokens) documents."""
    vocab: dict[str, int] = {}
    term_ids, rows, tfs = [], [], []
    all_keys, lengths = [], []
    offset = 0
    for seg, keep in parts:
        words, tids, r, tf = seg.coo(keep)
        remap = np.fromiter((vocab.setdefault(w, len(vocab)) for w in words), dtype=np.int64, count=len(words))
        new_row = np.cumsum(keep) - 1 + offset
        term_ids.append(remap[tids])
        rows.append(new_row[r])
        tfs.append(tf)
        all_keys.append(np.asarray(seg.keys[keep]))
        lengths.append(np.asarray(seg.arrays["doc_len"][keep]))
        offset += int(keep.sum())
    t_ids, t_rows, t_tf = array("q"), array("q"), array("q")
    for row, doc in enumerate(docs, offset):
        counts = Counter(doc)
        t_ids.extend(vocab.setdefault(t, len(vocab)) for t in counts)
        t_tf.extend(counts.values())
        t_rows.extend([row] * len(counts))
    term_ids.append(np.frombuffer(t_ids, dtype=np.int64))
    rows.append(np.frombuffer(t_rows, dtype=np.int64))
    tfs.append(np.frombuffer(t_tf, dtype=np.int64))
    all_keys.append(np.asarray(keys, dtype=np.int64))
    lengths.append(np.fromiter((len(d) for d in docs), dtype=np.int64, count=len(docs)))
    return Segment.from_coo(
        name,
        list(vocab),
        np.concatenate(term_ids),
        np.concatenate(rows),
        np.concatenate(tfs),
        np.concatenate(lengths),
        np.concatenate(all_keys),
    )


__all__ = ["CorruptIndexFile", "KeywordIndex"]


def next_generation(
    previous: Path | None,
    keys: np.ndarray,
    retired: Sequence[int],
    added: Sequence[int],
    added_tokens: Sequence[str],
    all_tokens: Callable[[], Sequence[tuple[int, str]]],
    k1: float,
    b: float,
) -> KeywordIndex:
    """The index of a new generation whose live chunk keys are ``keys``: the previous generation's
    patched, or built from ``all_tokens()`` (key, space-separated tokens) when there is none, it
    cannot be read, its parameters differ, or the patch would not line up with ``keys``."""
    try:
        prev = KeywordIndex.open(previous) if previous is not None else None
    except CorruptIndexFile:
        prev = None
    if prev is not None and (prev.k1, prev.b) == (k1, b):
        index = prev.patched(retired, added, [t.split() for t in added_tokens])
        if np.array_equal(index.keys, keys):
            return index
    rows = all_tokens()
    return KeywordIndex.build([k for k, _ in rows], [t.split() for _, t in rows], k1, b)
