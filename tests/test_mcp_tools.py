"""The tool layer's own rules: snippet budget, index runs joined or still running, no Jupyter server to serve from."""

from __future__ import annotations

import asyncio

import pytest
from fastmcp.exceptions import ToolError
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError

from agent_brain_lab import Brain
from agent_brain_lab.mcp import jupyter, stdio
from agent_brain_lab.mcp.tools import SNIPPET_CHARS, BrainTools, snippet


def test_snippet_keeps_whole_lines_within_the_budget_and_says_what_it_cut():
    lines = [f"line {i:03d} " + "x" * 40 for i in range(40)]  # 49 characters each
    text = "\n".join(lines)
    cut = snippet(text)
    kept, note = cut.rsplit("\n", 1)
    assert len(kept) <= SNIPPET_CHARS
    assert kept.splitlines() == lines[: len(kept.splitlines())]  # whole lines, from the start
    assert note == f"… ({40 - len(kept.splitlines())} more lines)"
    assert snippet("short\ntext") == "short\ntext"


def test_snippet_cuts_one_overlong_line():
    cut = snippet("y" * 5000 + "\nsecond line", budget=100)
    first, note = cut.split("\n")
    assert first == "y" * 99 + "…" and note == "… (1 more lines)"


async def test_jupyter_tools_outside_a_jupyter_server_are_tool_errors():
    with pytest.raises(ToolError, match="no Jupyter server runs in this process"):
        await jupyter.workspace_status()
    assert jupyter.tool_specs() == [
        "agent_brain_lab.mcp.jupyter:search_workspace",
        "agent_brain_lab.mcp.jupyter:workspace_status",
        "agent_brain_lab.mcp.jupyter:explore_entity",
        "agent_brain_lab.mcp.jupyter:index_workspace",
    ]


TIDES = 'def high_tide(hour):\n    """When the sea is highest."""\n    return hour % 12\n'


@pytest.fixture
def tools(tmp_path) -> BrainTools:
    """The tools over a Brain of this process, as the stdio server builds them."""
    (tmp_path / "tides.py").write_text(TIDES)
    backend = stdio.LocalBackend(Brain(tmp_path))
    return BrainTools(lambda: backend, SdkToolError)


async def test_a_second_index_call_joins_the_running_one(tools):
    first, second = await asyncio.gather(tools.index_workspace(), tools.index_workspace())
    assert (first["joined"], second["joined"]) == (False, True)
    assert first["status"] == second["status"] == "done" and first["report"] == second["report"]
    assert first["report"]["files_indexed"] == 1


async def test_a_long_run_is_reported_running_then_waited_for(tools, monkeypatch):
    monkeypatch.setattr(stdio, "INDEX_WAIT_S", 0.0)
    started = await tools.index_workspace()
    assert started["status"] == "running" and "call index_workspace again" in started["note"]
    assert (await tools.workspace_status())["job"]["status"] in ("running", "done")
    monkeypatch.setattr(stdio, "INDEX_WAIT_S", 300.0)
    finished = await tools.index_workspace()
    assert (finished["joined"], finished["status"], finished["report"]["files_indexed"]) == (True, "done", 1)
    assert (await tools.workspace_status())["state"] == "ready"
