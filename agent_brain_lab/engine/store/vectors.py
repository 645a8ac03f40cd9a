"""Dense vectors keyed by chunk key: a usearch base (cosine, f16 storage, usearch's own file format)
plus a small delta, patched per generation like the keyword index.

A new generation hard-links the base file unchanged; vectors added since the base live in a delta
(``.npy`` keys and f16 vectors, searched by brute force) and base vectors removed since are
tombstones (a ``.npy`` of keys, dropped from an over-fetched base search). Once the delta or the
tombstones grow large, the writer merges them into a new base (that run pays the full save). A key
is in the delta or live in the base, never both.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..native import usearch_index
from .datafiles import CorruptIndexFile, link_or_copy, load_array, require, save_array

FILE = "vectors.usearch"
DELTA_KEYS = "vectors.delta-keys.npy"  # int64 chunk keys of the delta
DELTA_VECTORS = "vectors.delta.npy"  # their f16 vectors, row after row (flat: len(keys) * dim)
DEAD = "vectors.dead.npy"  # int64 keys of base vectors removed since the base was written
EXACT_BELOW = 20_000  # brute force is exact and as fast as HNSW on small indexes
DELTA_MIN = 2048  # a delta up to this many vectors (or a 10th of the base) stays a delta
DEAD_MIN = 1024  # tombstones up to this many (or a 64th of the base): each one is over-fetched per search
_NO_KEYS = np.zeros(0, dtype=np.int64)
# One query is searched on the calling thread: usearch's default (every core) starts and joins a pool
# per call, which at 100k vectors doubled a search's wall time on 2 busy cores (1.1 -> 2.1 ms).
QUERY_THREADS = 1

if TYPE_CHECKING:
    from usearch.index import Index


def is_vector_file(name: str) -> bool:
    return name in (FILE, DELTA_KEYS, DELTA_VECTORS, DEAD)


class VectorIndex:
    def __init__(
        self,
        base: Index,
        origin: Path | None = None,
        dead: np.ndarray = _NO_KEYS,
        delta_keys: np.ndarray = _NO_KEYS,
        delta: np.ndarray | None = None,
    ):
        """``origin``: the folder the (read-only, memory-mapped) base was read from, saved again as a
        hard link; None for a base held in memory, which updates change in place."""
        self._base, self._origin = base, origin
        self._dead = np.sort(np.asarray(dead, dtype=np.int64))  # sorted: looked up by binary search
        self._delta_keys = np.asarray(delta_keys, dtype=np.int64)
        self._delta = delta if delta is not None else np.zeros((0, base.ndim), dtype=np.float16)

    @classmethod
    def empty(cls, dim: int) -> VectorIndex:
        return cls(usearch_index().Index(ndim=dim, metric="cos", dtype="f16", connectivity=16))

    @classmethod
    def open(cls, gen_dir: Path) -> VectorIndex | None:
        path = gen_dir / FILE
        if not path.exists():
            return None
        try:
            index = usearch_index().Index.restore(str(path), view=True)
        except (RuntimeError, ValueError, OSError) as err:
            raise CorruptIndexFile(f"{FILE}: unreadable ({err})") from None
        if index is None:
            raise CorruptIndexFile(f"{FILE}: not a usearch index")
        dead = _optional(gen_dir / DEAD, "int64")
        keys = _optional(gen_dir / DELTA_KEYS, "int64")
        flat = _optional(gen_dir / DELTA_VECTORS, "float16")
        require(len(flat) == len(keys) * index.ndim, "vectors: delta keys and vectors disagree")
        require(len(np.unique(keys)) == len(keys), "vectors: a key twice in the delta")
        require(len(np.unique(dead)) == len(dead) <= len(index), "vectors: bad tombstones")
        if len(dead):
            require(bool(np.all(index.contains(dead.astype(np.uint64)))), "vectors: a tombstone not in the base")
        return cls(index, gen_dir, dead, keys, flat.reshape(len(keys), index.ndim))

    def __len__(self) -> int:
        return len(self._base) - len(self._dead) + len(self._delta_keys)

    @property
    def dim(self) -> int:
        return self._base.ndim

    # ---------------------------------------------------------------- patching

    def update(self, removed: Sequence[int], added: Sequence[int], vectors: np.ndarray) -> None:
        removed_keys = np.asarray(removed, dtype=np.int64)
        added_keys = np.asarray(added, dtype=np.int64)
        if self._origin is None:  # a base in memory: changed in place
            if len(removed_keys):
                self._base.remove(removed_keys.astype(np.uint64))
            if len(added_keys):
                self._base.add(added_keys.astype(np.uint64), np.asarray(vectors, dtype=np.float32))
            return
        gone = np.concatenate([removed_keys, added_keys])  # an added key replaces any older vector
        keep = ~np.isin(self._delta_keys, gone)
        in_base = gone[np.asarray(self._base.contains(gone.astype(np.uint64)), dtype=bool)] if len(gone) else gone
        self._dead = np.union1d(self._dead, in_base).astype(np.int64)
        self._delta_keys = np.concatenate([self._delta_keys[keep], added_keys])
        new = np.asarray(vectors, dtype=np.float16).reshape(len(added_keys), self.dim)
        self._delta = np.concatenate([self._delta[keep], new])
        if len(self._delta_keys) > max(DELTA_MIN, len(self._base) // 10) or len(self._dead) > max(
            DEAD_MIN, len(self._base) // 64
        ):
            self._merge()

    def _merge(self) -> None:
        """Tombstones and delta into a base held in memory (written in full by the next save)."""
        assert self._origin is not None
        base = usearch_index().Index.restore(str(self._origin / FILE), view=False)
        if base is None:
            raise CorruptIndexFile(f"{FILE}: not a usearch index")
        if len(self._dead):
            base.remove(self._dead.astype(np.uint64))
        if len(self._delta_keys):
            base.add(self._delta_keys.astype(np.uint64), self._delta.astype(np.float32))
        self._base, self._origin = base, None
        self._dead, self._delta_keys = _NO_KEYS, _NO_KEYS
        self._delta = np.zeros((0, self.dim), dtype=np.float16)

    def save(self, gen_dir: Path) -> list[str]:
        """Write the index into a generation folder; returns the names of the files written."""
        if self._origin is not None:
            link_or_copy(self._origin / FILE, gen_dir / FILE)
        else:
            self._base.save(str(gen_dir / FILE))
        written = [FILE]
        if len(self._dead):
            save_array(gen_dir / DEAD, self._dead)
            written.append(DEAD)
        if len(self._delta_keys):
            save_array(gen_dir / DELTA_KEYS, self._delta_keys)
            save_array(gen_dir / DELTA_VECTORS, self._delta.reshape(-1))
            written += [DELTA_KEYS, DELTA_VECTORS]
        return written

    def moved(self, gen_dir: Path) -> None:
        """The folder this index was saved to is now ``gen_dir`` (a staging folder published): a base
        read from disk is linked from there next time (its old folder may be collected)."""
        if self._origin is not None:
            self._origin = gen_dir

    # ---------------------------------------------------------------- reading

    def contains(self, keys: Sequence[int]) -> np.ndarray:
        """Which of ``keys`` have a vector (a generation published early lacks some)."""
        if not len(keys):
            return np.zeros(0, dtype=bool)
        wanted = np.asarray(keys, dtype=np.int64)
        in_base = np.asarray(self._base.contains(wanted.astype(np.uint64)), dtype=bool)
        return is_in(wanted, np.sort(self._delta_keys)) | (in_base & ~is_in(wanted, self._dead))

    def search(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``count`` (keys, cosine similarities), best first."""
        if len(self) == 0 or count <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        keys, sims = self._search_base(query, count)
        if len(self._delta_keys):  # usearch's own brute force: the very similarities its index computes
            usearch = usearch_index()
            found = usearch.search(
                self._delta,
                query,
                min(count, len(self._delta_keys)),
                usearch.MetricKind.Cos,
                exact=True,
                threads=QUERY_THREADS,
            )
            keys = np.concatenate([keys, self._delta_keys[found.keys.astype(np.int64)]])
            sims = np.concatenate([sims, (1.0 - found.distances).astype(np.float32)])
            order = np.argsort(-sims, kind="stable")[:count]
            keys, sims = keys[order], sims[order]
        return keys[:count], sims[:count]

    def _search_base(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The base's ``count`` best live (keys, similarities). Tombstones are over-fetched by about as
        many as such a page holds (twice the expected share, plus a few), not by all of them: an HNSW
        search costs with its size (at 100k vectors a page of 100 takes ~1 ms, of 386 ~3 ms). Only a
        page that tombstones left short is searched again, with every tombstone over-fetched."""
        n, dead = len(self._base), len(self._dead)
        if not n:
            return _NO_KEYS, np.zeros(0, dtype=np.float32)
        fetch = min(n, count + min(dead, 8 + 2 * count * dead // n)) if dead else min(n, count)
        while True:
            matches = self._base.search(query, fetch, exact=n < EXACT_BELOW, threads=QUERY_THREADS)
            keys, sims = matches.keys.astype(np.int64), (1.0 - matches.distances).astype(np.float32)
            if dead:
                live = ~is_in(keys, self._dead)
                keys, sims = keys[live], sims[live]
            if len(keys) >= count or fetch >= min(n, count + dead):
                return keys[:count], sims[:count]
            fetch = min(n, count + dead)

    def similarities(self, query: np.ndarray, keys: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(cosine similarity of the query to each of ``keys`` (vectors are unit length), whether the key
        has a vector): 0 and False for a key without one (not embedded yet). One look-up gives both.

        A key's similarity is the same float whichever keys are asked with it (:func:`_dots`), so a
        caller may remember it; chunks with the same vector score exactly alike."""
        if not len(keys):
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=bool)
        wanted = np.asarray(keys, dtype=np.int64)
        rows, stored = _base_rows(self._base, wanted)
        q = np.asarray(query, dtype=np.float32)
        sims = np.zeros(len(wanted), dtype=np.float32)
        if len(rows):
            sims[stored] = _dots(rows, q)
        if len(self._dead):
            gone = is_in(wanted, self._dead)
            sims[gone], stored[gone] = 0, False
        if len(self._delta_keys):
            order = np.argsort(self._delta_keys)
            at = np.minimum(np.searchsorted(self._delta_keys, wanted, sorter=order), len(order) - 1)
            found = self._delta_keys[order[at]] == wanted
            sims[found] = _dots(self._delta[order[at[found]]], q)
            stored |= found
        return sims, stored


def _base_rows(base: Index, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the f16 vectors of the keys ``base`` holds, in order; which keys it holds), read by usearch's
    compiled ``get_many`` without the Python wrapper of ``Index.get``, which made a numpy view per key
    that were then stacked one by one: ~0.5 ms for the ~150 keys of a hybrid pass at 100k chunks,
    against ~0.08 ms for the look-up and one concatenation (asked as float32, usearch's own widening
    took ~0.3 ms)."""
    compiled = getattr(base, "_compiled", None)
    wanted = keys.astype(np.uint64)
    if compiled is not None and hasattr(compiled, "get_many") and base.dtype == usearch_index().ScalarKind.F16:
        found = compiled.get_many(wanted, base.dtype)  # uint16 rows: f16 bits
    else:  # another usearch or storage: its public (slower) look-up
        found = base.get(wanted, "f16")
    if found is None:
        raise CorruptIndexFile(f"{FILE}: vectors missing")
    stored = np.fromiter((v is not None for v in found), dtype=bool, count=len(keys))
    present = found if stored.all() else [v for v in found if v is not None]
    if not len(present):
        return np.zeros((0, base.ndim), dtype=np.float16), stored
    return np.concatenate(present).view(np.float16).reshape(len(present), base.ndim), stored


def _dots(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with ``query`` in float32, row by row on this thread. Not ``rows @ query``:
    BLAS sums a row in an order that depends on its place among the others (the same key scored
    differently in two calls, by a few units in the last place), and from ~1,100 rows of 384 on
    OpenBLAS splits the product over its own threads, which on 2 busy cores took 10-15 ms (p50) for
    1,200-1,500 rows (a hybrid query read 4 x 4 deeper) instead of ~0.2 ms."""
    return np.einsum("ij,j->i", rows.astype(np.float32), query)


def is_in(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which of ``keys`` are in ``sorted_keys``: ``np.isin``'s answer by binary search, about ten times
    faster for the few hundred keys of one query (``np.isin`` took ~0.2 ms per call, four per hybrid pass)."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return np.asarray(sorted_keys[at] == keys, dtype=bool)


def _optional(path: Path, dtype: str) -> np.ndarray:
    """A 1-d array a generation may lack (then empty), read whole."""
    return load_array(path, dtype, mmap=False) if path.exists() else np.zeros(0, dtype=dtype)
