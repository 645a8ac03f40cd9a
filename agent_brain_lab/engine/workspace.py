"""Walk a workspace and classify its files: what gets indexed, what is skipped and why.

Files excluded on purpose (.gitignore, default excludes such as node_modules, hidden files, the
user's exclude globs) are left out silently; files that would be indexed but cannot be (binary,
too large, unsupported type) come back as :class:`SkippedFile` with a reason.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pathspec

from .types import BrainError, InvalidRequest, SkippedFile

SNIFF_BYTES = 8192
CONFIG_MAX_BYTES = 200_000  # config-ish files (json/yaml/...) above this are data dumps, not docs
NOTEBOOK_SIZE_FACTOR = 10  # a notebook's bytes are mostly outputs (images), which are not indexed

DOC_LANGUAGES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
}
CONFIG_LANGUAGES = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".json": "json",
}
CODE_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".r": "r",
    ".jl": "julia",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".sql": "sql",
}
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
    "dist",
    "build",
    ".ipynb_checkpoints",
    ".agent-brain",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
}
EXCLUDED_FILES = pathspec.PathSpec.from_lines(
    "gitignore",
    ["*.min.js", "*.min.css", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "*.lock"],
)
TEST_DIRS = {"tests", "test", "__tests__", "spec"}
TEST_FILE = re.compile(
    r"(^test_.*\.py$|_test\.py$|^conftest\.py$|_test\.go$|\.(test|spec)\.[cm]?[jt]sx?$"
    r"|Tests?\.java$|Tests?\.kt$|Tests?\.cs$|_spec\.rb$)"
)


class Unreadable(BrainError):
    """A file that classify() accepted but whose content cannot be indexed; str() is the reason."""

    code = "unreadable"


@dataclass(frozen=True)
class WorkspaceFile:
    path: str  # POSIX, relative to the root
    abs_path: Path
    size: int
    mtime: float
    source_type: str  # doc | code | test | notebook
    language: str


@dataclass(frozen=True)
class ScanOptions:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = 1_000_000
    include_hidden: bool = False


def classify(rel_path: str) -> tuple[str, str] | None:
    """(source_type, language) of a path relative to the root, or None if it is not indexable."""
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
    return None


def _is_test(path: PurePosixPath) -> bool:
    return bool(TEST_DIRS.intersection(path.parts[:-1])) or bool(TEST_FILE.search(path.name))


def read_text(f: WorkspaceFile) -> str:
    """The file's text with newlines normalised to \\n; Unreadable for binary or non-UTF-8 content."""
    return decode_text(read_bytes(f))


def read_bytes(f: WorkspaceFile) -> bytes:
    """The file's bytes, reading at most one byte more than the size the scan saw, so a file
    that grew into a huge one in the meantime is never read whole."""
    try:
        with open(f.abs_path, "rb") as fh:
            data = fh.read(f.size + 1)
    except OSError as err:
        raise Unreadable(f"cannot read: {err.strerror or err}") from None
    if len(data) > f.size:
        raise Unreadable("file changed while indexing")
    return data


def decode_text(data: bytes) -> str:
    """Text of a file's bytes, as read_text returns it (for callers that already hold the bytes)."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise Unreadable("binary file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("not valid UTF-8 text") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


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


def _not_a_file(path: Path) -> str:
    """Why an entry that is neither a folder nor a regular file is skipped."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "broken symlink" if path.is_symlink() else "cannot read"
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "special file")
    return f"not a regular file: {kind}{' behind a symlink' if path.is_symlink() else ''}"


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def scan(root: Path, options: ScanOptions, subpath: str = "") -> tuple[list[WorkspaceFile], list[SkippedFile]]:
    """Indexable files under ``root`` (or only under ``subpath``), and the skipped ones; sorted by path.

    The same rules apply whichever ``subpath`` is asked for, so a partial scan never takes a file
    the full scan would leave out.
    """
    root = Path(root).resolve()
    target = resolve_inside(root, subpath).relative_to(root).as_posix() if subpath else ""
    walker = _Walker(root, options, "" if target == "." else target)
    walker.walk_dir(root, "", [])
    return sorted(walker.files, key=lambda f: f.path), sorted(walker.skipped, key=lambda s: s.path)


def folders(root: Path, options: ScanOptions) -> list[Path]:
    """The folders a scan walks into (``root`` first): what a watcher watches. Excluded, ignored and
    hidden folders, virtualenvs and symlinks out of the root are not among them."""
    root = Path(root).resolve()
    walker = _Walker(root, options, "", files=False)
    walker.walk_dir(root, "", [])
    return walker.folders


class _Walker:
    def __init__(self, root: Path, options: ScanOptions, target: str, *, files: bool = True):
        self.root = root
        self.with_files = files
        self.folders: list[Path] = []
        self.options = options
        self.target = target
        self.include = pathspec.PathSpec.from_lines("gitignore", options.include) if options.include else None
        self.exclude = pathspec.PathSpec.from_lines("gitignore", options.exclude)
        self.visited: set[Path] = {root}
        self.files: list[WorkspaceFile] = []
        self.skipped: list[SkippedFile] = []

    def walk_dir(self, abs_dir: Path, rel_dir: str, ignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> None:
        ignores = ignores + _load_gitignore(abs_dir, rel_dir)
        self.folders.append(abs_dir)
        try:
            entries = sorted(os.scandir(abs_dir), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if not self._on_target(rel) or (entry.name.startswith(".") and not self.options.include_hidden):
                continue
            try:
                is_dir = entry.is_dir()
                is_file = entry.is_file()
            except OSError:
                continue
            if not _valid_name(entry.name):
                what = "folder" if is_dir else "file"
                self.skipped.append(SkippedFile(_printable(rel), f"{what} name is not valid UTF-8"))
                continue
            if is_dir:
                self._visit_dir(entry, rel, ignores)
            elif not self.with_files:
                continue
            elif is_file:
                self._visit_file(entry, rel, ignores)
            else:
                self.skipped.append(SkippedFile(rel, _not_a_file(Path(entry.path))))

    def _on_target(self, rel: str) -> bool:
        """Whether ``rel`` is the target, inside it, or a folder on the way to it."""
        t = self.target
        return not t or rel == t or rel.startswith(t + "/") or t.startswith(rel + "/")

    def _visit_dir(self, entry: os.DirEntry, rel: str, ignores) -> None:
        abs_dir = Path(entry.path)
        if entry.name in EXCLUDED_DIRS or (abs_dir / "pyvenv.cfg").exists():
            return
        if _ignored(ignores, rel, is_dir=True) or self.exclude.match_file(rel + "/"):
            return
        real = abs_dir.resolve()
        if real in self.visited:
            return  # a symlink loop, or a second way into a folder already walked
        if not real.is_relative_to(self.root):
            self.skipped.append(SkippedFile(rel, "symlink to a folder outside the workspace"))
            return
        self.visited.add(real)
        self.walk_dir(abs_dir, rel, ignores)

    def _visit_file(self, entry: os.DirEntry, rel: str, ignores) -> None:
        if EXCLUDED_FILES.match_file(entry.name) or _ignored(ignores, rel, is_dir=False):
            return
        if self.exclude.match_file(rel) or (self.include is not None and not self.include.match_file(rel)):
            return
        abs_path = Path(entry.path)
        if entry.is_symlink() and not abs_path.resolve().is_relative_to(self.root):
            self.skipped.append(SkippedFile(rel, "symlink to a file outside the workspace"))
            return
        try:
            st = entry.stat()
        except OSError as err:
            self.skipped.append(SkippedFile(rel, f"cannot read: {err.strerror or err}"))
            return
        kind = classify(rel)
        reason = self._skip_reason(abs_path, st.st_size, kind)
        if reason or kind is None:
            self.skipped.append(SkippedFile(rel, reason or "unsupported file type"))
            return
        source_type, language = kind
        self.files.append(WorkspaceFile(rel, abs_path, st.st_size, st.st_mtime, source_type, language))

    def _skip_reason(self, abs_path: Path, size: int, kind: tuple[str, str] | None) -> str | None:
        if kind is None:
            return "binary file" if _looks_binary(abs_path) else "unsupported file type"
        limit, what = self.options.max_file_bytes, ""
        if kind[0] == "notebook":
            limit, what = limit * NOTEBOOK_SIZE_FACTOR, " for notebooks"
        elif kind[1] in CONFIG_LANGUAGES.values():
            limit, what = min(limit, CONFIG_MAX_BYTES), " for config files"
        if size > limit:
            return f"larger than {human_size(limit)} limit{what} ({human_size(size)})"
        if _looks_binary(abs_path):
            return "binary file"
        return None


def _valid_name(name: str) -> bool:
    """Whether a name from the file system is real text (not bytes smuggled in as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(rel: str) -> str:
    """A path whose name is not valid UTF-8, as text: the undecodable bytes written as ``\\xff``."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def _load_gitignore(abs_dir: Path, rel_dir: str) -> list[tuple[str, pathspec.GitIgnoreSpec]]:
    try:
        lines = (abs_dir / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    return [(rel_dir, pathspec.GitIgnoreSpec.from_lines(lines))]


def _ignored(ignores: list[tuple[str, pathspec.GitIgnoreSpec]], rel: str, is_dir: bool) -> bool:
    """Git semantics: the deepest .gitignore with a matching pattern decides; last match wins inside it."""
    for base, spec in reversed(ignores):
        local = rel[len(base) + 1 :] if base else rel
        result = spec.check_file(local + "/" if is_dir else local)
        if result.include is not None:
            return result.include
    return False


def _looks_binary(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return b"\x00" in fh.read(SNIFF_BYTES)
    except OSError:
        return False
