"""The tools inside a Jupyter server, for ``jupyter-server-mcp`` (the MCP server jupyter-ai takes tools from).

``jupyter-server-mcp`` finds :func:`tool_specs` under the ``jupyter_server_mcp.tools`` entry point,
imports the functions it names and serves them over streamable HTTP from the Jupyter server's
own process and event loop. It passes the tools no context, so each call looks up the running
server (the ``ServerApp`` singleton, the same object every Jupyter extension runs in) and its
:class:`BrainService` where the REST routes find it: the tools answer from the server's brain
and index through its job queue.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastmcp.exceptions import ToolError  # jupyter-server-mcp serves its tools with FastMCP
from jupyter_server.serverapp import ServerApp

from ..engine.types import BrainError, IndexCancelled, QueryRequest, QueryResponse
from ..server.handlers import SETTINGS_KEY
from ..server.jobs import ACTIVE
from ..server.service import BrainService
from .tools import INDEX_WAIT_S, TOOL_NAMES, BrainTools

JOB_POLL_S = 0.25


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

    async def graph(self, name: str, depth: int) -> dict[str, Any]:
        found = await self.service.run(self.service.brain.graph_entity, name, depth)
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


_tools = BrainTools(lambda: ServiceBackend(server_service()), ToolError)
search_workspace = _tools.search_workspace
workspace_status = _tools.workspace_status
explore_entity = _tools.explore_entity
index_workspace = _tools.index_workspace


def tool_specs() -> list[str]:
    """The ``jupyter_server_mcp.tools`` entry point: the tools as ``module:function`` strings."""
    return [f"{__name__}:{name}" for name in TOOL_NAMES]
