"""Reading and writing derived index files as plain data: ``.npy`` arrays (never pickled) and JSON.

Everything under ``.agent-brain/`` may come from someone else (a repository that ships its index),
so nothing read here can run code, and every array is checked for the type and shape its reader
expects: a truncated or garbage file raises :class:`CorruptIndexFile`, never a crash further on.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import threading
from pathlib import Path

import numpy as np

# numpy parses every .npy header with ``ast.literal_eval``, and CPython 3.11's ast is not safe in
# concurrent threads: loads racing in a server's threads raised "SystemError: AST constructor
# recursion depth mismatch". Header parsing takes microseconds, so every .npy/.npz read holds this.
NPY_LOCK = threading.Lock()


class CorruptIndexFile(ValueError):
    """A derived index file is missing a part, truncated, or not what its reader expects."""


def load_array(path: Path, dtype: str, *, mmap: bool = True) -> np.ndarray:
    """A one-dimensional array of ``dtype`` from ``path`` (memory-mapped unless told otherwise)."""
    try:
        with NPY_LOCK:
            array = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise CorruptIndexFile(f"{path.name}: unreadable ({err})") from None
    if not isinstance(array, np.ndarray) or array.dtype != np.dtype(dtype) or array.ndim != 1:
        raise CorruptIndexFile(f"{path.name}: expected a 1-d {dtype} array")
    return array


def release_pages(*arrays: np.ndarray) -> None:
    """Drop the pages of memory-mapped arrays from this process (they stay in the page cache; a
    later read maps them again): file columns read once, then kept only for rare use. Arrays not
    mapped read-only from a file are left alone (dropping a written page would lose the write)."""
    for array in arrays:
        mapped = getattr(array, "_mmap", None)
        if mapped is not None and not array.flags.writeable and hasattr(mmap, "MADV_DONTNEED"):
            mapped.madvise(mmap.MADV_DONTNEED)


def save_array(path: Path, array: np.ndarray) -> None:
    np.save(path, np.ascontiguousarray(array), allow_pickle=False)


def load_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise CorruptIndexFile(f"{path.name}: unreadable ({err})") from None
    if not isinstance(data, dict):
        raise CorruptIndexFile(f"{path.name}: expected a JSON object")
    return data


def link_or_copy(source: Path, target: Path) -> None:
    """Reuse an immutable file of an older generation: a hard link costs nothing, a copy is the fallback."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def require(condition: bool, what: str) -> None:
    if not condition:
        raise CorruptIndexFile(what)
