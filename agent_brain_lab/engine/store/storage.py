"""What an OS or SQLite error says about the disk under ``.agent-brain/``, apart from damage.

A full disk (``SQLITE_FULL``, ENOSPC, EDQUOT), a read-only medium or folder (``SQLITE_READONLY``,
EROFS, EACCES/EPERM on a write), a folder this user may not read (EACCES on a read) and I/O errors
(``SQLITE_IOERR``, EIO) leave the index as it was: each is its own :class:`IndexProblem` with its own
fix, and only what is left (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, digests that differ) is corruption.
Messages name files relative to the workspace root, never an absolute path.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..types import DiskFull, IndexNoAccess, IndexProblem, IndexReadOnly, StorageIOError

DISK_FULL_BYTES = 1 << 20  # less free space than this on the index's file system: status says disk_full
_FREE_SPACE = "free space on the disk that holds .agent-brain/, then run `agent-brain-lab index` "
FIX_SPACE = _FREE_SPACE + "(nothing was lost: queries answer from the last generation)"
FIX_SPACE_FIRST = _FREE_SPACE + "(no index was published yet: searches answer once a run publishes one)"
FIX_WRITE = (
    "the index is read-only: queries work, indexing needs write access to .agent-brain/ "
    "(a read-write mount, or the user who owns it)"
)
FIX_CREATE = (
    "indexing needs write access to the workspace folder (a read-write mount, or the user who owns it); "
    "until then there is no index to search"
)
FIX_ACCESS = (
    "the index is private to the user who wrote it: run as that user, or have them share it with "
    "your group (AGENT_BRAIN_SHARE_INDEX_WITH_GROUP=1, then `agent-brain-lab index`)"
)
FIX_OWN = (
    "the index is yours but its permissions deny you (a chmod): give them back, `chmod -R u+rwX .agent-brain`;"
    " nothing was lost"
)
FIX_IO = "check the disk (dmesg, fsck); once it reads again, run `agent-brain-lab index`"

_SQLITE_READONLY, _SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN = 8, 10, 13, 14
_FULL = {errno.ENOSPC, errno.EDQUOT}
_DENIED = {errno.EACCES, errno.EPERM}


def free_bytes(folder: Path) -> int | None:
    """Bytes this process may still write on the file system holding ``folder`` (None: unknown)."""
    probe = folder if folder.exists() else folder.parent
    try:
        st = os.statvfs(probe)
    except OSError:
        return None
    blocks = st.f_bfree if os.geteuid() == 0 else st.f_bavail  # root may use the reserved blocks
    return blocks * st.f_frsize


def writable(folder: Path) -> bool:
    """Whether this process can write the index folder (or create it) and its catalog."""
    target = folder if folder.exists() else folder.parent
    if not os.access(target, os.W_OK | os.X_OK):
        return False
    catalog = folder / "catalog.sqlite"
    return not catalog.exists() or os.access(catalog, os.W_OK)


def disk_full(folder: Path) -> bool:
    free = free_bytes(folder)
    return free is not None and free < DISK_FULL_BYTES


def storage_problem(err: BaseException, folder: Path, *, reading: bool = False) -> IndexProblem | None:
    """The storage problem ``err`` (an OSError or a SQLite error) reports, or None when it is none of
    them (damage, a file removed under us, a bug). ``reading``: the error came from a read."""
    if isinstance(err, sqlite3.Error):
        code = getattr(err, "sqlite_errorcode", None)
        primary = code & 0xFF if isinstance(code, int) else None
        what = str(err)
        if primary == _SQLITE_FULL:
            return _full(what, folder)
        if primary == _SQLITE_READONLY:
            return _guess(folder, what, reading) or _read_only(what, folder)
        if primary == _SQLITE_IOERR:
            return _guess(folder, what, reading) or StorageIOError(
                f"the disk holding .agent-brain/ returned an I/O error ({what})", FIX_IO
            )
        if primary == _SQLITE_CANTOPEN:
            return _guess(folder, what, reading)
        return None
    if isinstance(err, OSError) and err.errno is not None:
        what = err.strerror or errno.errorcode.get(err.errno, str(err.errno))
        if err.errno in _FULL:
            return _full(what, folder)
        if err.errno == errno.EROFS:
            return _read_only(what, folder)
        if err.errno in _DENIED:
            return _no_access(what, folder) if reading or _unreadable(folder) else _read_only(what, folder)
        if err.errno == errno.EIO:
            return StorageIOError(f"the disk holding .agent-brain/ returned an I/O error ({what})", FIX_IO)
    return None


def _guess(folder: Path, what: str, reading: bool) -> IndexProblem | None:
    """An error SQLite does not name precisely (cannot open, I/O error on the shared-memory file):
    what the folder shows — unreadable, read-only, or a full file system."""
    if (reading and not _readable(folder)) or _unreadable(folder):
        return _no_access(what, folder)
    if not writable(folder):
        return _read_only(what, folder)
    if disk_full(folder):
        return _full(what, folder)
    return None


def _unreadable(folder: Path) -> bool:
    """An index folder that exists and this user may not read: a write refused there is no_access, not
    read_only (whose fix says queries work)."""
    return os.path.lexists(folder) and not _readable(folder)


def _readable(folder: Path) -> bool:
    catalog = folder / "catalog.sqlite"
    return os.access(folder, os.R_OK | os.X_OK) and (not catalog.exists() or os.access(catalog, os.R_OK))


def _full(what: str, folder: Path) -> DiskFull:
    """The fix says that the last generation answers only when there is one (a first run that meets a
    full disk leaves none: "nothing was lost: queries answer" would promise what is not there)."""
    index = folder if folder.name == ".agent-brain" else folder.parent  # the index folder, or a generation's
    fix = FIX_SPACE if (index / "CURRENT").exists() else FIX_SPACE_FIRST
    return DiskFull(f"the disk holding .agent-brain/ is full ({what})", fix)


def _read_only(what: str, folder: Path) -> IndexReadOnly:
    if not os.path.lexists(folder):  # no index yet: nothing answers queries, the workspace folder needs write access
        return IndexReadOnly(f".agent-brain/ cannot be created in the workspace folder ({what})", FIX_CREATE)
    return IndexReadOnly(f".agent-brain/ cannot be written ({what})", FIX_WRITE)


def _no_access(what: str, folder: Path) -> IndexNoAccess:
    """Another user's private index, or (the folder this user's own) permissions its owner took away:
    each said as what it is, with the fix that fits (neither deletes anything)."""
    if _owned(folder):
        return IndexNoAccess(f"this user may not read .agent-brain/ though it is this user's own ({what})", FIX_OWN)
    return IndexNoAccess(f"this user may not read .agent-brain/ ({what})", FIX_ACCESS)


def _owned(folder: Path) -> bool:
    try:
        return os.lstat(folder).st_uid == os.geteuid()
    except (OSError, AttributeError):  # gone, or no uids (Windows)
        return False


def read_only_problem(folder: Path) -> IndexReadOnly | IndexNoAccess | None:
    """The reason indexing cannot write ``folder`` (None when it can): asked before a run starts. An
    index this user may not even read is :class:`IndexNoAccess` (its queries fail too)."""
    if writable(folder):
        return None
    if _unreadable(folder):
        return _no_access("no read permission", folder)
    target = folder if folder.exists() else folder.parent
    try:
        read_only_fs = bool(os.statvfs(target).f_flag & os.ST_RDONLY)
    except OSError:
        read_only_fs = False
    return _read_only("read-only file system" if read_only_fs else "no write permission", folder)


def full_disk_behind(err: BaseException, folder: Path) -> DiskFull | None:
    """DiskFull when a write into ``folder`` failed without saying why and the file system holding it
    has (next to) no room left: asked while the partial file is still there.

    Libraries that write through C report a full disk in their own words, without an errno: numpy's
    ``save`` a short write ("N requested and M written"), usearch's ``save`` "Failed to serialize into
    stream" (or a file cut short, which ``vectors._save`` says as numpy does). Errors that name their
    cause are :func:`storage_problem`'s."""
    named = isinstance(err, OSError) and err.errno is not None
    if named or not isinstance(err, OSError | RuntimeError) or not disk_full(folder):
        return None
    return _full("a write stopped short", folder)


def disk_full_problem(folder: Path) -> DiskFull | None:
    """DiskFull when the file system holding ``folder`` has less than ``DISK_FULL_BYTES`` free."""
    free = free_bytes(folder)
    if free is None or free >= DISK_FULL_BYTES:
        return None
    return _full(f"{free // 1024} KB free", folder)


@contextmanager
def storage_errors(folder: Path, *, reading: bool = False) -> Iterator[None]:
    """OS and SQLite errors that are storage problems become their :class:`IndexProblem`; the rest
    pass unchanged."""
    try:
        yield
    except (OSError, sqlite3.Error) as err:
        problem = storage_problem(err, folder, reading=reading)
        if problem is None:
            raise
        raise problem from None
