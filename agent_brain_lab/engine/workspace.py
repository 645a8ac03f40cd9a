"""Walk a workspace and classify its files: what gets indexed, what is skipped and why.

Files excluded on purpose (.gitignore, default excludes such as node_modules, hidden files, the
user's exclude globs) are left out silently, before anything looks inside them; files that would be
indexed but cannot be (binary, too large, unsupported type, unreadable) come back as
:class:`SkippedFile` with a reason. The tree may change while it is walked and read, or be written
by someone else: every ``OSError`` of the walk is a skip of that one path, and a file is read only
if the descriptor opened (without following a symlink, without blocking on a pipe) is the regular
file the scan saw (same device and inode), still inside the root. Anything else reads nothing.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from .config import MAX_FILE_BYTES
from .globs import regex_stars
from .labels import printable
from .languages import CODE_LANGUAGES, CONFIG_LANGUAGES, DOC_LANGUAGES, SHEBANG_LANGUAGES
from .types import MAX_INDEX_GLOB_STARS, BrainError, InvalidRequest, SkippedFile, folders_above

SNIFF_BYTES = 8192
GITIGNORE_MAX_BYTES = 100_000  # a .gitignore is a few KB; pathspec compiles ~80 KB of patterns a second
CONFIG_MAX_BYTES = 200_000  # config-ish files (json/yaml/...) above this are data dumps, not docs
NOTEBOOK_SIZE_FACTOR = 10  # a notebook's bytes are mostly outputs (images), which are not indexed

SHEBANG = re.compile(rb"#![ \t]*(\S+)[ \t]*([^\r\n]*)")
INTERPRETER_VERSION = re.compile(r"[\d.]+$")  # python3.11 -> python
# Extension-less files that are plain prose.
TEXT_NAMES = {"readme", "license", "licence", "copying", "notice", "authors", "changelog", "contributing"}

EXCLUDED_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "venv",
    ".venv",
    "__pycache__",
    "site-packages",
    ".ipynb_checkpoints",
    ".agent-brain",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
}
# Build output: left out as a copy of sources the workspace holds, except where it is the only code there
# is, as in a package unpacked from its registry (npm's dist/ beside package.json and the readme).
BUILD_OUTPUT_DIRS = {"dist", "build"}
EXCLUDED_FILES = pathspec.PathSpec.from_lines(
    "gitignore",
    ["*.min.js", "*.min.css", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "*.lock"],
)
TEST_DIRS = {"tests", "test", "__tests__", "spec"}
TEST_FILE = re.compile(
    r"(^test_.*\.py$|_test\.py$|^conftest\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$"
    r"|Tests?\.java$|Tests?\.kt$|Tests?\.cs$|_spec\.rb$)"
)


# The start of every skip reason that says a file moved under the reader (replaced, grown, turned into
# a link or a pipe between the scan and the read): the file is there, only this look at it failed, so
# a version indexed before is kept (engine/indexer.py) until a run reads it settled.
CHANGED = "changed while indexing"


def in_flux(reason: str) -> bool:
    """Whether a skip ``reason`` says the file changed under the reader (see :data:`CHANGED`)."""
    return reason.startswith(CHANGED)


class Unreadable(BrainError):
    """A file that classify() accepted but whose content cannot be indexed; str() is the reason."""

    code = "unreadable"


@dataclass(frozen=True)
class WorkspaceFile:
    path: str  # POSIX, relative to the root
    abs_path: Path  # what is opened: the file itself, or the target of a symlink inside the root
    size: int
    mtime: float
    source_type: str  # doc | code | test | notebook
    language: str
    device: int  # st_dev and st_ino the scan saw: the read takes only this file
    inode: int
    root: Path  # the resolved workspace root: the file opened must still be under it


@dataclass(frozen=True)
class ScanOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = MAX_FILE_BYTES
    include_hidden: bool = False


def classify(rel_path: str, head: bytes = b"") -> tuple[str, str] | None:
    """(source_type, language) of a path relative to the root, or None if it is not indexable.

    The suffix decides; a file whose suffix names no language is a script of the language its
    ``#!`` line names, read from ``head`` (the file's first bytes)."""
    path = PurePosixPath(rel_path)
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        return "notebook", "python"
    if suffix in DOC_LANGUAGES:
        return "doc", DOC_LANGUAGES[suffix]
    if suffix in CONFIG_LANGUAGES:
        return "doc", CONFIG_LANGUAGES[suffix]
    if suffix in CODE_LANGUAGES:
        return ("test" if _is_test(path) else "code"), CODE_LANGUAGES[suffix]
    if not suffix and path.name.lower() in TEXT_NAMES:
        return "doc", "text"
    language = shebang_language(head)
    if language is not None:
        return ("test" if _is_test(path) else "code"), language
    return None


def shebang_language(head: bytes) -> str | None:
    """The language of a script whose first line is ``#!`` and an interpreter the chunker reads
    (``/usr/bin/env -S python3 -u`` is python); None for anything else."""
    found = SHEBANG.match(head)
    if found is None:
        return None
    program, rest = found[1].decode("latin-1"), found[2].decode("latin-1").split()
    if program.rpartition("/")[2] == "env":  # env [-S] [-i] [NAME=value] interpreter args
        rest = [a for a in rest if not a.startswith("-") and "=" not in a]
        if not rest:
            return None
        program = rest[0]
    name = INTERPRETER_VERSION.sub("", program.rpartition("/")[2].lower())
    return SHEBANG_LANGUAGES.get(name)


def _is_test(path: PurePosixPath) -> bool:
    return bool(TEST_DIRS.intersection(path.parts[:-1])) or bool(TEST_FILE.search(path.name))


def read_text(f: WorkspaceFile) -> str:
    """The file's text with newlines normalised to \\n; Unreadable for binary or non-UTF-8 content."""
    return decode_text(read_bytes(f))


def read_bytes(f: WorkspaceFile) -> bytes:
    """The file's bytes, reading at most one byte more than the size the scan saw, so a file
    that grew into a huge one in the meantime is never read whole. Unreadable (a skip) unless what
    opens is the file the scan saw: see :func:`open_scanned`."""
    fd = open_scanned(f.abs_path, f.device, f.inode, f.root)
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(f.size + 1)
    except OSError as err:
        raise Unreadable(os_reason(err)) from None
    if len(data) > f.size:
        raise Unreadable(f"{CHANGED}: it grew while it was read")
    return data


# Never follow a symlink in the last component, never block on a FIFO, never leak into children.
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def open_scanned(path: Path, device: int, inode: int, root: Path) -> int:
    """A read-only descriptor on ``path``, checked to be the regular file with ``device``/``inode``
    and to lie under ``root``; Unreadable (with the reason) for anything else. A file replaced by a
    symlink, a pipe or another file between the scan and this call, or reached through a folder
    swapped for a link out of the root, is never read."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as err:
        if err.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink where the scan saw a file
            raise Unreadable(f"{CHANGED}: now a symlink") from None
        raise Unreadable(os_reason(err)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Unreadable(f"{CHANGED}: no longer a regular file")
        if (st.st_dev, st.st_ino) != (device, inode):
            raise Unreadable(f"{CHANGED}: replaced by another file")
        if not _opened_inside(fd, path, st, root):
            raise Unreadable(f"{CHANGED}: now outside the workspace")
    except OSError as err:
        os.close(fd)
        raise Unreadable(os_reason(err)) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _opened_inside(fd: int, path: Path, st: os.stat_result, root: Path) -> bool:
    """Whether the file open on ``fd`` lies under ``root``: the kernel's name for the descriptor
    (``/proc/self/fd``, ``F_GETPATH``), else the resolved ``path`` if it still names the same inode."""
    name: str | None = None
    try:
        name = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        get_path = getattr(fcntl, "F_GETPATH", None) if fcntl is not None else None
        if get_path is not None:
            try:
                name = os.fsdecode(fcntl.fcntl(fd, get_path, bytes(4096)).rstrip(b"\x00"))
            except OSError:
                name = None
    if name is not None:
        return name.startswith("/") and Path(name.removesuffix(" (deleted)")).is_relative_to(root)
    real = Path(os.path.realpath(path))
    other = os.stat(real, follow_symlinks=False)
    return real.is_relative_to(root) and (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino)


# What an OSError of the walk or a read means for the user (strerror alone names no path).
_ERRNO_REASONS = {
    errno.ENOENT: "deleted while indexing",
    errno.ENOTDIR: "deleted while indexing",
    errno.ELOOP: "symlink loop",
    errno.ENAMETOOLONG: "path too long",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
}


def os_reason(err: OSError, what: str = "cannot read") -> str:
    """The skip reason for ``err``: ``cannot read: permission denied``; never a path."""
    detail = _ERRNO_REASONS.get(err.errno or 0) or (err.strerror or type(err).__name__).lower()
    return f"{what}: {detail}"


# A byte-order mark names the encoding of UTF-16 and UTF-32 text (what Windows PowerShell writes by
# default), whose bytes are full of NULs: told by its mark before any NUL test. UTF-32 LE first: its
# mark begins with UTF-16 LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# An encoding declared in a comment on one of the first two lines: PEP 263's ``# -*- coding: latin-1 -*-``
# (Python reads such a file so), Ruby's ``# encoding: ...``, Emacs' and vim's ``fileencoding=`` in any
# comment syntax. Looked at only when the bytes are not UTF-8.
_CODING = re.compile(rb"[ \t\f]*(?:#|//|/\*|--|;|%|<!--|\.\.).*?(?:file)?coding[:=][ \t]*([-\w.]+)")


def _bom_encoding(data: bytes) -> str | None:
    return next((encoding for bom, encoding in _BOMS if data.startswith(bom)), None)


def is_binary(data: bytes) -> bool:
    """Whether a file is binary: a NUL among its first ``SNIFF_BYTES`` (characters, for UTF-16 or
    UTF-32 text with its byte-order mark; bytes otherwise)."""
    head = data[:SNIFF_BYTES]
    encoding = _bom_encoding(head)
    if encoding is None:
        return b"\x00" in head
    return "\x00" in codecs.getincrementaldecoder(encoding)("replace").decode(head)


def decode_text(data: bytes) -> str:
    """Text of a file's bytes, as read_text returns it (for callers that already hold the bytes):
    UTF-8 (a BOM dropped), UTF-16/32 with their BOM, else the encoding its coding line declares."""
    if is_binary(data):
        raise Unreadable("binary file")
    encoding = _bom_encoding(data)
    try:
        text = data.decode(encoding or "utf-8-sig")
    except UnicodeDecodeError:
        declared = None if encoding else _declared_encoding(data)
        if declared is None:
            raise Unreadable(f"not valid {(encoding or 'utf-8').upper()} text") from None
        try:
            text = data.decode(declared)
        except (UnicodeDecodeError, LookupError):  # LookupError: no such encoding, or not one of text
            raise Unreadable(f"not valid {declared} text, the encoding its coding line declares") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _declared_encoding(data: bytes) -> str | None:
    """The encoding a comment on the first two lines declares (see ``_CODING``), unless it is UTF-8."""
    for line in data.split(b"\n", 2)[:2]:
        found = _CODING.match(line)
        if found is not None:
            name = found[1].decode("ascii", "replace")
            try:
                return None if codecs.lookup(name).name == "utf-8" else name
            except LookupError:
                return name  # said so when decoding fails
    return None


def resolve_inside(root: Path, rel: str, must_exist: bool = True) -> Path:
    """``root / rel`` after checking it stays inside the root and exists (unless ``must_exist`` is False).

    The returned path keeps the caller's spelling (a symlink inside the root is not replaced by its
    target), so ``path.relative_to(root.resolve())`` gives the workspace-relative path.
    """
    if not isinstance(rel, str) or "\x00" in rel:
        raise InvalidRequest("path", "must be a string")
    root = Path(root).resolve()
    posix = rel.replace("\\", "/")
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        raise InvalidRequest("path", f"{rel!r} must be relative to the workspace root")
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise InvalidRequest("path", f"{rel!r} must not contain '..'")
    target = root.joinpath(*parts)
    try:
        real = resolve_path(target)
        if not real.is_relative_to(root):
            raise InvalidRequest("path", f"{rel!r} points outside the workspace")
        if must_exist and not real.exists():
            raise InvalidRequest("path", f"{rel!r} does not exist")
    except OSError as err:  # a symlink loop, a name too long, a folder we may not enter
        raise InvalidRequest("path", f"{rel!r} cannot be opened: {err.strerror or err}") from None
    return target


def resolve_path(path: Path) -> Path:
    """``path.resolve()``; a symlink loop is OSError(ELOOP) on every Python (before 3.13: RuntimeError)."""
    try:
        return path.resolve()
    except RuntimeError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


def human_size(n: int) -> str:
    """Decimal units, one decimal: 52428800 -> '52.4 MB'."""
    if n < 1000:
        return f"{n} bytes"
    size = float(n)
    for unit in ("KB", "MB"):
        size /= 1000
        if size < 1000:
            return f"{size:.1f} {unit}"
    return f"{size / 1000:.1f} GB"


def size_above(size: int, limit: int) -> str:
    """``size`` as :func:`human_size` writes it, or in bytes when that reads the same as the ``limit``
    it is above ("larger than 1.0 MB limit (1,002,842 bytes)", not "(1.0 MB)")."""
    shown = human_size(size)
    return f"{size:,} bytes" if shown == human_size(limit) else shown


def _not_a_file(entry: os.DirEntry) -> str:
    """Why an entry that is neither a folder nor a regular file is skipped."""
    try:
        link = entry.is_symlink()
        mode = os.stat(entry.path).st_mode
    except OSError:
        return "broken symlink" if _is_link(entry) else "cannot read"
    return f"not a regular file: {special_kind(mode) or 'special file'}{' behind a symlink' if link else ''}"


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def special_kind(mode: int) -> str | None:
    """What a file of ``mode`` that is neither a regular file nor a folder is ("a named pipe"), as
    skips and index problems say it; None for any other."""
    return next((name for test, name in _SPECIAL_KINDS if test(mode)), None)


def scan(
    root: Path, options: ScanOptions, subpath: str | Sequence[str] = ""
) -> tuple[list[WorkspaceFile], list[SkippedFile]]:
    """Indexable files under ``root`` (or only under ``subpath``, or under each of several in one
    walk), and the skipped ones; sorted by path.

    The same rules apply whichever ``subpath`` is asked for, so a partial scan never takes a file
    the full scan would leave out.
    """
    root = Path(root).resolve()
    subpaths = [subpath] if isinstance(subpath, str) else list(subpath)
    targets = [resolve_inside(root, p).relative_to(root).as_posix() if p else "" for p in subpaths]
    walker = _Walker(root, options, ["" if t == "." else t for t in targets])
    walker.walk_dir(root, "", [])
    return sorted(walker.files, key=lambda f: f.path), sorted(walker.skipped, key=lambda s: s.path)


def folders(root: Path, options: ScanOptions) -> list[Path]:
    """The folders a scan walks into (``root`` first): what a watcher watches. Excluded, ignored and
    hidden folders, virtualenvs and symlinks out of the root are not among them."""
    root = Path(root).resolve()
    walker = _Walker(root, options, [""], files=False)
    walker.walk_dir(root, "", [])
    return walker.folders


def _lone_build_output(entries: list[os.DirEntry]) -> str | None:
    """The one build-output folder of a folder whose other entries are files holding no code (a
    manifest, a readme, a licence): there it is all the code there is, so it is walked."""
    if not any(entry.name in BUILD_OUTPUT_DIRS for entry in entries):  # most folders: no entry classified
        return None
    outputs = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            return None
        if entry.name.startswith(".") or entry.name in EXCLUDED_DIRS:
            continue
        if is_dir:
            if entry.name not in BUILD_OUTPUT_DIRS:
                return None
            outputs.append(entry.name)
        elif (classify(entry.name) or ("doc",))[0] != "doc":
            return None
    return outputs[0] if len(outputs) == 1 else None


class _Walker:
    def __init__(self, root: Path, options: ScanOptions, targets: Sequence[str], *, files: bool = True):
        self.root = root
        self.with_files = files
        self.folders: list[Path] = []
        self.options = options
        # What the walk looks at: the targets, what is inside them, and the folders on the way to them.
        self.everything = "" in targets
        self.targets = frozenset(targets)
        self.on_the_way = frozenset(folder for t in targets for folder in folders_above(t))
        self.include = pathspec.PathSpec.from_lines("gitignore", options.include) if options.include else None
        self.exclude = pathspec.PathSpec.from_lines("gitignore", options.exclude)
        self.visited: set[Path] = {root}
        self.files: list[WorkspaceFile] = []
        self.skipped: list[SkippedFile] = []

    def skip(self, rel: str, reason: str) -> None:
        self.skipped.append(SkippedFile(rel, reason))

    def walk_dir(self, abs_dir: Path, rel_dir: str, ignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        try:
            ignores = ignores + _load_gitignore(abs_dir, rel_dir)
        except (OSError, Unusable) as err:  # its rules cannot be applied: nothing is taken that they may leave out
            reason = os_reason(err, "cannot read its .gitignore") if isinstance(err, OSError) else str(err)
            self.skip(rel_dir or ".", reason)
            return
        self.folders.append(abs_dir)
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError as err:
            self.skip(rel_dir or ".", os_reason(err, "cannot read folder"))
            return
        lone_output = _lone_build_output(entries)
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if not self._on_target(rel) or (entry.name.startswith(".") and not self.options.include_hidden):
                continue
            try:
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError as err:
                self.skip(rel, os_reason(err))
                continue
            if not valid_name(entry.name):
                what = "folder" if is_dir else "file"
                self.skip(_printable(rel), f"{what} name is not valid UTF-8")
                continue
            if is_dir:
                self._visit_dir(entry, rel, ignores, lone_output)
            elif not self.with_files:
                continue
            elif is_file:
                self._visit_file(entry, rel, ignores)
            else:
                self.skip(rel, _not_a_file(entry))

    def _on_target(self, rel: str) -> bool:
        """Whether ``rel`` is a target, inside one, or a folder on the way to one (O(depth of ``rel``):
        a watcher's batch may name thousands of targets)."""
        if self.everything or rel in self.targets or rel in self.on_the_way:
            return True
        return any(folder in self.targets for folder in folders_above(rel))

    def _visit_dir(
        self, entry: os.DirEntry, rel: str, ignores: list[tuple[str, pathspec.GitIgnoreSpec]], lone_output: str | None
    ) -> None:
        """Walk a folder unless a rule leaves it out; the rules are applied before anything inside
        it is looked at (a gitignored folder someone else owns is never touched)."""
        if entry.name in EXCLUDED_DIRS or _ignored(ignores, rel, is_dir=True) or self.exclude.match_file(rel + "/"):
            return
        if entry.name in BUILD_OUTPUT_DIRS and entry.name != lone_output:
            return
        abs_dir = Path(entry.path)
        try:
            if _is_venv(abs_dir):
                return
            real = resolve_path(abs_dir)
        except OSError as err:
            self.skip(rel, os_reason(err, "cannot read folder"))
            return
        if real in self.visited:
            return  # a symlink loop, or a second way into a folder already walked
        if not real.is_relative_to(self.root):
            self.skip(rel, "symlink to a folder outside the workspace")
            return
        self.visited.add(real)
        self.walk_dir(abs_dir, rel, ignores)

    def _visit_file(self, entry: os.DirEntry, rel: str, ignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        if EXCLUDED_FILES.match_file(entry.name) or _ignored(ignores, rel, is_dir=False):
            return
        if self.exclude.match_file(rel) or (self.include is not None and not self.include.match_file(rel)):
            return
        try:
            found = self._identify(entry)
        except OSError as err:
            self.skip(rel, os_reason(err))
            return
        if isinstance(found, str):
            self.skip(rel, found)
            return
        abs_path, st = found
        kind, head = classify(rel), None
        if kind is None:  # a file whose suffix names nothing: its first bytes may (a #! line)
            head = self._head(abs_path, st)
            kind = classify(rel, head or b"")
        reason = self._skip_reason(abs_path, st, kind, head)
        if reason or kind is None:
            self.skip(rel, reason or "unsupported file type")
            return
        source_type, language = kind
        self.files.append(
            WorkspaceFile(
                rel, abs_path, st.st_size, st.st_mtime, source_type, language, st.st_dev, st.st_ino, self.root
            )
        )

    def _identify(self, entry: os.DirEntry) -> tuple[Path, os.stat_result] | str:
        """(the path to open, its stat without following links), or why the entry is skipped: a
        symlink is replaced by its target, which must be a regular file inside the root."""
        abs_path = Path(entry.path)
        if entry.is_symlink():
            abs_path = resolve_path(abs_path)
            if not abs_path.is_relative_to(self.root):
                return "symlink to a file outside the workspace"
        st = os.stat(abs_path, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            return f"{CHANGED}: no longer a regular file"
        return abs_path, st

    def _skip_reason(
        self, abs_path: Path, st: os.stat_result, kind: tuple[str, str] | None, head: bytes | None
    ) -> str | None:
        """Why the file is skipped, or None; ``head``: its first bytes if already read (a file over
        its size limit is not opened; one of no known kind was read to look for a ``#!`` line)."""
        if kind is not None:
            limit, what, size = self.options.max_file_bytes, "", st.st_size
            if kind[0] == "notebook":
                limit, what = limit * NOTEBOOK_SIZE_FACTOR, " for notebooks"
            elif kind[1] in CONFIG_LANGUAGES.values():
                limit, what = min(limit, CONFIG_MAX_BYTES), " for config files"
            if size > limit:
                return f"larger than {human_size(limit)} limit{what} ({size_above(size, limit)})"
            if head is None:
                head = self._head(abs_path, st)
        if head is not None and is_binary(head):
            return "binary file"
        return None if kind is not None else "unsupported file type"

    def _head(self, path: Path, st: os.stat_result) -> bytes | None:
        """The file's first bytes: a NUL in them makes it binary, a ``#!`` line a script (None if it
        cannot be opened as scanned: the read says why)."""
        try:
            fd = open_scanned(path, st.st_dev, st.st_ino, self.root)
        except Unreadable:
            return None
        try:
            return os.read(fd, SNIFF_BYTES)
        except OSError:
            return None
        finally:
            os.close(fd)


def _is_venv(folder: Path) -> bool:
    """Whether ``folder`` is a virtual environment (holds ``pyvenv.cfg``); OSError if it cannot be looked into."""
    try:
        os.stat(folder / "pyvenv.cfg")
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def valid_name(name: str) -> bool:
    """Whether a name from the file system is real text (not bytes smuggled in as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(rel: str) -> str:
    """A path whose name is not valid UTF-8, as text: the undecodable bytes written as ``\\xff``."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


class Unusable(Exception):
    """A folder's .gitignore whose rules cannot be applied in bounded time; str() is the skip reason."""


def _load_gitignore(abs_dir: Path, rel_dir: str) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
    """The folder's ``.gitignore`` rules: none if it has none (or a dangling link) or it is not a
    regular file (a pipe there must not block the walk); OSError if it is there but cannot be read
    (no permission, a link loop, an I/O error), :class:`Unusable` if its rules cannot be applied in
    bounded time (a cloned repository's file is untrusted: larger than ``GITIGNORE_MAX_BYTES``, or a
    pattern with more ``*`` than include/exclude globs may hold): the folder cannot be walked by them."""
    try:
        fd = os.open(abs_dir / ".gitignore", OPEN_FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except (FileNotFoundError, NotADirectoryError):
        return []
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return []
        data = fh.read(GITIGNORE_MAX_BYTES + 1)
    if len(data) > GITIGNORE_MAX_BYTES:
        raise Unusable(f"its .gitignore is larger than {human_size(GITIGNORE_MAX_BYTES)}")
    lines = data.decode("utf-8", errors="replace").splitlines()
    for line in lines:
        if not line.lstrip().startswith("#") and regex_stars(line) > MAX_INDEX_GLOB_STARS:
            raise Unusable(
                f"its .gitignore has a pattern too slow to match (more than {MAX_INDEX_GLOB_STARS} '*'"
                f" besides '**' folders): {printable(line[:60])}"
            )
    return [(rel_dir, pathspec.GitIgnoreSpec.from_lines(lines))]


def _ignored(ignores: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    """Git semantics: the deepest .gitignore with a matching pattern decides; last match wins inside it."""
    for base, spec in reversed(ignores):
        local = rel[len(base) + 1 :] if base else rel
        result = spec.check_file(local + "/" if is_dir else local)
        if result.include is not None:
            return result.include
    return False
