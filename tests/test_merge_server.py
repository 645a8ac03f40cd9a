"""A save through Jupyter while the first index embeds: its job is handed to the running run
(``merged_into``) and the file is searchable by keyword before that run ends.

A live server, its real save hook and index jobs; "long" is a workspace of a few hundred chunks with
the indexer's early-publish threshold lowered (the knob of tests/test_early_publish.py)."""

from __future__ import annotations

import functools
import json
import threading
import time

import pytest
from test_server_support import call_api, on_server_loop
from test_watch_server import eventually, sources, watch_state

from agent_brain_lab.engine import indexer
from agent_brain_lab.engine.embedding import Embedder
from agent_brain_lab.engine.types import MAX_REQUEST_PATHS
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

    assert (await run_ended(api, first["job_id"]))["status"] == "done"
    status = (await api("GET", "status"))[1]
    assert status["coverage"] == 1.0 and status["files"]["total"] == FILES + 1


class Hold:
    """Holds the real engine's run at chosen points (on the index threads, with a time limit so a
    broken hand-over fails the test instead of hanging it): ``analysis`` at its first analysed file,
    ``embedding`` before each embedding call of the run until ``when()`` is true."""

    LIMIT_S = 120.0

    def __init__(self, monkeypatch, service):
        self.service, self.analysing, self.analysis = service, threading.Event(), threading.Event()
        self.when = lambda texts: True
        service.brain._embedder.group_size = 32  # several embedding calls, so several hand-over points
        analyze, embed = indexer._prepare_file, Embedder.embed

        def held_analyze(*args, **kwargs):
            self.analysing.set()
            self.analysis.wait(self.LIMIT_S)
            return analyze(*args, **kwargs)

        def held_embed(embedder, texts, progress=None):
            deadline = time.monotonic() + self.LIMIT_S
            while not self.when(texts) and time.monotonic() < deadline:
                time.sleep(0.02)
            return embed(embedder, texts, progress=progress)

        monkeypatch.setattr(indexer, "_prepare_file", held_analyze)
        monkeypatch.setattr(Embedder, "embed", held_embed)

    @property
    def handed_over(self) -> bool:
        """A request waits for the run's next batch (a save handed to it)."""
        return self.service.brain._merges.waiting > 0


def held_run(monkeypatch, root, serverapp) -> Hold:
    """The ledgers in ``root``, a run of them long enough to publish before it embeds, held by a Hold."""
    monkeypatch.setattr(indexer, "EARLY_PUBLISH_MIN", 5)
    ledgers(root)
    return Hold(monkeypatch, serverapp.web_app.settings[SETTINGS_KEY])


async def save(jp_fetch, content: str) -> None:
    model = {"type": "file", "format": "text", "content": content}
    response = await jp_fetch("api", "contents", "books", "saved.py", method="PUT", body=json.dumps(model))
    assert response.code in (200, 201)


async def job_of(api, path: str) -> dict | None:
    jobs = (await api("GET", "jobs"))[1]["jobs"]
    return next((j for j in jobs if path in j["paths"]), None)


SAVED = (
    'def zebraquartz_total(entries):\n    """Sum the quartz entries of the zebra ledger."""\n    return len(entries)\n'
)


@on_server_loop
async def test_a_save_queued_while_the_run_analyses_is_handed_to_it_once_it_embeds(
    api, jp_fetch, jp_root_dir, jp_serverapp, monkeypatch
):
    hold = held_run(monkeypatch, jp_root_dir, jp_serverapp)
    served = threading.Event()
    # Each embedding call waits until a request is handed over (this call's first batch serves
    # it), and once the save's job is done, until the test has looked: the run is still embedding.
    hold.when = lambda texts: hold.handed_over or served.is_set()
    await watch_state(api)
    code, first = await api("POST", "index")
    assert code == 202, first
    await eventually(lambda: _true(hold.analysing.is_set()), "the run analysing")
    await save(jp_fetch, SAVED)

    async def queued():
        job = await job_of(api, "books/saved.py")
        return job is not None and job["status"] == "pending" and job

    saved = await eventually(queued, "the save queued behind the analysing run")
    assert saved["merged_into"] is None
    hold.analysis.set()

    async def done():
        job = (await api("GET", "jobs", saved["id"]))[1]
        return job["status"] == "done" and job

    try:
        job = await eventually(done, "the queued save served by the run", timeout=Hold.LIMIT_S)
        assert job["merged_into"] == first["job_id"] and job["report"]["files_indexed"] == 1
        run = (await api("GET", "jobs", first["job_id"]))[1]
        assert run["status"] == "running" and run["phase"] == "embedding"  # not waited for: the run goes on
        assert await sources(api, "zebraquartz_total") == {"books/saved.py"}
    finally:
        served.set()

    assert (await run_ended(api, first["job_id"]))["status"] == "done"
    status = (await api("GET", "status"))[1]
    assert status["coverage"] == 1.0 and status["files"]["total"] == FILES + 1 and status["job"] is None


@on_server_loop
async def test_a_save_handed_to_a_run_cancelled_before_serving_it_is_indexed_as_its_own_job(
    api, jp_fetch, jp_root_dir, jp_serverapp, monkeypatch
):
    """The run reports cancelled; the save it had not served yet runs on its own, named by the
    status as the job, and ends searchable in every mode; the cancelled backlog is not resumed."""
    hold = held_run(monkeypatch, jp_root_dir, jp_serverapp)
    service = hold.service
    hold.analysis.set()
    named = threading.Event()

    def when(texts) -> bool:
        if any("zebraquartz_total" in t for t in texts):
            return named.is_set()  # the save's own run: held until the status was read
        return service.jobs.list()[-1].cancel.is_set()  # the run: held until cancelled, a save handed over

    hold.when = when
    await watch_state(api)
    code, first = await api("POST", "index")
    assert code == 202, first
    await eventually(lambda: _true(service.brain.merging), "the first index embedding")
    await save(jp_fetch, SAVED)

    async def handed_over():
        job = await job_of(api, "books/saved.py")
        return job is not None and hold.handed_over and job

    saved = await eventually(handed_over, "the save handed to the run")
    assert saved["merged_into"] == first["job_id"] and saved["status"] == "running"
    assert (await api("GET", "status"))[1]["job"]["id"] == first["job_id"]  # the run is the job
    assert (await api("DELETE", "jobs", first["job_id"]))[0] == 200

    async def on_its_own():
        status = (await api("GET", "status"))[1]
        return status["job"] is not None and status["job"]["id"] == saved["id"] and status

    try:
        status = await eventually(on_its_own, "the status naming the save's own job")
        assert status["state"] == "indexing" and status["job"]["merged_into"] == first["job_id"]
        assert (await api("GET", "jobs", first["job_id"]))[1]["status"] == "cancelled"
    finally:
        named.set()

    async def idle():
        status = (await api("GET", "status"))[1]
        return status["job"] is None and status

    status = await eventually(idle, "the save's job done")
    job = (await api("GET", "jobs", saved["id"]))[1]
    assert job["status"] == "done" and job["report"]["files_indexed"] == 1
    assert await sources(api, "zebraquartz_total") == {"books/saved.py"}
    code, vector = await api(
        "POST", "query", body={"query": "sum the quartz entries of the zebra ledger", "mode": "vector", "top_k": 1}
    )
    assert code == 200 and vector["results"][0]["source"] == "books/saved.py"
    assert status["state"] == "ready" and 0 < status["coverage"] < 1  # the cancel holds: no backlog resumed


@on_server_loop
async def test_more_changed_files_than_a_request_may_name_are_handed_to_the_run_too(
    api, jp_fetch, jp_root_dir, jp_serverapp, monkeypatch, tmp_path
):
    """A pull or a generator writes hundreds of files while the first index embeds: the watcher's batch
    names more paths than one request may, and is served by the run as the folders holding them. (It
    was a run of the whole workspace, which no run can take: it waited for the run's writer lock and
    failed busy, and its retries too, for as long as the run embedded.)"""
    hold = held_run(monkeypatch, jp_root_dir, jp_serverapp)
    service = hold.service
    hold.analysis.set()
    looked = threading.Event()
    hold.when = lambda texts: hold.handed_over or looked.is_set()  # embedding while a request waits
    await watch_state(api)
    code, first = await api("POST", "index")
    assert code == 202, first
    await eventually(lambda: _true(service.brain.merging), "the first index embedding")
    pulled, staging = MAX_REQUEST_PATHS + 44, tmp_path / "staging"
    staging.mkdir()
    for i in range(pulled):
        (staging / f"entry{i:03d}.md").write_text(f"# Entry {i}\n\nThe saffronowl record {i}.\n")
    for entry in staging.iterdir():  # moved in within milliseconds, as a checkout does: one burst
        entry.replace(jp_root_dir / "books" / entry.name)
    await save(jp_fetch, SAVED)

    async def all_searchable():
        status = (await api("GET", "status"))[1]
        return status["files"]["total"] == FILES + pulled + 1 and status

    try:
        status = await eventually(all_searchable, "the pulled files and the save published", timeout=Hold.LIMIT_S)
        assert status["state"] == "indexing" and status["job"]["id"] == first["job_id"]
        assert await sources(api, "zebraquartz_total") == {"books/saved.py"}
        assert await sources(api, "saffronowl")
        jobs = [j for j in (await api("GET", "jobs"))[1]["jobs"] if j["id"] != first["job_id"]]
        batches = [j for j in jobs if any(p.startswith("books/entry") for p in j["paths"])]
        assert max(len(j["paths"]) for j in batches) > MAX_REQUEST_PATHS  # one batch named them all
        for job in batches:
            assert job["merged_into"] == first["job_id"] and job["status"] in ("running", "done"), job["error"]
        run = (await api("GET", "jobs", first["job_id"]))[1]
        assert run["status"] == "running" and run["phase"] == "embedding"
    finally:
        looked.set()

    assert (await run_ended(api, first["job_id"]))["status"] == "done"
    assert not [j for j in (await api("GET", "jobs"))[1]["jobs"] if j["status"] == "failed"]


async def run_ended(api, job_id: str) -> dict:
    """The job once it no longer runs (the first index: minutes on a loaded machine)."""

    async def ended():
        job = (await api("GET", "jobs", job_id))[1]
        return job["status"] != "running" and job

    return await eventually(ended, "the first index done", timeout=600)


async def _true(value: bool) -> bool:
    return value
