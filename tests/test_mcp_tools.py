"""The tool layer's own rules: schemas that agree with the validator, undeclared arguments refused,
snippet budget, index runs joined or still running, no Jupyter server to serve from."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastmcp.exceptions import ToolError

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import (
    INDEX_STATES,
    MODES,
    SOURCE_TYPES,
    GraphRequest,
    IndexRequest,
    InvalidRequest,
    QueryRequest,
)
from agent_brain_lab.mcp import jupyter, stdio
from agent_brain_lab.mcp.tools import SNIPPET_CHARS, SPECS, TOOLS, BrainTools, snippet

# What validates each tool's arguments in the engine (the one validator every front door shares).
BUILDERS = {
    "search_workspace": QueryRequest.build,
    "explore_entity": GraphRequest.build,
    "index_workspace": IndexRequest.build,
}
BASE = {"search_workspace": {"query": "q"}, "explore_entity": {"name": "n"}, "index_workspace": {}}


def test_every_tool_has_a_strict_described_schema_and_annotations():
    for spec in TOOLS:
        schema = spec.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False, spec.name
        assert set(schema.get("required", [])) <= set(schema["properties"])
        for name, prop in schema["properties"].items():
            assert prop.get("description", "").strip(), (spec.name, name)
            assert "type" in prop, (spec.name, name)
        hints = spec.annotations
        assert set(hints) == {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        assert hints["readOnlyHint"] is (spec.name != "index_workspace") and hints["destructiveHint"] is False
        assert spec.description and "Args:" not in spec.description and "\n    " not in spec.description
    search = SPECS["search_workspace"].input_schema["properties"]
    assert search["mode"]["enum"] == list(MODES) and search["mode"]["default"] == QueryRequest.mode
    assert search["source_types"]["items"]["enum"] == list(SOURCE_TYPES)
    assert (search["top_k"]["minimum"], search["top_k"]["default"]) == (1, QueryRequest.top_k)
    depth = SPECS["explore_entity"].input_schema["properties"]["depth"]
    assert (depth["minimum"], depth["default"]) == (0, GraphRequest.depth)
    for state in INDEX_STATES:  # every state the engine reports is explained to the agent
        assert f'"{state}": ' in SPECS["workspace_status"].description


def _edges(prop: dict[str, Any]) -> list[tuple[Any, bool]]:
    """Values at and just past each bound the schema declares, and whether the schema admits them."""
    cases: list[tuple[Any, bool]] = []
    if "minimum" in prop:
        cases += [(prop["minimum"], True), (prop["minimum"] - 1, False)]
    if "maximum" in prop:
        cases += [(prop["maximum"], True), (prop["maximum"] + 1, False)]
    if "maxLength" in prop:  # shaped like a path: a folder name is shorter than the file system's limit
        text = "ab/" * prop["maxLength"]
        cases += [(text[: prop["maxLength"]], True), (text[: prop["maxLength"] + 1], False)]
    if "enum" in prop:
        cases += [(value, True) for value in prop["enum"]] + [("no-such-value", False)]
    item = prop.get("items", {})
    if "maxItems" in prop:
        fill = item["enum"][0] if "enum" in item else "a"
        cases += [([fill] * prop["maxItems"], True), ([fill] * (prop["maxItems"] + 1), False)]
    for value, ok in _edges(item) if item else []:
        cases.append(([value], ok))
    return cases


def test_the_schemas_bounds_are_the_validators():
    """At each bound a schema declares, the engine's validator accepts and refuses exactly what the schema does."""
    checked = 0
    for name, build in BUILDERS.items():
        for field, prop in SPECS[name].input_schema["properties"].items():
            for value, admitted in _edges(prop):
                args = {**BASE[name], field: value}
                if admitted:
                    build(args)
                else:
                    with pytest.raises(InvalidRequest):
                        build(args)
                checked += 1
    assert checked > 30


async def test_an_undeclared_argument_is_refused_before_any_work(tmp_path):
    calls = []

    class Recorder:
        def __getattr__(self, name):
            calls.append(name)
            raise AssertionError("the backend must not be reached")

    tools = BrainTools(lambda: Recorder())
    with pytest.raises(InvalidRequest, match="^alpha: unknown argument; search_workspace takes query, mode"):
        await tools.call(
            "search_workspace", {"query": "x", "alpha": 0.5}
        )  # the validator knows alpha; the tool does not
    with pytest.raises(InvalidRequest, match="unknown argument; workspace_status takes no arguments"):
        await tools.call("workspace_status", {"verbose": True})
    with pytest.raises(InvalidRequest, match=r"^x\\nfake: unknown argument"):
        await tools.call("explore_entity", {"name": "n", "x\nfake": 1})  # a newline in a key is shown escaped
    with pytest.raises(InvalidRequest, match="unknown tool"):
        await tools.call("rm_rf", {})
    assert calls == []


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
    return BrainTools(lambda: backend)


async def test_status_counts_every_skipped_file_once_and_truly(tmp_path):
    """Field sweep: on a workspace of 94 skipped files the tool said ``skipped_total: 94`` and
    ``skipped_files: 50`` (the length of status's first-50 list) side by side."""
    (tmp_path / "tides.py").write_text(TIDES)
    for i in range(60):
        (tmp_path / f"blob{i:02}.dat").write_bytes(b"\x00\x01binary\x00" * 8)
    tools = BrainTools(lambda: stdio.LocalBackend(Brain(tmp_path)))
    await tools.call("index_workspace", {})
    status = await tools.call("workspace_status", {})
    counts = {key: value for key, value in status.items() if key.startswith("skipped") and isinstance(value, int)}
    assert counts == {"skipped_total": 60}
    assert sum(status["skipped_by_reason"].values()) == 60


async def test_a_second_index_call_joins_the_running_one(tools):
    first, second = await asyncio.gather(tools.call("index_workspace", {}), tools.call("index_workspace", None))
    assert (first["joined"], second["joined"]) == (False, True)
    assert first["status"] == second["status"] == "done" and first["report"] == second["report"]
    assert first["report"]["files_indexed"] == 1


async def test_a_long_run_is_reported_running_then_waited_for(tools, monkeypatch):
    monkeypatch.setattr(stdio, "INDEX_WAIT_S", 0.0)
    started = await tools.call("index_workspace", {"path": ""})
    assert started["status"] == "running" and "call index_workspace again" in started["note"]
    assert (await tools.call("workspace_status", {}))["job"]["status"] in ("running", "done")
    monkeypatch.setattr(stdio, "INDEX_WAIT_S", 300.0)
    finished = await tools.call("index_workspace", {})
    assert (finished["joined"], finished["status"], finished["report"]["files_indexed"]) == (True, "done", 1)
    assert (await tools.call("workspace_status", {}))["state"] == "ready"
