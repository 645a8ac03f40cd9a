"""The REST API of the server extension, against a real server, engine and workspace."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import shutil
import time
from pathlib import Path

import pytest
from test_server_support import call_api, index_all, on_server_loop, wait_for_job
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import InvalidRequest

pytest_plugins = ["pytest_jupyter.jupyter_server"]

PROBE = '''"""Probe module written by the server tests."""


class LighthouseKeeper:
    """Keeps the lamp of the lighthouse burning through the night."""

    def trim_wick(self, length: int) -> int:
        return max(0, length - 1)


def ring_foghorn(times: int) -> str:
    keeper = LighthouseKeeper()
    keeper.trim_wick(times)
    return "BWAAA " * times
'''
MODES = ("vector", "bm25", "hybrid", "graph", "multi")


@pytest.fixture
def jp_server_config():
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}},
        "AgentBrain": {"reindex_delay": 0.2},
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    """The fixture workspace plus a probe module whose content the assertions rely on."""
    root = tmp_path / "root_dir"
    copy_workspace(root)
    (root / "probe").mkdir()
    (root / "probe" / "lighthouse.py").write_text(PROBE)
    (root / "probe" / "notes.md").write_text("# Lighthouse notes\n\nThe keeper trims the wick at dusk.\n")
    return root


@pytest.fixture
def big_root(jp_root_dir):
    """A few hundred generated modules: an index that takes long enough to poke at while it runs.
    Ask for it before the server (before `api`): files written once it runs are followed by its watcher."""
    for i in range(300):
        folder = jp_root_dir / "gen" / f"pkg{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f'def handler_{i}_{j}(value):\n    """Handle case {j} of module {i}."""\n    return value * {j} + {i}\n'
            for j in range(6)
        )
        (folder / f"mod_{i}.py").write_text(body)
    return jp_root_dir


@pytest.fixture
def api(jp_fetch):
    """call(method, *path, body=None, params=None) -> (status, json body), errors included."""

    return functools.partial(call_api, jp_fetch)


async def wait_for_path(api, path, statuses, timeout=120):
    """The newest job for ``path`` once it reaches one of ``statuses``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _code, listing = await api("GET", "jobs")
        jobs = [j for j in listing["jobs"] if j["path"] == path]
        if jobs and jobs[0]["status"] in statuses:
            return jobs[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no job for {path} in {statuses} after {timeout}s: {listing}")


# ----------------------------------------------------------------------- before indexing


@on_server_loop
async def test_status_before_indexing(api, jp_root_dir):
    code, status = await api("GET", "status")
    assert code == 200
    assert status["state"] == "empty"
    assert status["job"] is None
    assert Path(status["root"]).resolve() == jp_root_dir.resolve()


@on_server_loop
async def test_query_and_graph_before_indexing_are_503(api):
    code, err = await api("POST", "query", body={"query": "lighthouse"})
    assert (code, err["error"]) == (503, "not_indexed")
    code, err = await api("GET", "graph", "entity", params={"name": "LighthouseKeeper"})
    assert (code, err["error"]) == (503, "not_indexed")


@on_server_loop
async def test_not_indexed_is_logged_as_a_state_not_an_error(api, jp_serverapp):
    """A search before the first index is the user's next step, not a server failure: one info
    line, no ERROR record and none of the request headers jupyter-server logs for a 5xx."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.DEBUG)
    handler.emit = records.append  # type: ignore[method-assign]
    jp_serverapp.log.addHandler(handler)
    try:
        code, err = await api("POST", "query", body={"query": "lighthouse"})
    finally:
        jp_serverapp.log.removeHandler(handler)
    assert (code, err["error"]) == (503, "not_indexed")
    lines = [r for r in records if "/agent-brain/query" in r.getMessage()]
    assert lines, [r.getMessage() for r in records]
    assert all(r.levelno < logging.WARNING for r in lines), [(r.levelname, r.getMessage()) for r in lines]
    assert not any("User-Agent" in r.getMessage() for r in records)


@pytest.mark.parametrize(
    "body, field",
    [
        ({"query": "   "}, "query"),
        ({}, "query"),
        ({"query": "x", "mode": "psychic"}, "mode"),
        ({"query": "x", "top_k": "many"}, "top_k"),
        ({"query": "x", "top_k": 0}, "top_k"),
        ({"query": "x", "alpha": 2}, "alpha"),
        ({"query": "x", "source_types": ["poetry"]}, "source_types"),
        ({"query": "x", "file_paths": ["../outside/*.py"]}, "file_paths"),
        ({"query": "x", "colour": "blue"}, "colour"),
        ("{not json", "body"),
        ("[1, 2]", "body"),
    ],
)
@on_server_loop
async def test_bad_query_is_400_naming_the_field(api, body, field):
    code, err = await api("POST", "query", body=body)
    assert code == 400
    assert err["error"] == "invalid_request"
    assert err["field"] == field
    assert err["message"]


@pytest.mark.parametrize("alpha", ["9" * 40 + ".5", "1e5000", 10**400])
@on_server_loop
async def test_a_number_past_the_range_says_the_range_as_text_and_as_json(api, alpha):
    code, err = await api("POST", "query", body={"query": "x", "alpha": alpha})
    assert (code, err["field"], err["message"]) == (400, "alpha", "alpha: must be between 0 and 1"), err


@on_server_loop
async def test_a_decimal_longer_than_a_double_is_a_number(api, jp_root_dir):
    await index_all(api)
    tiny = "0." + "0" * 39 + "1"
    for threshold in (tiny, json.loads(tiny)):  # as text (what the CLI and %brain send), as a JSON number
        body = {"query": "trim the wick", "mode": "vector", "similarity_threshold": threshold}
        code, response = await api("POST", "query", body=body)
        assert code == 200 and response["results"], response


@pytest.mark.parametrize(
    "params, field",
    [
        ({}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "Cart", "depth": "deep"}, "depth"),
        ({"name": "Cart", "depth": "9"}, "depth"),
        ({"name": "Cart", "depth": "-1"}, "depth"),
        ({"name": "Cart", "per_relation": "-1"}, "per_relation"),
        ({"name": "Cart", "all_relations": "yes"}, "all_relations"),
    ],
)
@on_server_loop
async def test_bad_graph_entity_is_400(api, params, field):
    code, err = await api("GET", "graph", "entity", params=params)
    assert (code, err["error"], err["field"]) == (400, "invalid_request", field)


def _escape_paths(root: Path, outside: Path) -> list[str]:
    outside.mkdir(exist_ok=True)
    (outside / "secret.py").write_text("TOKEN = 'nope'\n")
    (root / "link_out").symlink_to(outside, target_is_directory=True)
    return [
        "..",
        "../outside",
        "probe/../../outside",
        str(outside),
        "/etc",
        "link_out",
        "no/such/folder",
        "probe/lighthouse.py",
    ]


@on_server_loop
async def test_index_path_policy(api, jp_root_dir, tmp_path):
    for path in _escape_paths(jp_root_dir, tmp_path / "outside"):
        code, err = await api("POST", "index", body={"path": path})
        assert code == 400, (path, err)
        assert (err["error"], err["field"]) == ("invalid_request", "path"), path
    code, jobs = await api("GET", "jobs")
    assert jobs == {"jobs": []}  # nothing was started


@pytest.mark.parametrize(
    "body, field",
    [
        ({"force": "yes"}, "force"),
        ({"path": 3}, "path"),
        ({"include": 5}, "include"),
        ({"exclude": [1]}, "exclude"),
        ({"chunk_size": -4}, "chunk_size"),
        ({"chunk_overlap": 1.5}, "chunk_overlap"),
        ({"chunk_size": 400, "chunk_overlap": 400}, "chunk_overlap"),
        ({"recursive": True}, "recursive"),
        ("nonsense", "body"),
    ],
)
@on_server_loop
async def test_bad_index_body_is_400(api, body, field):
    code, err = await api("POST", "index", body=body)
    assert (code, err["error"], err["field"]) == (400, "invalid_request", field)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
@on_server_loop
async def test_unknown_job_is_404(api, method):
    code, err = await api(method, "jobs", "0123456789ab")
    assert code == 404
    assert err["error"] == "not_found"
    assert "0123456789ab" in err["message"]


@on_server_loop
async def test_reset_when_empty(api):
    code, body = await api("DELETE", "index")
    assert (code, body["status"]) == (200, "reset")


# ----------------------------------------------------------------------- with an index


@on_server_loop
async def test_index_then_query_every_mode(api, jp_root_dir):
    job = await index_all(api)
    assert job["report"]["files_indexed"] >= 2
    assert job["percent"] == 100.0 and job["finished"] and job["error"] is None
    assert job["skipped"] == job["report"]["skipped"]
    assert all(set(s) == {"path", "reason"} for s in job["skipped"])

    code, listing = await api("GET", "jobs")
    assert code == 200 and [j["id"] for j in listing["jobs"]] == [job["id"]]

    code, status = await api("GET", "status")
    assert code == 200 and status["state"] == "ready" and status["job"] is None
    assert status["files"]["total"] == job["report"]["files_indexed"]  # a first index: every file is new

    for mode in MODES:
        code, response = await api(
            "POST", "query", body={"query": "LighthouseKeeper trim_wick", "mode": mode, "top_k": 3}
        )
        assert code == 200, (mode, response)
        assert response["mode"] == mode
        assert 0 < len(response["results"]) <= 3
        assert response["results"][0]["source"] == "probe/lighthouse.py", (mode, response["results"][0])

    code, response = await api(
        "POST", "query", body={"query": "keeper", "mode": "bm25", "source_types": ["doc"], "top_k": 5}
    )
    assert code == 200 and response["results"]
    assert {r["source_type"] for r in response["results"]} == {"doc"}


@on_server_loop
async def test_a_language_filter_that_can_match_nothing_is_400_with_the_engine_message(api, jp_root_dir):
    """A language nothing is indexed as (or a typo) is refused, as a blank filter value is: the message
    is the engine's own, word for word; an empty list is no filter."""
    await index_all(api)
    for languages in (["cobol"], "pyhton", ""):
        code, err = await api("POST", "query", body={"query": "keeper", "languages": languages})
        assert (code, err["error"], err["field"]) == (400, "invalid_request", "languages"), err
        with pytest.raises(InvalidRequest) as raised:
            Brain(jp_root_dir).query("keeper", languages=languages)
        assert err["message"] == str(raised.value)
    code, response = await api("POST", "query", body={"query": "keeper", "mode": "bm25", "languages": []})
    assert code == 200 and response["results"]
    code, response = await api("POST", "query", body={"query": "keeper", "mode": "bm25", "languages": "py"})
    assert code == 200 and {r["language"] for r in response["results"]} == {"python"}
    code, response = await api("POST", "query", body={"query": "keeper", "languages": ["toml"]})
    assert code == 200 and response["results"] == []
    assert response["filter_note"] == Brain(jp_root_dir).query("keeper", languages=["toml"]).filter_note
    assert response["filter_note"].startswith("no chunk of this index passes the filters: languages toml (")


@on_server_loop
async def test_a_file_where_the_index_folder_belongs_is_named_at_every_route_and_kept(api, jp_root_dir):
    """`.agent-brain` replaced by a file while the server runs: status said "corrupt" and advised a reset
    that deleted the file. Every route now names it with the engine's words, and nothing deletes it."""
    await index_all(api)
    shutil.rmtree(jp_root_dir / ".agent-brain")
    (jp_root_dir / ".agent-brain").write_text("my notes")
    expected = Brain(jp_root_dir).status()
    code, status = await api("GET", "status")
    assert code == 200 and (status["state"], status["problem"], status["fix"]) == (
        "not_a_folder",
        expected.problem,
        expected.fix,
    )
    for method, route, body in (("POST", "query", {"query": "keeper"}), ("DELETE", "index", None)):
        code, err = await api(method, route, body=body)
        assert (code, err["error"], err["problem"], err["fix"]) == (503, "not_a_folder", expected.problem, expected.fix)
    code, err = await api("POST", "index", body={})
    assert code == 503 and err["error"] == "not_a_folder", err
    assert (jp_root_dir / ".agent-brain").read_text() == "my notes"


@on_server_loop
async def test_an_index_job_whose_exclude_leaves_no_file_fails_and_the_index_keeps_serving(api, jp_root_dir):
    """POST index with exclude ["**"] published an empty index; the job now fails with the engine's
    words and the last generation keeps answering."""
    await index_all(api)
    _code, before = await api("GET", "status")
    code, job = await api("POST", "index", body={"exclude": ["**"]})
    assert code == 202, job
    job = await wait_for_job(api, job["job_id"])
    with pytest.raises(InvalidRequest) as raised:
        Brain(jp_root_dir).index(exclude=["**"])
    assert (job["status"], job["error"]) == ("failed", f"invalid_request: {raised.value}")
    _code, after = await api("GET", "status")
    assert (after["state"], after["generation"], after["files"]) == ("ready", before["generation"], before["files"])
    code, response = await api("POST", "query", body={"query": "LighthouseKeeper", "mode": "bm25"})
    assert code == 200 and response["results"][0]["source"] == "probe/lighthouse.py"


@on_server_loop
async def test_graph_entity(api):
    await index_all(api)
    code, graph = await api("GET", "graph", "entity", params={"name": "LighthouseKeeper", "depth": "1"})
    assert code == 200
    assert graph["query"] == "LighthouseKeeper"
    assert graph["matches"]
    assert any(node["source"] == "probe/lighthouse.py" for node in graph["nodes"])
    assert graph["hidden_relations"] and not {e["relation"] for e in graph["edges"]} & {"contains", "defined_in"}
    code, full = await api(
        "GET", "graph", "entity", params={"name": "LighthouseKeeper", "per_relation": "0", "all_relations": "true"}
    )
    assert code == 200 and (full["per_relation"], full["all_relations"], full["hidden_relations"]) == (0, True, {})
    assert {"contains", "defined_in"} & {e["relation"] for e in full["edges"]}
    code, graph = await api("GET", "graph", "entity", params={"name": "NoSuchThingAnywhere"})
    assert code == 200 and graph["matches"] == []


@pytest.fixture
def skips_root(jp_root_dir):
    """More unsupported files than status lists (written before the server, like ``big_root``)."""
    for i in range(60):
        (jp_root_dir / "blobs").mkdir(exist_ok=True)
        (jp_root_dir / "blobs" / f"b{i:02d}.dat").write_text("data\n")
    return jp_root_dir


@on_server_loop
async def test_status_lists_the_first_skips_and_all_of_them_on_request(skips_root, api):
    await index_all(api)
    code, status = await api("GET", "status")
    assert code == 200 and len(status["skipped"]) == 50
    total = status["skipped_total"]
    assert total >= 61 and status["skipped_by_reason"]["unsupported file type"] >= 60
    code, full = await api("GET", "status", params={"skipped": "all"})
    assert code == 200 and len(full["skipped"]) == full["skipped_total"] == total
    code, err = await api("GET", "status", params={"skipped": "most"})
    assert (code, err["error"], err["field"]) == (400, "invalid_request", "skipped")


@on_server_loop
async def test_reindex_subfolder_and_reset(api):
    await index_all(api)
    code, job = await api("POST", "index", body={"path": "probe", "force": True})
    assert code == 202 and job["path"] == "probe" and job["force"] is True
    job = await wait_for_job(api, job["job_id"])
    assert job["status"] == "done", job

    code, body = await api("DELETE", "index")
    assert (code, body["status"]) == (200, "reset")
    code, err = await api("POST", "query", body={"query": "lighthouse"})
    assert (code, err["error"]) == (503, "not_indexed")


@on_server_loop
async def test_save_through_contents_api_is_indexed(api, jp_fetch):
    await index_all(api)
    word = "quixotrombone"
    model = {"type": "file", "format": "text", "content": f"# Band\n\nThe {word} plays at noon.\n"}
    response = await jp_fetch("api", "contents", "probe", "band.md", method="PUT", body=json.dumps(model))
    assert response.code in (200, 201)

    saved = await wait_for_path(api, "probe/band.md", ("done", "failed", "cancelled"))
    assert saved["status"] == "done", saved

    code, response = await api("POST", "query", body={"query": word, "mode": "bm25"})
    assert code == 200
    assert response["results"] and response["results"][0]["source"] == "probe/band.md"


@on_server_loop
async def test_save_of_excluded_file_starts_no_job(api, jp_fetch):
    model = {"type": "file", "format": "text", "content": "ignored\n"}
    await jp_fetch("api", "contents", "node_modules", method="PUT", body=json.dumps({"type": "directory"}))
    await jp_fetch("api", "contents", "node_modules", "x.js", method="PUT", body=json.dumps(model))
    await asyncio.sleep(1.0)
    _code, listing = await api("GET", "jobs")
    assert listing == {"jobs": []}


@on_server_loop
async def test_busy_status_and_cancel_while_a_long_job_runs(big_root, api, jp_fetch):
    code, job = await api("POST", "index", body={})
    assert code == 202 and job["status"] in ("pending", "running")
    job_id = job["job_id"]

    code, err = await api("POST", "index", body={"path": "probe"})
    assert (code, err["error"], err["job_id"]) == (409, "workspace_busy", job_id)
    code, err = await api("DELETE", "index")
    assert (code, err["error"], err["job_id"]) == (409, "workspace_busy", job_id)

    # The server keeps answering while the engine works.
    await wait_for_job(api, job_id, statuses=("running",), timeout=60)
    latencies, seen_indexing = [], False
    for _ in range(10):
        started = time.monotonic()
        code, status = await api("GET", "status")
        latencies.append(time.monotonic() - started)
        assert code == 200
        if status["job"] and status["job"]["status"] == "running":
            seen_indexing = True
            assert status["state"] == "indexing"
            assert status["job"]["id"] == job_id
        await asyncio.sleep(0.05)
    assert seen_indexing, "the job finished before /status was asked; make the workspace bigger"
    assert max(latencies) < 2.0, latencies

    # A save during the job queues its re-index behind it.
    model = {"type": "file", "format": "text", "content": "# Tides\n\nThe marigoldtide turns at six.\n"}
    await jp_fetch("api", "contents", "probe", "tides.md", method="PUT", body=json.dumps(model))
    saved = await wait_for_path(api, "probe/tides.md", ("pending",))
    assert (await api("GET", "jobs", job_id))[1]["status"] == "running"
    # Saves elsewhere join that one pending run instead of queueing a job each.
    for name in ("reef", "lagoon"):
        other = {"type": "file", "format": "text", "content": f"# {name}\n\nThe coralwhisper {name} glows.\n"}
        await jp_fetch("api", "contents", "docs", f"{name}.md", method="PUT", body=json.dumps(other))
    deadline = time.monotonic() + 30
    while (await api("GET", "jobs", saved["id"]))[1]["paths"] != ["probe/tides.md", "docs/reef.md", "docs/lagoon.md"]:
        assert time.monotonic() < deadline, (await api("GET", "jobs"))[1]
        await asyncio.sleep(0.1)
    assert [j["status"] for j in (await api("GET", "jobs"))[1]["jobs"]] == ["pending", "running"]

    code, cancelling = await api("DELETE", "jobs", job_id)
    assert code == 200 and cancelling["id"] == job_id
    job = await wait_for_job(api, job_id, timeout=120)
    assert job["status"] == "cancelled", job
    assert job["finished"] and job["report"] is None

    saved = await wait_for_job(api, saved["id"])
    assert saved["status"] == "done", saved
    code, response = await api("POST", "query", body={"query": "marigoldtide handler_3_4", "mode": "bm25"})
    assert code == 200
    # The saved file is in; nothing of the cancelled run was committed.
    assert [r["source"] for r in response["results"]] == ["probe/tides.md"]
    code, response = await api("POST", "query", body={"query": "coralwhisper", "mode": "bm25"})
    assert sorted(r["source"] for r in response["results"]) == ["docs/lagoon.md", "docs/reef.md"]


@on_server_loop
async def test_index_while_another_process_writes_is_409_before_any_job(api, jp_root_dir):
    with IndexDir(jp_root_dir).writer_lock():  # what a kernel or the CLI indexing the same root holds
        code, err = await api("POST", "index", body={})
    assert (code, err["error"]) == (409, "workspace_busy") and "another indexer" in err["message"]
    code, listing = await api("GET", "jobs")
    assert listing == {"jobs": []}


@on_server_loop
async def test_index_after_a_model_change_is_409_until_forced(api, jp_root_dir, tmp_path):
    (jp_root_dir / "probe" / "notes.md").write_text("# Only\n\nA single small file.\n")
    other_model = tmp_path / "another-minilm"
    default = Brain(jp_root_dir).status().model["path"]
    shutil.copytree(default, other_model, symlinks=True)
    Brain(jp_root_dir, model_path=str(other_model)).index(path="probe")

    code, err = await api("POST", "index", body={"path": "probe"})
    assert (code, err["error"]) == (409, "model_mismatch") and "force" in err["message"]
    code, job = await api("POST", "index", body={"path": "probe", "force": True})
    assert code == 202
    assert (await wait_for_job(api, job["job_id"]))["status"] == "done"
