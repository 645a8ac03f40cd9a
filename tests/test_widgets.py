"""Notebook widgets: state mapping, the expand round trip on a real index, and the static modules."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from workspace_fixture import FIXTURES

from agent_brain_lab import Brain
from agent_brain_lab.engine.highlight import highlight_ranges, query_terms
from agent_brain_lab.engine.labels import MODE_LEGS, printable
from agent_brain_lab.engine.retrieval import Hit
from agent_brain_lab.engine.types import Chunk, QueryResponse, QueryResult
from agent_brain_lab.kernel.widgets import STATIC, GraphWidget, ResultsWidget, _module, snippet_window
from agent_brain_lab.render import response_html

# One engine answer that every front door draws: the panel's jest test reads this file, the
# browser test below draws it in the widget, and the HTML repr test renders it. Each checks that
# the words marked are PRESENTATION["marks"]; the first test keeps the file equal to the engine's.
PRESENTATION_FILE = FIXTURES / "presentation.json"
PRESENTATION_TEXT = "# 🙂 parses <b>Headers</b>\ndef parseHTTPHeader(raw):\n" + "    pass\n" * 12

WORKSPACE = {
    "shop/cart.py": '''
        """Shopping cart."""
        from shop.pricing import apply_discount


        class Cart:
            """Holds line items and computes the total."""

            def __init__(self):
                self.items = []

            def add_item(self, name, price):
                self.items.append((name, price))

            def total(self):
                return apply_discount(sum(p for _, p in self.items))
        ''',
    "shop/pricing.py": '''
        """Pricing rules."""


        def apply_discount(amount):
            """Ten percent off above one hundred."""
            return amount * 0.9 if amount > 100 else amount
        ''',
    "docs/guide.md": """
        # Guide

        ## Discounts

        The `Cart.total` method calls `apply_discount` to apply the discount rule.
        """,
}


def hit(**fields) -> QueryResult:
    base = dict(
        chunk_id=fields.get("source", "a.py"),
        text="x = 1",
        source="a.py",
        source_type="code",
        language="python",
        start_line=1,
        end_line=1,
        score=0.5,
    )
    return QueryResult(**{**base, **fields})


def presentation() -> QueryResponse:
    """The shared answer, built by the engine's own code: a real chunk, a fused hit, its highlights."""
    chunk = Chunk(
        source="src/my file.py",
        source_type="code",
        language="python",
        start_line=3,
        end_line=16,
        text=PRESENTATION_TEXT,
        symbol_name="parseHTTPHeader",
        symbol_type="method",
        parent_symbol="Parser",
    )
    query = "parse header"
    hit_ = Hit(
        0,
        0.0325,
        vector_score=0.7,
        bm25_score=3.0,
        ranks={"vector": 1, "bm25": 1},
        relationship_path=["A", "-calls->", "B"],
    )
    result = QueryResult.of(chunk, hit_, highlight_ranges(chunk.text, query_terms(query)), mode="multi")
    return response(
        [result],
        query=query,
        fallback="vector: no known entity in the query",
        intent="lookup",
        weights={"hybrid": 1.0, "graph": 0.0, "names": 0.1},
        coverage=0.43,
    )


def response(results, **fields) -> QueryResponse:
    base = dict(query="parse headers", mode="multi", total_results=len(results), query_time_ms=1.5)
    return QueryResponse(results=results, **{**base, **fields})


def from_view(widget, content) -> None:
    """Deliver a custom message the way the comm does when the view calls model.send()."""
    widget._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


@pytest.fixture(scope="module")
def brain(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    for rel, text in WORKSPACE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    brain = Brain(root)
    brain.index()
    return brain


# --------------------------------------------------------------------------- results state


def test_results_carry_location_label_rank_and_summary():
    results = [
        hit(
            source="src/http.py",
            start_line=3,
            end_line=9,
            symbol_name="parse",
            parent_symbol="Parser",
            symbol_type="method",
            score=0.9,
        ),
        hit(
            source="README.md",
            source_type="doc",
            language="markdown",
            start_line=4,
            end_line=4,
            section_path="Intro > Headers",
            score=0.3,
        ),
        hit(source="nb.ipynb", source_type="notebook", cell_index=2, start_line=1, end_line=2, score=0.1),
    ]
    w = ResultsWidget(response(results, fallback="vector: no entity", generation=4))
    # the engine's labels (engine/labels.py), notebook cells 1-based as JupyterLab counts them
    assert [r["location"] for r in w.results] == ["src/http.py:3-9", "README.md:4", "nb.ipynb:1-2 [cell 3]"]
    assert [r["anchor"] for r in w.results] == ["method Parser.parse", "Intro > Headers", None]
    assert [r["rank"] for r in w.results] == [1, 2, 3]
    assert w.results[2]["cell_index"] == 2
    assert w.results[0]["score_fraction"] == 1.0 and w.results[1]["score_fraction"] == pytest.approx(1 / 3)
    assert (w.query, w.mode, w.generation) == ("parse headers", "multi", 4)
    assert w.fallback == "vector: no entity"


def test_leg_bars_vector_absolute_others_relative_and_rank_only_legs():
    results = [
        hit(vector_score=0.8, bm25_score=6.0, ranks={"vector": 2, "bm25": 1}),
        hit(vector_score=1.3, bm25_score=3.0, graph_score=0.5, ranks={"vector": 1, "bm25": 2, "graph": 1}),
        hit(ranks={"graph": 4}),
    ]
    legs = [{leg["leg"]: leg for leg in r["legs"]} for r in ResultsWidget(response(results)).results]
    assert set(legs[0]) == {"vector", "bm25"}
    assert legs[0]["vector"]["fraction"] == pytest.approx(0.8)  # cosine is its own scale
    assert legs[1]["vector"]["fraction"] == 1.0  # clamped
    assert legs[0]["bm25"]["fraction"] == 1.0 and legs[1]["bm25"]["fraction"] == pytest.approx(0.5)
    assert legs[0]["bm25"]["rank"] == 1 and legs[1]["graph"]["rank"] == 1
    assert legs[2] == {
        "graph": {"leg": "graph", "score": None, "fraction": None, "rank": 4, "label": "graph #4", "missing": False}
    }
    assert legs[0]["vector"]["label"] == "vector 0.800 #2" and legs[1]["bm25"]["label"] == "bm25 3.00 #2"


def test_results_pass_the_engine_presentation_through():
    resp = presentation()
    w = ResultsWidget(resp)
    assert w.results[0]["highlights"] == resp.results[0].highlights != []
    assert w.results[0]["anchor"] == "method Parser.parseHTTPHeader"
    assert (w.fusion_note, w.coverage_note) == (resp.fusion_note, resp.coverage_note)
    assert w.fusion_note == (
        "Read as: names to look up. Weighed: meaning and keywords 1.00 · symbol names 0.10 · code relations 0.00"
    )


def test_empty_response_has_no_results():
    w = ResultsWidget(response([], query="nothing here"))
    assert w.results == [] and w.fallback is None and w.coverage == 1.0


# --------------------------------------------------------------------------- static modules


@pytest.mark.parametrize("widget", [ResultsWidget, GraphWidget])
def test_widget_modules_are_the_static_files(widget):
    for name in ("shared.js", "results.js", "graph.js", "shared.css", "results.css", "graph.css"):
        assert (STATIC / name).is_file()
    assert widget._esm.count("export default") == 1 and "render({ model, el })" in widget._esm
    assert ":root" not in widget._css and "--jp-ui-font-color1" in widget._css


def test_scripts_build_dom_without_html_strings_or_network():
    for path in STATIC.glob("*.js"):
        source = path.read_text()
        assert "innerHTML" not in source and "insertAdjacentHTML" not in source, path.name
        assert "import " not in source and "http://" not in source.replace("http://www.w3.org", ""), path.name


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("main", ["results.js", "graph.js"])
def test_modules_parse_as_es_modules(main):
    proc = subprocess.run(
        ["node", "--input-type=module", "--check"],
        input=_module("shared.js", main),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_snippets_draw_bidi_controls_as_escapes():
    """A snippet's text goes in as text nodes, but a U+202E still reverses what follows it on screen
    (Trojan Source): the widget draws the escapes the engine's ``printable`` writes."""
    text = 'if (level != "user\u202e \u2066// admin\u2069") ok\u2028end'
    script = _module("shared.js", "results.js") + f"\nconsole.log(JSON.stringify(highlighted({json.dumps(text)}, [])));"
    proc = subprocess.run(["node", "--input-type=module"], input=script, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [printable(text)]  # the same escapes as the Python doors


# --------------------------------------------------------------------------- real engine


@pytest.mark.parametrize("mode", ["hybrid", "multi", "bm25"])
def test_results_widget_on_a_real_query(brain, mode):
    resp = brain.query("apply discount to the cart total", mode=mode, top_k=4)
    w = ResultsWidget(resp)
    assert len(w.results) == len(resp.results) > 0
    assert [r["chunk_id"] for r in w.results] == [r.chunk_id for r in resp.results]
    assert json.loads(json.dumps(w.results)) == w.results  # plain JSON, as the comm sends it
    shown = [[leg["label"] for leg in r["legs"]] for r in w.results]
    assert shown == [[leg.label for leg in r.legs] for r in resp.results]
    assert {leg["leg"] for r in w.results for leg in r["legs"]} <= set(MODE_LEGS[mode])
    assert any(r["highlights"] for r in w.results)
    for r in w.results:
        for a, b in r["highlights"]:
            assert "discount" in r["text"][a:b].lower() or r["text"][a:b].lower() in {"apply", "cart", "total"}


def test_graph_widget_expands_a_node_through_the_comm(brain, monkeypatch):
    graph = brain.graph_entity("apply_discount", depth=1).to_dict()
    assert graph["matches"], "the engine should know apply_discount"
    w = GraphWidget(graph, brain=brain)
    assert w.matches == graph["matches"] and w.expanded == graph["matches"]
    assert {n["id"] for n in w.nodes} == {n["id"] for n in graph["nodes"]}
    assert all(c["location"].startswith(c["source"] + ":") for c in w.chunks)

    target = next(n for n in w.nodes if n["hop"] == 1)
    sent = []
    monkeypatch.setattr(w, "_send", lambda msg, buffers=None: sent.append(msg))
    from_view(w, {"type": "expand", "id": target["id"]})

    expected = brain.graph_entity(target["id"], 1).to_dict()
    ids = {n["id"] for n in w.nodes}
    assert {n["id"] for n in expected["nodes"]} <= ids
    assert target["id"] in w.expanded
    hops = {n["id"]: n["hop"] for n in w.nodes}
    assert all(hops[m] == 0 for m in graph["matches"])  # seen again from the neighbour, hop kept
    assert all(e["source"] in ids and e["target"] in ids for e in w.edges)
    assert len({(e["source"], e["target"], e["relation"]) for e in w.edges}) == len(w.edges)
    assert len({c["chunk_id"] for c in w.chunks}) == len(w.chunks) >= len(graph["chunks"])
    assert target["name"] in w.message
    assert [m["method"] for m in sent] == ["update", "custom"]  # one state update, then the reply
    assert sent[1]["content"] == {"type": "expanded", "id": target["id"]}


def test_graph_widget_reports_bad_expansions(brain, tmp_path):
    graph = brain.graph_entity("Cart", depth=1).to_dict()
    alone = GraphWidget(graph)
    nodes = list(alone.nodes)
    alone.expand(graph["matches"][0])
    assert "needs a Brain" in alone.message and alone.nodes == nodes

    w = GraphWidget(graph, brain=brain)
    from_view(w, {"type": "expand", "id": "no-such-node"})
    assert "Unknown node" in w.message and w.nodes == nodes
    from_view(w, {"type": "delete-everything"})
    assert "unknown message" in w.message and w.nodes == nodes

    empty = GraphWidget(graph, brain=Brain(tmp_path))  # never indexed
    empty.expand(graph["matches"][0])
    assert "index" in empty.message.lower() and empty.nodes == nodes


def test_graph_widget_for_an_unknown_entity(brain):
    w = GraphWidget(brain.graph_entity("NoSuchThingAnywhere", depth=1), brain=brain)
    assert w.matches == [] and w.nodes == [] and w.message == brain.graph_entity("NoSuchThingAnywhere").note
    assert "NoSuchThingAnywhere" in w.message


# --------------------------------------------------------------------------- in a browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def need_chromium() -> str:
    """The browser's path; without one the test skips on a laptop and fails under CI (.ci/test installs it)."""
    if CHROMIUM is None:
        message = "no headless Chromium here (.ci/chromium.sh installs Debian's)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no headless Chromium"):
        need_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        need_chromium()


def render_in_chromium(page: str, tmp_path: Path) -> dict:
    """Load ``page`` in headless Chromium; what its script wrote into ``<pre id="out">``, as JSON."""
    chromium = need_chromium()
    (tmp_path / "page.html").write_text(page)
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=15000",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            (tmp_path / "page.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'<pre id="out">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    out = json.loads(html.unescape(found.group(1)))
    assert "error" not in out, out.get("error")
    return out


def test_views_render_and_talk_back_in_a_browser(brain, tmp_path):
    """Both modules draw real widget state in headless Chromium; the graph view asks to expand."""
    need_chromium()
    results = ResultsWidget(presentation())
    graph = GraphWidget(brain.graph_entity("apply_discount", depth=1), brain=brain)

    def state(widget, cls):  # cls, not type(widget): anywidget subclasses each instance on the fly
        return {name: getattr(widget, name) for name in cls.class_own_traits(sync=True)}

    page = (Path(__file__).parent / "widget_harness.html").read_text()
    for key, value in {
        "__RESULTS_ESM__": _module("shared.js", "results.js"),
        "__GRAPH_ESM__": _module("shared.js", "graph.js"),
        "__RESULTS_STATE__": state(results, ResultsWidget),
        "__GRAPH_STATE__": state(graph, GraphWidget),
    }.items():
        page = page.replace(key, json.dumps(value).replace("</", "<\\/"))
    out = render_in_chromium(page, tmp_path)

    assert out["hits"] == 1 and out["injected"] == 0
    assert out["marks"] == json.loads(PRESENTATION_FILE.read_text(encoding="utf-8"))["marks"]
    assert out["fusion"] == results.fusion_note and out["coverage"] == "semantic search: 43% of the workspace"
    assert out["legs"] == ["vector 0.700 #1", "bm25 3.00 #1"] and out["widths"] == ["70%", "100%"]
    assert out["anchor"] == "method Parser.parseHTTPHeader"
    assert out["fallback"].endswith("vector: no known entity in the query") and out["toggles"] == 1
    assert out["href"].endswith("/user/x/lab/tree/src/my%20file.py")
    assert out["openDetail"] == {"path": "src/my file.py", "line": 3, "cell_index": None}
    assert out["clickPrevented"] is True and out["unhandledPrevented"] is False
    assert out["empty"] == "No results." and out["resultsCleaned"] is True

    assert out["nodes"] == len(graph.nodes) and out["placed"] is True
    assert out["captions"] == [f"{g['phrase']} · {g['total']}" for g in graph.groups]
    target, other = [n for n in graph.nodes if n["hop"] == 1][:2]
    assert out["sent"] == [{"type": "expand", "id": target["id"]}] and out["pending"] is True
    assert out["keySent"] == {"type": "expand", "id": other["id"]} and out["keepsFocus"] is True
    assert out["nodesAfter"] == len(graph.nodes) + 1 and out["pendingAfter"] is False and out["expandedClass"]
    assert out["info"] == other["name"]  # the last node chosen
    assert out["chunks"] == [c["location"] for c in graph.chunks]
    assert "function" in out["legend"] and out["zoomed"] is True and out["graphCleaned"] is True


# --------------------------------------------------------------------------- presentation once


def test_presentation_fixture_is_the_engines_answer():
    """tests/fixtures/presentation.json is what the engine returns now (regenerate it from presentation())."""
    resp = presentation().to_dict()
    saved = json.loads(PRESENTATION_FILE.read_text(encoding="utf-8"))
    assert saved["response"] == json.loads(json.dumps(resp)), "regenerate tests/fixtures/presentation.json"
    result = resp["results"][0]
    marks = [result["text"][a:b] for a, b in result["highlights"]]
    assert marks == saved["marks"] == ["parses", "Headers", "parse", "Header"]  # stemmed, identifier parts
    assert result["qualified_symbol"] == "Parser.parseHTTPHeader"


def test_html_repr_marks_the_engine_highlights():
    saved = json.loads(PRESENTATION_FILE.read_text(encoding="utf-8"))
    resp = presentation()
    page = response_html(resp)
    assert [html.unescape(m) for m in re.findall(r"<mark>(.*?)</mark>", page)] == saved["marks"]
    assert "&lt;b&gt;" in page and "<b>Headers" not in page
    assert "method Parser.parseHTTPHeader" in page
    assert html.escape(resp.fusion_note) in page and "vector 0.700 #1 · bm25 3.00 #1" in page
    assert "semantic search: 43% of the workspace" in page


def test_a_long_hit_opens_on_its_first_marked_line_not_its_top():
    """A relation hit (a caller) shows the line of the call, as the panel's snippet does."""
    body = [f"    step_{i} = prepare({i})" for i in range(30)]
    text = "def checkout(cart):\n" + "\n".join(body) + "\n    return compute_total(cart)\n"
    marks = highlight_ranges(text, query_terms("what calls compute_total"))
    window = snippet_window(text, marks)
    lines = window["text"].split("\n")
    assert window["cut"] and lines[0] == "…" and "    return compute_total(cart)" in lines
    assert [window["text"][a:b] for a, b in window["highlights"]] == ["compute_total"]
    assert snippet_window("x = 1\n", []) == {"text": "x = 1", "highlights": [], "cut": False}
    w = ResultsWidget(response([hit(text=text, highlights=marks, start_line=10, end_line=41)]))
    assert w.results[0]["snippet"] == window


# --------------------------------------------------------------------------- a hundred neighbours

DISPATCH = "hub/core.py::dispatch"


def callers_group(widget: GraphWidget) -> dict:
    return next(g for g in widget.groups if g["parent"] == DISPATCH and g["phrase"] == "callers")


def test_graph_widget_shows_what_a_group_held_back(hub_brain, monkeypatch):
    graph = hub_brain.graph_entity("dispatch").to_dict()
    w = GraphWidget(graph, brain=hub_brain)
    group = callers_group(w)
    held = [m["id"] for m in group["more"]]
    assert len(w.nodes) == len(graph["nodes"]) and len(held) == group["total"] - len(group["shown"]) > 100
    assert w.hidden_relations == graph["hidden_relations"] != {}
    sent = []
    monkeypatch.setattr(w, "_send", lambda msg, buffers=None: sent.append(msg))
    from_view(w, {"type": "expand_group", "id": group["id"]})
    ids = {n["id"] for n in w.nodes}
    assert set(held) <= ids and len(w.nodes) == len(graph["nodes"]) + len(held)
    assert all(n["hop"] == 1 for n in w.nodes if n["id"] in held)
    callers = {e["source"] for e in w.edges if e["target"] == DISPATCH and e["relation"] == "calls"}
    assert callers == set(group["shown"]) | set(held)
    after = callers_group(w)
    assert after["more"] == [] and after["label"] == "callers" and after["shown"] == group["shown"] + held
    assert w.message == f"{len(held)} more callers shown."
    assert [m["method"] for m in sent] == ["update", "custom"]
    assert sent[1]["content"] == {"type": "expanded", "id": group["id"]}
    from_view(w, {"type": "expand_group", "id": "//more/in/calls/nowhere"})
    assert "Unknown group" in w.message and len(w.nodes) == len(ids)


def test_expanding_a_node_keeps_the_view_options(hub_brain):
    w = GraphWidget(hub_brain.graph_entity("Session", all_relations=True), brain=hub_brain)
    method = next(n for n in w.nodes if n["kind"] == "method")
    w.expand(method["id"])  # its file and class hang on contains/defined_in: shown, as asked
    assert {e["relation"] for e in w.edges} >= {"contains", "defined_in"}
    plain = GraphWidget(hub_brain.graph_entity("Session"), brain=hub_brain)
    plain.expand(next(n["id"] for n in plain.nodes if n["kind"] == "class" and n["hop"] == 1))
    assert not {e["relation"] for e in plain.edges} & {"contains", "defined_in"}


def test_a_hundred_neighbours_stay_readable_in_a_browser(hub_brain, tmp_path):
    """dispatch has 124 callers: drawn capped with a "+116 more callers" group, the group opens on a
    click, and before and after no two labels overlap, none leaves the view, all stay legible."""
    need_chromium()
    w = GraphWidget(hub_brain.graph_entity("dispatch"), brain=hub_brain)

    def state() -> dict:
        return {name: getattr(w, name) for name in GraphWidget.class_own_traits(sync=True)}

    before = state()
    group = callers_group(w)
    w.expand_group(group["id"])
    page = (Path(__file__).parent / "graph_harness.html").read_text()
    for key, value in {
        "__GRAPH_ESM__": json.dumps(_module("shared.js", "graph.js")),
        "__STATE__": json.dumps(before),
        "__AFTER__": json.dumps(state()),
    }.items():
        page = page.replace(key, value.replace("</", "<\\/"))
    out = render_in_chromium(page.replace("__CSS__", GraphWidget._css), tmp_path)

    first, then = out["before"], out["after"]
    assert first["drawn"] == len(before["nodes"]) <= 1 + 2 * 8 and out["marked"] == DISPATCH
    assert first["pills"] == [f"+{len(group['more'])} more callers"]
    assert first["captions"] == ["callers · 124", "mentioned in · 2"]
    assert out["sent"] == [{"type": "expand_group", "id": group["id"]}] and out["pending"] is True
    assert then["drawn"] == len(w.nodes) == 1 + 124 + 2 and then["pills"] == [] and then["bundles"] == 1
    for look in (first, then):
        assert look["labels"] >= look["drawn"] and look["overlaps"] == 0 and look["outside"] == 0, look
        assert look["smallest"] >= 11, look  # 11px labels drawn at a scale near 1
    assert first["rootOffset"] < 2  # the queried entity in the middle of the view
    assert all(title.startswith(label.rstrip("…")) for label, title in out["titles"])
