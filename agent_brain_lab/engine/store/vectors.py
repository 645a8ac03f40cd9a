"""Dense vectors keyed by chunk key: a usearch base (cosine, bf16 storage, usearch's own file format)
plus a small delta, patched per generation like the keyword index.

The base stores bfloat16 (:data:`STORAGE`): the same bytes as f16, searched faster by usearch's bf16
kernel on this hardware (an HNSW search of 108 at 100k vectors ~1.2 -> ~0.8 ms); a similarity moves
by ~1e-4 (at most ~4e-4) from f16's. The delta holds the same bf16 values (as uint16 bits), searched
by the same kernel, so a chunk scores the same float in the delta, after a merge and in a rebuild.
Before, base and delta were f16: such a base is still read and searched as it is, and the next
generation written converts it (:func:`convert_base`: the vectors rewritten in usearch's file, its
graph kept, so no graph is rebuilt for it); an f16 delta is rounded to bf16 when read.

The candidates' vectors (:meth:`VectorIndex.similarities`) are read in place from the base file's
vector tape, the pages usearch searches, through ``vectors.slots.npy`` (which row holds each key,
worked out by the writer once per base file: :class:`_Tape`, :func:`write_slots`).

A new generation hard-links the base file unchanged; vectors added since the base live in a delta
(``.npy`` keys and bf16 vectors, searched by brute force) and base vectors removed since are
tombstones (a ``.npy`` of keys, dropped from an over-fetched base search). Once the delta or the
tombstones grow large, the writer merges them into a new base (that run pays the full save). A key
is in the delta or live in the base, never both.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..native import usearch_index
from .datafiles import CorruptIndexFile, link_or_copy, load_array, require, save_array

FILE = "vectors.usearch"
STORAGE = "bf16"  # the scalar kind of a base written now; an f16 base (before) is converted when next written
DELTA_KEYS = "vectors.delta-keys.npy"  # int64 chunk keys of the delta
DELTA_VECTORS = "vectors.delta.npy"  # their bf16 vectors as uint16 bits (f16 before), flat: len(keys) * dim
DEAD = "vectors.dead.npy"  # int64 keys of base vectors removed since the base was written
SLOTS = "vectors.slots.npy"  # int64: the base's live keys sorted, then each one's row in the file's vector tape
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
    return name in (FILE, DELTA_KEYS, DELTA_VECTORS, DEAD, SLOTS)


class VectorIndex:
    def __init__(
        self,
        base: Index,
        origin: Path | None = None,
        dead: np.ndarray = _NO_KEYS,
        delta_keys: np.ndarray = _NO_KEYS,
        delta: np.ndarray | None = None,
        tape: _Tape | None = None,
    ):
        """``origin``: the folder the (read-only, memory-mapped) base was read from, saved again as a
        hard link; None for a base held in memory, which updates change in place. ``tape``: the base
        file's rows by key, read in place (else through usearch's look-up)."""
        self._base, self._origin, self._tape = base, origin, tape
        self._dead = np.sort(np.asarray(dead, dtype=np.int64))  # sorted: looked up by binary search
        self._delta_keys = np.asarray(delta_keys, dtype=np.int64)
        self._delta = delta if delta is not None else np.zeros((0, base.ndim), dtype=np.uint16)  # bf16 bits

    @classmethod
    def empty(cls, dim: int) -> VectorIndex:
        return cls(usearch_index().Index(ndim=dim, metric="cos", dtype=STORAGE, connectivity=16))

    @classmethod
    def open(cls, gen_dir: Path) -> VectorIndex | None:
        path = gen_dir / FILE
        if not path.exists():
            return None
        index = _restore(path)
        dead = _optional(gen_dir / DEAD, "int64")
        keys = _optional(gen_dir / DELTA_KEYS, "int64")
        flat = _delta_bits(gen_dir / DELTA_VECTORS)
        require(len(flat) == len(keys) * index.ndim, "vectors: delta keys and vectors disagree")
        require(len(np.unique(keys)) == len(keys), "vectors: a key twice in the delta")
        require(len(np.unique(dead)) == len(dead) <= len(index), "vectors: bad tombstones")
        if len(dead):
            require(bool(np.all(index.contains(dead.astype(np.uint64)))), "vectors: a tombstone not in the base")
        tape = _Tape.read(index, gen_dir / SLOTS)
        return cls(index, gen_dir, dead, keys, flat.reshape(len(keys), index.ndim), tape)

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
        new = _bf16_bits(np.asarray(vectors, dtype=np.float32)).reshape(len(added_keys), self.dim)
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
            base.add(self._delta_keys.astype(np.uint64), _widen(self._delta))  # exactly bf16 values
        self._base, self._origin, self._tape = base, None, None
        self._dead, self._delta_keys = _NO_KEYS, _NO_KEYS
        self._delta = np.zeros((0, self.dim), dtype=np.uint16)

    def save(self, gen_dir: Path) -> list[str]:
        """Write the index into a generation folder; returns the names of the files written."""
        target = gen_dir / FILE
        if self._origin is not None and _is_current(self._base):
            link_or_copy(self._origin / FILE, target)
            if (self._origin / SLOTS).exists():
                link_or_copy(self._origin / SLOTS, gen_dir / SLOTS)
            else:  # a bf16 base written before its rows were mapped
                write_slots(target, gen_dir / SLOTS)
        elif self._origin is not None:  # an f16 base: written converted, and used from there on
            convert_base(self._origin / FILE, target)
            write_slots(target, gen_dir / SLOTS)
            self._base, self._origin = _restore(target), gen_dir
            self._tape = _Tape.read(self._base, gen_dir / SLOTS)
        else:
            _save(self._base, target)
            if not _is_current(self._base):  # a merge of an f16 base (in memory)
                converted = target.with_name(FILE + ".bf16")
                convert_base(target, converted)
                os.replace(converted, target)
                self._base, self._origin = _restore(target), gen_dir
            write_slots(target, gen_dir / SLOTS)
        written = [FILE, SLOTS] if (gen_dir / SLOTS).exists() else [FILE]
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
                _bf16_bits(np.asarray(query, dtype=np.float32).reshape(1, -1)),  # as the base rounds it
                min(count, len(self._delta_keys)),
                usearch.MetricKind.Cos,
                exact=True,
                threads=QUERY_THREADS,
                dtype=STORAGE,
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
        rows, stored = self._tape.rows(wanted) if self._tape is not None else _base_rows(self._base, wanted)
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
            sims[found] = _dots(_widen(self._delta[order[at[found]]]), q)
            stored |= found
        return sims, stored


def _base_rows(base: Index, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the vectors of the keys ``base`` holds, in order, f16 or (a bf16 base) float32; which keys it
    holds), read by usearch's compiled ``get_many`` without the Python wrapper of ``Index.get``, which
    made a numpy view per key that were then stacked one by one: ~0.5 ms for the ~150 keys of a hybrid
    pass at 100k chunks, against ~0.08 ms for the look-up and one concatenation (asked as float32,
    usearch's own widening took ~0.3 ms)."""
    compiled = getattr(base, "_compiled", None)
    wanted = keys.astype(np.uint64)
    kinds = usearch_index().ScalarKind
    bf16 = base.dtype == kinds.BF16
    if compiled is not None and hasattr(compiled, "get_many") and base.dtype in (kinds.F16, kinds.BF16):
        found = compiled.get_many(wanted, base.dtype)  # uint16 rows: the stored f16 or bf16 bits
    else:  # another usearch or storage: its public (slower) look-up
        found, bf16 = base.get(wanted, "f16"), False
    if found is None:
        raise CorruptIndexFile(f"{FILE}: vectors missing")
    stored = np.fromiter((v is not None for v in found), dtype=bool, count=len(keys))
    present = found if stored.all() else [v for v in found if v is not None]
    if not len(present):
        return np.zeros((0, base.ndim), dtype=np.float32), stored
    bits = np.concatenate(present).reshape(len(present), base.ndim)
    return (_widen(bits) if bf16 else bits.view(np.float16)), stored


def _dots(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with ``query`` in float32, row by row on this thread. Not ``rows @ query``:
    BLAS sums a row in an order that depends on its place among the others (the same key scored
    differently in two calls, by a few units in the last place), and from ~1,100 rows of 384 on
    OpenBLAS splits the product over its own threads, which on 2 busy cores took 10-15 ms (p50) for
    1,200-1,500 rows (a hybrid query read 4 x 4 deeper) instead of ~0.2 ms."""
    return np.einsum("ij,j->i", rows.astype(np.float32, copy=False), query)


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


def _restore(path: Path) -> Index:
    """A base file, memory-mapped read-only by us and viewed by usearch in that mapping, so that its
    vector tape can be read in place (:class:`_Tape`) from the very pages usearch searches (a second
    mapping of the file would count its pages twice in the process's RSS). The mapping is kept on the
    index object: it lives as long as the index."""
    usearch = usearch_index()
    try:
        meta = usearch.Index.metadata(str(path))
        if meta is None:
            raise CorruptIndexFile(f"{FILE}: not a usearch index")
        with open(path, "rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        index = usearch.Index(ndim=meta["dimensions"], dtype=meta["kind_scalar"], metric=meta["kind_metric"])
        index.view(mapped)
    except (RuntimeError, ValueError, OSError) as err:
        raise CorruptIndexFile(f"{FILE}: unreadable ({err})") from None
    index._agent_brain_mapping = (mapped, meta)
    return index


def _tape_rows(index: Index) -> np.ndarray | None:
    """The 16-bit rows of the vector tape of a base viewed by :func:`_restore` (None otherwise)."""
    mapped, meta = getattr(index, "_agent_brain_mapping", (None, None))
    meta = meta or {}
    if mapped is None or not meta["matrix_included"] or index.dtype not in _sixteen_bit():
        return None
    header = 16 if meta["matrix_uses_64_bit_dimensions"] else 8
    rows, width = (int(x) for x in np.frombuffer(mapped, dtype=np.uint64 if header == 16 else np.uint32, count=2))
    require(width == 2 * index.ndim and header + rows * width <= len(mapped), f"{FILE}: bad vector tape")
    return np.frombuffer(mapped, dtype=np.uint16, count=rows * index.ndim, offset=header).reshape(rows, index.ndim)


def _sixteen_bit() -> tuple:
    kinds = usearch_index().ScalarKind
    return (kinds.F16, kinds.BF16)


class _Tape:
    """A base's rows by key, read in place from its file's vector tape: a binary search and one
    gather, against usearch's look-up, which makes a numpy array per key (~1-3 us a key at 100k:
    5-6 ms for the 2,000 candidates of a hybrid query read 16 times deeper). usearch does not say
    which row holds a key, so the writer works it out once per base file (:func:`write_slots`)."""

    def __init__(self, rows: np.ndarray, keys: np.ndarray, slots: np.ndarray, bf16: bool):
        self._rows, self._keys, self._slots, self._bf16 = rows, keys, slots, bf16

    @classmethod
    def read(cls, index: Index, path: Path) -> _Tape | None:
        rows = _tape_rows(index)
        if rows is None or not path.exists():
            return None  # a base written before: read through usearch
        flat = load_array(path, "int64", mmap=False)
        half = len(flat) // 2
        keys, slots = flat[:half], flat[half:]
        require(len(flat) == 2 * half and half == len(index), f"{SLOTS}: not the base's keys")
        require(
            bool(np.all(keys[1:] > keys[:-1])) and bool(np.all((slots >= 0) & (slots < len(rows)))), f"{SLOTS}: bad"
        )
        tape = cls(rows, keys, slots, index.dtype == usearch_index().ScalarKind.BF16)
        sample = keys[:: max(1, half // 32)]
        if len(sample):  # rows that are not the keys' vectors would score silently wrong: checked here
            here, _ = tape.rows(sample)
            there, _ = _base_rows(index, sample)
            require(
                np.array_equal(here.view(np.uint8), there.view(np.uint8)), f"{SLOTS}: rows are not the keys' vectors"
            )
        return tape

    def rows(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As :func:`_base_rows`: the vectors of the keys held, in order; which keys are held."""
        if not len(self._keys):
            return np.zeros((0, self._rows.shape[1]), dtype=np.float32), np.zeros(len(keys), dtype=bool)
        at = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        stored = self._keys[at] == keys
        picked = self._rows[self._slots[at[stored]]]
        return (_widen(picked) if self._bf16 else picked.view(np.float16)), stored


def write_slots(base_file: Path, target: Path) -> None:
    """Which row of ``base_file``'s vector tape holds each live key, saved for :class:`_Tape`. Read
    from the graph's node records (:func:`_node_keys`: ~0.05 s at 100k vectors) and checked on a
    sample; failing that, every key's vector (usearch's look-up) is found among the tape's rows by its
    bytes (~0.8 s; keys with the same vector may then share a row: they score alike)."""
    index = _restore(base_file)
    rows = _tape_rows(index)
    if rows is None:  # not a 16-bit base with its vectors: read through usearch
        return
    keys = np.sort(np.asarray(index.keys, dtype=np.int64))
    slots = _slots_from_nodes(index, keys, len(rows))
    if slots is None or not _rows_are(index, rows, keys, slots, keys[:: max(1, len(keys) // 64)]):
        slots = _slots_by_bytes(index, rows, keys)
    save_array(target, np.concatenate([keys, slots.astype(np.int64)]))


def _rows_are(index: Index, rows: np.ndarray, keys: np.ndarray, slots: np.ndarray, sample: np.ndarray) -> bool:
    """Whether the tape rows ``slots`` gives the keys of ``sample`` hold those keys' vectors."""
    if not len(sample):
        return True
    at = np.searchsorted(keys, sample)
    return np.array_equal(rows[slots[at]], _stored_bits(index, sample))


def _stored_bits(index: Index, keys: np.ndarray) -> np.ndarray:
    """The stored 16-bit rows of ``keys`` (every one held by ``index``), by usearch's look-up."""
    if not len(keys):
        return np.zeros((0, index.ndim), dtype=np.uint16)
    found: Any = index._compiled.get_many(keys.astype(np.uint64), index.dtype)  # uint16 rows
    if found is None or any(v is None for v in found):
        raise CorruptIndexFile(f"{FILE}: vectors missing")
    return np.concatenate(found).reshape(len(keys), index.ndim)


def _slots_by_bytes(index: Index, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
    wanted = _stored_bits(index, keys)
    row_bytes = np.dtype((np.void, 2 * index.ndim))
    tape = np.ascontiguousarray(rows).view(row_bytes).ravel()
    order = np.argsort(tape, kind="stable")
    at = np.minimum(np.searchsorted(tape[order], wanted.view(row_bytes).ravel()), max(len(order) - 1, 0))
    slots = order[at] if len(keys) else _NO_KEYS
    if not np.array_equal(rows[slots], wanted):
        raise CorruptIndexFile(f"{FILE}: a key's vector is not in the vector tape")
    return slots


def _slots_from_nodes(index: Index, keys: np.ndarray, count: int) -> np.ndarray | None:
    """Each of ``keys``' row, from :func:`_node_keys`; None unless every key is one node's, once."""
    nodes = _node_keys(index, count)
    if nodes is None:
        return None
    order = np.argsort(nodes, kind="stable")
    ranked = nodes[order]
    wanted = keys.astype(np.uint64)
    if not len(ranked):
        return _NO_KEYS if not len(wanted) else None
    first = np.searchsorted(ranked, wanted, side="left")
    last = np.searchsorted(ranked, wanted, side="right")
    if not np.all(last - first == 1):  # a key missing, or two nodes (a removed slot) with it
        return None
    return order[first]


def _node_keys(index: Index, count: int) -> np.ndarray | None:
    """The key of each of the graph's ``count`` nodes, by slot (the tape's row order), read from the
    file after the vector tape and the 64-byte head: usearch's graph header (5 uint64: size,
    connectivity, base connectivity, max level, entry slot), each node's level (int16), then each
    node: key (uint64), level (int16), its base neighbours (a uint32 count and that many uint32
    slots) and per level above (the same, ``connectivity`` slots). None when the file is not so."""
    mapped, meta = getattr(index, "_agent_brain_mapping", (None, None))
    if mapped is None or meta is None or meta["kind_compressed_slot"] != usearch_index().ScalarKind.U32:
        return None
    data = np.frombuffer(mapped, dtype=np.uint8)
    header = 16 if meta["matrix_uses_64_bit_dimensions"] else 8
    graph = header + count * 2 * index.ndim + 64
    if len(data) < graph + 40 + 2 * count:
        return None
    size, connectivity, base, _, _ = (int(x) for x in data[graph : graph + 40].view(np.uint64))
    if size != count:
        return None
    levels = data[graph + 40 : graph + 40 + 2 * count].view(np.int16).astype(np.int64)
    node = 10 + 4 + 4 * base + levels * (4 + 4 * connectivity)
    starts = graph + 40 + 2 * count + np.concatenate([[0], np.cumsum(node)[:-1]]).astype(np.int64)
    if not count or int(starts[-1] + node[-1]) != len(data) or np.any(levels < 0):
        return None if count else np.zeros(0, dtype=np.uint64)
    if np.any(data[(starts[:, None] + np.array([8, 9])).ravel()].view(np.int16) != levels):
        return None  # each node's own level must repeat the level table's
    return data[(starts[:, None] + np.arange(8)).ravel()].view(np.uint64).copy()


def _is_current(base: Index) -> bool:
    return base.dtype == usearch_index().ScalarKind.BF16


_HEAD = b"usearch"  # usearch's dense head starts so; its byte 14 is the scalar kind (13: the metric)
_KIND_AT = 14


def convert_base(source: Path, target: Path) -> None:
    """Write the f16 base file ``source`` as a bf16 one at ``target``: usearch's file is the vectors
    (a ``rows, bytes per row`` header, then the rows by slot), a 64-byte head naming the scalar kind,
    then the graph, which does not depend on how vectors are stored. The rows are rounded to bf16
    as usearch rounds (to nearest even: the same bits as adding their float32 values to a bf16
    index), the kind byte changed and the graph copied, so the conversion costs a read and a write
    of the file (~0.3 s at 100k vectors) instead of a new graph (~1 min). The result is read back
    and checked; a file laid out otherwise (another usearch) is rebuilt from its vectors instead."""
    usearch = usearch_index()
    meta = usearch.Index.metadata(str(source))
    if meta is None or meta["kind_scalar"] != usearch.ScalarKind.F16:
        raise CorruptIndexFile(f"{FILE}: not an f16 base to convert")
    dim = int(meta["dimensions"])
    data = np.fromfile(source, dtype=np.uint8)
    header = 16 if meta["matrix_uses_64_bit_dimensions"] else 8
    rows, width = (int(x) for x in data[:header].view(np.uint64 if header == 16 else np.uint32))
    head = header + rows * width
    laid_out = (
        meta["matrix_included"]
        and width == 2 * dim
        and len(data) > head + 64
        and bytes(data[head : head + len(_HEAD)]) == _HEAD
        and int(data[head + _KIND_AT]) == usearch.ScalarKind.F16.value
    )
    if laid_out:
        vectors = data[header:head].view(np.uint16)  # f16 bits; each has one bf16: looked up in a table
        vectors[:] = _f16_to_bf16()[vectors]
        data[head + _KIND_AT] = usearch.ScalarKind.BF16.value
        with open(target, "wb") as fh:  # not ``tofile``: on a full disk it can cut the file short silently
            fh.write(data.data)
        if _converted_as_expected(source, target):
            return
    _rebuild(source, target)


def _f16_to_bf16() -> np.ndarray:
    """The bf16 bits of every f16 bit pattern (a table of 65,536: f16 -> bf16 is one look-up)."""
    return _bf16_bits(np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32))


def _delta_bits(path: Path) -> np.ndarray:
    """A generation's delta vectors as bf16 bits; an f16 delta (written before) rounded to bf16."""
    if not path.exists():
        return np.zeros(0, dtype=np.uint16)
    try:
        return load_array(path, "uint16", mmap=False)
    except CorruptIndexFile:
        return _f16_to_bf16()[load_array(path, "float16", mmap=False).view(np.uint16)]


def _bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even), as uint16 bits."""
    bits = values.view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _converted_as_expected(source: Path, target: Path) -> bool:
    """The converted file reads as a bf16 index with the source's keys, and a sample of its vectors
    and searches agree with the source's."""
    old = _restore(source)
    try:
        new = _restore(target)
    except CorruptIndexFile:  # laid out otherwise than this code expects
        return False
    if not _is_current(new) or len(new) != len(old) or new.ndim != old.ndim:
        return False
    keys = np.asarray(old.keys, dtype=np.uint64)
    sample = keys[:: max(1, len(keys) // 64)]
    rows, stored = _base_rows(new, sample.astype(np.int64))
    want, _ = _base_rows(old, sample.astype(np.int64))
    if not stored.all() or not np.array_equal(rows, _widen(_bf16_bits(want.astype(np.float32)))):
        return False
    if len(sample):  # the graph kept: a search for a stored vector finds it (or its twin) at the top
        found = new.search(want[0].astype(np.float32), 1, threads=QUERY_THREADS)
        return bool(len(found.keys)) and float(found.distances[0]) < 1e-2
    return True


def _widen(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bits as float32 (a bfloat16 is the high half of a float32). One ufunc pass: a cast to
    uint32 first, then the shift, took ~20 times longer for 2,000 rows."""
    return np.left_shift(bits, 16, dtype=np.uint32).view(np.float32)


def _save(index: Index, target: Path) -> None:
    """usearch's ``save``, checked: on a full disk it can leave a file cut short without an error.
    A short file is an OSError without an errno, as numpy says it (the indexer asks the disk why)."""
    index.save(str(target))
    written, expected = target.stat().st_size, index.serialized_length
    if written != expected:
        raise OSError(f"{FILE}: {expected} requested and {written} written")


def _rebuild(source: Path, target: Path) -> None:
    """The slow way: a new bf16 index (a new graph) of the source's vectors."""
    old = _restore(source)
    keys = np.asarray(old.keys, dtype=np.uint64)
    fresh = usearch_index().Index(ndim=old.ndim, metric="cos", dtype=STORAGE, connectivity=old.connectivity)
    if len(keys):
        rows, _ = _base_rows(old, keys.astype(np.int64))
        fresh.add(keys, rows.astype(np.float32))
    _save(fresh, target)
