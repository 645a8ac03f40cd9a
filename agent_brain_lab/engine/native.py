"""usearch and onnxruntime in one process, in either order of arrival.

The cause of the crash (``import usearch.index`` then ``import onnxruntime``: SIGSEGV inside
``std::codecvt<char16_t>::do_unshift``, called from onnxruntime's module init): the usearch wheel
links its own copy of libstdc++ statically, while onnxruntime uses the system ``libstdc++.so.6``.
Both copies number the standard locale facets with their own counter. 40 of the 48 facet ids are
``STB_GNU_UNIQUE`` symbols, one object per process shared by both copies; the other 8 (``ctype``
and ``codecvt``) stay private to each copy. Whichever copy builds its classic locale first numbers
the shared ids; when usearch's copy is first, the system copy later numbers its 8 private ids
from 1 again, on top of shared ones, and ``use_facet`` hands out the wrong facet: onnxruntime
calls a ``codecvt`` method on something else. No usearch or onnxruntime release fixes it (it is
the wheel's static link); OpenMP is not involved (usearch links none, onnxruntime its own threads).

The fence: :func:`prime` makes the system libstdc++ build its classic locale first (one call,
microseconds) — ``import agent_brain_lab`` does it, and so does every path that loads usearch.
A process that loaded usearch before anything of ours is beyond repair from Python: :func:`check`
recognises that state from the facet ids themselves and raises :class:`NativeConflict` before
onnxruntime is loaded, instead of the process dying. Any other C++ library that sets up the system
locale before usearch loads makes the order safe too: in an ipykernel, libzmq has done so before
the first cell runs, so a kernel that imports usearch first is fine; plain Python processes
(scripts, the CLI, the MCP stdio server) are where the order mattered.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache
from types import ModuleType
from typing import Any

from .types import ModelUnavailable

_CXX = "libstdc++.so.6"
# Facet ids each libstdc++ copy keeps to itself (GLOBAL, not UNIQUE, in the system library and in usearch's).
_PRIVATE = (
    "_ZNSt5ctypeIcE2idE",
    "_ZNSt5ctypeIwE2idE",
    "_ZNSt7codecvtIcc11__mbstate_tE2idE",
    "_ZNSt7codecvtIwc11__mbstate_tE2idE",
    "_ZNSt7codecvtIDsc11__mbstate_tE2idE",
    "_ZNSt7codecvtIDic11__mbstate_tE2idE",
    "_ZNSt7codecvtIDsDu11__mbstate_tE2idE",
    "_ZNSt7codecvtIDiDu11__mbstate_tE2idE",
)
# Facet ids shared by every copy in the process (STB_GNU_UNIQUE), one per kind of facet.
_SHARED = (
    "_ZNSt8numpunctIcE2idE",
    "_ZNSt8numpunctIwE2idE",
    "_ZNSt7collateIcE2idE",
    "_ZNSt7collateIwE2idE",
    "_ZNSt8messagesIcE2idE",
    "_ZNSt8messagesIwE2idE",
    "_ZNSt7num_getIcSt19istreambuf_iteratorIcSt11char_traitsIcEEE2idE",
    "_ZNSt7num_putIcSt19ostreambuf_iteratorIcSt11char_traitsIcEEE2idE",
    "_ZNSt10moneypunctIcLb0EE2idE",
    "_ZNSt10moneypunctIcLb1EE2idE",
)
_USEARCH = "usearch.compiled"
_ORT = "onnxruntime.capi.onnxruntime_pybind11_state"


class NativeConflict(ModelUnavailable):
    """The embedding model cannot be loaded into this process without crashing it."""


@cache
def _libstdcxx() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):  # libc++ (macOS) and MSVC (Windows) have no such split
        return None
    try:
        return ctypes.CDLL(_CXX)
    except OSError:
        return None


def prime() -> None:
    """Have the system libstdc++ number the locale facets before usearch's copy can (idempotent)."""
    if _USEARCH in sys.modules:  # too late to help: leave the state as it is for conflict() to read
        return
    lib = _libstdcxx()
    classic = getattr(lib, "_ZNSt6locale7classicEv", None) if lib is not None else None
    if classic is not None:
        classic.restype = ctypes.c_void_p
        classic()


def _index(lib: ctypes.CDLL, symbol: str) -> int | None:
    """A facet id's ``_M_index`` (0 until numbered), or None where the library lacks it."""
    try:
        return ctypes.c_size_t.in_dll(lib, symbol).value
    except ValueError:
        return None


def conflict() -> str | None:
    """Why loading onnxruntime now would crash this process, or None when it is safe."""
    if _USEARCH not in sys.modules or _ORT in sys.modules:
        return None
    lib = _libstdcxx()
    if lib is None:
        return None
    private = {i for i in (_index(lib, s) for s in _PRIVATE) if i}
    shared = {i for i in (_index(lib, s) for s in _SHARED) if i}
    if shared and not private:
        return "usearch was loaded before the C++ runtime onnxruntime uses had set up its locale"
    if private & shared:
        return "two copies of the C++ runtime numbered the same locale facets"
    return None


def check() -> None:
    """Raise :class:`NativeConflict` where loading onnxruntime would crash the process."""
    why = conflict()
    if why is not None:
        raise NativeConflict(
            f"the embedding model cannot be loaded in this process: {why} (loading it would crash "
            "the process). Restart the kernel (or process) and load agent_brain_lab — `%load_ext "
            "agent_brain_lab` or `import agent_brain_lab` — or onnxruntime before anything imports "
            "usearch. Keyword (bm25) and graph search work meanwhile."
        )


def usearch_index() -> ModuleType:
    """The ``usearch.index`` module, loaded after :func:`prime`."""
    prime()
    import usearch.index

    return usearch.index


def release_free_memory() -> None:
    """Give the C heap's freed pages back to the system (glibc's ``malloc_trim``). Loading the model
    and an index's arrays frees tens of MB of temporaries that glibc otherwise keeps mapped, counted
    in the process's RSS for as long as it serves (~60 MB after the model's session alone). A no-op
    where there is no such call (macOS, musl)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Any:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
