"""``agent-brain-lab mcp``: the tools on stdin/stdout, on the official ``mcp`` SDK, for terminal agents.

The tools act on a :class:`Brain` of this process. Like every reader it serves the generation
``CURRENT`` names, so it runs safely beside a Jupyter server and kernels on the same workspace;
an index run takes the writer lock like every other writer (another writer: ``WorkspaceBusy``).
stdout carries the protocol only: nothing else may print there.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ..engine import Brain
from ..engine.types import BrainError, IndexProgress, IndexReport, QueryRequest, QueryResponse
from .tools import INDEX_WAIT_S, READ_ONLY_TOOLS, TOOL_NAMES, BrainTools

INSTRUCTIONS = (
    "Long-term memory of one workspace (code, docs, notebooks): call workspace_status first, "
    "index_workspace if it is empty or stale, then search_workspace and explore_entity before reading files."
)


class LocalBackend:
    """The engine in this process: queries in worker threads, one index run at a time in the background."""

    def __init__(self, brain: Brain):
        self.brain = brain
        self._run: asyncio.Future[IndexReport] | None = None
        self._path = ""
        self._progress = IndexProgress(phase="pending")
        self._cancel = threading.Event()

    async def query(self, request: QueryRequest) -> QueryResponse:
        return await asyncio.to_thread(self.brain.query, request)

    async def status(self) -> dict[str, Any]:
        status = await asyncio.to_thread(self.brain.status)
        return {**status.to_dict(), "job": self._job()}

    async def graph(self, name: str, depth: int) -> dict[str, Any]:
        found = await asyncio.to_thread(self.brain.graph_entity, name, depth)
        return found.to_dict()

    async def index(self, path: str) -> dict[str, Any]:
        joined = self._run is not None and not self._run.done()
        if not joined:
            self.brain.relative_path(path)  # a path outside the workspace fails now, not in the run
            self._path, self._progress = path, IndexProgress(phase="pending")
            self._run = asyncio.ensure_future(
                asyncio.to_thread(self.brain.index, path=path, progress=self._record, cancel=self._cancel)
            )
        run = self._run
        assert run is not None
        await asyncio.wait({run}, timeout=INDEX_WAIT_S)
        if run.done():
            run.result()  # re-raises what the run failed with (busy, model change...): a tool error
        return {"joined": joined, **(self._job() or {})}

    def _record(self, progress: IndexProgress) -> None:
        self._progress = dataclasses.replace(progress)

    def _job(self) -> dict[str, Any] | None:
        """The current or last run in the shape of a server job's dict."""
        run = self._run
        if run is None:
            return None
        progress = self._progress
        job: dict[str, Any] = {
            "status": "running",
            "path": self._path,
            "phase": progress.phase,
            "files_done": progress.files_done,
            "files_total": progress.files_total,
            "current_file": progress.current_file,
        }
        if run.done():
            error = run.exception()
            if error is None:
                job.update(status="done", phase="done", report=run.result().to_dict())
            else:
                job.update(status="failed", error=f"{getattr(error, 'code', 'error')}: {error}")
        return job

    def close(self) -> None:
        """Ask a running index to stop (it commits nothing): the client went away."""
        self._cancel.set()


def build_server(backend: LocalBackend) -> MCPServer:
    server: MCPServer = MCPServer("agent-brain-lab", instructions=INSTRUCTIONS, log_level="WARNING")
    tools = BrainTools(lambda: backend, ToolError)
    for name in TOOL_NAMES:
        read_only = name in READ_ONLY_TOOLS
        hints = ToolAnnotations(read_only_hint=read_only, idempotent_hint=True, open_world_hint=False)
        server.add_tool(getattr(tools, name), annotations=hints)
    return server


def serve(root: Path) -> int:
    """Serve the brain of ``root`` until the client closes stdin; the exit status."""
    backend = LocalBackend(Brain(root))
    # Load the model and graph while the client starts up, as the Jupyter server does: the first search is quicker.
    threading.Thread(target=_warm, args=(backend.brain,), name="agent-brain-warm", daemon=True).start()
    try:
        asyncio.run(build_server(backend).run_stdio_async())
    finally:
        backend.close()
    return 0


def _warm(brain: Brain) -> None:
    try:
        brain.warm()
    except BrainError:  # an unreadable index: the first tool call reports it
        pass
