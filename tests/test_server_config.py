"""``c.AgentBrain.*`` options reach the engine, and a broken setup answers instead of vanishing."""

from __future__ import annotations

import asyncio
import json

import pytest
from test_server_support import on_server_loop
from tornado.httpclient import HTTPClientError

pytest_plugins = ["pytest_jupyter.jupyter_server"]

EXTENSION = {"jpserver_extensions": {"agent_brain_lab": True}}


@pytest.fixture
def jp_server_config(request):
    return {"ServerApp": EXTENSION, "AgentBrain": {"reindex_delay": 0.1, **request.param}}


@pytest.fixture
def jp_root_dir(tmp_path):
    """A server root holding a project folder (it must exist before the server starts)."""
    project = tmp_path / "root_dir" / "project"
    (project / "private").mkdir(parents=True)
    (project / "guide.md").write_text("# Guide\n\nFeed the pelicans at noon.\n")
    (project / "private" / "diary.md").write_text("# Diary\n\nThe pelicans bit me.\n")
    (project / "birds.py").write_text("class Pelican:\n    def fly(self):\n        return 'up'\n")
    (tmp_path / "root_dir" / "outside.md").write_text("# Outside\n\nPelicans everywhere.\n")
    return tmp_path / "root_dir"


async def fetch_json(jp_fetch, *path, **kwargs):
    try:
        response = await jp_fetch("agent-brain", *path, **kwargs)
    except HTTPClientError as err:
        response = err.response
    return response.code, json.loads(response.body)


@pytest.mark.parametrize("jp_server_config", [{"model_path": "/no/such/model"}], indirect=True)
@on_server_loop
async def test_unusable_model_answers_503_and_saving_still_works(jp_fetch, jp_root_dir):
    for path, kwargs in [
        (("status",), {}),
        (("index",), {"method": "POST", "body": "{}"}),
        (("query",), {"method": "POST", "body": '{"query": "x"}'}),
    ]:
        code, err = await fetch_json(jp_fetch, *path, **kwargs)
        assert (code, err["error"]) == (503, "model_unavailable"), path
        assert "/no/such/model" in err["message"]
    model = {"type": "file", "format": "text", "content": "still saved\n"}
    response = await jp_fetch("api", "contents", "note.md", method="PUT", body=json.dumps(model))
    assert response.code == 201
    assert (jp_root_dir / "note.md").read_text() == "still saved\n"


@pytest.mark.parametrize(
    "jp_server_config", [{"root": "project", "exclude": ["private/**"], "graph_enabled": False}], indirect=True
)
@on_server_loop
async def test_root_and_exclude_options(jp_fetch, jp_root_dir):
    project = jp_root_dir / "project"
    code, status = await fetch_json(jp_fetch, "status")
    assert code == 200 and status["root"] == str(project.resolve())

    code, job = await fetch_json(jp_fetch, "index", method="POST", body="{}")
    assert code == 202
    while job["status"] in ("pending", "running"):
        await asyncio.sleep(0.1)
        code, job = await fetch_json(jp_fetch, "jobs", job["id"])
    assert job["status"] == "done", job

    code, response = await fetch_json(jp_fetch, "query", method="POST", body='{"query": "pelicans", "mode": "bm25"}')
    assert code == 200
    assert {r["source"] for r in response["results"]} <= {"guide.md", "birds.py"}
    assert "guide.md" in {r["source"] for r in response["results"]}
    code, status = await fetch_json(jp_fetch, "status")
    assert status["files"]["total"] == 2
    assert status["graph"]["entities"] == 0  # graph_enabled = False reached the engine (birds.py has a class)
