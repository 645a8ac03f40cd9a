"""Hostile input over REST ends in a 400 naming the field (or the body), never a 500, and status
keeps answering while every query thread is busy."""

from __future__ import annotations

import asyncio
import functools
import json
import time

import pytest
from test_server_support import call_api, on_server_loop

from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import NOT_TEXT
from agent_brain_lab.server.handlers import MAX_BODY_BYTES, ROUTES, SETTINGS_KEY

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def jp_server_config():
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}},
        "AgentBrain": {"auto_reindex_on_save": False},
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    root = tmp_path / "root_dir"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "zebra.md").write_text("# Zebras\n\nZebra stripes confuse flies.\n")
    return root


@pytest.fixture
def raw(jp_fetch):
    """call(method, *path, body=None, params=None) -> (status, parsed JSON body) for any body bytes."""

    return functools.partial(call_api, jp_fetch)


def _deep(levels: int) -> str:
    return '{"query": ' + "[" * levels + "]" * levels + "}"


@pytest.mark.parametrize(
    "path, body, field",
    [
        ("query", '{"query": "\\ud800"}', "query"),
        ("query", '{"query": "zebra\\u0000"}', "query"),
        ("query", {"query": "x", "file_paths": ["[]"]}, "file_paths"),
        ("query", {"query": "x", "file_paths": ["[z-a]"]}, "file_paths"),
        ("query", {"query": "x", "file_paths": ["[!]"]}, "file_paths"),
        ("query", {"query": "x", "file_paths": ["a" * 300]}, "file_paths"),
        ("query", {"query": "x", "file_paths": ["*.py"] * 100}, "file_paths"),
        ("query", {"query": "x", "top_k": "²"}, "top_k"),
        ("query", {"query": "x", "rrf_k": "²"}, "rrf_k"),
        ("query", {"query": "x", "traversal_depth": "٣"}, "traversal_depth"),
        ("query", {"query": "x", "top_k": 1e300}, "top_k"),
        ("query", '{"query": "x", "top_k": ' + "9" * 5000 + "}", "body"),
        ("query", {"query": "x", "languages": ["\ud800"]}, "languages"),
        ("query", _deep(100_000), "body"),
        ("query", _deep(20), "body"),
        ("query", "[" * 100_000, "body"),
        ("query", json.dumps({"query": "x" * (MAX_BODY_BYTES + 1)}), "body"),
        ("query", b'{"query": "\xff\xfe"}', "body"),
        ("query", "null", "body"),
        ("query", '"zebra"', "body"),
        ("query", "3", "body"),
        ("index", {"chunk_size": "²"}, "chunk_size"),
        ("index", {"include": ["[z-a]"]}, "include"),
        ("index", {"exclude": ["*" * 40 + "Z"]}, "exclude"),
        ("index", '{"path": "docs\\u0000"}', "path"),
        ("index", {"path": "a" * 300}, "path"),
        ("index", {"path": "docs/" + "é" * 200}, "path"),
        ("index", {"paths": ["docs", "\ud800"]}, "paths"),
        ("index", _deep(100_000), "body"),
        ("index", "[]", "body"),
    ],
)
@on_server_loop
async def test_hostile_bodies_are_400_naming_the_field(raw, path, body, field):
    code, err = await raw("POST", path, body=body)
    assert (code, err["error"], err["field"]) == (400, "invalid_request", field), err
    assert err["message"]


@pytest.mark.parametrize(
    "params, field",
    [
        ({"name": "Zebra", "depth": "²"}, "depth"),
        ({"name": "Zebra", "depth": "1_0"}, "depth"),
        ({"name": "x" * 300}, "name"),
        ({"name": "Zebra\x00"}, "name"),  # tornado's get_argument would have made the NUL a space
        ({"name": "Zebra", "depth": "1\x00"}, "depth"),
        ({"name": b"\xed\xa0\x80"}, "name"),  # a lone surrogate, UTF-8 encoded
        ({"name": b"Zebra\xff"}, "name"),
    ],
)
@on_server_loop
async def test_hostile_graph_arguments_are_400(raw, params, field):
    code, err = await raw("GET", "graph", "entity", params=params)
    assert (code, err["error"], err["field"]) == (400, "invalid_request", field), err


@pytest.mark.parametrize("name", ["Zebra\x00", b"\xed\xa0\x80", b"Zebra\xff"])
@on_server_loop
async def test_text_that_is_not_utf8_gets_the_validators_one_message(raw, name):
    """NUL, a lone surrogate and bytes that are not UTF-8, in a query string or a JSON body: the message
    the CLI, %brain and MCP give for the same text (engine/types.py)."""
    code, err = await raw("GET", "graph", "entity", params={"name": name})
    assert (code, err["message"]) == (400, f"name: {NOT_TEXT}"), err
    code, err = await raw("POST", "query", body={"query": "caf\ud800"})
    assert (code, err["message"]) == (400, f"query: {NOT_TEXT}"), err


@on_server_loop
async def test_a_pathological_glob_answers_at_once(raw, jp_root_dir):
    code, job = await raw("POST", "index", body={"path": "docs", "chunk_size": "500"})  # digits as for top_k
    assert code == 202, job
    while job["status"] in ("pending", "running"):
        await asyncio.sleep(0.1)
        code, job = await raw("GET", "jobs", job["id"])
    assert job["status"] == "done", job
    started = time.monotonic()
    code, response = await raw(
        "POST", "query", body={"query": "zebra stripes", "mode": "bm25", "file_paths": ["*" * 40 + "Z"]}
    )
    assert (code, response["results"]) == (200, [])
    code, response = await raw("POST", "query", body={"query": "zebra stripes", "mode": "bm25", "file_paths": ["*.md"]})
    assert code == 200 and [r["source"] for r in response["results"]] == ["docs/zebra.md"]
    assert time.monotonic() - started < 10


@on_server_loop
async def test_status_and_jobs_answer_while_every_query_thread_is_busy(raw, jp_web_app):
    service = jp_web_app.settings[SETTINGS_KEY]
    await asyncio.sleep(0.5)  # let the start-up warm-up leave the query pool
    slow = [asyncio.ensure_future(service.run(time.sleep, 4)) for _ in range(3)]  # more than the pool holds
    await asyncio.sleep(0.2)
    for route in (("status",), ("jobs",)):
        started = time.monotonic()
        code, _body = await raw("GET", *route)
        assert code == 200
        assert time.monotonic() - started < 1.5, route
    assert not any(task.done() for task in slow)  # the query pool really was full meanwhile
    await asyncio.gather(*slow)


@on_server_loop
async def test_openapi_describes_every_route(raw, jp_base_url):
    code, spec = await raw("GET", "openapi.json")
    assert code == 200 and spec["openapi"].startswith("3.")
    assert spec["servers"] == [{"url": jp_base_url.rstrip("/") or "/"}]
    described = {path.removeprefix("/agent-brain/") for path in spec["paths"]}
    routes = {pattern.replace("(?P<job_id>[A-Za-z0-9_-]+)", "{job_id}") for pattern, _ in ROUTES if pattern != r".*"}
    assert described == routes
    for operations in spec["paths"].values():
        for verb, operation in operations.items():
            if verb != "parameters":
                assert "403" in operation["responses"], verb


@on_server_loop
async def test_unknown_routes_under_the_namespace_are_json_404(raw):
    for method, path in [("GET", ("nope",)), ("POST", ("jobs", "a", "b")), ("DELETE", ("graph",))]:
        code, err = await raw(method, *path, body="{}" if method == "POST" else None)
        assert code == 404 and err["error"] == "not_found" and err["message"], (method, path, err)


async def _indexed(raw) -> dict:
    code, job = await raw("POST", "index", body={})
    assert code == 202, job
    while job["status"] in ("pending", "running"):
        await asyncio.sleep(0.1)
        code, job = await raw("GET", "jobs", job["id"])
    assert job["status"] == "done", job
    return job


@on_server_loop
async def test_no_error_sent_to_a_client_carries_the_root_path(raw, jp_root_dir, tmp_path):
    """Every kind of error a client can get: not indexed, bad paths, unknown job, busy, damage."""
    root = str(jp_root_dir)
    outside = tmp_path / "outside"
    outside.mkdir()
    (jp_root_dir / "away").symlink_to(outside)
    errors = [
        await raw("POST", "query", body={"query": "zebra"}),  # not_indexed
        await raw("GET", "graph", "entity", params={"name": "Zebra"}),  # not_indexed
        await raw("POST", "index", body={"path": "/etc"}),  # absolute (its own text is echoed, not the root)
        await raw("POST", "index", body={"path": "../x"}),
        await raw("POST", "index", body={"path": "no/such/folder"}),
        await raw("POST", "index", body={"path": "away"}),  # leaves the root through a symlink
        await raw("POST", "index", body={"path": "docs/zebra.md"}),  # not a folder
        await raw("GET", "jobs", "0123456789ab"),
        await raw("DELETE", "index", body={"drop_cache": "yes"}),
    ]
    await _indexed(raw)
    with IndexDir(jp_root_dir).writer_lock():  # another process writing
        errors.append(await raw("POST", "index", body={}))
    folder = jp_root_dir / ".agent-brain"
    (folder / "CURRENT").write_text("not a generation\n")  # damage
    errors += [await raw("POST", "query", body={"query": "zebra"}), await raw("GET", "status")]
    kinds = set()
    for code, body in errors:
        if code >= 400:
            kinds.add(body["error"])
        assert root not in json.dumps(body) or code < 400, body
    assert {"not_indexed", "invalid_request", "not_found", "workspace_busy", "index_corrupt"} <= kinds, kinds


@on_server_loop
async def test_reset_keeps_the_embedding_cache_unless_asked(raw, jp_root_dir):
    await _indexed(raw)
    code, body = await raw("DELETE", "index")
    assert (code, body["status"], body["cache"]) == (200, "reset", "kept"), body
    code, body = await raw("DELETE", "index", body={"drop_cache": False})
    assert (code, body["cache"]) == (200, "kept"), body
    job = await _indexed(raw)
    assert job["report"]["chunks_embedded"] == 0  # nothing embedded again after a reset
    code, body = await raw("DELETE", "index", body={"drop_cache": True})
    assert (code, body["cache"]) == (200, "dropped"), body
    assert sorted(p.name for p in (jp_root_dir / ".agent-brain").iterdir()) == ["writer.lock"]
    code, err = await raw("DELETE", "index", body={"drop_cache": "yes"})
    assert (code, err["error"], err["field"]) == (400, "invalid_request", "drop_cache")
    code, err = await raw("DELETE", "index", body={"keep": True})
    assert (code, err["error"]) == (400, "invalid_request")
