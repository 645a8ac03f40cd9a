"""Following the disk in the server: a live server, real file operations beside it, real index jobs."""

from __future__ import annotations

import asyncio
import functools
import json
import time

import pytest
from test_server_support import call_api, on_server_loop

from agent_brain_lab.engine.watch.source import inotify_watches
from agent_brain_lab.server.extension import FOLLOWER_KEY

pytest_plugins = ["pytest_jupyter.jupyter_server"]

WAIT_S = 90


@pytest.fixture
def jp_server_config(request, monkeypatch):
    options = getattr(request, "param", {})
    if options.pop("force_polling", False):  # what an admin sets for a network file system
        monkeypatch.setenv("WATCHFILES_FORCE_POLLING", "1")
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}},
        "AgentBrain": {"reindex_delay": 0.2, **options},
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    root = tmp_path / "root_dir"
    (root / "probe").mkdir(parents=True)
    (root / "probe" / "notes.md").write_text("# Lighthouse notes\n\nThe keeper trims the wick at dusk.\n")
    return root


@pytest.fixture
def api(jp_fetch):
    return functools.partial(call_api, jp_fetch)


@pytest.fixture
def follower(jp_serverapp):
    return jp_serverapp.web_app.settings.get(FOLLOWER_KEY)


async def eventually(check, what: str, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout}s: {what}"
        await asyncio.sleep(0.1)


async def index_all(api):
    code, job = await api("POST", "index")
    assert code == 202, job

    async def done():
        job_now = (await api("GET", "jobs", job["job_id"]))[1]
        return job_now["status"] not in ("pending", "running") and job_now

    assert (await eventually(done, "the first index"))["status"] == "done"


async def sources(api, word: str) -> set[str]:
    code, response = await api("POST", "query", body={"query": word, "mode": "bm25"})
    assert code == 200, response
    return {r["source"] for r in response["results"]}


async def watch_state(api) -> dict:
    async def started():
        status = (await api("GET", "status"))[1]
        return status["watch"]["reason"] != "starting" and status["watch"]

    return await eventually(started, "the watcher set up")


async def settled(follower):
    """Once every change the batcher received has been filtered and handed over."""

    async def idle():
        return follower.batcher.pending == 0

    await eventually(idle, "the batcher idle")


@on_server_loop
async def test_changes_made_outside_jupyter_are_followed(api, jp_root_dir):
    await index_all(api)
    assert await watch_state(api) == {"mode": "events", "reason": None}
    (jp_root_dir / "probe" / "tides.md").write_text("# Tides\n\nThe marigoldtide turns at six.\n")

    async def created():
        return await sources(api, "marigoldtide") == {"probe/tides.md"}

    await eventually(created, "a file written from a terminal searchable")
    (jp_root_dir / "probe" / "tides.md").rename(jp_root_dir / "probe" / "waves.md")

    async def renamed():
        return await sources(api, "marigoldtide") == {"probe/waves.md"}

    await eventually(renamed, "a renamed file under its new path")
    (jp_root_dir / "probe" / "waves.md").unlink()

    async def deleted():
        return await sources(api, "marigoldtide") == set()

    await eventually(deleted, "a deleted file unsearchable")
    (jp_root_dir / ".agent-brain" / "scratch.md").write_text("# the index's own folder\n")
    jobs = (await api("GET", "jobs"))[1]["jobs"]
    assert all(".agent-brain" not in p for job in jobs for p in job["paths"])


@on_server_loop
async def test_a_save_through_jupyter_is_indexed_once(api, jp_fetch, follower):
    await index_all(api)
    await watch_state(api)
    model = {"type": "file", "format": "text", "content": "# Band\n\nThe quixotrombone plays at noon.\n"}
    response = await jp_fetch("api", "contents", "probe", "band.md", method="PUT", body=json.dumps(model))
    assert response.code in (200, 201)

    async def searchable():
        return await sources(api, "quixotrombone") == {"probe/band.md"}

    await eventually(searchable, "the saved file searchable")

    async def both_reported():  # the save hook, then the watcher's event of the same write
        return follower.batcher.changes >= 2

    await eventually(both_reported, "the save seen by the hook and by the watcher")
    await settled(follower)

    async def finished():  # the file is searchable once its job published; the job ends just after
        jobs = (await api("GET", "jobs"))[1]["jobs"]
        return jobs if all(j["status"] not in ("pending", "running") for j in jobs) else None

    jobs = await eventually(finished, "the save's job finished")
    assert [j["status"] for j in jobs if "probe/band.md" in j["paths"]] == ["done"], jobs


@on_server_loop
async def test_nothing_follows_the_disk_before_the_first_index(api, jp_fetch, jp_root_dir, jp_serverapp, follower):
    """No watch and no batcher before the first index (status calls included): changes and saves
    before it are left to it. The first index starts the watch."""
    others = inotify_watches()  # of this test process, other than the server's (none when run alone)
    assert (await api("GET", "status"))[1]["watch"] == {"mode": "off", "reason": "starts with the first index"}
    (jp_root_dir / "probe" / "early.md").write_text("# Early\n\nThe ochremoth is early.\n")
    model = {"type": "file", "format": "text", "content": "# Band\n\nThe quixotrombone plays at noon.\n"}
    response = await jp_fetch("api", "contents", "probe", "band.md", method="PUT", body=json.dumps(model))
    assert response.code in (200, 201)
    assert follower.watcher is None and follower.batcher is None
    assert inotify_watches() == others
    assert (await api("GET", "jobs"))[1] == {"jobs": []}
    assert (await api("GET", "status"))[1]["state"] == "empty"
    await index_all(api)
    assert await watch_state(api) == {"mode": "events", "reason": None}
    assert inotify_watches() - others == follower.watcher.watched > 0


@pytest.fixture
def cluttered_root(jp_root_dir):
    """Beside the probe: folders a workspace never indexes, each with many subfolders."""
    for ignored in ("node_modules", "venv-tools", "generated", ".git", ".cache"):
        for i in range(30):
            (jp_root_dir / ignored / f"pkg{i}" / "lib").mkdir(parents=True)
    (jp_root_dir / "venv-tools" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (jp_root_dir / ".gitignore").write_text("generated/\n")
    (jp_root_dir / "src" / "app").mkdir(parents=True)
    (jp_root_dir / "src" / "app" / "main.py").write_text("def main():\n    return 1\n")
    return jp_root_dir


@on_server_loop
async def test_excluded_and_ignored_folders_are_not_watched(api, cluttered_root, follower):
    others = inotify_watches()  # of this test process, other than the server's (none when run alone)
    await index_all(api)
    assert await watch_state(api) == {"mode": "events", "reason": None}
    watched = {p.relative_to(cluttered_root).as_posix() for p in follower.watcher.folders()}
    assert watched == {".", "probe", "src", "src/app"}
    assert inotify_watches() - others == follower.watcher.watched == 4  # not one for the 150+ ignored folders
    (cluttered_root / "src" / "lib").mkdir()  # a new folder is watched, and what is written in it followed
    (cluttered_root / "src" / "lib" / "util.md").write_text("# Util\n\nThe zephyrquill helper.\n")

    async def found():
        return await sources(api, "zephyrquill") == {"src/lib/util.md"}

    await eventually(found, "a file in a folder created after the watch started searchable")
    assert inotify_watches() - others == follower.watcher.watched == 5


@pytest.mark.parametrize("jp_server_config", [{"watch": False}], indirect=True)
@on_server_loop
async def test_watch_false_turns_the_watcher_off_and_saves_still_index(api, jp_fetch, follower):
    assert (await api("GET", "status"))[1]["watch"] == {"mode": "off", "reason": "c.AgentBrain.watch is False"}
    assert follower.watcher is None
    await index_all(api)
    model = {"type": "file", "format": "text", "content": "# Band\n\nThe quixotrombone plays at noon.\n"}
    await jp_fetch("api", "contents", "probe", "band.md", method="PUT", body=json.dumps(model))

    async def searchable():
        return await sources(api, "quixotrombone") == {"probe/band.md"}

    await eventually(searchable, "the saved file searchable")
    assert follower.batcher.changes == 1  # the hook alone


@pytest.mark.parametrize("jp_server_config", [{"force_polling": True}], indirect=True)
@on_server_loop
async def test_polling_is_reported_and_still_follows(api, jp_root_dir):
    await index_all(api)
    assert await watch_state(api) == {"mode": "polling", "reason": "WATCHFILES_FORCE_POLLING is set"}
    (jp_root_dir / "probe" / "tides.md").write_text("# Tides\n\nThe marigoldtide turns at six.\n")

    async def created():
        return await sources(api, "marigoldtide") == {"probe/tides.md"}

    await eventually(created, "a file written from a terminal searchable by polling")


@on_server_loop
async def test_a_run_that_meets_a_full_disk_is_shown_and_retried_until_it_succeeds(api, jp_root_dir):
    from test_trust_disk import _run, fill

    index = jp_root_dir / ".agent-brain"
    index.mkdir()  # the index alone on a small disk (mounted before the brain opens it)
    if _run("mount", "-t", "tmpfs", "-o", "size=5m,mode=0755", "tmpfs", str(index)).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        await index_all(api)
        await watch_state(api)
        filler = fill(index)
        for i in range(30):
            (jp_root_dir / "probe" / f"n{i}.md").write_text(f"# Note {i}\n\nThe saltmarsh curlew {i} calls.\n")

        async def failed():
            job = (await api("GET", "status"))[1]["job"]
            return job is not None and job["status"] == "failed" and job

        job = await eventually(failed, "the failed run shown by status")
        assert job["error"].startswith("disk_full: ") and "free space" in job["error"], job
        assert str(jp_root_dir) not in job["error"]
        filler.unlink()  # no change after this: the back-off alone retries the run

        async def retried():
            status = (await api("GET", "status"))[1]
            code, found = await api("POST", "query", body={"query": "saltmarsh", "mode": "bm25", "top_k": 50})
            return code == 200 and len(found["results"]) == 30 and status["job"] is None and status

        assert (await eventually(retried, "the retried run"))["state"] == "ready"
    finally:
        if _run("umount", str(index)).returncode != 0:
            _run("umount", "-l", str(index))


@on_server_loop
async def test_a_failed_run_stays_shown_until_its_own_paths_are_indexed(api, jp_root_dir, follower, monkeypatch):
    """A job of other paths that succeeds while the failed run's paths wait for their retry does not
    end the failed state: ``job`` shows the failure until those paths themselves are indexed."""
    from agent_brain_lab.engine.store.generations import IndexDir
    from agent_brain_lab.engine.watch import batcher
    from agent_brain_lab.server import service

    monkeypatch.setattr(service, "SAVE_LOCK_WAIT_S", 3.0)  # a save's job gives up on another writer after 3 s
    monkeypatch.setattr(batcher, "RETRY_FIRST_S", 8.0)  # and its paths wait 8 s before their retry
    await index_all(api)
    await watch_state(api)

    async def jobs_of(path: str) -> list[dict]:
        return [j for j in (await api("GET", "jobs"))[1]["jobs"] if path in j["paths"]]

    with IndexDir(jp_root_dir).writer_lock():  # another process indexing the same root
        (jp_root_dir / "probe" / "amber.md").write_text("# Amber\n\nThe ambertide rises.\n")

        async def waiting():  # the job of amber.md waits for the writer
            return [j for j in await jobs_of("probe/amber.md") if j["status"] == "running"]

        await eventually(waiting, "the first job waiting for the other writer")
        (jp_root_dir / "probe" / "finch.md").write_text("# Finch\n\nThe bluefinch sings.\n")

        async def queued():  # a second batch, queued behind it as a job of its own
            return [j for j in await jobs_of("probe/finch.md") if j["status"] == "pending"]

        await eventually(queued, "the second job queued")

        async def failed():
            return [j for j in await jobs_of("probe/amber.md") if j["status"] == "failed"]

        [failed_job] = await eventually(failed, "the first job failed (the writer held on)")
    assert "probe/amber.md" in failed_job["paths"] and "probe/finch.md" not in failed_job["paths"]
    # The writer is gone: the second job runs now, amber.md's retry only after its back-off.
    shown_after_the_other_job: list[dict | None] = []

    async def retried():
        status = (await api("GET", "status"))[1]
        amber, finch = await sources(api, "ambertide"), await sources(api, "bluefinch")
        if finch and not amber and status["job"] is not None and status["job"]["status"] != "running":
            shown_after_the_other_job.append(status["job"])
        if finch and not amber and status["job"] is None:
            shown_after_the_other_job.append(None)
        return amber == {"probe/amber.md"} and status["job"] is None

    await eventually(retried, "amber.md indexed by its retry, and the failure no longer shown")
    assert shown_after_the_other_job, "never saw the other job done while amber.md waited (the test proves nothing)"
    assert all(job is not None and job["id"] == failed_job["id"] for job in shown_after_the_other_job), [
        job and (job["id"], job["status"]) for job in shown_after_the_other_job
    ]
    assert [j["status"] for j in await jobs_of("probe/finch.md")] == ["done"]
