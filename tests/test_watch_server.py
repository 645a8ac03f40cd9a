"""Following the disk in the server: a live server, real file operations beside it, real index jobs."""

from __future__ import annotations

import asyncio
import functools
import json
import time

import pytest
from test_server_support import call_api, on_server_loop

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
    assert await watch_state(api) == {"mode": "events", "reason": None}
    await index_all(api)
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
    await watch_state(api)
    await index_all(api)
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
    jobs = (await api("GET", "jobs"))[1]["jobs"]
    assert [j["status"] for j in jobs if "probe/band.md" in j["paths"]] == ["done"], jobs


@on_server_loop
async def test_changes_before_the_first_index_are_left_to_it(api, jp_root_dir, follower):
    await watch_state(api)
    (jp_root_dir / "probe" / "early.md").write_text("# Early\n\nThe ochremoth is early.\n")

    async def seen():
        return follower.batcher.changes >= 1

    await eventually(seen, "the change seen")
    await settled(follower)
    assert (await api("GET", "jobs"))[1] == {"jobs": []}
    assert (await api("GET", "status"))[1]["state"] == "empty"


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
    assert await watch_state(api) == {"mode": "polling", "reason": "WATCHFILES_FORCE_POLLING is set"}
    await index_all(api)
    (jp_root_dir / "probe" / "tides.md").write_text("# Tides\n\nThe marigoldtide turns at six.\n")

    async def created():
        return await sources(api, "marigoldtide") == {"probe/tides.md"}

    await eventually(created, "a file written from a terminal searchable by polling")
