"""The ``.agent-brain/`` folder: generations, the CURRENT pointer and the writer lock.

Derived indexes (vectors, keywords, graph, filter columns) of generation N live in ``gen-N/``.
A writer builds them in a staging folder, renames it into place and then replaces ``CURRENT``
atomically; readers follow ``CURRENT`` on their next query. One writer at a time across processes
is enforced with ``flock`` on ``writer.lock`` (released by the kernel if the writer dies).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..types import WorkspaceBusy

FORMAT_VERSION = 1
INDEX_DIR = ".agent-brain"


class IndexDir:
    def __init__(self, root: Path):
        self.path = root / INDEX_DIR

    def ensure(self) -> None:
        self.path.mkdir(exist_ok=True)
        ignore = self.path / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# the Agent Brain Lab index; rebuild with `agent-brain-lab index`\n*\n")
        fmt = self.path / "FORMAT"
        if not fmt.exists():
            fmt.write_text(f"{FORMAT_VERSION}\n")

    def exists(self) -> bool:
        return self.path.is_dir()

    def format_version(self) -> int:
        try:
            return int((self.path / "FORMAT").read_text().strip())
        except (OSError, ValueError):
            return FORMAT_VERSION

    # ---------------------------------------------------------------- generations

    def current(self) -> int:
        try:
            return int((self.path / "CURRENT").read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def gen_path(self, gen: int) -> Path:
        return self.path / f"gen-{gen}"

    def staging(self, gen: int) -> Path:
        path = self.path / f"staging-{gen}"
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

    def publish(self, gen: int, staged: Path) -> None:
        target = self.gen_path(gen)
        shutil.rmtree(target, ignore_errors=True)
        _fsync_tree(staged)
        os.replace(staged, target)
        pointer = self.path / "CURRENT.tmp"
        with open(pointer, "w") as fh:
            fh.write(f"{gen}\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(pointer, self.path / "CURRENT")
        _fsync_dir(self.path)

    def collect_garbage(self, keep: set[int]) -> None:
        """Remove generations not in ``keep`` and leftovers of killed writers."""
        for entry in self.path.iterdir():
            name = entry.name
            if name.startswith("staging-") or (name.startswith("gen-") and int(name[4:]) not in keep):
                shutil.rmtree(entry, ignore_errors=True)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file()) if self.exists() else 0

    def remove(self) -> None:
        """Delete everything but the lock file (other processes may hold it open)."""
        for entry in self.path.iterdir():
            if entry.name == "writer.lock":
                continue
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()

    # ---------------------------------------------------------------- writer lock

    @contextmanager
    def writer_lock(self, wait: float = 0.0) -> Iterator[None]:
        self.ensure()
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
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
            yield
        finally:
            fh.close()  # closing releases the flock

    def writer_active(self) -> bool:
        lock = self.path / "writer.lock"
        if not lock.exists():
            return False
        with open(lock, "a+") as fh:
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


def _fsync_tree(path: Path) -> None:
    for file in path.rglob("*"):
        if file.is_file():
            with open(file, "rb") as fh:
                os.fsync(fh.fileno())
    _fsync_dir(path)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
