"""A save through Jupyter while the first index embeds: its job is handed to the running run
(``merged_into``) and the file is searchable by keyword before that run ends.

A live server, its real save hook and index jobs; "long" is a workspace of a few hundred chunks with
the indexer's early-publish threshold lowered (the knob of tests/test_early_publish.py)."""

from __future__ import annotations

import functools
import json

import pytest
from test_server_support import call_api, on_server_loop
from test_watch_server import eventually, sources, watch_state

from agent_brain_lab.engine import indexer
from agent_brain_lab.server.handlers import SETTINGS_KEY

pytest_plugins = ["pytest_jupyter.jupyter_server"]
FILES = 80


@pytest.fixture
def jp_server_config():
    return {"ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}}, "AgentBrain": {"reindex_delay": 0.2}}


@pytest.fixture
def api(jp_fetch):
    return functools.partial(call_api, jp_fetch)


def ledgers(root) -> None:
    for i in range(FILES):
        body = "\n\n".join(
            f'def ledger_{i}_{j}(entries):\n    """Reconcile batch {j} of ledger {i}."""\n    return len(entries)\n'
            for j in range(4)
        )
        (root / "books").mkdir(exist_ok=True)
        (root / "books" / f"ledger{i:02d}.py").write_text(body)


@on_server_loop
async def test_a_save_during_the_first_index_is_merged_into_it(api, jp_fetch, jp_root_dir, jp_serverapp, monkeypatch):
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    ledgers(jp_root_dir)
    service = jp_serverapp.web_app.settings[SETTINGS_KEY]
    await watch_state(api)
    code, first = await api("POST", "index")
    assert code == 202, first

    async def merging():
        return service.brain.merging

    await eventually(merging, "the first index embedding")
    content = 'def zebraquartz_total(entries):\n    """Quartz entries."""\n    return len(entries)\n'
    model = {"type": "file", "format": "text", "content": content}
    response = await jp_fetch("api", "contents", "books", "saved.py", method="PUT", body=json.dumps(model))
    assert response.code in (200, 201)

    async def searchable():
        return await sources(api, "zebraquartz_total") == {"books/saved.py"}

    await eventually(searchable, "the saved file searchable by keyword")
    running = (await api("GET", "jobs", first["job_id"]))[1]
    assert running["status"] == "running" and running["phase"] == "embedding"  # the first index goes on
    status = (await api("GET", "status"))[1]
    assert status["state"] == "indexing" and status["job"]["id"] == first["job_id"] and status["coverage"] < 1

    async def merged_done():
        jobs = (await api("GET", "jobs"))[1]["jobs"]
        return [j for j in jobs if "books/saved.py" in j["paths"] and j["status"] == "done"]

    (merged,) = await eventually(merged_done, "the save's job done")
    assert merged["merged_into"] == first["job_id"] and merged["report"]["files_indexed"] == 1

    async def first_done():
        job = (await api("GET", "jobs", first["job_id"]))[1]
        return job["status"] != "running" and job

    assert (await eventually(first_done, "the first index done", timeout=600))["status"] == "done"
    status = (await api("GET", "status"))[1]
    assert status["coverage"] == 1.0 and status["files"]["total"] == FILES + 1
