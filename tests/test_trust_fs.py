"""A hostile file system met through the real engine: nothing outside the root is ever read into the
index, and no path the walk or the read cannot handle (a folder another user owns, one nested past
PATH_MAX, a pipe, a file deleted, replaced or turned into a symlink between scan and read) ends a run.

Real OS conditions: a swapper process flipping a file and a folder to symlinks out of the root every
millisecond, swaps made from the progress callback at the exact moment the indexer reaches the file,
and EACCES from a process that runs without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH (``setpriv``) on
folders and files owned by another uid.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import IndexProgress
from agent_brain_lab.engine.workspace import ScanOptions, Unreadable, open_scanned, scan

REPO = Path(__file__).resolve().parents[1]
SECRET = "zqxoutsidesecretzqx"  # one token: bm25 finds it if any chunk holds it
OTHER_UID = 4242  # owns the folders and files the restricted process may not read


def _catalog_holds(root: Path, text: str) -> int:
    db = sqlite3.connect(f"file:{root / '.agent-brain' / 'catalog.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute("SELECT count(*) FROM chunks WHERE text LIKE ?", (f"%{text}%",)).fetchone()[0]
    finally:
        db.close()


def _assert_no_secret(brain: Brain, root: Path) -> None:
    hits = brain.query(SECRET, mode="bm25", top_k=10).results
    assert not [h.source for h in hits if SECRET in h.text]
    assert _catalog_holds(root, SECRET) == 0


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    for f in (outside / "secret.md", outside / "victim.md", outside / "sub" / "victim.md"):
        f.write_text(f"{SECRET}\n")  # smaller than the files it replaces: a size check alone lets it in
    return outside


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "README.md").write_text("# Readme\n\nA plain workspace about zebras.\n")
    (root / "victim.md").write_text("# Victim\n\nan inside file about giraffes\n")
    (root / "sub" / "victim.md").write_text("# Sub victim\n\nan inside file about okapis\n")
    return root


# --------------------------------------------------------------------------- swaps at the exact moment


def _to_symlink_out(root: Path, outside: Path, rel: str) -> None:
    (root / rel).unlink()
    (root / rel).symlink_to(outside / "secret.md")


def _folder_to_symlink_out(root: Path, outside: Path, rel: str) -> None:
    (root / "sub").rename(root / ".sub-away")
    (root / "sub").symlink_to(outside / "sub", target_is_directory=True)


def _to_hard_link_out(root: Path, outside: Path, rel: str) -> None:
    (root / rel).unlink()
    os.link(outside / "secret.md", root / rel)


def _to_fifo(root: Path, outside: Path, rel: str) -> None:
    (root / rel).unlink()
    os.mkfifo(root / rel)


def _to_nothing(root: Path, outside: Path, rel: str) -> None:
    (root / rel).unlink()


def _to_another_file(root: Path, outside: Path, rel: str) -> None:
    (root / ".tmp").write_text("# Victim\n\nan inside file about giraffes\n")
    os.replace(root / ".tmp", root / rel)


@pytest.mark.parametrize(
    "swap, rel, reason",
    [
        (_to_symlink_out, "victim.md", "changed while indexing: now a symlink"),
        (_folder_to_symlink_out, "sub/victim.md", "changed while indexing: replaced by another file"),
        (_to_hard_link_out, "victim.md", "changed while indexing: replaced by another file"),
        (_to_fifo, "victim.md", "changed while indexing: no longer a regular file"),
        (_to_nothing, "victim.md", "cannot read: deleted while indexing"),
        (_to_another_file, "victim.md", "changed while indexing: replaced by another file"),
    ],
)
def test_a_file_swapped_when_the_indexer_reaches_it_is_skipped_never_read(tmp_path, swap, rel, reason):
    root, outside = _workspace(tmp_path), _outside(tmp_path)
    swapped: list[str] = []

    def progress(p: IndexProgress) -> None:
        if p.phase == "indexing" and p.current_file == rel and not swapped:
            swap(root, outside, rel)
            swapped.append(rel)

    brain = Brain(root)
    report = brain.index(progress=progress)
    assert swapped == [rel]
    assert {s.path: s.reason for s in report.skipped}.get(rel) == reason
    assert report.files_indexed == 2  # README.md and the other victim: the run went on
    _assert_no_secret(brain, root)


def _grow(root: Path, outside: Path, rel: str) -> None:
    with open(root / rel, "a") as fh:  # a writer still appending: larger than the scan saw
        fh.write("# More\n\nmore of the okapi notes\n")


@pytest.mark.parametrize(
    "change, reason",
    [
        (_grow, "changed while indexing: it grew while it was read"),
        (_to_another_file, "changed while indexing: replaced by another file"),  # an editor's atomic save
        (_to_fifo, "changed while indexing: no longer a regular file"),
        (_to_nothing, "cannot read: deleted while indexing"),  # gone: removed from the index
    ],
)
def test_an_indexed_file_that_changes_under_the_run_keeps_its_last_version_until_it_settles(tmp_path, change, reason):
    """A file indexed before, caught mid-change by the next run, lost its indexed version (removed,
    as if deleted) until some later run: a file being written while a one-off ``index`` ran was not
    searchable at all. It is there: its last version stays, the skip says so, the next run reads it."""
    root = _workspace(tmp_path)
    (root / "victim.md").write_text("# Victim\n\nthe first version, about tapirs\n")
    brain = Brain(root)
    brain.index()
    (root / "victim.md").write_text("# Victim\n\nthe second version, about tapirs and okapis\n")

    def progress(p: IndexProgress) -> None:
        if p.phase == "indexing" and p.current_file == "victim.md" and not changed:
            change(root, tmp_path, "victim.md")
            changed.append(True)

    changed: list[bool] = []
    report = brain.index(progress=progress)
    assert changed
    skipped = {s.path: s.reason for s in report.skipped}
    if not reason.startswith("changed"):
        assert skipped == {"victim.md": reason}
        assert "victim.md" not in {h.source for h in brain.query("tapirs", mode="bm25").results}
        return
    assert [h.source for h in brain.query("tapirs", mode="bm25").results] == ["victim.md"]  # was: []
    assert skipped == {"victim.md": f"{reason} (the version indexed before is kept)"}
    assert report.files_deleted == 0
    status = brain.status()
    assert status.files["total"] == 3 and status.skipped == [{"path": "victim.md", "reason": skipped["victim.md"]}]
    if (root / "victim.md").is_file():  # settled: the next run reads what is there now
        again = brain.index()
        assert again.files_indexed == 1 and not again.skipped
        assert "okapi" in brain.query("okapi", mode="bm25").results[0].text


def test_the_descriptor_must_lie_under_the_root_even_when_the_inode_matches(tmp_path):
    """A folder swapped for a link out of the root before the scan's stat: the scan saw the outside
    file's own inode, so only the check of where the opened descriptor lies stops the read."""
    root, outside = _workspace(tmp_path), _outside(tmp_path)
    _folder_to_symlink_out(root, outside, "sub/victim.md")
    st = os.stat(root / "sub" / "victim.md")  # through the link: the outside file
    with pytest.raises(Unreadable, match="^changed while indexing: now outside the workspace$"):
        open_scanned(root / "sub" / "victim.md", st.st_dev, st.st_ino, root.resolve())
    inside = os.stat(root / "README.md")
    os.close(open_scanned(root / "README.md", inside.st_dev, inside.st_ino, root.resolve()))  # the check passes


# --------------------------------------------------------------------------- a real swapper process

SWAPPER = """
import os, sys, time
root, outside, until = sys.argv[1], sys.argv[2], float(sys.argv[3])
victim, sub, away = os.path.join(root, 'victim.md'), os.path.join(root, 'sub'), os.path.join(root, '.sub-away')
n = 0
while time.time() < until:
    tmp = os.path.join(root, '.swap-tmp')
    if n % 2:
        with open(tmp, 'w') as fh:
            fh.write('# Victim\\n\\nan inside file about giraffes %d\\n' % n)
    else:
        os.symlink(os.path.join(outside, 'secret.md'), tmp)
    os.replace(tmp, victim)
    if n % 4 == 0:
        os.rename(sub, away); os.symlink(os.path.join(outside, 'sub'), sub)
    elif n % 4 == 2:
        os.unlink(sub); os.rename(away, sub)
    n += 1
    time.sleep(0.001)
print(n)
"""


def test_a_swapper_process_flipping_files_and_folders_to_links_out_never_leaks_or_crashes(tmp_path):
    root, outside = _workspace(tmp_path), _outside(tmp_path)
    for i in range(20):  # more files to walk and read while the links flip
        (root / f"note{i}.md").write_text(f"# Note {i}\n\nfiller text number {i}\n")
    brain = Brain(root)
    brain.index()
    seconds = 25.0
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(root), str(outside), str(time.time() + seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    runs, reasons = 0, set()
    try:
        while swapper.poll() is None:
            report = brain.index(force=runs % 3 == 0)  # any exception fails the test: no run may crash
            reasons.update(s.reason for s in report.skipped)
            _assert_no_secret(brain, root)
            runs += 1
    finally:
        out, _ = swapper.communicate(timeout=60)
    assert swapper.returncode == 0 and int(out) > 1000, out  # it really flipped, about every millisecond
    assert runs >= 5
    swap_reasons = {"symlink to a file outside the workspace", "symlink to a folder outside the workspace"}
    assert reasons & swap_reasons or any(r.startswith(("changed while", "cannot read")) for r in reasons), reasons
    _assert_no_secret(brain, root)


# --------------------------------------------------------------------------- walk errors are per-path skips


def test_a_folder_nested_past_path_max_is_a_skip_and_the_run_goes_on(tmp_path):
    root = _workspace(tmp_path)
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(24):  # 24 names of 200 bytes: past PATH_MAX (4096)
            os.mkdir("d" * 200, dir_fd=fd)
            inner = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(note, b"# Deep\n\nvery deep\n")
        os.close(note)
        os.mkdir("venv-like", dir_fd=fd)
    finally:
        os.close(fd)
    brain = Brain(root)
    report = brain.index()
    reasons = {s.path: s.reason for s in report.skipped}
    deep = [p for p, r in reasons.items() if p.startswith("d" * 200) and r == "cannot read folder: path too long"]
    assert len(deep) == 1, reasons
    assert report.files_indexed == 3  # README.md, victim.md, sub/victim.md


def test_a_pipe_named_gitignore_does_not_block_the_walk(tmp_path):
    root = _workspace(tmp_path)
    os.mkfifo(root / "sub" / ".gitignore")
    code = "import sys; from agent_brain_lab import Brain; print(Brain(sys.argv[1]).index().files_indexed)"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(root)], env=env, capture_output=True, text=True, timeout=300
    )  # the timeout only guards against a hang: a blocked open() never returns
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["3"]


def test_a_folder_that_disappears_or_cannot_be_resolved_is_a_skip(tmp_path, monkeypatch):
    root = _workspace(tmp_path)
    (root / "gone").mkdir()
    (root / "gone" / "x.md").write_text("# X\n\nx\n")
    real_scandir = os.scandir

    def scandir(path):  # the folder is removed between its parent's listing and its own
        if str(path).endswith("/gone"):
            shutil.rmtree(path)
        return real_scandir(path)

    from agent_brain_lab.engine import workspace as ws

    monkeypatch.setattr(ws.os, "scandir", scandir)
    files, skipped = scan(root, ScanOptions())
    assert {s.path: s.reason for s in skipped}["gone"] == "cannot read folder: deleted while indexing"
    assert [f.path for f in files] == ["README.md", "sub/victim.md", "victim.md"]


# --------------------------------------------------------------------------- EACCES without root's override

RESTRICTED_INDEX = """
import json, os, sys
from agent_brain_lab import Brain
root = sys.argv[1]
try:
    os.listdir(os.path.join(root, 'locked'))
    print(json.dumps({"error": "this process can still read what another uid keeps private"}))
    sys.exit(3)
except PermissionError:
    pass
brain = Brain(root)
report = brain.index()
status = brain.status()
print(json.dumps({"indexed": report.files_indexed, "skipped": {s.path: s.reason for s in report.skipped},
                  "status_skipped": status.skipped_total}))
"""


def _run_without_dac_override(code: str, *args: str) -> subprocess.CompletedProcess:
    """Run ``code`` as root without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH: files of another uid are
    EACCES to it, as to any other user. (A separate user account cannot run this interpreter here:
    it lives under /root, which is 0700.)"""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to drop the capabilities that bypass file permissions")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", sys.executable, "-c", code, *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def test_folders_and_files_another_user_keeps_private_are_skips_and_an_ignored_one_is_never_probed(tmp_path):
    root = _workspace(tmp_path)
    (root / ".gitignore").write_text("pgdata/\n")
    for folder, name in (("pgdata", "base.py"), ("locked", "secret.md"), ("pgdata/sub", "x.md")):
        (root / folder).mkdir(exist_ok=True)
        (root / folder / name).write_text(f"# {SECRET}\n")
    (root / "private.md").write_text(f"# Private\n\n{SECRET}\n")
    for path in (root / "pgdata", root / "pgdata" / "sub", root / "locked", root / "private.md"):
        os.chown(path, OTHER_UID, OTHER_UID)
        path.chmod(0o700 if path.is_dir() else 0o600)

    proc = _run_without_dac_override(RESTRICTED_INDEX, str(root))

    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["skipped"] == {
        "locked": "cannot read folder: permission denied",
        "private.md": "cannot read: permission denied",
    }  # nothing at all about pgdata/: ignored before anything looked inside
    assert out["indexed"] == 3 and out["status_skipped"] == 2
    _assert_no_secret(Brain(root), root)


def test_a_gitignore_that_cannot_be_read_keeps_its_folder_out_and_says_so(tmp_path):
    """The rules of a .gitignore the indexing user may not read were silently dropped, so what they
    leave out (here a generated dump) was indexed. Now its folder is a skip naming why; a .gitignore
    link to nothing is still no rules, and a link loop is a skip too."""
    root = _workspace(tmp_path)
    for folder in ("gen", "loop", "dangling"):
        (root / folder).mkdir()
        (root / folder / "dump.md").write_text(f"# Dump\n\n{SECRET}\n")
        (root / folder / "kept.py").write_text("def kept():\n    return 1\n")
    (root / "gen" / ".gitignore").write_text("*.md\n")
    os.chown(root / "gen" / ".gitignore", OTHER_UID, OTHER_UID)
    (root / "gen" / ".gitignore").chmod(0o600)
    (root / "loop" / ".gitignore").symlink_to(".gitignore")
    (root / "dangling" / ".gitignore").symlink_to("nowhere")

    proc = _run_without_dac_override(
        RESTRICTED_INDEX.replace(
            "os.listdir(os.path.join(root, 'locked'))", "open(os.path.join(root, 'gen', '.gitignore'))"
        ),
        str(root),
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["skipped"] == {
        "gen": "cannot read its .gitignore: permission denied",
        "loop": "cannot read its .gitignore: symlink loop",
    }, out
    files, _ = scan(root, ScanOptions())
    assert [f.path for f in files if f.path.startswith("dangling/")] == ["dangling/dump.md", "dangling/kept.py"]
    brain = Brain(root)
    assert not [h.source for h in brain.query(SECRET, mode="bm25", top_k=10).results if h.source.startswith("gen/")]


def test_a_gitignore_built_to_be_slow_is_a_skip_not_a_hang(tmp_path):
    """A cloned repository's .gitignore is untrusted: a pattern of many stars backtracks in pathspec's
    regex (9 stars against a 60-character name: minutes per file), and a 300 MB one (sparse: NULs) was
    compiled for more than 14 minutes. Either hung the scan; now its folder is a skip, at once."""
    root = _workspace(tmp_path)
    (root / "trap").mkdir()
    (root / "trap" / ".gitignore").write_text("*.log\n" + "*a" * 12 + "*b\n")
    (root / "trap" / ("a" * 60 + ".md")).write_text("# Trap\n")
    (root / "huge").mkdir()
    with open(root / "huge" / ".gitignore", "wb") as fh:
        fh.truncate(300 * 1024 * 1024)
    (root / "huge" / "h.md").write_text("# H\n")
    (root / "fine").mkdir()
    (root / "fine" / ".gitignore").write_text("**/build/**/*.o\n\\*\\*\\*\\*.txt\n# *a*a*a*a*a comment\n")
    (root / "fine" / "f.md").write_text("# F\n")
    code = (
        "import json, sys; from agent_brain_lab.engine.workspace import scan, ScanOptions;"
        "files, skipped = scan(sys.argv[1], ScanOptions());"
        "print(json.dumps([[f.path for f in files], {s.path: s.reason for s in skipped}]))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", code, str(root)], env=env, capture_output=True, text=True, timeout=120
    )  # the old code is still matching after the timeout: the test fails there
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60
    files, skipped = json.loads(proc.stdout)
    assert skipped == {
        "huge": "its .gitignore is larger than 100.0 KB",
        "trap": "its .gitignore has a pattern too slow to match (more than 3 '*' besides '**' folders): "
        + ("*a" * 12 + "*b")[:60],
    }
    assert "fine/f.md" in files and not [f for f in files if f.startswith(("trap/", "huge/"))]


# --------------------------------------------------------------------------- many skips stay small


def test_status_with_50k_unsupported_files_is_small_and_lists_them_all_on_request(tmp_path):
    root = _workspace(tmp_path)
    for i in range(50):
        folder = root / "data" / f"part{i:02d}"
        folder.mkdir(parents=True)
        for j in range(1000):
            (folder / f"blob{j:04d}.dat").touch()
    (root / "big.md").write_text("x" * 2000)
    Brain(root, max_file_bytes=1000).index()
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def status(*flags: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "agent_brain_lab.cli", "status", "--json", *flags]
        return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)

    small = status()
    assert small.returncode == 0, small.stderr
    assert len(small.stdout) < 20_000  # was 4.2 MB: every skip listed
    data = json.loads(small.stdout)
    assert data["skipped_total"] == 50_001
    assert data["skipped_by_reason"] == {"unsupported file type": 50_000, "larger than 1.0 KB limit": 1}
    assert [s["path"] for s in data["skipped"]] == sorted(s["path"] for s in data["skipped"])
    assert len(data["skipped"]) == 50
    assert data["skipped"][0] == {"path": "big.md", "reason": "larger than 1.0 KB limit (2.0 KB)"}

    full = json.loads(status("--all-skipped").stdout)
    assert len(full["skipped"]) == full["skipped_total"] == 50_001
    assert Brain(root).status(all_skipped=True).skipped == full["skipped"]
    text = subprocess.run(
        [sys.executable, "-m", "agent_brain_lab.cli", "status"], cwd=root, env=env, capture_output=True, text=True
    ).stdout
    assert "50001: 50000 unsupported file type, 1 larger than 1.0 KB limit; e.g. big.md" in text
    assert "… 49996 more (`status --all-skipped` lists them)" in text and len(text) < 20_000
