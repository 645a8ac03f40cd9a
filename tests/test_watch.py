"""Following the disk, engine level: real file operations in a temp workspace, a real watcher, real index runs."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import MAX_REQUEST_PATHS, InvalidRequest, WorkspaceBusy, index_scope
from agent_brain_lab.engine.watch.batcher import ChangeBatcher
from agent_brain_lab.engine.watch.follow import follow
from agent_brain_lab.engine.watch.sieve import relevant
from agent_brain_lab.engine.watch.watcher import CLOCK_SLACK_S, Watcher

REPO = Path(__file__).resolve().parents[1]
WAIT_S = 90  # bound on "becomes searchable"; the tests poll and return as soon as it holds


def eventually(check, timeout: float = WAIT_S, what: str = ""):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout}s: {what or check}")
        time.sleep(0.1)


def sources(brain: Brain, word: str, folder: str = "") -> set[str]:
    if not brain.has_index():
        return set()
    within = {"file_paths": [folder]} if folder else {}
    return {r.source for r in brain.query(word, mode="bm25", top_k=100, **within).results}


class Lines:
    """A subprocess stream read on a thread: ``next(timeout)`` never hangs a test."""

    def __init__(self, stream):
        self.queue: queue.Queue[str] = queue.Queue()
        self.thread = threading.Thread(target=lambda: [self.queue.put(line) for line in stream], daemon=True)
        self.thread.start()

    def next(self, timeout: float = WAIT_S) -> str:
        return self.queue.get(timeout=timeout)

    def rest(self, timeout: float = 60) -> str:
        """Everything not read yet, once the stream has closed."""
        self.thread.join(timeout)
        return "".join(self.queue.queue)


class Following:
    """``follow`` on a thread, with every run's paths recorded."""

    def __init__(self, root: Path, delay: float = 0.3, polling: bool | None = None):
        self.brain = Brain(root)
        self.runs: list[list[str]] = []
        self.failures: list[tuple[list[str], BaseException, float]] = []
        self.states: list = []
        self.stop = threading.Event()
        self.thread = threading.Thread(
            target=follow,
            args=(self.brain,),
            kwargs={
                "on_state": self.states.append,
                "on_report": lambda paths, report: self.runs.append(paths),
                "on_failure": lambda paths, err, wait: self.failures.append((paths, err, wait)),
                "delay": delay,
                "stop": self.stop,
                "force_polling": polling,
            },
            daemon=True,
        )
        self.thread.start()
        eventually(lambda: self.runs, what="the catch-up run")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(30)
        assert not self.thread.is_alive()


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text("# Guide\n\nThe heronbeak lamp is lit at dusk.\n")
    (root / "README.md").write_text("# Workspace\n\nA place to watch.\n")
    (root / ".gitignore").write_text("*.log\nsecret/\n")
    return root


@pytest.fixture
def following(workspace):
    f = Following(workspace)
    yield f
    f.close()


def test_create_modify_rename_delete_are_followed(following, workspace):
    brain = following.brain
    assert following.states[0].mode == "events"
    assert following.runs[0] == [""]  # the catch-up run indexed what was there
    assert sources(brain, "heronbeak") == {"docs/guide.md"}

    (workspace / "docs" / "tides.md").write_text("# Tides\n\nThe marigoldtide turns at six.\n")
    eventually(lambda: sources(brain, "marigoldtide") == {"docs/tides.md"}, what="created file searchable")

    (workspace / "docs" / "tides.md").write_text("# Tides\n\nThe saffronwave turns at seven.\n")
    eventually(lambda: sources(brain, "saffronwave") == {"docs/tides.md"}, what="modified file searchable")
    assert sources(brain, "marigoldtide") == set()

    (workspace / "docs" / "tides.md").rename(workspace / "docs" / "waves.md")
    eventually(lambda: sources(brain, "saffronwave") == {"docs/waves.md"}, what="renamed file under its new name")

    (workspace / "docs").rename(workspace / "notes")  # a folder rename: one event for the folder, none per file
    eventually(
        lambda: sources(brain, "saffronwave heronbeak") == {"notes/waves.md", "notes/guide.md"},
        what="files of a renamed folder under their new paths",
    )

    (workspace / "notes" / "waves.md").unlink()
    eventually(lambda: sources(brain, "saffronwave") == set(), what="deleted file unsearchable")
    shutil.rmtree(workspace / "notes")
    eventually(lambda: sources(brain, "heronbeak") == set(), what="deleted folder unsearchable")


def test_own_writes_ignored_files_and_editor_temp_files_trigger_nothing(following, workspace):
    runs_before = len(following.runs)
    noise = {
        ".agent-brain/scratch.md": "index internals",
        ".git/HEAD": "ref: refs/heads/main",
        "node_modules/pkg/index.js": "module.exports = 1",
        "secret/plan.md": "# gitignored",
        "build.log": "gitignored by pattern",
        "docs/guide.md.swp": "vim swap",
        "docs/.#guide.md": "emacs lock",
        "docs/guide.md~": "backup",
        "docs/4913": "vim's write test",
        ".hidden/notes.md": "hidden folder",
    }
    for rel, text in noise.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    (workspace / "docs" / "4913").unlink()
    # A real change after the noise: once it is searchable, any reaction to the noise has happened too.
    (workspace / "docs" / "sentinel.md").write_text("# Sentinel\n\nThe cobaltheron stands guard.\n")
    eventually(lambda: sources(following.brain, "cobaltheron") == {"docs/sentinel.md"})
    eventually(lambda: len(following.runs) > runs_before, what="the run's report")  # a query may beat it
    assert following.runs[runs_before:] == [["docs/sentinel.md"]]


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_a_file_name_that_is_not_utf8_does_not_end_the_watch(workspace, polling):
    """watchfiles cannot hand out a name that is not UTF-8 and raises on every later look: the watch
    thread died (state "off: stopped") and nothing was followed any more. Now the watch is set up
    again, what changed with that name is looked at, and the name is reported as skipped."""
    following = Following(workspace, polling=polling)
    try:
        brain = following.brain
        (workspace / "docs" / "beside.md").write_text("# Beside\n\nThe umberfinch sings.\n")
        with open(os.fsencode(workspace / "docs") + b"/caf\xe9.md", "wb") as f:
            f.write(b"# Cafe\n\nLatin-1 name.\n")
        (workspace / "docs" / "new").mkdir()  # a folder made in the same burst: its files were seen by no watch
        (workspace / "docs" / "new" / "inner.md").write_text("# Inner\n\nThe tawnyowl hoots.\n")
        eventually(lambda: sources(brain, "umberfinch tawnyowl") == {"docs/beside.md", "docs/new/inner.md"})
        (workspace / "later.md").write_text("# Later\n\nThe vermilionkite soars.\n")  # still followed
        eventually(lambda: sources(brain, "vermilionkite") == {"later.md"}, what="a change after the bad name")
        assert following.states[-1].mode == ("polling" if polling else "events"), following.states
        skipped = {s["path"]: s["reason"] for s in brain.status(all_skipped=True).skipped}
        assert skipped == {"docs/caf\\xe9.md": "file name is not valid UTF-8"}
        assert not following.failures
    finally:
        following.close()


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_only_a_folder_the_workspace_walks_into_resets_the_watch(workspace, polling):
    submitted: list[list[str]] = []
    batcher = ChangeBatcher(Brain(workspace), submitted.append, delay=0.2)
    watcher = Watcher(batcher, force_polling=polling, poll_delay_ms=200)
    watcher.start()
    try:
        assert watcher.ready(WAIT_S).mode == ("polling" if polling else "events")
        # Folders no scan walks into: the index's own, hidden, excluded, gitignored ("secret/").
        for rel in (".agent-brain/gen-1", ".ipynb_checkpoints", "__pycache__", "node_modules/pkg", "secret"):
            (workspace / rel).mkdir(parents=True)
        (workspace / "docs" / "sentinel.md").write_text("# Sentinel\n")
        eventually(lambda: any("docs/sentinel.md" in batch for batch in submitted), what="the change after them")
        assert watcher.restarts == 0
        assert {p for batch in submitted for p in batch} <= {"docs/sentinel.md", "docs"}  # polling: its folder too

        # A folder the workspace walks into: watched from now on.
        (workspace / "notes").mkdir()
        eventually(lambda: watcher.restarts == 1, what="the watch set up again")
        assert watcher.watched == 3  # root, docs, notes
        (workspace / "notes" / "late.md").write_text("# Late\n")
        eventually(lambda: any("notes/late.md" in batch for batch in submitted), what="a file in the new folder")
    finally:
        watcher.stop()


class ChangeAtRestart(Watcher):
    """A watcher that runs ``change`` when, after a folder came, it re-reads which folders to watch:
    after the old watch's last look, before the new watch's first — the restart's gap, hit every time."""

    def __init__(self, batcher, change, **kwargs):
        super().__init__(batcher, **kwargs)
        self.change = change
        self.reads = 0

    def folders(self):
        found = super().folders()
        self.reads += 1
        if self.reads == 2:  # the first read sets the watch up; the second follows the new folder
            self.change()
        return found


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_a_change_made_while_the_watch_restarts_is_seen(workspace, polling):
    (workspace / "docs" / "old.md").write_text("# Old\n\nGone while the watch restarts.\n")
    Brain(workspace).index()  # so that a file gone is one that was indexed
    # The workspace's files are older than what a restart's look back reaches (a clock condition, not
    # a wait for a thread): else the root .gitignore, just written, would stand for the whole workspace.
    written = max(p.lstat().st_ctime for p in workspace.rglob("*"))
    while time.time() <= written + CLOCK_SLACK_S:
        time.sleep(0.01)
    submitted: list[list[str]] = []
    batcher = ChangeBatcher(Brain(workspace), submitted.append, delay=0.2)

    def change() -> None:  # elsewhere than the new folder: a modified, a created and a deleted file
        (workspace / "docs" / "guide.md").write_text("# Guide\n\nRewritten while the watch restarts.\n")
        (workspace / "docs" / "during.md").write_text("# During\n")
        (workspace / "docs" / "old.md").unlink()
        (workspace / "top.md").write_text("# Top\n")

    watcher = ChangeAtRestart(batcher, change, force_polling=polling, poll_delay_ms=200)
    watcher.start()
    try:
        assert watcher.ready(WAIT_S).mode == ("polling" if polling else "events")
        (workspace / "notes").mkdir()
        eventually(lambda: watcher.restarts == 1, what="the watch set up again")
        # A change after the restart: the batcher hands paths over in the order they came, so once
        # this one was handed over, any change the restart caught was too.
        (workspace / "docs" / "after.md").write_text("# After\n")
        eventually(lambda: any("docs/after.md" in batch for batch in submitted), what="the change after the restart")
        seen = {p for batch in submitted for p in batch}
        assert {"docs/guide.md", "docs/during.md", "docs/old.md", "top.md"} <= seen, seen
        assert "" not in seen  # no run over the whole workspace
    finally:
        watcher.stop()


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_a_folder_removed_while_the_watch_restarts_leaves_the_watch_as_it_was(workspace, polling, caplog):
    submitted: list[list[str]] = []
    batcher = ChangeBatcher(Brain(workspace), submitted.append, delay=0.2)
    # Removed after the watcher listed the folders to watch, before it watches them.
    watcher = ChangeAtRestart(
        batcher, lambda: shutil.rmtree(workspace / "docs"), force_polling=polling, poll_delay_ms=200
    )
    watcher.start()
    try:
        mode = watcher.ready(WAIT_S).mode
        with caplog.at_level("WARNING", logger="agent_brain_lab.engine.watch"):
            (workspace / "notes").mkdir()
            eventually(lambda: watcher.restarts == 1, what="the watch set up again")
            (workspace / "notes" / "later.md").write_text("# Later\n")
            eventually(lambda: any("notes/later.md" in batch for batch in submitted), what="a file in the new folder")
        assert watcher.state.mode == mode and watcher.watched == 2  # root and notes, the same kind of watch
        assert not [r for r in caplog.records if "polling instead" in r.getMessage()]
    finally:
        watcher.stop()


RESTART_AT_THE_LIMIT = """
import json, sys, time
from pathlib import Path
from agent_brain_lab import Brain
from agent_brain_lab.engine.watch.batcher import ChangeBatcher
from agent_brain_lab.engine.watch.watcher import Watcher

root = Path(sys.argv[1])
submitted = []


class ChangeAtRestart(Watcher):  # as in tests/test_watch.py: a change in the restart's gap
    reads = 0

    def folders(self):
        found = super().folders()
        self.reads += 1
        if self.reads == 2:
            (root / "docs" / "guide.md").write_text("# Guide\\n\\nRewritten while the watch restarts.\\n")
        return found


def until(check):
    deadline = time.monotonic() + 90
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)


watcher = ChangeAtRestart(ChangeBatcher(Brain(root), submitted.append, delay=0.2))
watcher.start()
mode = watcher.ready(90).mode
(root / "notes").mkdir()
until(lambda: watcher.restarts == 1)
(root / "notes" / "after.md").write_text("# After\\n")
until(lambda: any("notes/after.md" in batch for batch in submitted))
modes = [mode, watcher.state.mode]
watcher.stop()
print(json.dumps({"modes": modes, "seen": sorted({p for b in submitted for p in b})}))
"""


def test_a_restart_where_two_event_watches_pass_the_inotify_limit_loses_no_change(workspace):
    probe = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("user namespaces are not available here")
    # Three inotify watches: the first watch (root, docs) fits, the next (root, docs, notes) fits
    # alone, but not beside the first: the old watch is closed first, and what changed since is looked at.
    script = f'echo 3 > /proc/sys/user/max_inotify_watches && exec "{sys.executable}" "$@"'
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        ["unshare", "-U", "-r", "sh", "-c", script, "sh", "-c", RESTART_AT_THE_LIMIT, str(workspace)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["modes"] == ["events", "events"], done.stderr
    assert {"docs/guide.md", "notes/after.md"} <= set(result["seen"]), result


def test_a_folder_renamed_in_from_outside_the_root_is_indexed_and_followed(following, workspace, tmp_path):
    brain = following.brain
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "far.md").write_text("# Far\n\nThe quillfeather came from outside.\n")
    outside.rename(workspace / "arrived")  # one event for the folder, none for what it holds
    eventually(lambda: sources(brain, "quillfeather") == {"arrived/deep/far.md"}, what="the folder's files indexed")
    # Its files were indexed by a run over the folder: what is written in it now is the watch's to see.
    (workspace / "arrived" / "deep" / "next.md").write_text("# Next\n\nThe quillfeather wrote again.\n")
    eventually(
        lambda: sources(brain, "quillfeather") == {"arrived/deep/far.md", "arrived/deep/next.md"},
        what="a file written in it afterwards",
    )


class RecreateOnDelete(ChangeBatcher):
    """A batcher that makes ``folder`` anew the moment the watcher hands it the folder's deletion,
    before the watcher re-reads which folders to watch: it finds one of that name again."""

    def __init__(self, brain, submit, folder: str, **kwargs):
        super().__init__(brain, submit, **kwargs)
        self.folder = folder
        self.recreated = False

    def add(self, paths):
        paths = list(paths)
        if self.folder in paths and not self.recreated and not (self.brain.root / self.folder).exists():
            (self.brain.root / self.folder).mkdir()
            self.recreated = True
        super().add(paths)


@pytest.mark.parametrize("polling", [False, True], ids=["events", "polling"])
def test_a_folder_deleted_and_made_anew_under_its_name_is_followed(workspace, polling):
    brain = Brain(workspace)
    brain.index()
    batcher = RecreateOnDelete(
        brain, lambda paths: brain.index(path=index_scope(paths), missing_ok=True), "docs", delay=0.2
    )
    watcher = Watcher(batcher, force_polling=polling, poll_delay_ms=200)
    watcher.start()
    try:
        assert watcher.ready(WAIT_S).mode == ("polling" if polling else "events")
        assert sources(brain, "heronbeak") == {"docs/guide.md"}
        shutil.rmtree(workspace / "docs")
        gone = lambda: batcher.recreated and sources(brain, "heronbeak") == set()  # noqa: E731
        eventually(gone, what="the old folder's files gone (a run over the folder made anew)")
        # Written after that run: only a watch on the new folder (not the old one, gone) can see it.
        (workspace / "docs" / "anew.md").write_text("# Anew\n\nThe lanternmoth returns.\n")
        eventually(lambda: sources(brain, "lanternmoth") == {"docs/anew.md"}, what="a file in the folder made anew")
    finally:
        watcher.stop()


def test_a_branch_switch_is_one_batched_run(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )

    git("init", "-q", "-b", "main")

    def module(word: str, i: int) -> str:
        return f'def {word}_{i}(x):\n    """{word.title()} step {i}."""\n    return x\n'

    (root / "pkg").mkdir()
    n = MAX_REQUEST_PATHS // 3 + 10  # deleted, changed and added each: more paths than one request may name
    for i in range(2 * n):
        (root / "pkg" / f"mod_{i}.py").write_text(module("amberlynx", i))
    git("add", "-A")
    git("commit", "-q", "-m", "main")
    git("checkout", "-q", "-b", "feature")
    for i in range(n):
        (root / "pkg" / f"mod_{i}.py").unlink()
    for i in range(n, 2 * n):
        (root / "pkg" / f"mod_{i}.py").write_text(module("cobaltheron", i))
    (root / "extra").mkdir()
    for i in range(n):
        (root / "extra" / f"new_{i}.py").write_text(module("cobaltheron_new", i))
    git("add", "-A")
    git("commit", "-q", "-m", "feature")
    git("checkout", "-q", "main")

    following = Following(root, delay=1.0)
    try:
        brain = following.brain
        assert sources(brain, "amberlynx") and brain.status().files["total"] == 2 * n
        runs_before = len(following.runs)
        git("checkout", "-q", "feature")
        feature = lambda: all(len(sources(brain, "cobaltheron", f)) == n for f in ("pkg/", "extra/"))  # noqa: E731
        eventually(feature, what="the feature branch searchable")
        eventually(lambda: sources(brain, "amberlynx") == set(), what="the main branch gone")
        eventually(lambda: len(following.runs) > runs_before, what="the run's report")  # a query may beat it
        assert len(following.runs) - runs_before == 1, [len(r) for r in following.runs[runs_before:]]
        assert brain.status().files["total"] == 2 * n
    finally:
        following.close()


def test_a_batch_is_admitted_in_one_walk_as_each_path_would_be(workspace):
    """The batcher asks once per batch (Brain.admitted) what it asked per path (Brain.admits), which
    listed the path's folders each time: 1,111 paths of one folder of 2,500 took 12 s, the save
    batched behind them as long."""
    brain = Brain(workspace)
    (workspace / "secret").mkdir()
    (workspace / "secret" / "key.md").write_text("# Key\n")
    (workspace / "docs" / "run.log").write_text("log\n")
    (workspace / "docs" / ".hidden.md").write_text("# Hidden\n")
    (workspace / "docs" / "photo.bin").write_bytes(bytes(range(256)))
    (workspace / "many").mkdir()
    for i in range(40):
        (workspace / "many" / f"m{i}.md").write_text(f"# M {i}\n")
    (workspace / "out").symlink_to("/etc")
    (workspace / "guide-link.md").symlink_to(workspace / "docs" / "guide.md")
    batch = [
        "README.md",
        "docs",
        "docs/guide.md",
        "docs/run.log",
        "docs/.hidden.md",
        "docs/photo.bin",
        "secret",
        "secret/key.md",
        "many",
        "gone.md",
        "out",
        "../escape.md",
        "guide-link.md",  # a link to docs/guide.md
        "./README.md",  # README.md spelled another way: both are admitted
    ] + [f"many/m{i}.md" for i in range(0, 40, 3)]
    one_by_one = set()
    for path in batch:
        try:
            if brain.admits(path):
                one_by_one.add(path)
        except InvalidRequest:  # gone, or out of the root
            pass
    assert brain.admitted(batch) == one_by_one
    assert {"README.md", "docs", "docs/guide.md", "many", "many/m3.md"} <= one_by_one
    assert not {"docs/run.log", "secret", "secret/key.md", "gone.md", "out", "../escape.md"} & one_by_one


def test_an_index_scope_of_too_many_paths_is_the_folders_holding_them():
    """Cut back one level at a time, to the deepest folders that fit; the root only when nothing does."""
    few = ["b.md", "docs/a.md"]
    assert index_scope(few) == few
    many = [f"src/pkg/mod{i}.py" for i in range(MAX_REQUEST_PATHS)] + ["src/pkg/sub/x.py", "README.md"]
    assert index_scope(many) == ["README.md", "src/pkg"]
    spread = [f"src/m{i}/f.py" for i in range(MAX_REQUEST_PATHS + 1)] + ["src/m0"]  # a folder named too
    assert index_scope(spread) == ["src"]
    assert index_scope([f"f{i}.py" for i in range(MAX_REQUEST_PATHS + 1)]) == ""  # top-level entries only


def test_a_deleted_path_in_an_index_scope_removes_what_was_indexed(workspace):
    brain = Brain(workspace)
    (workspace / "docs" / "sub").mkdir()
    (workspace / "docs" / "sub" / "a.md").write_text("# A\n\nThe quillfern grows.\n")
    (workspace / "docs" / "b.md").write_text("# B\n\nThe quillfern withers.\n")
    brain.index()
    assert sources(brain, "quillfern") == {"docs/sub/a.md", "docs/b.md"}
    assert brain.indexed(["docs/b.md", "docs/sub", "docs", "docs/nope.md", "doc"]) == {"docs/b.md", "docs/sub", "docs"}

    (workspace / "docs" / "b.md").unlink()
    shutil.rmtree(workspace / "docs" / "sub")
    report = brain.index(path=["docs/b.md", "docs/sub"])
    assert report.files_deleted == 2
    assert sources(brain, "quillfern") == set()
    assert sources(brain, "heronbeak") == {"docs/guide.md"}  # outside the scope: untouched
    with pytest.raises(InvalidRequest, match="does not exist"):
        brain.index(path="docs/b.md")  # gone and no longer indexed: a mistyped path, as before
    # A watcher's batch may name a file created and deleted again before its run: skipped, not an error.
    (workspace / "docs" / "c.md").write_text("# C\n\nThe quillfern returns.\n")
    report = brain.index(path=["docs/c.md", "docs/flash.md"], missing_ok=True)
    assert report.files_indexed == 1 and sources(brain, "quillfern") == {"docs/c.md"}


def test_a_file_state_already_handed_over_is_not_handed_again(workspace):
    """A save reported by the post-save hook and again by the watcher makes one run."""
    batches: list[list[str]] = []
    batcher = ChangeBatcher(Brain(workspace), batches.append, delay=0.05)

    def handled(*paths: str) -> list[list[str]]:
        batcher.add(paths)
        eventually(lambda: batcher.pending == 0, what="the batch handled")
        return batches

    assert handled("docs/guide.md") == [["docs/guide.md"]]
    assert handled("docs/guide.md") == [["docs/guide.md"]]  # the same file state: nothing new
    (workspace / "docs" / "guide.md").write_text("# Guide\n\nThe lamp is out.\n")
    assert handled("docs/guide.md", "docs/guide.md")[-1] == ["docs/guide.md"]  # a new state, once
    assert handled("docs")[-1] == ["docs"] and handled("docs")[-1] == ["docs"]  # a folder has no state to match
    (workspace / "node_modules").mkdir()
    (workspace / "node_modules" / "x.js").write_text("module.exports = 1\n")
    (workspace / "build.log").write_text("gitignored\n")
    before = len(batches)
    assert len(handled("node_modules/x.js", "docs/never-there.md", "build.log")) == before  # nothing worth a run
    batcher.close()
    batcher.join(5)


def test_the_sieve_on_every_event(tmp_path):
    root = tmp_path
    assert relevant(root, str(root / "src" / "app.py")) == "src/app.py"
    assert relevant(root, str(root / "sub" / ".gitignore")) == "sub"  # stands for its folder
    assert relevant(root, str(root / ".gitignore")) == ""
    for path in (".agent-brain/CURRENT", "a/.git/index", "node_modules/x.js", "a.py.swp", "a.py~", ".#a.py", ".x.md"):
        assert relevant(root, str(root / path)) is None, path
    assert relevant(root, str(root / ".x.md"), include_hidden=True) == ".x.md"
    assert relevant(root, "/elsewhere/a.py") is None


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare (util-linux)")
def test_cli_watch_polls_when_the_watch_limit_is_reached_and_stops_on_ctrl_c(workspace):
    for i in range(3):  # more folders than the one inotify watch allowed below
        (workspace / f"dir{i}").mkdir()
    probe = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("user namespaces are not available here")
    # In a user namespace of its own, the watcher may hold one inotify watch: events cannot start.
    script = f'echo 1 > /proc/sys/user/max_inotify_watches && exec "{sys.executable}" -m agent_brain_lab.cli "$@"'
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        ["unshare", "-U", "-r", "sh", "-c", script, "sh", "watch", "--workspace", str(workspace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    late = None
    try:
        stderr = Lines(proc.stderr)
        first = eventually(lambda: (line := stderr.next()).startswith("Watching") and line)
        assert "(polling: file events unavailable (OS file watch limit reached): polling instead)" in first, first
        brain = Brain(workspace)
        eventually(lambda: sources(brain, "heronbeak") == {"docs/guide.md"}, what="the catch-up run")
        (workspace / "dir1" / "late.md").write_text("# Late\n\nThe ochremoth arrives.\n")
        eventually(lambda: sources(brain, "ochremoth") == {"dir1/late.md"}, what="a change seen by polling")
    except AssertionError as err:
        late = err  # raised below with what the watcher said meanwhile
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    out, err = proc.stdout.read(), stderr.rest()
    assert late is None, f"{late}\nwatcher stdout:\n{out}\nwatcher stderr:\n{err}"
    assert proc.returncode == 0, err
    assert "Stopped watching" in err and "Traceback" not in err
    assert out.count("Indexed") >= 2  # one line per run: the catch-up run and the change


def test_cli_watch_prints_one_json_line_per_run_and_stops_on_ctrl_c(workspace):
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_brain_lab.cli", "watch", "--json", "--workspace", str(workspace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    stdout, stderr = Lines(proc.stdout), Lines(proc.stderr)
    try:
        assert "(events); Ctrl-C stops" in stderr.next()
        catch_up = json.loads(stdout.next())
        assert catch_up["paths"] == [""] and catch_up["files_indexed"] == 2
        (workspace / "docs" / "late.md").write_text("# Late\n\nThe ochremoth arrives.\n")
        run = json.loads(stdout.next())
        assert run["paths"] == ["docs/late.md"] and run["files_indexed"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    assert proc.returncode == 0
    assert "Stopped watching" in (goodbye := stderr.rest()) and "after 2 index runs" in goodbye


def test_a_failure_is_kept_until_its_own_paths_are_settled(workspace):
    """``failure`` says a failed run's paths wait for a retry: a run of other paths succeeding does not
    end it; a run of those paths, or their no longer being worth a run, does."""
    submitted: list[list[str]] = []
    batcher = ChangeBatcher(Brain(workspace), submitted.append, delay=0.05, settles_later=True)
    try:
        err = WorkspaceBusy("another indexer is writing")
        batcher.retry(["docs/guide.md"], err)
        eventually(lambda: ["docs/guide.md"] in submitted, what="the retry handed over")
        batcher.succeeded(["docs/other.md"])
        assert batcher.failure is err  # guide.md's run has not told its outcome yet
        batcher.succeeded(["docs/guide.md"])
        assert batcher.failure is None
        batcher.retry(["docs/never-indexed.md"], err)  # gone meanwhile, and never indexed: nothing to retry
        eventually(lambda: batcher.failure is None and batcher.pending == 0, what="the path settled by the filter")
        assert ["docs/never-indexed.md"] not in submitted
    finally:
        batcher.close()
