"""``agent-brain-lab mcp``: the stdio MCP server, run as a real subprocess and driven by the ``mcp`` client SDK."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.cli import main
from agent_brain_lab.commands import COMMANDS, UsageError, parse
from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import BLANK_FILTER, MODES
from agent_brain_lab.mcp.tools import SPECS, to_json

REPO = Path(__file__).resolve().parents[1]
LOCATION = re.compile(r"^(?P<path>[^:]+):(?P<start>\d+)(?:-(?P<end>\d+))?(?: \[cell (?P<cell>\d+)\])?$")
TOOLS = {"search_workspace", "workspace_status", "explore_entity", "index_workspace"}


@pytest.fixture
def workspace(tmp_path) -> Path:
    """Code (shop/), a doc and a notebook: seven files, a few dozen chunks."""
    root = tmp_path / "ws"
    return copy_workspace(root, ["shop", "analysis.ipynb"], {"README.md": "docs/README.md"})


ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def server_command(root: Path) -> list[str]:
    """``agent-brain-lab mcp --workspace root``, on this tree's code."""
    return [sys.executable, "-m", "agent_brain_lab.cli", "mcp", "--workspace", str(root)]


def run_session(root: Path, scenario: Callable[[ClientSession], Awaitable[None]]) -> None:
    """Start ``agent-brain-lab mcp --workspace root`` (this tree's code) and run ``scenario`` on a session."""
    command, *args = server_command(root)
    params = StdioServerParameters(command=command, args=args, env=ENV)

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await asyncio.wait_for(scenario(session), timeout=600)

    asyncio.run(main())


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def tool_error(session: ClientSession, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.content
    return result.content[0].text


def check_location(root: Path, hit: dict) -> re.Match:
    """The location names a real file and a line range inside it; for files, the snippet is those lines."""
    where = LOCATION.match(hit["location"])
    assert where, hit["location"]
    path = root / where["path"]
    assert path.is_file(), hit
    start, end = int(where["start"]), int(where["end"] or where["start"])  # one line: path:7, never path:7-7
    assert 1 <= start <= end and (where["end"] is None or start < end)
    if where["cell"] is None:  # notebook lines count within their cell
        lines = path.read_text().splitlines()
        assert end <= len(lines)
        first = hit["snippet"].splitlines()[0]
        assert lines[start - 1].strip() == first.strip(), (hit, lines[start - 1])
    return where


def test_tools_answer_every_mode_from_the_workspace(workspace):
    async def scenario(session: ClientSession) -> None:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(listed) == TOOLS
        search = listed["search_workspace"]
        assert search.input_schema["required"] == ["query"]
        assert {"mode", "top_k", "source_types", "languages", "file_paths"} <= set(search.input_schema["properties"])
        assert "location" in search.description and "multi" in search.input_schema["properties"]["mode"]["description"]
        assert search.annotations.read_only_hint and not listed["index_workspace"].annotations.read_only_hint
        for name, tool in listed.items():  # listed exactly as defined
            assert tool.model_dump(by_alias=True, exclude_none=True) == SPECS[name].listing()

        result = await session.call_tool("workspace_status", {})
        assert result.content[0].text == to_json(result.structured_content)  # compact JSON, the same object
        status = await call(session, "workspace_status")
        assert (status["state"], status["generation"], status["job"]) == ("empty", 0, None)
        assert Path(status["root"]) == workspace.resolve()
        not_indexed = await tool_error(session, "search_workspace", query="total")
        assert "has no index yet: index it first" in not_indexed

        run = await call(session, "index_workspace")
        assert (run["status"], run["joined"], run["path"]) == ("done", False, "")
        assert run["report"]["files_indexed"] == 7 and run["report"]["chunks_total"] > 20
        status = await call(session, "workspace_status")
        assert status["state"] == "ready" and status["generation"] == run["report"]["generation"] == 1
        assert status["files"]["by_source_type"] == {"code": 5, "doc": 1, "notebook": 1}
        assert status["job"]["status"] == "done"

        for mode in MODES:
            answer = await call(session, "search_workspace", query="compute_total discount", mode=mode, top_k=4)
            assert answer["mode"] == mode and answer["generation"] == 1
            assert answer.get("coverage") == (None if mode in ("bm25", "graph") else 1.0)  # no vector leg: none
            assert 1 <= len(answer["results"]) <= 4, mode
            paths = [check_location(workspace, hit)["path"] for hit in answer["results"]]
            assert "shop/pricing.py" in paths, (mode, paths)
            top = answer["results"][0]
            assert top["why"]["legs"] and top["snippet"], top
        graph_hit = next(h for h in answer["results"] if h.get("symbol") == "function compute_total")  # multi
        assert graph_hit["location"] == "shop/pricing.py:19-22"
        graph = await call(session, "search_workspace", query="what calls compute_total", mode="graph")
        assert any("<-calls-" in h["why"].get("path", "") for h in graph["results"]), graph

        notebook = await call(session, "search_workspace", query="discount curve", source_types=["notebook"])
        assert notebook["results"] and all(h["kind"].startswith("notebook · ") for h in notebook["results"])
        assert all(check_location(workspace, h)["cell"] is not None for h in notebook["results"])
        docs = await call(session, "search_workspace", query="install from a wheel", file_paths=["docs/**"])
        assert docs["results"] and all(h["location"].startswith("docs/README.md:") for h in docs["results"])
        assert docs["results"][0]["section"].startswith("Shop Demo")

        entity = await call(session, "explore_entity", name="compute_total")
        assert entity["matches"] == ["shop/pricing.py::compute_total"]
        assert "analysis.ipynb::discount_curve -calls-> shop/pricing.py::compute_total" in entity["edges"]
        assert {"name": "apply_tax", "location": "shop/pricing.py:8-10", "hop": 1}.items() <= next(
            n for n in entity["nodes"] if n["name"] == "apply_tax"
        ).items()
        unknown = await call(session, "explore_entity", name="NoSuchThing")
        assert unknown["matches"] == [] and unknown["note"] == Brain(workspace).graph_entity("NoSuchThing").note
        typo = await call(session, "explore_entity", name="compute_totl")
        assert typo["note"].startswith("no entity named 'compute_totl' in the graph (did you mean 'compute_total'?)")

    run_session(workspace, scenario)


def test_errors_are_tool_errors_with_the_rest_messages(workspace):
    Brain(workspace).index()

    async def scenario(session: ClientSession) -> None:
        assert "query: must be a non-blank string" in await tool_error(session, "search_workspace", query="  ")
        mode = await tool_error(session, "search_workspace", query="x", mode="fuzzy")
        assert "mode: must be one of vector, bm25, hybrid, graph, multi" in mode
        assert "top_k: must be between 1 and 100" in await tool_error(session, "search_workspace", query="x", top_k=0)
        kinds = await tool_error(session, "search_workspace", query="x", source_types=["video"])
        assert "source_types: unknown value 'video'" in kinds
        cobol = await tool_error(session, "search_workspace", query="x", languages=["python", "cobol"])
        assert cobol.startswith("languages: unknown language 'cobol'; known languages: bash, c, ")
        held = ", ".join(sorted(Brain(workspace).status().chunks["by_language"]))
        assert cobol.endswith(f"(this index holds: {held})")
        blank = await tool_error(session, "search_workspace", query="x", languages=[""])
        assert blank == f"languages: {BLANK_FILTER}"
        assert (await call(session, "search_workspace", query="Cart", mode="bm25", languages=[]))["results"]
        toml = await call(session, "search_workspace", query="Cart", languages=["toml"])
        assert toml["results"] == [] and toml["filter_note"] == (
            f"no chunk of this index passes the filters: languages toml (this index holds: {held})"
        )
        assert "must be relative to the workspace root" in await tool_error(
            session, "search_workspace", query="x", file_paths=["/etc/*"]
        )
        assert "depth: must be between 0 and 3" in await tool_error(session, "explore_entity", name="Cart", depth=9)
        assert "name: must be a non-blank entity name" in await tool_error(session, "explore_entity", name=" ")
        assert "path:" in await tool_error(session, "index_workspace", path="../elsewhere")
        unknown = await tool_error(session, "search_workspace", query="x", alpha=0.2)
        assert unknown == "alpha: unknown argument; search_workspace takes " + ", ".join(
            SPECS["search_workspace"].properties
        )
        assert "For further information" not in await tool_error(session, "search_workspace", query="x", top_k="many")

        with IndexDir(workspace).writer_lock():  # another process is writing the index
            busy = await tool_error(session, "index_workspace")
            assert "another indexer is writing this workspace's index" in busy
            answer = await call(session, "search_workspace", query="Cart", mode="bm25")  # readers go on
            assert answer["generation"] == 1 and answer["results"]

        status = await call(session, "workspace_status")  # the stream survived every error
        assert status["state"] == "ready" and status["job"]["status"] == "failed"
        assert status["job"]["error"].startswith("workspace_busy:")

    run_session(workspace, scenario)


def test_a_file_where_the_index_folder_belongs_is_a_state_not_corruption(workspace):
    """`.agent-brain` a file: the status tool said "corrupt" with the fix `reset` (which deleted it)."""
    (workspace / ".agent-brain").write_text("my notes")
    status = Brain(workspace).status()

    async def scenario(session: ClientSession) -> None:
        answer = await call(session, "workspace_status")
        assert (answer["state"], answer["problem"], answer["fix"]) == ("not_a_folder", status.problem, status.fix)
        for tool, arguments in (("search_workspace", {"query": "Cart"}), ("index_workspace", {})):
            error = await tool_error(session, tool, **arguments)
            assert error == f"{status.problem} — fix: {status.fix}"

    run_session(workspace, scenario)
    assert (workspace / ".agent-brain").read_text() == "my notes"


def test_serves_the_generation_another_process_publishes(workspace):
    brain = Brain(workspace)
    brain.index()

    async def scenario(session: ClientSession) -> None:
        before = await call(session, "search_workspace", query="lighthouse keeper", mode="bm25")
        assert before["generation"] == 1
        assert not any(h["location"].startswith("shop/lighthouse.py") for h in before["results"])
        (workspace / "shop" / "lighthouse.py").write_text(
            'def keep_lighthouse():\n    """The lighthouse keeper trims the wick."""\n    return "lamp"\n'
        )
        await asyncio.to_thread(brain.index)  # a writer in another process (a kernel, the Jupyter server)
        after = await call(session, "search_workspace", query="lighthouse keeper", mode="bm25")
        assert after["generation"] == 2
        assert after["results"][0]["location"] == "shop/lighthouse.py:1-3"
        run = await call(session, "index_workspace", path="shop")  # nothing changed since: incremental no-op
        assert run["status"] == "done" and run["report"]["files_indexed"] == 0

    run_session(workspace, scenario)


def test_mcp_is_a_cli_only_command(tmp_path, capsys):
    assert main(["--help"]) == 0 and "serve the brain to AI agents" in capsys.readouterr().out
    ns = parse(["mcp", "--workspace", str(tmp_path)], prog="agent-brain-lab", cwd=tmp_path)
    assert ns.command == "mcp" and ns.root == tmp_path.resolve()
    with pytest.raises(UsageError, match="invalid choice: 'mcp'"):  # the %brain magic's grammar has no mcp
        parse(["mcp", "--workspace", str(tmp_path)], prog="%brain", cwd=tmp_path, commands=COMMANDS)


def _rpc(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _start_indexing(root: Path) -> subprocess.Popen:
    """A stdio server asked to index ``root``, by a client speaking the protocol on raw pipes."""
    proc = subprocess.Popen(
        server_command(root), env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "vanishing", "version": "0"}}
    _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    assert proc.stdout is not None
    assert json.loads(proc.stdout.readline())["id"] == 1
    _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _rpc(
        proc,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "index_workspace", "arguments": {}}},
    )
    return proc


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    assert proc.stderr is not None
    rc = proc.wait(timeout=300)
    return rc, proc.stderr.read().decode(errors="replace")


@pytest.mark.parametrize("vanishing", ["both pipes", "stdout first"])
def test_a_client_that_vanishes_mid_index_stops_the_run_and_the_server_exits_cleanly(tmp_path, vanishing):
    root = tmp_path / "big"
    root.mkdir()
    for i in range(300):  # ~1,200 chunks: tens of seconds of embedding, under the early-publish size
        body = "".join(
            f'def tide_{i}_{j}(hour):\n    """Tide table {i}.{j} for the harbour."""\n    return (hour + {j}) % 12\n\n'
            for j in range(4)
        )
        (root / f"tides_{i:03d}.py").write_text(body)
    index_dir = IndexDir(root)
    proc = _start_indexing(root)
    deadline = time.monotonic() + 120
    while not (index_dir.path.exists() and index_dir.writer_active()):  # the run holds the writer lock
        assert proc.poll() is None and time.monotonic() < deadline, "the index run never started"
        time.sleep(0.05)
    assert proc.stdin is not None and proc.stdout is not None
    if vanishing == "both pipes":  # the client process died: both of its pipe ends close
        proc.stdin.close()
        proc.stdout.close()
    else:  # it stopped reading first (a broken pipe for the answer): the run stops, the server waits for stdin's end
        proc.stdout.close()
        while index_dir.writer_active():
            assert proc.poll() is None and time.monotonic() < deadline + 120, "the run went on"
            time.sleep(0.05)
        proc.stdin.close()
    rc, stderr = _finish(proc)
    assert (rc, "Traceback" in stderr, "Exception ignored" in stderr) == (0, False, False), stderr
    assert not index_dir.writer_active()  # the lock is free for the next writer
    assert Brain(root).status().generation == 0  # the run was stopped, not finished: nothing published
