"""BM25 (Lucene variant, as bm25s computes it) over code-aware tokens, patched per generation.

The index is a term-frequency matrix in segments: a large base and a small delta, each an immutable
set of term postings (rows, term frequencies), plus a per-generation ``live`` mask (tombstones). A
new generation hard-links the base, rebuilds only the delta (its surviving rows and the added
chunks) and merges everything into a new base once the delta or the tombstones grow large.

Scores use collection-wide statistics of the live rows (document count, document frequency,
average length), so a patched index scores exactly like one built from scratch. What bm25s stores
per posting (its impact: the term frequency normalised by its row's length) is computed once per
generation and process, on the first query, in one vectorised pass (~0.1 s at 100k chunks); a query
then reads only its terms' slices of impacts and output rows (tombstones point at a spare row that
is dropped) and multiplies by the IDF. Output row i is the i-th live chunk in key order, the row
order of the filter columns.
"""

from __future__ import annotations

import json
import math
import re
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .datafiles import CorruptIndexFile, link_or_copy, load_array, load_json, release_pages, require, save_array

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
        self.blob, self.ptr = np.asarray(blob), np.asarray(ptr)

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def __getitem__(self, i: int) -> bytes:  # type: ignore[override]  # no slices: a term by number
        return self.blob[self.ptr[i] : self.ptr[i + 1]].tobytes()

    def ids(self) -> dict[bytes, int]:
        """term -> its number: one dictionary look-up a query term instead of a binary search that
        slices the vocabulary ~20 times (built once per segment file, see :func:`_vocabulary`)."""
        blob, ends = self.blob.tobytes(), self.ptr.tolist()
        return {blob[ends[i] : ends[i + 1]]: i for i in range(len(ends) - 1)}


_VOCABULARIES: OrderedDict[tuple, dict[bytes, int]] = OrderedDict()
_VOCABULARIES_KEPT = 4  # the base and delta of the generation in use and of the one before
_VOCABULARIES_LOCK = threading.Lock()


def _vocabulary(terms: _Terms, origin: Path | None, name: str) -> dict[bytes, int]:
    """A segment's term dictionary. Segment files never change once written and a new generation
    hard-links its base, so a dictionary built for one file identity serves every later generation
    that shares it: a reader does not rebuild the base's dictionary after each edit."""
    if origin is None:
        return terms.ids()
    try:
        st = (origin / f"{name}.terms.npy").stat()
    except OSError:
        return terms.ids()
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _VOCABULARIES_LOCK:
        found = _VOCABULARIES.get(identity)
        if found is not None:
            _VOCABULARIES.move_to_end(identity)
            return found
    found = terms.ids()
    with _VOCABULARIES_LOCK:
        _VOCABULARIES[identity] = found
        while len(_VOCABULARIES) > _VOCABULARIES_KEPT:
            _VOCABULARIES.popitem(last=False)
    return found


@dataclass
class Segment:
    name: str
    arrays: dict[str, np.ndarray]
    origin: Path | None = None  # the folder its files were read from: saved again as hard links

    def __post_init__(self) -> None:
        self._terms = _Terms(self.arrays["terms"], self.arrays["term_ptr"])
        self._ids: dict[bytes, int] | None = None
        # plain ndarray views of the (memory-mapped) columns: np.memmap's slicing costs microseconds
        self._post_ptr, self._rows, self._tf = (np.asarray(self.arrays[k]) for k in ("post_ptr", "rows", "tf"))

    def __len__(self) -> int:
        return len(self.arrays["keys"])

    @property
    def keys(self) -> np.ndarray:
        return self.arrays["keys"]

    def span(self, term: bytes) -> tuple[int, int, int] | None:
        """(term number, start, end) of ``term``'s postings in ``rows``/``tf``; None when the segment
        does not hold it."""
        if self._ids is None:
            self._ids = _vocabulary(self._terms, self.origin, self.name)
        i = self._ids.get(term)
        if i is None:
            return None
        return i, int(self._post_ptr[i]), int(self._post_ptr[i + 1])

    def coo(self, keep: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """(vocabulary, term id, row, tf) of every posting in the rows ``keep`` selects."""
        a = self.arrays
        vocab = [self._terms[i].decode("utf-8", "surrogatepass") for i in range(len(self._terms))]
        term_ids = np.repeat(np.arange(len(vocab), dtype=np.int64), np.diff(a["post_ptr"]))
        sel = keep[a["rows"]]
        return vocab, term_ids[sel], np.asarray(a["rows"][sel]), np.asarray(a["tf"][sel])

    @classmethod
    def from_coo(
        cls,
        name: str,
        vocab: Sequence[str],
        term_ids: np.ndarray,
        rows: np.ndarray,
        tf: np.ndarray,
        doc_len: np.ndarray,
        keys: np.ndarray,
    ) -> Segment:
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
        self._avgdl = total / self._size if total else 1.0
        self._out_pos = out_pos
        self._impacts: list[_Impacts] | None = None  # computed on the first query (see _prepared)
        self._lock = threading.Lock()

    def _prepared(self) -> list[_Impacts]:
        """Per segment, every posting's output row and impact, and each term's live document count:
        one vectorised pass over the postings, once per generation and process, on its first query."""
        with self._lock:
            if self._impacts is None:
                impacts, start = [], 0
                for seg, m in zip(self.segments, self.live):
                    count = int(m.sum())
                    impacts.append(_Impacts.of(seg, m, self._out_pos[start : start + count], self))
                    start += count
                    # queries read the impacts, not the postings' file columns: their pages leave this
                    # process's memory (the page cache keeps them for the next generation's pass)
                    release_pages(seg.arrays["rows"], seg.arrays["tf"])
                self._impacts = impacts
            return self._impacts

    def prepare(self) -> None:
        """Compute what queries read now (a server's warm-up), not on the first query."""
        self._prepared()

    def __len__(self) -> int:
        return self._size

    # ---------------------------------------------------------------- building and patching

    @classmethod
    def build(cls, keys: Sequence[int], docs: Sequence[Sequence[str]], k1: float, b: float) -> KeywordIndex:
        """From scratch: one segment holding every (key, tokens) document."""
        segment = _segment_of("s1", [], keys, docs)
        return cls([segment], [np.ones(len(segment), dtype=bool)], k1, b, 2)

    def patched(
        self, retired: Sequence[int], added_keys: Sequence[int], added_docs: Sequence[Sequence[str]]
    ) -> KeywordIndex:
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
        """BM25 score of every live row in key order (zeros when no query token is in the vocabulary).

        Only the query terms' postings are touched: their slices of output rows and impacts (the
        generation's precomputed ``tf / (tf + k1 * (1 - b + b * dl / avgdl))``, tombstones pointing
        at a spare row), times the term's IDF from the live document counts, summed by one bincount.
        A row sums its terms in sorted term order whichever segment holds it, so a patched index
        scores bit for bit like one built from the same rows."""
        n = self._size
        impacts = self._prepared()
        where_parts, weight_parts = [], []
        for term, count in sorted(Counter(query_tokens).items()):
            encoded = _encode(term)
            found = []
            df = 0
            for seg, imp in zip(self.segments, impacts):
                span = seg.span(encoded)
                if span is not None and imp.df[span[0]]:
                    df += int(imp.df[span[0]])
                    found.append((imp, span[1], span[2]))
            if not df:
                continue
            weight = np.float32(count * math.log(1 + (n - df + 0.5) / (df + 0.5)))
            for imp, start, end in found:
                where_parts.append(imp.rows[start:end])
                weight_parts.append(imp.impact[start:end] * weight)
        if not where_parts:
            return np.zeros(n, dtype=np.float32)
        # joined in bincount's own types (it would otherwise copy both to them): one copy of each
        # instead of two, a third less memory streamed per query at 100k chunks (~115k postings),
        # and the same bits (float32 products widened exactly, summed in the same order)
        where = np.concatenate(where_parts, dtype=np.intp)
        weights = np.concatenate(weight_parts, dtype=np.float64)
        return np.bincount(where, weights, minlength=n + 1)[:n].astype(np.float32)


_BLOCK = 1 << 20  # postings per step of the impact pass: bounds its temporary arrays (~40 MB)


@dataclass
class _Impacts:
    """What a query reads of one segment in one generation, posting by posting."""

    rows: np.ndarray  # int32 output row of each posting; a tombstone's is the spare row n
    impact: np.ndarray  # float32 tf / (tf + k1 * (1 - b + b * dl / avgdl)), avgdl of the generation's live rows
    df: np.ndarray  # int64 per term: its postings in live rows

    @classmethod
    def of(cls, seg: Segment, live: np.ndarray, out_pos: np.ndarray, index: KeywordIndex) -> _Impacts:
        n, k1, b = len(index), index.k1, index.b
        pos = np.full(len(seg), n, dtype=np.int32)
        pos[live] = out_pos
        norm = k1 * (1 - b + b * np.asarray(seg.arrays["doc_len"], dtype=np.float64) / index._avgdl)
        rows = np.empty(len(seg._rows), dtype=np.int32)
        impact = np.empty(len(seg._rows), dtype=np.float32)
        for start in range(0, len(rows), _BLOCK):
            r = seg._rows[start : start + _BLOCK]
            tf = seg._tf[start : start + _BLOCK].astype(np.float64)
            rows[start : start + len(r)] = pos[r]
            impact[start : start + len(r)] = tf / (tf + norm[r])
        ptr = seg._post_ptr
        if bool(live.all()):
            df = np.diff(ptr)
        else:
            alive = np.concatenate([[0], np.cumsum(rows < n, dtype=np.int64)])
            df = alive[ptr[1:]] - alive[ptr[:-1]]
        return cls(rows, impact, df)


def _segment_of(
    name: str, parts: list[tuple[Segment, np.ndarray]], keys: Sequence[int], docs: Sequence[Sequence[str]]
) -> Segment:
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
