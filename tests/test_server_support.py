"""Helpers shared by the server tests (no tests here)."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from typing import Any

from jupyter_core.utils import ensure_event_loop
from tornado.httpclient import HTTPClientError


def on_server_loop(test):
    """Run an async test on the loop the pytest-jupyter server runs on.

    With ``asyncio_mode = "auto"`` pytest-asyncio would run a bare ``async def`` test on a loop
    of its own, where every request to the server hangs; a plain function is left alone.
    """

    @functools.wraps(test)
    def run(**fixtures):
        ensure_event_loop(prefer_selector_loop=True).run_until_complete(test(**fixtures))

    return run


async def call_api(jp_fetch, method: str, *path: str, body: Any = None, params: Any = None) -> tuple[int, Any]:
    """One request to the extension's routes: (status, parsed JSON body), error responses included.

    ``body`` is a JSON value, or str/bytes sent as they are; a POST without one sends ``{}``.
    """
    kwargs: dict[str, Any] = {"method": method, "params": params}
    if method == "DELETE" and body is not None:
        kwargs["allow_nonstandard_methods"] = True  # tornado's client refuses a DELETE body otherwise
    if body is not None:
        kwargs["body"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
    elif method == "POST":
        kwargs["body"] = "{}"
    try:
        response = await jp_fetch("agent-brain", *path, **kwargs)
    except HTTPClientError as err:
        response = err.response
    return response.code, json.loads(response.body)


async def wait_for_job(api, job_id, statuses=("done", "failed", "cancelled"), timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        code, job = await api("GET", "jobs", job_id)
        assert code == 200
        if job["status"] in statuses:
            return job
        await asyncio.sleep(0.1)
    raise AssertionError(f"job {job_id} still {job['status']} after {timeout}s")


async def index_all(api):
    code, job = await api("POST", "index", body={"path": ""})
    assert code == 202, job
    job = await wait_for_job(api, job["job_id"])
    assert job["status"] == "done", job
    return job
