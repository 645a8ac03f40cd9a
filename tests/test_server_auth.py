"""Every agent-brain route refuses a caller without credentials, and says nothing while refusing.

The routes are read from the running application, so a handler added later without
``@tornado.web.authenticated`` fails here. Run twice: with jupyter-server's own blanket check
(``allow_unauthenticated_access=False``) and without it, where only our decorators protect.
"""

from __future__ import annotations

import json
import re

import pytest
from test_server_support import on_server_loop
from tornado.routing import PathMatches, Router

from agent_brain_lab.server.handlers import BrainHandler

pytest_plugins = ["pytest_jupyter.jupyter_server"]

GROUP = re.compile(r"\(\?P<\w+>[^)]*\)")  # a route's named group, e.g. a job id
VERBS = ("get", "post", "put", "patch", "delete", "head")
REFUSED = (401, 403)
XSRF = "0123456789abcdef"  # a matching cookie/header pair gets past the XSRF check to the auth check


@pytest.fixture(params=[False, True], ids=["server-enforced", "decorators-only"])
def jp_server_config(request):
    return {
        "ServerApp": {
            "jpserver_extensions": {"agent_brain_lab": True},
            "allow_unauthenticated_access": request.param,
        }
    }


def brain_routes(router: Router):
    """(path regex matcher, handler class) for every route served by one of our handlers."""
    for rule in getattr(router, "rules", []):
        target = rule.target
        if isinstance(target, Router):
            yield from brain_routes(target)
        elif isinstance(target, type) and issubclass(target, BrainHandler):
            assert isinstance(rule.matcher, PathMatches)
            yield rule.matcher, target


def own_verbs(handler: type) -> list[str]:
    """HTTP verbs implemented by our classes (not inherited from jupyter-server)."""
    return [
        verb for verb in VERBS if any(verb in vars(cls) for cls in handler.__mro__ if issubclass(cls, BrainHandler))
    ]


@on_server_loop
async def test_every_route_refuses_anonymous_callers(jp_web_app, http_server_client, jp_fetch, jp_root_dir):
    routes = list(brain_routes(jp_web_app.default_router))
    assert len(routes) >= 6, routes  # query, index, jobs, jobs/{id}, status, graph/entity

    checked = 0
    for matcher, handler in routes:
        url = GROUP.sub("0123456789ab", matcher.regex.pattern).removesuffix("$")
        for verb in own_verbs(handler):
            response = await http_server_client.fetch(
                url + "?name=Cart",
                method=verb.upper(),
                body="{}" if verb in ("post", "put", "patch") else None,
                headers={"Cookie": f"_xsrf={XSRF}", "X-XSRFToken": XSRF},
                follow_redirects=False,
                raise_error=False,
            )
            checked += 1
            assert response.code in REFUSED, (verb, url, response.code, response.body)
            body = response.body.decode()
            assert str(jp_root_dir) not in body
            if body:
                payload = json.loads(body)
                assert set(payload) <= {"error", "message"}, payload
    assert checked >= 8

    # The refused POST /index started nothing.
    response = await jp_fetch("agent-brain", "jobs")
    assert json.loads(response.body) == {"jobs": []}
