"""The index under hostile storage, on real file systems: a full tmpfs, a read-only bind mount, another
(non-root) user. A full or read-only disk is never called corruption, the last good generation keeps
answering, a run reports success exactly when it published, and nothing that can be kept is thrown
away (the embedding cache). Needs root for mount and runuser; skips cleanly where they are refused."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from workspace_fixture import F16_INDEX, chunk_as_the_f16_index_was

from agent_brain_lab import Brain
from agent_brain_lab.engine import indexer as indexer_module
from agent_brain_lab.engine.native import usearch_index
from agent_brain_lab.engine.store import vectors as vec
from agent_brain_lab.engine.store.datafiles import save_array
from agent_brain_lab.engine.store.storage import full_disk_behind, storage_problem
from agent_brain_lab.engine.types import DiskFull, IndexReadOnly, StorageIOError

REPO = Path(__file__).resolve().parents[1]
OTHER_USER = "abl-test-reader"


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)


@contextmanager
def tmpfs(size: str = "20m") -> Iterator[Path]:
    """A fresh tmpfs of ``size`` (skips when mounting is not permitted); unmounted whatever happens."""
    point = Path(tempfile.mkdtemp(prefix="abl-tmpfs-"))
    mounted = _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point))
    if mounted.returncode != 0:
        point.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield point
    finally:
        if _run("umount", str(point)).returncode != 0:
            _run("umount", "-l", str(point))
        point.rmdir()


@contextmanager
def read_only_view(folder: Path) -> Iterator[Path]:
    """``folder`` bind-mounted read-only at another path (the original stays writable)."""
    point = Path(tempfile.mkdtemp(prefix="abl-ro-"))
    bound = _run("mount", "--bind", str(folder), str(point))
    if bound.returncode != 0:
        point.rmdir()
        pytest.skip(f"cannot bind-mount here: {bound.stderr.strip()}")
    try:
        remounted = _run("mount", "-o", "remount,bind,ro", str(point))
        if remounted.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {remounted.stderr.strip()}")
        yield point
    finally:
        if _run("umount", str(point)).returncode != 0:
            _run("umount", "-l", str(point))
        point.rmdir()


def fill(folder: Path, leave: int = 0) -> Path:
    """Fill the file system holding ``folder`` to 0 bytes free, then give ``leave`` bytes back."""
    path = folder / "filler"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (1 << 20, 1 << 16, 1 << 12, 1):
            block = b"\0" * size
            while True:
                try:
                    os.write(fd, block)
                except OSError as err:
                    assert err.errno == errno.ENOSPC
                    break
    finally:
        os.close(fd)
    if leave:
        os.truncate(path, max(0, path.stat().st_size - leave))
    return path


_AS_USER: dict[str, list[str]] = {}  # user -> the command prefix that runs this Python as that user


def cli(root: Path, *args: str, user: str | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a fresh process (as ``user`` when given), importing this tree."""
    command = [sys.executable, "-m", "agent_brain_lab.cli", "--workspace", str(root), *args]
    if user:
        command = [*_AS_USER[user], *command[1:]]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd="/")


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def make_workspace(root: Path) -> Path:
    write(root, "shop/cart.py", "class Cart:\n    def total(self, items):\n        return sum(items)\n")
    write(root, "docs/guide.md", "# Guide\n\nThe zebra stripes section explains `monthly` reports.\n")
    Brain(root).index()
    return root


def many_sections(n: int) -> str:
    """``n`` sections, each long enough (> chunk_size / 4) to stay its own chunk rather than be packed."""
    line = "Quokka number {i} smiles at walrus {w} near the harbour. "
    return "".join(f"# Part {i}\n\n" + line.format(i=i, w=i * 7) * 7 + "\n\n" for i in range(n))


def cached_vectors(root: Path) -> int:
    db = sqlite3.connect(f"file:{root / '.agent-brain' / 'catalog.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
    finally:
        db.close()


def _vectors(count: int):
    """A real usearch index of ``count`` random 384-d vectors."""
    index = usearch_index().Index(ndim=384, dtype="bf16")
    index.add(np.arange(count), np.random.default_rng(0).random((count, 384), dtype=np.float32))
    return index


def current(root: Path) -> int:
    return int((root / ".agent-brain" / "CURRENT").read_text())


def answers(root: Path, query: str, user: str | None = None) -> list[str]:
    """The sources a plain reader in a fresh process finds (bm25: no model needed to rank)."""
    proc = cli(root, "query", query, "--mode", "bm25", "--json", user=user)
    assert proc.returncode == 0, proc.stderr
    return [r["source"] for r in json.loads(proc.stdout)["results"]]


def status(root: Path, user: str | None = None) -> dict:
    proc = cli(root, "status", "--json", user=user)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ------------------------------------------------------------------ a full disk


@pytest.mark.parametrize("leave", [0, 100_000, 400_000, 800_000])
def test_a_full_disk_is_disk_full_the_last_generation_answers_and_nothing_is_lost(leave):
    with tmpfs() as disk:
        root = make_workspace(disk / "ws")
        write(root, "docs/more.md", many_sections(60))  # ~60 chunks to embed and store
        before_gen, before_cache = current(root), cached_vectors(root)
        filler = fill(disk, leave)
        try:
            report = Brain(root).index()
        except DiskFull as err:
            assert "free space" in err.fix and "reset" not in str(err) and str(disk) not in str(err)
            assert current(root) == before_gen  # failed: nothing published, and it says so
            assert not [p for p in (root / ".agent-brain").iterdir() if p.name.startswith(("staging-", "gen-2"))]
        else:  # succeeded: it published, and the generation it reports answers
            assert current(root) == report.generation == before_gen + 1
            assert answers(root, "quokka harbour")[0] == "docs/more.md"
        proc = cli(root, "index")  # the CLI says the same, with the fix, and no traceback
        assert "Traceback" not in proc.stderr and "corrupt" not in proc.stderr and "reset" not in proc.stderr
        assert proc.returncode == 0 or "free space" in proc.stderr
        # a plain reader in a fresh process still answers from the last good generation
        assert answers(root, "zebra stripes") == ["docs/guide.md"]
        state = status(root)
        assert state["state"] not in ("corrupt", "io_error")
        if shutil.disk_usage(disk).free < 1 << 20:
            assert state["state"] == "disk_full" and "free space" in state["fix"], state
        filler.unlink()
        report = Brain(root).index()
        assert status(root)["state"] == "ready"
        assert answers(root, "quokka harbour")[0] == "docs/more.md"
        assert answers(root, "zebra stripes") == ["docs/guide.md"]
        assert cached_vectors(root) >= before_cache + 60  # the cache kept what was embedded before
        assert report.chunks_embedded <= 60


@pytest.mark.parametrize("leave", [0, 100_000])
def test_a_first_index_on_a_full_disk_promises_no_generation(leave):
    """A first run on a full disk said "nothing was lost: queries answer from the last generation", and
    status said `empty`: there is no generation. The fix says none was published, status says the disk
    is full, and once there is room the run publishes."""
    with tmpfs() as disk:
        root = disk / "ws"
        write(root, "docs/guide.md", "# Guide\n\nThe zebra stripes section explains reports.\n")
        filler = fill(disk, leave)
        proc = cli(root, "index")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "the disk holding .agent-brain/ is full" in proc.stderr
        assert "no index was published yet" in proc.stderr and "queries answer from the last" not in proc.stderr
        state = status(root)
        assert state["state"] == "disk_full" and "no index was published yet" in state["fix"], state
        filler.unlink()
        assert cli(root, "index").returncode == 0
        assert status(root)["state"] == "ready" and answers(root, "zebra stripes") == ["docs/guide.md"]


def test_a_write_a_library_cuts_short_on_a_full_disk_is_disk_full_never_a_short_file():
    """numpy's ``save`` and usearch's ``save`` report a full disk without an errno ("N requested and M
    written", "Failed to serialize into stream"), and usearch's can leave a file cut short with no
    error at all (as numpy's ``tofile`` does, which the engine no longer uses). With more room each
    time, every write the engine makes through them either reads back whole or fails as a full disk."""
    index = _vectors(10)
    writers = {
        "save_array": lambda path: save_array(path, np.arange(2000, dtype=np.int64)),
        "usearch": lambda path: vec._save(index, path),
    }
    with tmpfs("2m") as disk:
        outcomes: dict[str, list] = {name: [] for name in writers}
        for leave in range(0, 24 << 10, 4096):
            filler = fill(disk, leave)
            for name, cut_short in writers.items():
                path = disk / f"{name}.npy"
                try:
                    cut_short(path)
                except (OSError, RuntimeError) as err:
                    problem = storage_problem(err, disk) or full_disk_behind(err, disk)
                    assert isinstance(problem, DiskFull), (name, leave, err)
                    outcomes[name].append(getattr(err, "errno", None))
                else:
                    whole = len(vec._restore(path)) == 10 if name == "usearch" else len(np.load(path)) == 2000
                    assert whole, (name, leave)
                    outcomes[name].append("whole")
                path.unlink(missing_ok=True)
            filler.unlink()
        for name, seen in outcomes.items():  # each met the full disk, an errno-less failure, and room
            assert None in seen and "whole" in seen, (name, seen)


def test_an_old_index_converted_on_a_full_disk_keeps_answering_and_converts_once_there_is_room(monkeypatch):
    """The field case: an f16 index (format 2), whose base the next generation written converts, on a
    disk with less room each time than that run needs: every run that fails is a full disk, the old
    generation answers, and the first run with room publishes, with nothing embedded twice."""
    chunk_as_the_f16_index_was(monkeypatch)
    with tmpfs("8m") as disk:
        root = disk / "ws"
        shutil.copytree(F16_INDEX / "ws", root)
        write(root, "geo/more.py", "def hexagon_area(side):\n    return 2.598 * side * side\n")
        embedded = []
        for leave in range(0, 1 << 20, 4096):  # more room each time, until the run publishes
            filler = fill(disk, leave)
            try:
                embedded.append(Brain(root).index().chunks_embedded)
            except DiskFull as err:
                assert err.fix.startswith("free space") and "requested" not in str(err)
                assert current(root) == 2 and answers(root, "square")[0] == "geo/shapes.py"
            else:
                break
            finally:
                filler.unlink()
        assert current(root) == 3 and answers(root, "hexagon area")[0] == "geo/more.py"
        assert embedded == [0] and leave > 0  # it failed first; the vector embedded then was kept


def test_a_disk_filling_up_after_the_run_published_is_a_warning_not_a_failure(monkeypatch):
    """A large run publishes keyword search first, then embeds; the disk fills while it embeds."""
    monkeypatch.setattr(indexer_module, "EARLY_PUBLISH_MIN", 5)
    with tmpfs() as disk:
        root = make_workspace(disk / "ws")
        write(root, "docs/more.md", many_sections(40))
        filled: list[Path] = []

        def progress(p) -> None:
            if p.phase == "embedding" and not filled:  # the keyword generation is published by now
                filled.append(fill(disk))

        report = Brain(root).index(progress=progress)
        assert filled and report.warnings, report
        assert "was published" in report.warnings[0] and "free space" in report.warnings[0]
        assert current(root) == report.generation == 2
        assert answers(root, "quokka harbour")[0] == "docs/more.md"  # what it published answers
        state = status(root)
        assert state["state"] == "disk_full" and state["coverage"] < 1
        filled[0].unlink()
        Brain(root).index()
        assert status(root)["coverage"] == 1.0


def test_reset_keeps_the_embedding_cache_unless_asked():
    with tmpfs() as disk:
        root = make_workspace(disk / "ws")
        write(root, "docs/more.md", many_sections(20))
        Brain(root).index()
        cached = cached_vectors(root)
        proc = cli(root, "reset")
        assert proc.returncode == 0 and "embedding cache kept" in proc.stdout, proc.stderr
        assert status(root)["state"] == "empty"
        assert cached_vectors(root) == cached
        report = Brain(root).index()
        assert report.chunks_embedded == 0 and report.files_indexed == 3  # nothing embedded again
        assert answers(root, "zebra stripes") == ["docs/guide.md"]
        proc = cli(root, "reset", "--drop-cache")
        assert proc.returncode == 0 and "embedding cache deleted" in proc.stdout
        assert sorted(p.name for p in (root / ".agent-brain").iterdir()) == ["writer.lock"]
        assert Brain(root).index().chunks_embedded == report.chunks_total


# ------------------------------------------------------------------ read-only media


def test_a_read_only_mount_answers_queries_and_says_read_only(tmp_path):
    root = make_workspace(tmp_path / "ws")
    with read_only_view(root) as view:
        assert answers(view, "zebra stripes") == ["docs/guide.md"]
        state = status(view)
        assert state["state"] == "read_only" and not state["writable"], state
        assert "queries work" in state["fix"] and "indexing needs write access" in state["fix"]
        proc = cli(view, "index")
        assert proc.returncode == 1 and "read-only" in proc.stderr and "Traceback" not in proc.stderr
        assert "corrupt" not in proc.stderr and "reset" not in proc.stderr
        with pytest.raises(IndexReadOnly):
            Brain(view).check_can_index()
        # a watch that can never write says so and ends, instead of watching on in vain
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "agent_brain_lab.cli", "watch", "--workspace", str(view)]
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd="/")
        assert proc.returncode == 1 and "read-only" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        # the writable side goes on; the read-only view follows it
        write(root, "docs/later.md", "# Later\n\nOtters juggle pebbles.\n")
        Brain(root).index()
        assert answers(view, "otters juggle") == ["docs/later.md"]


def test_a_read_only_workspace_without_an_index_says_the_folder_needs_write_access(tmp_path):
    """No index yet and a workspace that cannot be written: not read_only's "queries work" (there is
    nothing to query), but what is missing, from every door that writes."""
    root = tmp_path / "ws"
    write(root, "docs/guide.md", "# Guide\n\nThe zebra stripes section explains reports.\n")
    with read_only_view(root) as view:
        assert status(view)["state"] == "empty" and not status(view)["writable"]
        proc = cli(view, "index")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert "cannot be created in the workspace folder" in proc.stderr and "queries work" not in proc.stderr
        with pytest.raises(IndexReadOnly, match="cannot be created") as raised:
            Brain(view).check_can_index()
        assert "write access to the workspace folder" in raised.value.fix and str(tmp_path) not in str(raised.value)


# ------------------------------------------------------------------ other users


@pytest.fixture(scope="module")
def other_user() -> Iterator[str]:
    """A non-root user, and this Python made reachable for it: the interpreter, a virtualenv's packages
    and this checkout may live under folders only root can enter (/root/.pyenv, a private temporary
    folder), so each is bind-mounted where every user can."""
    if os.geteuid() != 0:
        pytest.skip("needs root to create and switch to another user")
    if _run("id", OTHER_USER).returncode != 0:
        made = _run("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER)
        if made.returncode != 0:
            pytest.skip(f"cannot create a user: {made.stderr.strip()}")
    import numpy

    base, prefix = Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()  # differ in a virtualenv
    site = Path(numpy.__file__).resolve().parents[1]
    executable = Path(sys.executable).resolve()
    if not (site.is_relative_to(prefix) and executable.is_relative_to(base)):
        pytest.skip("this Python's packages are not under its prefix")
    mounted: dict[Path, Path] = {}
    home = Path(tempfile.mkdtemp(prefix="abl-home-"))
    shutil.chown(home, user=OTHER_USER)
    try:
        for folder in dict.fromkeys([base, prefix, REPO]):
            point = Path(tempfile.mkdtemp(prefix="abl-python-"))
            point.chmod(0o755)
            mounted[folder] = point
            bound = _run("mount", "--bind", str(folder), str(point))
            if bound.returncode != 0:
                pytest.skip(f"cannot bind-mount here: {bound.stderr.strip()}")
        path = f"{mounted[REPO]}:{mounted[prefix] / site.relative_to(prefix)}"
        python = str(mounted[base] / executable.relative_to(base))
        env = ["env", f"PYTHONPATH={path}", f"HOME={home}", f"XDG_CACHE_HOME={home}/.cache"]
        libdir = Path(sysconfig.get_config_var("LIBDIR") or base / "lib").resolve()
        if libdir.is_relative_to(base):  # the interpreter's libpython: its RPATH names the unmounted folder
            env.append(f"LD_LIBRARY_PATH={mounted[base] / libdir.relative_to(base)}")
        _AS_USER[OTHER_USER] = ["runuser", "-u", OTHER_USER, "--", *env, python]
        yield OTHER_USER
    finally:
        _AS_USER.pop(OTHER_USER, None)
        shutil.rmtree(home, ignore_errors=True)
        for point in mounted.values():
            if _run("umount", str(point)).returncode != 0:
                _run("umount", "-l", str(point))
            point.rmdir()


@pytest.fixture
def public_tmp() -> Iterator[Path]:
    """A folder every user can reach (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="abl-users-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def indexed_by(user: str, root: Path) -> Path:
    """A workspace ``user`` owns (its parent too) and has indexed from the CLI, as that user."""
    write(root, "docs/guide.md", "# Guide\n\nThe zebra stripes section explains reports.\n")
    shutil.chown(root.parent, user=user)
    for path in [root, *root.rglob("*")]:
        shutil.chown(path, user=user)
    assert cli(root, "index", user=user).returncode == 0
    return root


def test_the_index_is_private_whatever_the_umask(public_tmp, other_user):
    root = public_tmp / "ws"
    write(root, "secret.md", "# Secret\n\nThe vault code is swordfish.\n")
    os.chmod(root / "secret.md", 0o600)
    old = os.umask(0o000)  # the loosest umask: modes must not depend on it
    try:
        make_workspace(root)
    finally:
        os.umask(old)
    folder = root / ".agent-brain"
    assert folder.stat().st_mode & 0o777 == 0o700
    for path in folder.rglob("*"):
        expected = 0o700 if path.is_dir() else 0o600
        assert path.stat().st_mode & 0o777 == expected, path
    seen = _run("runuser", "-u", other_user, "--", "cat", str(folder / "catalog.sqlite"))
    assert seen.returncode != 0 and "swordfish" not in seen.stdout
    state = status(root, user=other_user)
    assert state["state"] == "no_access" and "private" in state["fix"], state
    for command in ("index", "reset"):  # a write refused on an index it cannot read: no_access, not read_only
        refused = cli(root, command, user=other_user)
        assert refused.returncode == 1 and "may not read" in refused.stderr, (command, refused.stderr)
        assert "queries work" not in refused.stderr and "Traceback" not in refused.stderr
    assert "secret.md" in answers(root, "vault swordfish")  # the owner's index is untouched


def test_an_existing_loose_index_is_tightened_on_the_next_write(public_tmp, other_user):
    root = make_workspace(public_tmp / "ws")
    folder = root / ".agent-brain"
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # what earlier versions left
    assert answers(root, "zebra stripes", user=other_user) == ["docs/guide.md"]  # readable, not writable
    assert status(root, user=other_user)["state"] == "read_only"
    write(root, "docs/later.md", "# Later\n\nOtters juggle pebbles.\n")
    Brain(root).index()
    assert folder.stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o077 == 0 for p in folder.rglob("*"))
    assert cli(root, "query", "zebra", user=other_user).returncode != 0


def test_an_index_folder_its_owner_made_read_only_stays_read_only(public_tmp, other_user):
    """The owner's `chmod 500 .agent-brain` is a read-only index (status says so), not a mode the next
    writer puts back to 0700: index and reset fail as read_only, change nothing, and queries answer."""
    root = indexed_by(other_user, public_tmp / "ws")
    folder = root / ".agent-brain"
    folder.chmod(0o500)
    before = sorted(p.name for p in folder.iterdir())
    write(root, "docs/later.md", "# Later\n\nOtters juggle pebbles.\n")
    shutil.chown(root / "docs" / "later.md", user=other_user)
    assert status(root, user=other_user)["state"] == "read_only"
    for command in ("index", "reset"):
        refused = cli(root, command, user=other_user)
        assert refused.returncode == 1 and "cannot be written" in refused.stderr, (command, refused.stderr)
        assert folder.stat().st_mode & 0o777 == 0o500 and sorted(p.name for p in folder.iterdir()) == before
    assert answers(root, "zebra stripes", user=other_user) == ["docs/guide.md"]
    folder.chmod(0o700)  # the owner gives it back: the next run indexes again
    assert cli(root, "index", user=other_user).returncode == 0
    assert answers(root, "otters pebbles", user=other_user) == ["docs/later.md"]


def test_a_workspace_shared_on_purpose_is_group_readable(public_tmp, other_user, monkeypatch):
    group = f"{other_user}-group"
    if _run("getent", "group", group).returncode != 0:
        assert _run("groupadd", group).returncode == 0
    assert _run("usermod", "-aG", group, other_user).returncode == 0
    root = public_tmp / "ws"
    root.mkdir()
    shutil.chown(root, group=group)
    root.chmod(0o750)
    monkeypatch.setenv("AGENT_BRAIN_SHARE_INDEX_WITH_GROUP", "1")
    make_workspace(root)
    folder = root / ".agent-brain"
    assert folder.stat().st_mode & 0o777 == 0o750
    assert all(p.stat().st_mode & 0o777 in (0o750, 0o640) for p in folder.rglob("*"))
    assert answers(root, "zebra stripes", user=other_user) == ["docs/guide.md"]
    assert status(root, user=other_user)["state"] == "read_only"
    monkeypatch.setenv("AGENT_BRAIN_SHARE_INDEX_WITH_GROUP", "maybe")
    proc = cli(root, "status")
    assert proc.returncode == 2 and "AGENT_BRAIN_SHARE_INDEX_WITH_GROUP" in proc.stderr


# ------------------------------------------------------------------ the classifier, on real errors


def _raised(action, *args) -> BaseException:
    try:
        action(*args)
    except (OSError, RuntimeError, sqlite3.Error) as err:
        return err
    raise AssertionError("nothing was raised")


def test_real_os_and_sqlite_errors_are_classified_apart_from_damage(tmp_path):
    """Each error comes from the real thing: /dev/full (ENOSPC), /proc/self/mem (EIO), SQLite's page
    limit (SQLITE_FULL), a read-only connection (SQLITE_READONLY), a file that is no database."""
    folder = tmp_path / ".agent-brain"
    folder.mkdir()

    def dev_full() -> None:
        with open("/dev/full", "wb", buffering=0) as fh:
            fh.write(b"x")

    def proc_mem() -> None:
        with open("/proc/self/mem", "rb", buffering=0) as fh:
            fh.seek(0)
            fh.read(1)

    def page_limit() -> None:
        db = sqlite3.connect(tmp_path / "small.sqlite")
        db.execute("CREATE TABLE t (x BLOB)")
        db.execute("PRAGMA max_page_count = 3")
        db.execute("INSERT INTO t VALUES (zeroblob(100000))")

    def read_only() -> None:
        sqlite3.connect(tmp_path / "ro.sqlite").execute("CREATE TABLE t (x)").connection.commit()
        sqlite3.connect(f"file:{tmp_path / 'ro.sqlite'}?mode=ro", uri=True).execute("INSERT INTO t VALUES (1)")

    def not_a_database() -> None:
        (tmp_path / "junk.sqlite").write_bytes(b"not a database" * 100)
        sqlite3.connect(tmp_path / "junk.sqlite").execute("SELECT * FROM sqlite_master").fetchall()

    expected = {
        dev_full: DiskFull,
        proc_mem: StorageIOError,
        page_limit: DiskFull,
        read_only: IndexReadOnly,
    }
    for action, kind in expected.items():
        problem = storage_problem(_raised(action), folder)
        assert isinstance(problem, kind), (action.__name__, problem)
        assert problem.fix and str(tmp_path) not in str(problem)
    assert storage_problem(_raised(not_a_database), folder) is None  # damage stays damage
    assert storage_problem(PermissionError(errno.EACCES, "Permission denied"), folder, reading=True).state == (
        "no_access"
    )


# ------------------------------------------------------------------ following the disk


def test_a_watcher_run_that_meets_a_full_disk_keeps_its_paths_and_retries_them_once_space_is_freed(tmp_path):
    from test_watch import Following, eventually, sources

    root = make_workspace(tmp_path / "ws")
    index = root / ".agent-brain"
    saved = tmp_path / "saved-index"
    shutil.copytree(index, saved)
    with tmpfs("5m") as disk:  # the index alone on a small disk; the workspace stays writable
        shutil.rmtree(index)
        index.mkdir()
        if _run("mount", "--bind", str(disk), str(index)).returncode != 0:
            pytest.skip("cannot bind-mount here")
        try:
            shutil.copytree(saved, index, dirs_exist_ok=True)
            following = Following(root)
            try:
                filler = fill(disk)
                for i in range(30):
                    write(root, f"notes/n{i}.md", f"# Note {i}\n\nThe saltmarsh curlew {i} calls twice.\n")
                failed = eventually(lambda: following.failures, what="a run failing on the full disk")
                paths, err, wait = failed[0]
                assert isinstance(err, DiskFull) and "free space" in err.fix and 0 < wait <= 60
                assert paths and all(p == "notes" or p.startswith("notes/") for p in paths)  # a new folder: whole
                assert sources(following.brain, "saltmarsh") == set()
                filler.unlink()  # no change after this: the back-off alone retries the run
                eventually(lambda: len(sources(following.brain, "saltmarsh")) == 30, what="the retried run")
                assert set(following.runs[-1]) >= set(paths)
            finally:
                following.close()
        finally:
            if _run("umount", str(index)).returncode != 0:
                _run("umount", "-l", str(index))


def test_an_index_file_its_user_may_not_read_is_no_access_not_an_old_format(public_tmp, other_user):
    """`.agent-brain/FORMAT` made unreadable (chmod 000): status said `corrupt`, "written in an
    unreadable FORMAT file", and advised `index --force` (a rebuild). It is a permission, said so at
    status, query and index, with the fix for an owner (not "run as the user who wrote it": that is
    this user); nothing is rewritten, and once readable again everything answers."""
    root = indexed_by(other_user, public_tmp / "ws")
    fmt = root / ".agent-brain" / "FORMAT"
    fmt.chmod(0o000)
    seen = status(root, user=other_user)
    assert seen["state"] == "no_access" and "FORMAT" not in seen["problem"], seen
    assert seen["problem"] == "this user may not read .agent-brain/ though it is this user's own (Permission denied)"
    assert seen["fix"].startswith("the index is yours but its permissions deny you (a chmod): give them back")
    for args in (("query", "zebra", "--mode", "bm25"), ("index",)):
        refused = cli(root, *args, user=other_user)
        assert refused.returncode == 1 and seen["problem"] in refused.stderr, (args, refused.stderr)
        assert "corrupt" not in refused.stderr and "--force" not in refused.stderr
    assert fmt.stat().st_mode & 0o777 == 0
    fmt.chmod(0o600)
    folder = root / ".agent-brain"
    folder.chmod(0o000)  # the whole folder: the same problem, the same owner's fix
    try:
        assert {k: status(root, user=other_user)[k] for k in ("state", "fix")} == {k: seen[k] for k in ("state", "fix")}
    finally:
        folder.chmod(0o700)
    assert answers(root, "zebra stripes", user=other_user) == ["docs/guide.md"]
