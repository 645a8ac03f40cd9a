"""The REST contract: generated from the engine's types, true of what a real server answers, and the
same as the README's route table.

``server/openapi.json`` and ``src/contract.ts`` are written by ``server/contract.py``; here a real
jupyter server with the extension indexes a small workspace and every route's answers (successes and
the main errors) are validated against the document, whose objects allow no undocumented key.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4
from test_server_support import call_api, on_server_loop, wait_for_job

from agent_brain_lab.engine.types import GraphRequest, IndexRequest, Phase, QueryRequest, ResetRequest, StatusRequest
from agent_brain_lab.server import contract
from agent_brain_lab.server.handlers import GRAPH_QUERY, OPENAPI_FILE, ROUTES, STATUS_QUERY

pytest_plugins = ["pytest_jupyter.jupyter_server"]

README = Path(__file__).parents[1] / "README.md"
DOC = json.loads(OPENAPI_FILE.read_text())


# --------------------------------------------------------------------------- generated, not written


def test_generated_files_are_current():
    stale = [str(p.relative_to(contract.REPO)) for p in contract.stale()]
    assert not stale, f"{', '.join(stale)} differ from the engine's types: run `{contract.REGENERATE}` and commit"


def test_the_document_is_valid_openapi():
    from openapi_spec_validator import validate

    validate(contract.document())


def test_a_field_without_a_description_is_refused():
    from dataclasses import dataclass

    @dataclass
    class Undescribed:
        count: int

    with pytest.raises(contract.ContractError, match=r"Undescribed\.count has no description.*--write"):
        contract._Schemas().ref(Undescribed)


def test_every_route_is_described():
    described = {p.removeprefix("/agent-brain/") for p in DOC["paths"]}
    served = {re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", pattern) for pattern, _ in ROUTES if pattern != r".*"}
    assert described == served


def test_request_schemas_are_the_validators_fields():
    schemas = DOC["components"]["schemas"]
    for name, cls in (("QueryRequest", QueryRequest), ("IndexRequest", IndexRequest), ("ResetRequest", ResetRequest)):
        assert list(schemas[name]["properties"]) == list(cls.PARAMS), name
        assert schemas[name]["additionalProperties"] is False
    parameters = {
        path: [p["name"] for p in op["parameters"]]
        for path, item in DOC["paths"].items()
        for method, op in item.items()
        if method == "get" and "parameters" in op
    }
    assert parameters == {"/agent-brain/status": list(STATUS_QUERY), "/agent-brain/graph/entity": list(GRAPH_QUERY)}
    # a query's dataclass fields are exactly what the validator takes (none it cannot set, none unknown)
    assert list(QueryRequest.PARAMS) == [f.name for f in dataclasses.fields(QueryRequest)]


@pytest.mark.parametrize("cls", [QueryRequest, IndexRequest, GraphRequest])
def test_the_documented_ranges_are_the_validators(cls):
    """At each documented bound the validator accepts, one past it refuses (the bounds are read from the
    same PARAMS, so this guards the reading, not a copy)."""
    base = {"query": "x"} if cls is QueryRequest else {"name": "x"} if cls is GraphRequest else {}
    for name, param in cls.PARAMS.items():
        if param.low is None:
            continue
        step = 1 if isinstance(param.low, int) else 0.5
        if cls is IndexRequest and name == "chunk_overlap":
            base = {"chunk_size": param.high + 1}
        for value in (param.low, param.high):
            cls.build({**base, name: value})
        for value in (param.low - step, param.high + step):
            with pytest.raises(ValueError, match=name):
                cls.build({**base, name: value})


def test_the_typescript_types_name_every_phase_and_state():
    ts = (contract.REPO / "src" / "contract.ts").read_text()
    phases = ts[ts.index("export const PHASES = [") :].split("] as const;")[0]
    assert re.findall(r"'(\w+)'", phases) == list(get_args(Phase))
    assert "  phase: Phase;" in ts
    assert "  state: IndexState;" in ts


# --------------------------------------------------------------------------- the README's route table


def readme_request_fields() -> dict[str, list[str]]:
    """route -> the request fields the README's REST table lists in its "request" column (the
    backquoted names outside parentheses)."""
    text = README.read_text()
    table = text[text.index("| route | request | answers |") :].split("\n\n", 1)[0]
    found: dict[str, list[str]] = {}
    for row in table.splitlines()[2:]:
        route, request, _answers = (cell.strip() for cell in row.strip("|").split("|")[:3])
        found[route.strip("`")] = re.findall(r"`([a-z_]+)`", re.sub(r"\([^()]*\)", "", request))  # not (notes)
    return found


def test_the_readme_documents_every_request_field_the_validator_takes():
    assert readme_request_fields() == {
        "POST query": list(QueryRequest.PARAMS),
        "POST index": list(IndexRequest.PARAMS),
        "DELETE index": list(ResetRequest.PARAMS),
        "GET status": list(STATUS_QUERY),
        "GET graph/entity": list(GraphRequest.PARAMS),
        "GET jobs": [],
        "GET/DELETE jobs/{id}": [],
        "GET openapi.json": [],
    }
    assert set(STATUS_QUERY) <= set(StatusRequest.PARAMS)


def test_the_readme_offers_no_index_setting_the_validator_refuses():
    """The configuration table names the settings `POST index` takes: each one a field of its body."""
    text = README.read_text()
    rows = [row for row in text[text.index("| setting | where | default |") :].split("\n\n")[0].splitlines()]
    offered = [
        name
        for row in rows
        if "`POST index`" in row.split("|")[2]
        for name in (n.strip() for n in row.split("|")[1].split(","))
    ]
    assert offered and set(offered) <= set(IndexRequest.PARAMS), offered


# --------------------------------------------------------------------------- real answers


REGISTRY = Registry().with_resource("urn:openapi", Resource.from_contents(DOC, default_specification=DRAFT4))
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Receipts\n", "How a receipt is printed."]},
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ["from shop import Cart\n", "print(Cart().total())\n"],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture
def jp_server_config():
    return {
        "ServerApp": {"jpserver_extensions": {"agent_brain_lab": True}},
        "AgentBrain": {"max_file_bytes": 4000, "watch": False},
    }


@pytest.fixture
def jp_root_dir(tmp_path):
    root = tmp_path / "root_dir"
    (root / "docs").mkdir(parents=True)
    (root / "shop.py").write_text(
        'class Cart:\n    """A shopping cart."""\n\n    def total(self):\n        return sum(self.prices())\n\n'
        "    def prices(self):\n        return [1, 2]\n\n\ndef checkout(cart: Cart) -> int:\n    return cart.total()\n"
    )
    (root / "docs" / "guide.md").write_text("# Guide\n\n## Checkout\n\nThe cart total is computed at checkout.\n")
    (root / "docs" / "huge.md").write_text("# Huge\n\n" + "words " * 1000)  # over max_file_bytes: skipped
    (root / "receipts.ipynb").write_text(json.dumps(NOTEBOOK))
    return root


class Conformance:
    """Calls routes and validates each answer against the document's schema for its route, method and
    status code (which must be documented); remembers which operations and codes were seen."""

    def __init__(self, jp_fetch):
        self.jp_fetch = jp_fetch
        self.seen: set[tuple[str, str, str]] = set()

    async def __call__(self, method: str, *path: str, body: Any = None, params: Any = None) -> tuple[int, Any]:
        route = "/".join(path)
        code, answer = await call_api(self.jp_fetch, method, route, body=body, params=params)
        template = re.sub(r"^jobs/[^/]+$", "jobs/{job_id}", route)
        operation = DOC["paths"][f"/agent-brain/{template}"][method.lower()]
        assert str(code) in operation["responses"], f"{method} {route} answered {code}, undocumented: {answer}"
        schema = operation["responses"][str(code)]["content"]["application/json"]["schema"]
        ref = {"$ref": "urn:openapi" + schema["$ref"]}
        errors = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message} {[c.message for c in e.context]}"
            for e in validator(ref).iter_errors(answer)
        ]
        assert not errors, f"{method} {route} {code} does not match the document: {errors}"
        self.seen.add((template, method.lower(), str(code)))
        return code, answer


def validator(schema: dict[str, Any]) -> OAS30Validator:
    return OAS30Validator(schema, registry=REGISTRY)


@on_server_loop
async def test_every_route_answers_as_the_document_says(jp_fetch):
    call = Conformance(jp_fetch)

    code, status = await call("GET", "status")
    assert code == 200 and status["state"] == "empty"
    assert (await call("POST", "query", body={"query": "cart"}))[0] == 503
    assert (await call("GET", "graph/entity", params={"name": "Cart"}))[0] == 503
    assert (await call("POST", "index", body={"bm25_k1": 1.5}))[0] == 400

    code, started = await call("POST", "index", body={})
    assert code == 202
    await call("GET", f"jobs/{started['job_id']}")
    await call("GET", "status")  # while the job is pending or running
    await call("POST", "index", body={})  # 409 while it runs, else a second job: both documented
    done = await wait_for_job(call, started["job_id"])
    assert done["status"] == "done" and done["report"]["skipped"] == done["skipped"] != []
    await wait_for_job(call, (await call("GET", "jobs"))[1]["jobs"][0]["id"])

    code, status = await call("GET", "status", params={"skipped": "all"})
    assert code == 200 and status["state"] == "ready" and status["skipped_total"] == 1
    for mode in ("vector", "bm25", "hybrid", "graph", "multi"):
        code, response = await call("POST", "query", body={"query": "Cart total", "mode": mode, "top_k": 5})
        assert code == 200 and response["results"], mode
        assert ("coverage" in response) == (mode in ("vector", "hybrid", "multi")), mode  # graph: found Cart
    code, response = await call(
        "POST",
        "query",
        body={"query": "receipt", "mode": "bm25", "source_types": "notebook", "file_paths": ["*.ipynb"]},
    )
    assert code == 200 and response["results"][0]["cell_index"] is not None
    code, graph = await call("GET", "graph/entity", params={"name": "Cart", "depth": "2"})
    assert code == 200 and graph["nodes"] and graph["edges"] and graph["chunks"]
    await call("GET", "graph/entity", params={"name": "Cart", "per_relation": "0", "all_relations": "true"})
    await call("GET", "openapi.json")

    await call("DELETE", f"jobs/{started['job_id']}")  # finished: stays as it is
    assert (await call("GET", "jobs/nosuchjob"))[0] == 404
    assert (await call("DELETE", "jobs/nosuchjob"))[0] == 404
    assert (await call("POST", "query", body={"query": " "}))[0] == 400
    assert (await call("GET", "status", params={"skipped": "some"}))[0] == 400
    assert (await call("GET", "graph/entity", params={"name": "Cart", "depth": "9"}))[0] == 400
    assert (await call("DELETE", "index", body={"drop_cache": "yes"}))[0] == 400
    code, reset = await call("DELETE", "index", body={})
    assert code == 200 and reset["status"] == "reset"
    assert (await call("GET", "status"))[1]["state"] == "empty"

    operations = {
        (p.removeprefix("/agent-brain/"), m) for p, item in DOC["paths"].items() for m in item if m != "parameters"
    }
    assert operations == {(path, method) for path, method, _code in call.seen}, "a route left untested"
    successes = {
        (p.removeprefix("/agent-brain/"), m, c)
        for p, item in DOC["paths"].items()
        for m, op in item.items()
        if m != "parameters"
        for c in op["responses"]
        if c.startswith("2")
    }
    assert successes <= call.seen
