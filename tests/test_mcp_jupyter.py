"""The tools inside a live Jupyter server, served by jupyter-server-mcp itself and called over its HTTP endpoint."""

from __future__ import annotations

import json
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from test_server_support import call_api, on_server_loop
from workspace_fixture import copy_workspace

from agent_brain_lab.mcp.tools import SPECS

pytest_plugins = ["pytest_jupyter.jupyter_server"]
tomllib = pytest.importorskip("tomllib")  # Python 3.11+

REPO = Path(__file__).resolve().parents[1]
GROUP = "jupyter_server_mcp.tools"
TOOLS = {"search_workspace", "workspace_status", "explore_entity", "index_workspace"}


@pytest.fixture
def jp_server_config():
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True, "jupyter_server_mcp": True}},
        "MCPExtensionApp": {"mcp_port": 0},  # a free port: tests and other servers may run side by side
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    root = tmp_path / "root_dir"
    return copy_workspace(root, ["shop", "analysis.ipynb"], {"README.md": "docs/README.md"})


@pytest.fixture
def published_entry_points(tmp_path, monkeypatch):
    """This project's ``jupyter_server_mcp.tools`` entry points, read from pyproject.toml, published the way an
    installed distribution publishes them (a dist-info folder on sys.path), unless the install already does."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"][GROUP]
    installed = {ep.value for ep in entry_points(group=GROUP)}
    if set(declared.values()) <= installed:
        return declared
    info = tmp_path / "site" / "agent_brain_lab_tools-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: agent-brain-lab-tools\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in declared.items()))
    monkeypatch.syspath_prepend(str(info.parent))
    return declared


rest = call_api


def as_listed(tool) -> dict:
    """A listed tool as its definition reads (a server's own ``_meta`` aside)."""
    return {k: v for k, v in tool.model_dump(by_alias=True, exclude_none=True).items() if k != "_meta"}


async def stdio_listing(root: Path) -> dict[str, dict]:
    """What ``agent-brain-lab mcp`` (this tree's code, another process) lists."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "agent_brain_lab.cli", "mcp", "--workspace", str(root)], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {tool.name: as_listed(tool) for tool in (await session.list_tools()).tools}


async def call(session: ClientSession, tool: str, **arguments) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@on_server_loop
async def test_jupyter_server_mcp_serves_the_servers_brain(jp_serverapp, jp_fetch, jp_root_dir, published_entry_points):
    assert published_entry_points == {"agent_brain_lab": "agent_brain_lab.mcp.jupyter:tool_specs"}
    service = jp_serverapp.web_app.settings["agent_brain"]
    manager = jp_serverapp.extension_manager
    await manager.start_extension("jupyter_server_mcp")  # what the server does once its loop runs
    (mcp_app,) = manager.extension_apps["jupyter_server_mcp"]
    mcp_server = mcp_app.mcp_server_instance
    assert mcp_server is not None, "jupyter-server-mcp did not start"
    assert {tool["name"] for tool in mcp_server.list_tools()} >= TOOLS  # found through the entry point
    url = f"http://127.0.0.1:{mcp_server.port}/mcp"
    try:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(listed) >= TOOLS and "location" in listed["search_workspace"].description

            # The same definitions as the stdio server's: schema, annotations, descriptions.
            here = {name: as_listed(listed[name]) for name in TOOLS}
            assert here == await stdio_listing(jp_root_dir) == {name: SPECS[name].listing() for name in TOOLS}
            assert listed["workspace_status"].annotations.read_only_hint is True
            assert listed["index_workspace"].annotations.read_only_hint is False

            # An undeclared argument is refused with the tool layer's message, before any work.
            result = await session.call_tool("search_workspace", {"query": "total", "alpha": 0.3})
            assert result.is_error and result.content[0].text.startswith("alpha: unknown argument; search_workspace")
            result = await session.call_tool("explore_entity", {})  # a missing argument: the validator's message
            assert result.is_error and result.content[0].text == "name: is required"

            status = await call(session, "workspace_status")
            assert (status["state"], Path(status["root"])) == ("empty", jp_root_dir.resolve())

            # An error is a tool error carrying the REST message, and the session goes on.
            result = await session.call_tool("search_workspace", {"query": " "})
            code, body = await rest(jp_fetch, "POST", "query", body={"query": " "})
            assert result.is_error and code == 400
            assert result.content[0].text == body["message"] == "query: must be a non-blank string"
            result = await session.call_tool("search_workspace", {"query": "total"})
            code, body = await rest(jp_fetch, "POST", "query", body={"query": "total"})
            assert result.is_error and code == 503 and result.content[0].text == body["message"]

            # index_workspace runs as a job of the server's own queue.
            run = await call(session, "index_workspace")
            assert (run["status"], run["joined"]) == ("done", False)
            assert service.jobs.get(run["id"]).status == "done"
            assert run["report"]["files_indexed"] == 7
            status = await call(session, "workspace_status")
            assert status["generation"] == service.brain.status().generation == 1
            assert status["job"]["id"] == run["id"]

            # Search answers what the REST route answers, from the same generation.
            query = {"query": "compute_total discount", "mode": "multi", "top_k": 4}
            answer = await call(session, "search_workspace", **query)
            code, body = await rest(jp_fetch, "POST", "query", body=query)
            assert code == 200 and answer["generation"] == body["generation"] == 1
            # the engine's location labels, the same strings REST carries
            assert [h["location"] for h in answer["results"]] == [r["location"] for r in body["results"]]
            entity = await call(session, "explore_entity", name="compute_total")
            assert "shop/pricing.py::apply_tax" in {n["id"] for n in entity["nodes"]}

            # A job started through REST is joined, not doubled.
            code, job = await rest(jp_fetch, "POST", "index", body={"force": True})
            assert code == 202
            joined = await call(session, "index_workspace")
            assert (joined["joined"], joined["id"], joined["status"]) == (True, job["job_id"], "done")
            assert (
                joined["report"]["generation"] == 2
                and joined["report"]["chunks_total"] == run["report"]["chunks_total"]
            )
            assert (await call(session, "workspace_status"))["generation"] == 2
    finally:
        await mcp_app.stop_extension()
