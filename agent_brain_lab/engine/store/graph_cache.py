"""The process's cache of base graphs: a base file's fragments loaded once into an :class:`ArrayGraph`.

Base files never change and generations share them by hard links, so one load serves every
generation built on the same base (a new generation costs what its delta costs). The last
``KEEP_BASE_GRAPHS`` bases stay loaded.
"""

from __future__ import annotations

import ctypes
import sys

from .graph_arrays import ArrayGraph
from .graph_files import BaseFile

_BASE_GRAPHS: dict[str, ArrayGraph] = {}  # id of a base file (random, written with it) -> its graph
KEEP_BASE_GRAPHS = 2


def base_graph(base: BaseFile) -> ArrayGraph:
    """The graph of every fragment in a base file, in arrays (see :mod:`.graph_arrays`), loaded once
    per process (:meth:`.graph_files.BaseFile.graph`)."""
    key = base.id
    if key not in _BASE_GRAPHS:
        graph = base.graph()
        while len(_BASE_GRAPHS) >= KEEP_BASE_GRAPHS:
            _BASE_GRAPHS.pop(next(iter(_BASE_GRAPHS)))
        _BASE_GRAPHS[key] = graph
        _return_freed_memory()
    return _BASE_GRAPHS[key]


def _return_freed_memory() -> None:
    """Give the pages the build freed back to the system: glibc keeps freed heap pages below live
    objects, which left a serving process 30-100 MB larger at 100k chunks, by chance of layout."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None).malloc_trim(0)
        except (OSError, AttributeError):  # a libc without malloc_trim (musl)
            pass
