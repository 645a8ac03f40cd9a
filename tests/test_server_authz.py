"""Authorization: a user allowed to read but not to write (a custom ``Authorizer``, as JupyterHub
RBAC would configure) can query and watch, and gets a JSON 403 on every write."""

from __future__ import annotations

import functools
import json

import pytest
from jupyter_server.auth.authorizer import Authorizer
from test_server_support import call_api, on_server_loop

from agent_brain_lab import Brain
from agent_brain_lab.server.handlers import AUTH_RESOURCE

pytest_plugins = ["pytest_jupyter.jupyter_server"]

ASKED: list[tuple[str, str]] = []


class ReadOnlyAuthorizer(Authorizer):
    """Allows every action on other resources, and only "read" on agent-brain's."""

    def is_authorized(self, handler, user, action, resource) -> bool:
        if resource == AUTH_RESOURCE:
            ASKED.append((action, handler.request.method))
            return action == "read"
        return True


@pytest.fixture
def jp_server_config():
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}, "authorizer_class": ReadOnlyAuthorizer},
        "AgentBrain": {"auto_reindex_on_save": False},
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    """A workspace indexed beforehand (through the Python API), so reads have something to read."""
    root = tmp_path / "root_dir"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "cart.py").write_text(
        'class Cart:\n    """A shopping cart."""\n\n    def total(self):\n        return 0\n'
    )
    Brain(root).index()
    return root


@on_server_loop
async def test_read_only_user_reads_but_never_writes(jp_fetch, jp_root_dir):
    call = functools.partial(call_api, jp_fetch)

    ASKED.clear()
    reads = [
        ("POST", ("query",), json.dumps({"query": "shopping cart", "mode": mode}), None)
        for mode in ("vector", "bm25", "hybrid", "graph", "multi")
    ] + [
        ("GET", ("status",), None, None),
        ("GET", ("jobs",), None, None),
        ("GET", ("graph", "entity"), None, {"name": "Cart"}),
        ("GET", ("openapi.json",), None, None),
    ]
    for method, path, body, params in reads:
        code, payload = await call(method, *path, body=body, params=params)
        assert code == 200, (path, payload)

    writes = [
        ("POST", ("index",), "{}"),
        ("POST", ("index",), json.dumps({"path": "shop", "force": True})),
        ("DELETE", ("index",), None),
        ("DELETE", ("jobs", "0123456789ab"), None),
    ]
    for method, path, body in writes:
        code, err = await call(method, *path, body=body)
        assert code == 403, (method, path, err)
        assert set(err) == {"error", "message"} and err["error"] == "forbidden" and err["message"], err

    assert {action for action, _ in ASKED} == {"read", "write"}
    assert [method for action, method in ASKED if action == "write"] == ["POST", "POST", "DELETE", "DELETE"]
    # Nothing was written: no job, and the index is still there.
    assert (await call("GET", "jobs"))[1] == {"jobs": []}
    code, status = await call("GET", "status")
    assert status["state"] == "ready" and status["generation"] >= 1
