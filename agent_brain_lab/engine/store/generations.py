"""The ``.agent-brain/`` folder: generations, the CURRENT pointer and the writer lock.

Derived indexes (vectors, keywords, graph, filter columns) of generation N live in ``gen-N/``.
A writer builds them in a staging folder, renames it into place and then replaces ``CURRENT``
atomically; readers follow ``CURRENT`` on their next query. One writer at a time across processes
is enforced with ``flock`` on ``writer.lock`` (released by the kernel if the writer dies).

``INDEX_ID`` holds a random id written when the folder is created (the catalog keeps the same id in
its meta table): a reader that sees it change knows the whole index was replaced (reset, rebuilt,
restored) and must not reinterpret anything it holds against the new one.

The folder is private to the user who writes it: created 0700, its files 0600, whatever the umask
(``shared=True``: group-readable as far as the workspace root itself is). Every writer tightens what
an earlier version or umask left looser, so an existing index is private after its next write.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..types import IndexCorrupt, IndexNewer, IndexProblem, NotTheIndexFolder, WorkspaceBusy
from ..workspace import special_kind
from .storage import storage_errors, storage_problem

# 3: vectors in bf16 with their key-to-row map; 2: the graph stored as data (no pickle), manifests list
# their files' digests. A format-2 index is read as it is and its next generation is written in 3
# (store/vectors.py converts the base); an engine that reads only 2 then says the format, not damage.
FORMAT_VERSION = 3
READS_FORMATS = (2, 3)
INDEX_DIR = ".agent-brain"
CATALOG = "catalog.sqlite"
GEN_NAME = re.compile(r"gen-([0-9]+)")
STAGING_NAME = re.compile(r"staging-([0-9]+)")
FIX_INDEX = "agent-brain-lab index"
FIX_FORCE = "agent-brain-lab index --force"
FIX_RESET = "agent-brain-lab reset"
FIX_LOOK = "give this user search permission on the workspace folder"


def index_modes(root: Path, shared: bool) -> tuple[int, int, int | None]:
    """(folder mode, file mode, group id) of the index: private (0700, 0600, None: the writer's group),
    or with ``shared`` the root's group with the read (and the folders' search) permission the root
    grants that group; the folders then carry set-group-ID so that every file keeps that group."""
    if not shared:
        return 0o700, 0o600, None
    try:
        st = os.stat(root)
    except OSError:
        return 0o700, 0o600, None
    group = st.st_mode & 0o050  # the group's read and search bits on the root
    return 0o700 | group | (stat.S_ISGID if group else 0), 0o600 | (group & 0o040), st.st_gid if group else None


class IndexDir:
    def __init__(self, root: Path, *, shared: bool = False):
        self.path = root / INDEX_DIR
        self.folder_mode, self.file_mode, self.group = index_modes(root, shared)
        # what every query's identity check reads, as plain strings (no Path built per query)
        self._folder = str(self.path)
        self._index_id_file = os.path.join(self._folder, "INDEX_ID")
        self._current_file = os.path.join(self._folder, "CURRENT")
        self.catalog_file = os.path.join(self._folder, CATALOG)

    @property
    def catalog_path(self) -> Path:
        return self.path / CATALOG

    def ensure(self) -> None:
        """Create the folder if it is missing (its files are written under the writer lock: two
        writers starting at once must not replace the same file)."""
        self.check_folder()
        with storage_errors(self.path):
            self.path.mkdir(mode=self.folder_mode, exist_ok=True)
            self.secure()

    def secure(self) -> None:
        """Give the folder and everything in it the index's modes (umask-independent; a file this
        process cannot change, another user's, is left as it is). Only the group and other bits are
        set outright: an owner bit the owner took away (a folder made read-only with ``chmod 500``)
        stays away, so that index runs and reset fail as ``read_only`` instead of undoing it."""
        self._secure(str(self.path), self.folder_mode)
        for folder, dirs, names in os.walk(self.path):
            for name in dirs:
                self._secure(os.path.join(folder, name), self.folder_mode)
            for name in names:
                self._secure(os.path.join(folder, name), self.file_mode)

    def _secure(self, path: str, mode: int) -> None:
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                return
            if self.group is not None and st.st_gid != self.group:
                os.chown(path, -1, self.group)
            current = stat.S_IMODE(st.st_mode)
            wanted = mode & ~(stat.S_IRWXU & ~current)  # never grant the owner a bit they removed
            if current != wanted:
                os.chmod(path, wanted)
        except (FileNotFoundError, PermissionError):
            pass  # removed meanwhile, or not ours

    def exists(self) -> bool:
        """Whether the index folder is there: a real folder, never a symlink (one to a folder outside
        the root would have every write, chmod and reset act on files that are not the index's)."""
        return _is_folder(self._folder)

    def check_folder(self) -> None:
        """:class:`NotTheIndexFolder` when something other than a folder (a file, a symlink) sits where
        the index folder belongs."""
        if _is_folder(self._folder):  # every query asks: one lstat of a plain string
            return
        problem = self.not_a_folder()
        if problem is not None:
            raise problem

    def not_a_folder(self) -> IndexProblem | None:
        """What sits at the index folder's place when it is not a folder (None: a folder, or nothing),
        said as what it is: no index is damaged, and nothing the user may want is deleted."""
        try:
            st = os.lstat(self._folder)
        except FileNotFoundError:
            return None
        except OSError as err:
            return storage_problem(err, self.path, reading=True) or NotTheIndexFolder(
                f"{INDEX_DIR} cannot be looked at ({err.strerror or err})", FIX_LOOK
            )
        if stat.S_ISDIR(st.st_mode):
            return None
        if stat.S_ISLNK(st.st_mode):  # where it points is not said: no message carries a path outside the root
            return NotTheIndexFolder(
                f"{INDEX_DIR} is a symlink, not the index folder: an index is never read or written through a link",
                f"remove the link (what it points to stays as it is; `{FIX_RESET}` removes the link alone)"
                f" or replace it with a folder, then `{FIX_INDEX}`",
            )
        what = "a file" if stat.S_ISREG(st.st_mode) else special_kind(st.st_mode) or "not a folder"
        size = f" of {st.st_size} bytes" if stat.S_ISREG(st.st_mode) else ""
        return NotTheIndexFolder(
            f"{INDEX_DIR} is {what}{size}, not the index folder: Agent Brain Lab keeps its index in a folder"
            " of that name",
            f"move or rename it (Agent Brain Lab never deletes it), then `{FIX_INDEX}`",
        )

    def write_format(self) -> None:
        _write_atomic(self.path / "FORMAT", str(FORMAT_VERSION), self.file_mode)

    def format_version(self) -> int | None:
        """The FORMAT the folder was written in; None when the file is missing or does not hold a number
        (a storage problem reading it, no permission or an I/O error, is raised as that problem)."""
        try:
            return int((self.path / "FORMAT").read_text(errors="replace").strip())
        except OSError as err:  # no permission, an I/O error: said as what it is, never as a format
            problem = None if isinstance(err, FileNotFoundError) else storage_problem(err, self.path, reading=True)
            if problem is not None:
                raise problem from None
            return None
        except ValueError:
            return None

    def check_format(self) -> None:
        """IndexNewer when a newer version wrote the folder (a later format), IndexCorrupt when it was
        written in a format this version does not read or its FORMAT file cannot be read."""
        found = self.format_version()
        if found in READS_FORMATS:
            return
        reads = f"formats {READS_FORMATS[0]} to {READS_FORMATS[-1]}"
        if found is not None and found > FORMAT_VERSION:
            raise IndexNewer(
                f"this index was written by a newer version of Agent Brain Lab (format {found}); this version"
                f" reads {reads}: upgrade Agent Brain Lab to use it as it is, or rebuild it in format"
                f" {FORMAT_VERSION} (the embedding cache is kept)",
                FIX_FORCE,
            )
        what = f"format {found}" if found is not None else "an unreadable FORMAT file"
        problem = f"this index was written in {what}; this version of Agent Brain Lab reads {reads}"
        raise IndexCorrupt(problem, FIX_FORCE)

    def index_id(self) -> str | None:
        try:
            return _read_small(self._index_id_file).strip() or None
        except OSError:
            return None

    # ---------------------------------------------------------------- generations

    def current(self) -> int:
        """The generation CURRENT names; 0 when there is none (IndexCorrupt when it is unreadable)."""
        try:
            text = _read_small(self._current_file).strip()
        except FileNotFoundError:
            return 0
        except OSError as err:
            problem = storage_problem(err, self.path, reading=True)
            what = err.strerror or err
            raise problem or IndexCorrupt(f"cannot read .agent-brain/CURRENT: {what}", FIX_INDEX) from None
        # Past 18 digits no generation was ever written: a name that long cannot even be a folder's.
        if not text.isascii() or not text.isdigit() or len(text) > 18:
            raise IndexCorrupt(".agent-brain/CURRENT does not name a generation", FIX_INDEX)
        return int(text)

    def gen_path(self, gen: int) -> Path:
        return self.path / f"gen-{gen}"

    def gen_folder(self, gen: int) -> str:
        """:meth:`gen_path` as a plain string (what every query's identity check stats)."""
        return f"{self._folder}/gen-{gen}"

    def staging(self, gen: int) -> Path:
        path = self.path / f"staging-{gen}"
        _remove(path)
        path.mkdir(parents=True)
        return path

    def publish(self, gen: int, staged: Path) -> None:
        """Make the staged folder generation ``gen`` and point CURRENT at it. When this fails (a full
        disk) CURRENT still names the previous generation, and what was written is removed again to
        give the space back; a failure after CURRENT was replaced is no failure (it is published)."""
        target = self.gen_path(gen)
        try:
            _remove(target)
            _fsync_tree(staged, self.file_mode, self.folder_mode)
            os.replace(staged, target)
            _write_atomic(self.path / "CURRENT", str(gen), self.file_mode)
        except BaseException:
            if self._current_or_none() == gen:
                return
            self.discard(staged, target)
            raise

    def _current_or_none(self) -> int | None:
        try:
            return self.current()
        except IndexProblem:
            return None

    def discard(self, *paths: Path) -> None:
        """Remove a failed writer's folders (best effort: the next writer clears what is left)."""
        for path in paths:
            try:
                _remove(path)
            except OSError:
                pass

    def clear_staging(self) -> None:
        """Remove the staging folders of writers that were killed (call under the writer lock)."""
        for entry in self.path.iterdir():
            if STAGING_NAME.fullmatch(entry.name):
                _remove(entry)

    def collect_garbage(self, keep: set[int]) -> None:
        """Remove generations not in ``keep`` and staging leftovers; only names a writer writes
        (``gen-N``, ``staging-N``) are touched, anything else in the folder is left alone."""
        for entry in self.path.iterdir():
            gen = GEN_NAME.fullmatch(entry.name)
            if STAGING_NAME.fullmatch(entry.name) or (gen and int(gen.group(1)) not in keep):
                _remove(entry)

    def size_bytes(self) -> int:
        """Bytes on disk; a writer may remove folders and files while we walk (os.walk skips those)."""
        total = 0
        for folder, _, names in os.walk(self.path):
            for name in names:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_size
                except OSError:  # removed by a writer while we walk
                    pass
        return total

    def remove(self, keep: tuple[str, ...] = ()) -> None:
        """Delete everything but the lock file (other processes may hold it open) and the names in
        ``keep``. Whatever the folder holds, even garbage, goes: this is how a broken index is always
        recoverable. In place of the folder a symlink goes (its target stays); anything else, a file
        the user may want, is :class:`NotTheIndexFolder` and stays."""
        if not self.exists():
            if os.path.islink(self._folder):
                with storage_errors(self.path):
                    os.unlink(self._folder)
                return
            problem = self.not_a_folder()
            if problem is not None:
                raise problem
            return
        with storage_errors(self.path):
            _remove(self.path / "CURRENT")  # first: readers see no index rather than a generation losing its files
            for entry in self.path.iterdir():
                if entry.name != "writer.lock" and entry.name not in keep:
                    _remove(entry)

    # ---------------------------------------------------------------- writer lock

    @contextmanager
    def writer_lock(self, wait: float = 0.0) -> Iterator[None]:
        self.ensure()
        with storage_errors(self.path):
            fh = open(self.path / "writer.lock", "a+")
        # a short grace period: a status probe may hold the lock for a moment
        deadline = time.monotonic() + max(wait, 0.3)
        try:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise busy() from None
                    time.sleep(0.1)
            with storage_errors(self.path):
                fh.seek(0)
                fh.truncate()
                fh.write(f"{os.getpid()}\n")
                fh.flush()
                os.chmod(self.path / "writer.lock", self.file_mode)
                ignore = self.path / ".gitignore"
                if not ignore.exists():
                    _write_atomic(
                        ignore, "# the Agent Brain Lab index; rebuild with `agent-brain-lab index`\n*", self.file_mode
                    )
                if not (self.path / "FORMAT").exists():
                    self.write_format()
                if self.index_id() is None:  # a new index (or one just reset) gets its identity from its first writer
                    _write_atomic(self.path / "INDEX_ID", uuid.uuid4().hex, self.file_mode)
            yield
        finally:
            try:
                fh.close()  # closing releases the flock
            except OSError:  # the pid line could not be flushed (a full disk): closed all the same
                pass

    def writer_active(self) -> bool:
        return writer_active(self.path)


def writer_active(folder: Path) -> bool:
    """Whether a writer holds the lock of the index folder ``folder``."""
    try:
        fh = open(folder / "writer.lock", "rb")
    except FileNotFoundError:  # no writer yet, or the folder was just deleted
        return False
    except PermissionError:  # another user's private index: it says so when read
        return False
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
        return False


def busy() -> WorkspaceBusy:
    return WorkspaceBusy(
        "another indexer is writing this workspace's index; "
        "queries keep using the last generation — try again when it finishes"
    )


def _read_small(path: str) -> str:
    """A small text file's content (the pointer files every query reads: no buffered text stream)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 4096).decode("utf-8", "replace")
    finally:
        os.close(fd)


def inode_of(path: Path | str) -> tuple[int, int] | None:
    """(device, inode) of a file or folder, None when it is gone: identifies what a reader opened."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _is_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def _remove(path: Path) -> None:
    """Remove a file, link or folder tree if it exists."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def create_private(path: Path, mode: int) -> None:
    """Create an empty file with ``mode`` whatever the umask (nothing happens if it exists)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _write_atomic(path: Path, text: str, mode: int = 0o600) -> None:
    """Replace a small file in one step (write a temporary twin, fsync, rename, fsync the folder);
    a failed write (a full disk) leaves the old file and no twin."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
        with open(fd, "w") as fh:
            os.fchmod(fd, mode)
            fh.write(f"{text}\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_tree(path: Path, file_mode: int, folder_mode: int) -> None:
    """Sync a staged folder to disk, giving its folders and files the index's modes."""
    for file in path.rglob("*"):
        if file.is_dir():
            os.chmod(file, folder_mode)
        elif file.is_file():
            os.chmod(file, file_mode)
            with open(file, "rb") as fh:
                os.fsync(fh.fileno())
    os.chmod(path, folder_mode)
    _fsync_dir(path)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
