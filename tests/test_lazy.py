"""What a process pays before the brain is used, and usearch and onnxruntime meeting in one process.

Each case runs in a fresh interpreter (or a real ipykernel): what a module imports, and the order two
native libraries load in, are properties of a whole process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.engine import tokenizer

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "networkx", "onnxruntime", "fastembed", "usearch", "scipy", "bm25s", "tree_sitter", "watchfiles")


def run_python(code: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


def loaded_heavy(code: str, cwd: Path | None = None) -> list[str]:
    """The heavy packages a fresh interpreter holds after running ``code``."""
    probe = (
        textwrap.dedent(code) + f"\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    done = run_python(probe, cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def server_started(root: Path) -> str:
    """Code that initialises a Jupyter server on ``root`` with the extension: ``app_of`` is ours."""
    return f"""
        from jupyter_server.serverapp import ServerApp
        from traitlets.config import Config
        config = Config()
        config.ServerApp.root_dir = {str(root)!r}
        config.ServerApp.jpserver_extensions = {{"agent_brain_lab": True}}
        app = ServerApp(config=config)
        app.initialize(argv=[], find_extensions=False, new_httpserver=False)
        (app_of,) = [p.app for p in app.extension_manager.extensions["agent_brain_lab"].extension_points.values()]
    """


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lazy") / "shop-demo"
    copy_workspace(root, ["shop", "README.md"])
    Brain(root).index()
    return root


def test_importing_the_package_loads_no_engine():
    assert loaded_heavy("import agent_brain_lab") == []
    assert loaded_heavy("from agent_brain_lab import _jupyter_labextension_paths as p; p()") == []


def test_brain_is_still_importable_from_the_package():
    assert loaded_heavy("from agent_brain_lab import Brain; assert Brain.__name__ == 'Brain'") != []


def test_loading_the_server_extension_loads_no_engine(tmp_path):
    code = (
        server_started(tmp_path)
        + """
        assert app_of.service is not None and app_of.service._brain is None
        rules = app.web_app.default_router.rules[0].target.rules
        assert any("agent-brain" in str(r.matcher.regex.pattern) for r in rules)
    """
    )
    assert loaded_heavy(code) == []


def test_a_bm25_query_loads_neither_the_model_nor_the_vectors_nor_the_chunkers(workspace):
    code = """
        import agent_brain_lab.cli as cli
        assert cli.main(["query", "discount", "--mode", "bm25"]) == 0
    """
    assert loaded_heavy(code, cwd=workspace) == ["numpy"]


def test_the_graph_explorer_on_a_generation_with_no_delta_loads_no_networkx(workspace):
    """Right after a base is written (every first index, every merge) a generation's graph is the base's
    arrays alone: networkx (~0.3 s to import) builds delta graphs only."""
    code = """
        import agent_brain_lab.cli as cli
        assert cli.main(["graph", "apply_discount"]) == 0
    """
    assert "networkx" not in loaded_heavy(code, cwd=workspace)


def test_the_copied_stop_words_are_bm25s_own():
    from bm25s.stopwords import STOPWORDS_EN

    assert tuple(tokenizer.STOPWORDS_EN) == tuple(STOPWORDS_EN)


# ---------------------------------------------------------------- usearch before onnxruntime


def test_the_crash_the_fence_is_for_happens_here():
    """usearch then onnxruntime, nothing of ours: the process dies (SIGSEGV). Should a release of
    either wheel fix it, this fails, and engine/native.py can go."""
    done = run_python("import usearch.index\nimport onnxruntime\n")
    assert done.returncode == -11


QUERY_BOTH = """
    from agent_brain_lab import Brain
    brain = Brain({root!r})
    print("bm25:", brain.query("discount", mode="bm25").results[0].source)
    try:
        print("vector:", brain.query("where is the discount applied", mode="vector").results[0].source)
    except Exception as err:
        print("vector refused:", type(err).__name__, err)
"""


def test_a_process_that_imported_usearch_first_is_refused_the_model_not_killed(workspace):
    done = run_python("import usearch.index\n" + textwrap.dedent(QUERY_BOTH.format(root=str(workspace))))
    assert done.returncode == 0, done.stderr
    bm25, vector = done.stdout.splitlines()
    assert bm25.startswith("bm25: shop/")
    assert vector.startswith("vector refused: NativeConflict")
    assert "before anything imports usearch" in vector


def test_usearch_imported_after_the_package_meets_onnxruntime_safely(workspace):
    code = "import agent_brain_lab\nimport usearch.index\nimport onnxruntime\n"
    done = run_python(code + textwrap.dedent(QUERY_BOTH.format(root=str(workspace))))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("vector: ")


def execute(cells: list[str], workspace: Path) -> list[nbformat.NotebookNode]:
    """Run ``cells`` in a fresh ipykernel; returns the code cells with their outputs."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env_path]))  # the kernel imports the repo
    try:
        NotebookClient(
            nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(workspace)}}
        ).execute()
    finally:
        if env_path is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env_path
    return nb.cells


@pytest.mark.parametrize(
    "cells",
    [
        ["import usearch.index", "%load_ext agent_brain_lab"],  # the user's import first
        ["%load_ext agent_brain_lab", "import usearch.index"],
    ],
    ids=["usearch-first", "extension-first"],
)
def test_a_kernel_runs_vector_queries_whatever_came_first(workspace, cells):
    """(In an ipykernel libzmq has set up the C++ runtime's locale before the first cell runs, so
    usearch first is safe there; a plain Python process is where the fence matters, above.)"""
    query = "r = %brain query where is the discount applied --mode vector\nprint(r.results[0].source)"
    done = execute([*cells, query, "import onnxruntime\nprint('alive')"], workspace)
    assert done[2].outputs[0]["text"].startswith("shop/")
    assert done[3].outputs[0]["text"] == "alive\n"


def test_a_server_in_an_indexed_workspace_loads_no_model_until_a_query(workspace):
    """It follows the disk from the start and answers ``status`` (the status bar asks on every page
    load) with the engine open but no model; the first query preloads it."""
    code = (
        server_started(workspace)
        + """
        import sys, time
        from agent_brain_lab.engine.types import QueryRequest
        follower, service = app_of.follower, app_of.service
        deadline = time.monotonic() + 120
        while follower.batcher is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert follower.batcher is not None, "the disk follower did not start"
        assert service.status()["state"] == "ready"
        time.sleep(1)  # a preload started by either would be importing the model by now
        print("before", "onnxruntime" in sys.modules, "fastembed" in sys.modules)
        service.query(QueryRequest.build({"query": "how is the discount computed"}))
        print("after", "onnxruntime" in sys.modules)
    """
    )
    done = run_python(code, cwd=workspace)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split("\n")
    assert "before False False" in lines, done.stdout
    assert "after True" in lines, done.stdout
