"""The tools inside a Jupyter server, for ``jupyter-server-mcp`` (the MCP server jupyter-ai takes tools from).

``jupyter-server-mcp`` finds :func:`tool_specs` under the ``jupyter_server_mcp.tools`` entry point,
imports the functions it names and serves them with FastMCP over streamable HTTP from the Jupyter
server's own process and event loop. It passes the tools no context, so each call looks up the
running server (the ``ServerApp`` singleton, the same object every Jupyter extension runs in) and
its :class:`BrainService` where the REST routes find it: the tools answer from the server's brain
and index through its job queue.

FastMCP derives a tool from a function's signature; it cannot be given annotations or a schema
through ``jupyter-server-mcp``. So the functions below are built from the definitions in
:mod:`.tools` (each argument's schema attached to its parameter), and :func:`tool_specs` adds
:class:`ToolContract` to the FastMCP server that discovers them: it lists our tools exactly as
defined (schema, annotations) and refuses undeclared arguments with the tool layer's message.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastmcp.exceptions import ToolError  # jupyter-server-mcp serves its tools with FastMCP
from fastmcp.server.middleware import Middleware
from jupyter_server.serverapp import ServerApp
from mcp.types import ToolAnnotations
from pydantic import WithJsonSchema

from ..engine.types import BrainError, GraphRequest, IndexCancelled, QueryRequest, QueryResponse
from ..server.handlers import SETTINGS_KEY
from ..server.jobs import ACTIVE
from ..server.service import BrainService
from .tools import INDEX_WAIT_S, OUTPUT_SCHEMA, SPECS, TOOL_NAMES, BrainTools, ToolSpec

JOB_POLL_S = 0.25
log = logging.getLogger(__name__)


def server_service() -> BrainService:
    """The BrainService of the Jupyter server running in this process."""
    if not ServerApp.initialized():
        raise BrainError("no Jupyter server runs in this process")
    service = ServerApp.instance().web_app.settings.get(SETTINGS_KEY)
    if service is None:
        raise BrainError("the agent_brain_lab server extension is not enabled in this Jupyter server")
    return service


class ServiceBackend:
    """The tools' engine work on the server's service: its query threads and its index jobs."""

    def __init__(self, service: BrainService):
        self.service = service

    async def query(self, request: QueryRequest) -> QueryResponse:
        return await self.service.run(self.service.brain.query, request)

    async def status(self) -> dict[str, Any]:
        status = await self.service.run(self.service.status)
        if status["job"] is None:  # no job active: the last one tells how indexing went
            recent = self.service.jobs.list()
            status["job"] = recent[0].to_dict() if recent else None
        return status

    async def graph(self, request: GraphRequest) -> dict[str, Any]:
        found = await self.service.run(self.service.brain.graph_entity, request)
        return found.to_dict()

    async def index(self, path: str) -> dict[str, Any]:
        """Join the server's active job, or start one as ``POST /index`` does; wait for it a while."""
        job = self.service.jobs.active()
        joined = job is not None
        if job is None:
            job = self.service.start_index({"path": path})
        deadline = asyncio.get_running_loop().time() + INDEX_WAIT_S
        while job.status in ACTIVE and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(JOB_POLL_S)
        if job.status == "failed":
            raise BrainError(job.error or f"index job {job.id} failed")
        if job.status == "cancelled":
            raise IndexCancelled(f"index job {job.id} was cancelled")
        return {"joined": joined, **job.to_dict()}


_tools = BrainTools(lambda: ServiceBackend(server_service()))


def _function(spec: ToolSpec) -> Callable[..., Awaitable[dict[str, Any]]]:
    """``spec`` as the async function FastMCP registers: its parameters carry the arguments' schemas.

    Every parameter has a default (None: the validator's default), so a missing or ill-typed value
    reaches the shared validator and comes back with its message, not FastMCP's."""

    async def tool(**arguments: Any) -> dict[str, Any]:
        given = {key: value for key, value in arguments.items() if value is not None}
        try:
            return await _tools.call(spec.name, given)
        except BrainError as err:
            raise ToolError(str(err)) from None

    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[Any, WithJsonSchema(dict(schema))],
        )
        for name, schema in spec.properties.items()
    ]
    tool.__name__ = tool.__qualname__ = spec.name
    tool.__module__ = __name__
    tool.__doc__ = spec.description
    tool.__signature__ = inspect.Signature(parameters, return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": dict[str, Any]}
    return tool


search_workspace = _function(SPECS["search_workspace"])
workspace_status = _function(SPECS["workspace_status"])
explore_entity = _function(SPECS["explore_entity"])
index_workspace = _function(SPECS["index_workspace"])


class ToolContract(Middleware):
    """Our tools listed exactly as :mod:`.tools` defines them, and undeclared arguments refused."""

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        listed = await call_next(context)
        return [_as_defined(tool) if tool.name in SPECS else tool for tool in listed]

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        spec = SPECS.get(context.message.name)
        if spec is not None:
            try:
                spec.arguments(context.message.arguments)
            except BrainError as err:
                raise ToolError(str(err)) from None
        return await call_next(context)


def _as_defined(tool: Any) -> Any:
    spec = SPECS[tool.name]
    return tool.model_copy(
        update={
            "title": spec.title,
            "description": spec.description,
            "parameters": spec.input_schema,
            "output_schema": dict(OUTPUT_SCHEMA),
            "annotations": ToolAnnotations.model_validate(spec.annotations),
        }
    )


def tool_specs() -> list[str]:
    """The ``jupyter_server_mcp.tools`` entry point: the tools as ``module:function`` strings.

    ``jupyter-server-mcp`` calls it while it sets up its FastMCP server (``mcp_server_instance``),
    before it registers the functions: :class:`ToolContract` joins that server here."""
    for app in _mcp_extension_apps():
        fastmcp = getattr(getattr(app, "mcp_server_instance", None), "mcp", None)
        if fastmcp is None or not hasattr(fastmcp, "add_middleware"):
            log.warning("agent_brain_lab: jupyter-server-mcp has no FastMCP server to add the tool contract to")
        elif not any(isinstance(m, ToolContract) for m in getattr(fastmcp, "middleware", [])):
            fastmcp.add_middleware(ToolContract())
    return [f"{__name__}:{name}" for name in TOOL_NAMES]


def _mcp_extension_apps() -> list[Any]:
    if not ServerApp.initialized():
        return []
    manager = getattr(ServerApp.instance(), "extension_manager", None)
    apps = getattr(manager, "extension_apps", {}) or {}
    return list(apps.get("jupyter_server_mcp", ()))
