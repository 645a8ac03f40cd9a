"""A read-only view of one committed generation: the indexes queries run against.

The writer records every file of a generation in its manifest (size and digest); a snapshot checks
them before trusting the folder, so a missing, truncated or overwritten file is reported as
:class:`IndexCorrupt` (with the command that rebuilds it) instead of failing inside a loader. The
files of a part loaded on first use (the vectors, the graph) have their sizes checked at open and
their digests when the part loads (or when status asks): a bm25 query in a new process does not hash
the hundreds of MB of vectors and graph it never reads.

Generations share most of their files through hard links. A process remembers the digest of every
file it has hashed under the file's identity (device, inode, size, modification time): a file a
new generation links from an older one is neither hashed again by the writer describing it nor by a
snapshot checking it, while a file written over in place has a new modification time and is hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .retrieval.filters import FilterColumns
from .store.generations import FIX_INDEX, inode_of
from .store.graph import FOLDER as GRAPH_FOLDER
from .store.graph import CodeGraph
from .store.keywords import KeywordIndex
from .store.storage import storage_problem
from .store.vectors import VectorIndex, is_vector_file
from .types import IndexCorrupt

MANIFEST = "manifest.json"
MANIFEST_KEYS = ("generation", "created", "model", "files", "chunks", "graph", "skipped", "contents")


class Snapshot:
    _graph: CodeGraph | None
    inodes: dict[str, tuple[int, int] | None]  # of every file the manifest lists: generations share files

    def __init__(
        self,
        gen: int,
        gen_dir: Path,
        graph: CodeGraph | None = None,
        *,
        verify: bool = True,
        previous: Snapshot | None = None,
    ):
        """``previous``: the snapshot this one replaces. Files hard-linked from it (a generation that
        only adds vectors links every other file) are not checked again, and its graph, if loaded,
        is reused when every graph file is shared."""
        self.gen = gen
        self.dir = gen_dir
        self.manifest = _manifest_of(gen, gen_dir)
        shared = self._shared_with(previous)
        self._unhashed: set[str] = set()  # files of late parts whose digests are checked when they load
        if verify:
            self._unhashed = _verify(gen_dir, self.manifest, shared, hashed_later=_in_late_part)
        if graph is None and previous is not None and previous._graph is not None:
            graph_files = [n for n in self.manifest["contents"] or () if str(n).startswith(f"{GRAPH_FOLDER}/")]
            graph = previous._graph if graph_files and shared.issuperset(graph_files) else None
        self.columns = self._load("columns", lambda: FilterColumns.open(gen_dir))
        self._vectors: VectorIndex | None = None
        self._vectors_loaded = False
        self.keywords = self._load("keywords", lambda: KeywordIndex.open(gen_dir, len(self.columns)))
        self._graph = graph  # handed over by the writer that just built it, else loaded on first use
        self._graph_lock = threading.RLock()  # also guards the vectors' first load

    @property
    def vectors(self) -> VectorIndex | None:
        """Loaded on first use: bm25 queries and the graph explorer never load usearch."""
        if not self._vectors_loaded:
            with self._graph_lock:
                if not self._vectors_loaded:
                    self._vectors = self._load_late("vectors", lambda: VectorIndex.open(self.dir), is_vector_file)
                    self._vectors_loaded = True
        return self._vectors

    @property
    def graph(self) -> CodeGraph | None:
        """Loaded on first use: most queries never need it, and opening stays fast."""
        if self._graph is None:
            with self._graph_lock:
                if self._graph is None:
                    self._graph = self._load_late(
                        "graph", lambda: CodeGraph.open(self.dir), lambda name: name.startswith(f"{GRAPH_FOLDER}/")
                    )
        return self._graph

    def __len__(self) -> int:
        return len(self.columns)

    @property
    def coverage(self) -> float:
        """Share of the chunks that have a vector (below 1 while a large run is still embedding)."""
        if not len(self):
            return 1.0
        embedded = self.manifest.get("vectors")  # recorded by the writer; older generations: counted
        if not isinstance(embedded, int):
            embedded = len(self.vectors) if self.vectors is not None else 0
        return min(1.0, embedded / len(self))

    def _shared_with(self, previous: Snapshot | None) -> set[str]:
        """Names of this generation's files that are the very files (same inode, same recorded
        size and digest) of ``previous``: already checked when it was opened."""
        recorded = self.manifest.get("contents")
        self.inodes = {n: inode_of(self.dir / n) for n in recorded} if isinstance(recorded, dict) else {}
        if previous is None or not isinstance(recorded, dict):
            return set()
        before = previous.manifest.get("contents") or {}
        return {
            name
            for name, entry in recorded.items()
            if before.get(name) == entry
            and self.inodes[name] is not None
            and previous.inodes.get(name) == self.inodes[name]
            and name not in previous._unhashed
        }

    def check_all(self) -> None:
        """Check the digests of the parts not loaded yet (status reports on every file)."""
        with self._graph_lock:
            self._check_unhashed(lambda name: True)

    def _check_unhashed(self, belongs: Callable[[str], bool]) -> None:
        names = sorted(n for n in self._unhashed if belongs(n))
        for name in names:
            problem = _check_file(self.dir / name, self.manifest["contents"][name])
            if problem:
                raise _damaged(self.dir, name, problem)
        self._unhashed.difference_update(names)

    def _load_late(self, what: str, load: Any, belongs: Callable[[str], bool]) -> Any:
        """A part loaded on first use, after the generation was opened: its files must still be the
        ones this snapshot saw then. A reset and re-index by another process may have put another
        index's generation of the same number in their place; the reader then looks again."""
        self._check_unhashed(belongs)
        part = self._load(what, load)
        if any(inode_of(self.dir / name) != inode for name, inode in self.inodes.items() if belongs(name)):
            raise _damaged(self.dir, what, "was replaced while it was being loaded")
        return part

    def _load(self, what: str, load: Any) -> Any:
        """A derived index read from disk; any failure of its loader means the file is damaged."""
        try:
            return load()
        except Exception as err:  # loaders of files we did not verify byte by byte fail in many ways
            _raise_storage_problem(err, self.dir)
            raise _damaged(self.dir, what, f"cannot be loaded ({type(err).__name__}: {err})") from None


def check_generation(gen: int, gen_dir: Path) -> dict:
    """The manifest of generation ``gen`` once every file it lists matches it (:class:`IndexCorrupt`
    otherwise), loading none of its indexes: what a writer checks before patching them (it falls
    back to building an index from the catalog if one still cannot be read)."""
    manifest = _manifest_of(gen, gen_dir)
    _verify(gen_dir, manifest, set())
    return manifest


def _manifest_of(gen: int, gen_dir: Path) -> dict:
    if not gen_dir.is_dir():
        raise IndexCorrupt(f"CURRENT names generation {gen} but .agent-brain/{gen_dir.name} is missing", FIX_INDEX)
    try:
        manifest = read_manifest(gen_dir)
    except (OSError, ValueError) as err:
        _raise_storage_problem(err, gen_dir)
        raise _damaged(gen_dir, MANIFEST, "is missing or unreadable") from None
    missing = [k for k in MANIFEST_KEYS if k not in manifest]
    if missing:
        raise _damaged(gen_dir, MANIFEST, f"lacks {', '.join(missing)}")
    return manifest


def _in_late_part(name: str) -> bool:
    """A file of a part a snapshot loads on first use: the vectors or the graph."""
    return is_vector_file(name) or name.startswith(f"{GRAPH_FOLDER}/")


def _verify(
    gen_dir: Path, manifest: dict, shared: set[str], *, hashed_later: Callable[[str], bool] = lambda name: False
) -> set[str]:
    """IndexCorrupt unless every file the manifest lists (but ``shared`` ones) matches its entry;
    of the files ``hashed_later`` names only the size is checked: returns their names."""
    recorded = manifest.get("contents")
    if not isinstance(recorded, dict):
        raise _damaged(gen_dir, MANIFEST, "does not list the generation's files")
    later = set()
    for name, expected in sorted(recorded.items()):
        if name in shared:
            continue
        deferred = hashed_later(name)
        problem = _check_file(gen_dir / name, expected, hashed=not deferred)
        if problem:
            raise _damaged(gen_dir, name, problem)
        if deferred:
            later.add(name)
    return later


def _damaged(gen_dir: Path, name: str, problem: str) -> IndexCorrupt:
    return IndexCorrupt(f".agent-brain/{gen_dir.name}/{name} {problem}", FIX_INDEX)


def read_manifest(gen_dir: Path) -> dict:
    """What the writer recorded about a generation: counts, skips, model, graph statistics, contents."""
    manifest = json.loads((gen_dir / MANIFEST).read_text())
    if not isinstance(manifest, dict):
        raise ValueError("the manifest is not a JSON object")
    return manifest


def describe_contents(
    gen_dir: Path, names: list[str] | None = None, *, settle: bool = False
) -> dict[str, dict[str, Any]]:
    """Size and digest of every file of a generation folder (recorded in its manifest), or of ``names``.

    ``settle``: the folder is a writer's staging folder. Files it has just written (one link,
    modified within ``RACY_NS``) get a modification time a second earlier first, so that their
    digests can be remembered (see :func:`file_digest`): the next run does not hash them again."""
    paths = sorted(gen_dir.rglob("*")) if names is None else [gen_dir / n for n in names]
    out = {}
    for path in paths:
        if path.is_file() and path.name != MANIFEST:
            if settle:
                _backdate(path)
            size, digest = file_digest(path)
            out[path.relative_to(gen_dir).as_posix()] = {"bytes": size, "sha1": digest}
    return out


def _backdate(path: Path) -> None:
    st = os.stat(path)
    if st.st_nlink == 1 and st.st_mtime_ns >= time.time_ns() - RACY_NS:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 1_000_000_000))


def _raise_storage_problem(err: BaseException, gen_dir: Path) -> None:
    """A read that failed for the disk's sake (EIO, EACCES), not the file's: its own problem."""
    problem = storage_problem(err, gen_dir.parent, reading=True) if isinstance(err, OSError) else None
    if problem is not None:
        raise problem from None


def _check_file(path: Path, expected: Any, *, hashed: bool = True) -> str | None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "is missing"
    except OSError as err:
        _raise_storage_problem(err, path.parent)
        return "is missing"
    if not isinstance(expected, dict) or size != expected.get("bytes"):
        return "is truncated or damaged (its size differs from the manifest)"
    if not hashed:
        return None
    try:
        size, digest = file_digest(path)
    except FileNotFoundError:
        return "is missing"  # removed since the size check: a publish or reset collected it
    except OSError as err:
        _raise_storage_problem(err, path.parent)
        return "is missing"
    if size != expected.get("bytes") or digest != expected.get("sha1"):
        return "is damaged (its content differs from the manifest)"
    return None


KNOWN_FILES = 4096  # digests remembered per process (a generation has a few dozen files)
RACY_NS = 50_000_000  # a file modified this close to its hashing may change again within the same clock tick
_known: OrderedDict[tuple[int, int], tuple[int, int, str]] = OrderedDict()  # (dev, inode) -> (size, mtime_ns, sha1)
_known_lock = threading.Lock()


def file_digest(path: Path) -> tuple[int, str]:
    """(size, SHA-1) of a file; hashed only if this process has not hashed this very file before.

    A file is known by (device, inode, size, modification time). A write changes the modification
    time, unless it falls in the clock tick of the previous one: a file hashed within ``RACY_NS`` of
    its last modification is not remembered (as git treats "racily clean" files)."""
    st = os.stat(path)
    key = (st.st_dev, st.st_ino)
    with _known_lock:
        known = _known.get(key)
    if known is not None and known[:2] == (st.st_size, st.st_mtime_ns):
        return st.st_size, known[2]
    started = time.time_ns()
    digest = _digest(path)
    after = os.stat(path)
    if (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns) and st.st_mtime_ns < started - RACY_NS:
        with _known_lock:
            _known[key] = (st.st_size, st.st_mtime_ns, digest)
            _known.move_to_end(key)
            while len(_known) > KNOWN_FILES:
                _known.popitem(last=False)
    return st.st_size, digest


def _digest(path: Path) -> str:
    """A checksum against damage, not against tampering (whoever can write the files can write the
    manifest): SHA-1 for its hardware speed, ~3x blake2b's here."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha1").hexdigest()
