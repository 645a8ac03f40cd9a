"""The tool layer's own rules: snippet budget, and what a tool says with no Jupyter server to serve from."""

from __future__ import annotations

import pytest
from fastmcp.exceptions import ToolError

from agent_brain_lab.mcp import jupyter
from agent_brain_lab.mcp.tools import SNIPPET_CHARS, snippet


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
