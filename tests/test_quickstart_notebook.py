"""Execute examples/quickstart.ipynb in a real ipykernel and check what it shows."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "examples" / "quickstart.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env_path]))  # the kernel imports the repo
    try:
        client = NotebookClient(
            nb,
            timeout=900,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path_factory.mktemp("quickstart"))}},
        )
        client.execute()
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_path
    return nb


def _code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _cell(nb, needle: str):
    (cell,) = [c for c in _code_cells(nb) if needle in c.source]
    return cell


def _widget_states(nb) -> dict:
    return nb.metadata["widgets"][WIDGET_STATE]["state"]


def _widget_models(cell, nb) -> list[dict]:
    states = _widget_states(nb)
    ids = [o["data"][WIDGET_VIEW]["model_id"] for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]
    return [states[i] for i in ids]


def test_no_cell_errored_except_the_bad_input_demo(executed):
    for cell in _code_cells(executed):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            (error,) = errors
            assert error["ename"] == "BrainMagicError"
            assert error["traceback"] == ["%brain: query: must be a non-blank string"]
        else:
            assert not errors, (cell.source, errors)


def test_index_shows_a_finished_progress_bar_and_the_report(executed):
    cell = _cell(executed, "report = %brain index")
    (box,) = [m for m in _widget_models(cell, executed) if m["model_name"] == "HBoxModel"]
    states = _widget_states(executed)
    children = [states[ref.removeprefix("IPY_MODEL_")] for ref in box["state"]["children"]]
    (bar,) = [c["state"] for c in children if c["model_name"] == "IntProgressModel"]
    assert (bar["value"], bar["max"], bar["bar_style"], bar["description"]) == (1000, 1000, "success", "done")
    (shown,) = [o for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]
    # updated for viewers without widgets: the final summary, not "indexing"
    assert shown["data"]["text/plain"].startswith("Indexed 3 of 3 files")
    text = "".join(o["data"]["text/plain"] for o in cell.outputs if "data" in o)
    assert "Indexed 3 of 3 files" in text


def test_query_outputs_are_results_widgets_with_fallbacks(executed):
    for needle, mode in [
        ("r = %brain query", "hybrid"),
        ("--mode vector", "vector"),
        ("--mode bm25 --top-k 3", "bm25"),
        ("--mode graph", "graph"),
        ("%%brain --mode multi", "multi"),
    ]:
        cell = _cell(executed, needle)
        (output,) = [o for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]
        assert "text/html" in output["data"] and "text/plain" in output["data"]
        (model,) = _widget_models(cell, executed)
        state = model["state"]
        assert state["mode"] == mode
        assert state["results"], (needle, state)
        assert all(hit["source"] in {"README.md", "shop/cart.py", "shop/orders.py"} for hit in state["results"])


def test_cell_magic_query_comes_from_the_body(executed):
    (model,) = _widget_models(_cell(executed, "%%brain --mode multi"), executed)
    assert model["state"]["query"] == "where is stock reserved before an order is paid?"
    assert len(model["state"]["results"]) <= 4


def test_response_object_and_json(executed):
    best = _cell(executed, "best = r.results[0]").outputs[0]["data"]["text/plain"]
    assert best.startswith("('")  # (source, start, end, symbol, score)
    pairs = _cell(executed, "data = %brain query").outputs[0]["data"]["text/plain"]
    assert "shop/orders.py" in pairs


def test_graph_explorer_state(executed):
    (model,) = _widget_models(_cell(executed, "%brain graph Cart"), executed)
    names = {n["name"] for n in model["state"]["nodes"]}
    assert "Cart" in names and len(names) > 1
    assert model["state"]["edges"]


def test_status_discovered_from_a_subfolder(executed):
    cell = _cell(executed, "status = %brain status")
    text = "".join(o["data"]["text/plain"] for o in cell.outputs if "data" in o)
    assert "ready" in text and "brain-demo-" in text
    counts = _cell(executed, 'status["files"]["total"]').outputs[0]["data"]["text/plain"]
    assert counts.startswith("(3, ")


def test_incremental_reindex_touches_one_file(executed):
    cell = _cell(executed, "def apply_coupon")
    text = "".join(o["data"]["text/plain"] for o in cell.outputs if "data" in o)
    assert "Indexed 1 of 3 files (2 unchanged" in text


def test_python_api_response_displays_as_widget(executed):
    (model,) = _widget_models(_cell(executed, "brain = Brain(demo)"), executed)
    assert model["state"]["mode"] == "multi"
    assert any(hit["source"] == "shop/cart.py" for hit in model["state"]["results"])
