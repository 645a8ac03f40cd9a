"""Schemathesis against a live ``jupyter server`` with the extension, driven by the served OpenAPI
description: valid and invalid inputs for every operation, a fixed seed and a bounded number of
examples. No response may be a 5xx, every error must be a JSON object with error and message, and
every answer must match the schema the document gives its status code.

``DELETE index`` is left out: it would only make every later query a 503 (it has its own tests).
"""

from __future__ import annotations

import json
import time

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402

from benchmarks.rest import JupyterServer  # noqa: E402

EXAMPLES = 30  # per operation and generation mode
SEED = 20261122
SKIPPED = {("DELETE", "/agent-brain/index")}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz") / "workspace"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "zebra.md").write_text("# Zebras\n\nZebra stripes confuse flies.\n")
    (root / "shop.py").write_text('class Cart:\n    """A cart."""\n\n    def total(self):\n        return 0\n')
    with JupyterServer(root) as live:
        status, job = live.request("POST", "/agent-brain/index", {})
        assert status == 202, job
        deadline = time.monotonic() + 300
        while live.request("GET", f"/agent-brain/jobs/{job['id']}")[1]["status"] in ("pending", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        yield live


def test_no_5xx_and_json_errors_on_every_operation(server):
    base = f"http://127.0.0.1:{server.port}"
    headers = {"Authorization": f"token {server.token}"}
    code, served = server.request("GET", "/agent-brain/openapi.json")
    assert code == 200
    schema = schemathesis.openapi.from_dict(served)  # from_url would leave out the description's own route
    tried, server_errors, not_json, nonconforming = 0, [], [], []

    def check(case) -> None:
        nonlocal tried
        response = case.call(base_url=base, headers=headers, timeout=60)
        tried += 1
        label = (case.method, case.formatted_path, case.query, case.body, response.status_code)
        if response.status_code >= 500:
            server_errors.append(label)
        try:  # every answer as the document describes it (no undocumented key: tests/test_contract.py)
            case.validate_response(response, checks=[schemathesis.checks.response_schema_conformance])
        except (AssertionError, FailureGroup) as failure:
            nonconforming.append((*label, str(failure)[:400]))
        if response.status_code >= 400:
            try:
                body = json.loads(response.content)
            except ValueError:
                body = None
            if not (isinstance(body, dict) and body.get("error") and body.get("message")):
                not_json.append((*label, response.content[:200]))

    operations = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in SKIPPED:
            continue
        operations.append(f"{operation.method.upper()} {operation.path}")
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):

            @seed(SEED)
            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(generation_mode=mode))
            def run(case) -> None:
                check(case)

            try:
                run()
            except Unsatisfiable:  # e.g. no invalid input exists for a route without parameters
                pass

    print(f"\nschemathesis: {len(operations)} operations, {tried} inputs tried, {len(server_errors)} 5xx: {operations}")
    assert len(operations) == 8, operations
    assert tried >= len(operations) * EXAMPLES
    assert server_errors == []
    assert not_json == []
    assert nonconforming == []
