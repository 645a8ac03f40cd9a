"""The graph explorer's answer at high degree: grouped by relation, capped, structure hidden, and
the counts add up, on a real indexed workspace whose ``dispatch`` has 124 callers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hub_workspace import CALLERS, METHODS, SUBCLASSES

from agent_brain_lab import Brain
from agent_brain_lab.engine.explore import GROUP_PREFIX, MAX_SHOWN, PER_RELATION, STRUCTURAL
from agent_brain_lab.engine.types import GraphRequest, InvalidRequest
from agent_brain_lab.render import graph_html, graph_text

DISPATCH = "hub/core.py::dispatch"
SESSION = "hub/core.py::Session"


@pytest.fixture
def brain(hub_brain):
    return hub_brain


def raw_neighbours(brain: Brain, node: str) -> dict[tuple[str, str], set[str]]:
    """(relation, direction) -> neighbour ids, read from the graph itself."""
    graph = brain._reader.view().snapshot.graph
    found: dict[tuple[str, str], set[str]] = {}
    for e in graph.out_edges(node):
        found.setdefault((e.relation, "out"), set()).add(e.target)
    for e in graph.in_edges(node):
        found.setdefault((e.relation, "in"), set()).add(e.source)
    return found


def check_groups_add_up(graph: dict) -> None:
    shown = {n["id"] for n in graph["nodes"]}
    for group in graph["groups"]:
        more = [m["id"] for m in group["more"]]
        assert len(group["shown"]) + len(more) == group["total"], group["label"]
        assert set(group["shown"]) <= shown and not set(more) & shown
        assert group["id"].startswith(GROUP_PREFIX) and group["parent"] in shown
        ends = {e["source"] if group["direction"] == "in" else e["target"] for e in group["more_edges"]}
        assert ends == set(more)
        assert all(group["parent"] in (e["source"], e["target"]) for e in group["more_edges"])
        assert group["label"] == (f"+{len(more)} more {group['phrase']}" if more else group["phrase"])
    assert all(e["source"] in shown and e["target"] in shown for e in graph["edges"])


def test_callers_are_capped_and_the_rest_grouped(brain):
    graph = brain.graph_entity("dispatch").to_dict()
    assert graph["matches"] == [DISPATCH]
    assert [n["id"] for n in graph["nodes"] if n["hop"] == 0] == [DISPATCH]
    raw = raw_neighbours(brain, DISPATCH)
    assert len(raw["calls", "in"]) == CALLERS + 1 + SUBCLASSES  # the handlers, Session.send, the flavours' send
    callers = next(g for g in graph["groups"] if (g["relation"], g["direction"]) == ("calls", "in"))
    assert callers["parent"] == DISPATCH and callers["phrase"] == "callers"
    assert callers["total"] == len(raw["calls", "in"])
    assert len(callers["shown"]) == PER_RELATION
    assert callers["label"] == f"+{callers['total'] - PER_RELATION} more callers"
    assert set(callers["shown"]) | {m["id"] for m in callers["more"]} == raw["calls", "in"]
    assert len({n["source"] for n in graph["nodes"] if n["id"] in callers["shown"]}) >= 7  # spread over files
    assert all(m["name"] and m["source"] and m["hop"] == 1 for m in callers["more"])
    check_groups_add_up(graph)
    # structure is neither followed nor drawn, only counted
    assert not {e["relation"] for e in graph["edges"]} & STRUCTURAL
    assert not any(g["relation"] in STRUCTURAL for g in graph["groups"])
    structural = {rel: len(ids) for (rel, _), ids in raw.items() if rel in STRUCTURAL}
    assert graph["hidden_relations"] == structural == {"contains": 1, "defined_in": 1}
    assert (graph["per_relation"], graph["all_relations"]) == (PER_RELATION, False)


def test_all_relations_and_no_cap_return_everything(brain):
    full = brain.graph_entity("dispatch", per_relation=0, all_relations=True).to_dict()
    raw = raw_neighbours(brain, DISPATCH)
    assert {n["id"] for n in full["nodes"]} == {DISPATCH} | set().union(*raw.values())
    assert all(not g["more"] for g in full["groups"]) and full["hidden_relations"] == {}
    assert {"contains", "defined_in"} <= {e["relation"] for e in full["edges"]}
    check_groups_add_up(full)


def test_members_of_a_class_show_with_all_relations_only(brain):
    default = brain.graph_entity("Session").to_dict()
    assert default["hidden_relations"]["contains"] == METHODS + 1  # its methods, and its file holding it
    subclasses = next(g for g in default["groups"] if g["phrase"] == "subclasses")
    assert subclasses["total"] == len(subclasses["shown"]) == SUBCLASSES and not subclasses["more"]

    graph = brain.graph_entity("Session", per_relation=3, all_relations=True).to_dict()
    members = next(g for g in graph["groups"] if (g["relation"], g["direction"]) == ("contains", "out"))
    assert (members["total"], len(members["shown"]), len(members["more"])) == (METHODS, 3, METHODS - 3)
    assert members["label"] == f"+{METHODS - 3} more contains"
    check_groups_add_up(graph)


def test_the_whole_view_is_bounded(brain):
    graph = brain.graph_entity("dispatch", depth=2, per_relation=1000).to_dict()
    assert len(graph["nodes"]) == 1 + MAX_SHOWN
    check_groups_add_up(graph)


def test_a_node_id_expands_the_same_way(brain):
    by_id = brain.graph_entity(DISPATCH).to_dict()
    by_name = brain.graph_entity("dispatch").to_dict()
    assert by_id["nodes"] == by_name["nodes"] and by_id["groups"] == by_name["groups"]


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"per_relation": -1}, "per_relation"),
        ({"per_relation": "many"}, "per_relation"),
        ({"per_relation": 1001}, "per_relation"),
        ({"all_relations": "yes"}, "all_relations"),
        ({"all_relations": 1}, "all_relations"),
    ],
)
def test_bad_options_are_rejected_by_the_one_validator(fields, field):
    with pytest.raises(InvalidRequest) as err:
        GraphRequest.build({"name": "dispatch", **fields})
    assert err.value.field == field


def test_options_from_a_query_string():
    request = GraphRequest.build({"name": "x", "per_relation": "0", "all_relations": "true"})
    assert (request.per_relation, request.all_relations) == (0, True)
    assert GraphRequest.build({"name": "x", "all_relations": "0"}).all_relations is False


def test_text_and_html_show_the_groups(brain):
    graph = brain.graph_entity("dispatch").to_dict()
    text = graph_text(graph)
    more = CALLERS + 1 + SUBCLASSES - PER_RELATION
    assert f"dispatch — callers: {CALLERS + 1 + SUBCLASSES}, {PER_RELATION} shown" in text
    (line,) = [x for x in text.splitlines() if f"+{more} more: " in x]
    assert line.endswith(", …") and len(line.split(": ", 1)[1].split(", ")) == 10 + 1  # ten names, then …
    assert "structure hidden: contains 1, defined_in 1 (--all-relations shows it)" in text
    assert f"{more} more neighbours grouped: at most {PER_RELATION} shown per relation" in text
    page = graph_html(graph)
    details = page[page.index(f"<summary>+{more} more</summary>") :]
    assert details[: details.index("</details>")].count(", ") == more - 1  # the HTML lists every name


def test_cli_graph_text_and_options(brain):
    def cli(*args: str) -> str:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
        proc = subprocess.run(
            [sys.executable, "-m", "agent_brain_lab.cli", "graph", *args, "--workspace", str(brain.root)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    out = cli("dispatch")
    assert out.startswith(f"dispatch: {1 + PER_RELATION + 2} nodes") and "+116 more: " in out
    full = cli("Session", "--all-relations", "--per-relation", "0")
    assert "Session — contains: 14\n" in full and "more neighbours grouped" not in full
    assert "Session -contains-> Session.step_12" in full and "structure hidden" not in full


def test_the_mcp_answer_counts_what_is_held_back(brain):
    from agent_brain_lab.mcp.tools import compact_graph

    out = compact_graph(brain.graph_entity("dispatch").to_dict())
    assert out["held_back"] == [f"+{CALLERS + 1 + SUBCLASSES - PER_RELATION} more callers of {DISPATCH}"]
    assert out["structure_hidden"] == {"contains": 1, "defined_in": 1}
    assert len(out["nodes"]) == 1 + PER_RELATION + 2
