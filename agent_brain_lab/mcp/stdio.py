"""``agent-brain-lab mcp``: the tools on stdin/stdout, on the official ``mcp`` SDK, for terminal agents.

The tools act on a :class:`Brain` of this process. Like every reader it serves the generation
``CURRENT`` names, so it runs safely beside a Jupyter server and kernels on the same workspace;
an index run takes the writer lock like every other writer (another writer: ``WorkspaceBusy``).
stdout carries the protocol only: nothing else may print there.

The server is the SDK's low-level ``Server`` (in ``mcp`` 1.x, which jupyter-ai installs, and 2.x):
it lists the definitions of :mod:`.tools` as they are, and the tool layer checks the arguments. A
client that goes away (stdin closed, or its end of stdout) stops a running index run, which
commits nothing and releases the writer lock, and the server exits 0.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
import sys
import threading
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ..engine import Brain
from ..engine.types import BrainError, GraphRequest, IndexProgress, IndexReport, QueryRequest, QueryResponse
from .tools import INDEX_WAIT_S, INSTRUCTIONS, SERVER_NAME, TOOLS, BrainTools, to_json

# mcp 2 takes handlers in the constructor (on_list_tools=...); mcp 1 registers them with decorators.
_HANDLERS_IN_CONSTRUCTOR = "on_call_tool" in inspect.signature(Server.__init__).parameters


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

    async def graph(self, request: GraphRequest) -> dict[str, Any]:
        found = await asyncio.to_thread(self.brain.graph_entity, request)
        return found.to_dict()

    async def index(self, path: str) -> dict[str, Any]:
        joined = self._run is not None and not self._run.done()
        if not joined:
            if self._cancel.is_set():
                raise BrainError("the client has gone: no new index run")
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
        """Ask a running index to stop (it commits nothing and releases the lock): the client went away."""
        self._cancel.set()


def _server_version() -> str:
    try:
        return version("agent_brain_lab")
    except PackageNotFoundError:  # run from a source tree
        return "dev"


def build_server(tools: BrainTools) -> Server:
    """The low-level SDK server listing :data:`TOOLS` and answering calls through ``tools``."""
    listed = [types.Tool.model_validate(spec.listing()) for spec in TOOLS]

    async def call(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        try:
            answer = await tools.call(name, arguments)
        except BrainError as err:
            return types.CallToolResult.model_validate(
                {"content": [{"type": "text", "text": str(err)}], "isError": True}
            )
        return types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": to_json(answer)}], "structuredContent": answer, "isError": False}
        )

    if _HANDLERS_IN_CONSTRUCTOR:

        async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
            return types.ListToolsResult(tools=listed)

        async def on_call_tool(ctx: Any, params: Any) -> types.CallToolResult:
            return await call(params.name, params.arguments)

        return Server(
            SERVER_NAME,
            version=_server_version(),
            instructions=INSTRUCTIONS,
            on_list_tools=on_list_tools,  # type: ignore[call-arg, unused-ignore]
            on_call_tool=on_call_tool,  # type: ignore[call-arg, unused-ignore]
        )

    server = Server(SERVER_NAME, version=_server_version(), instructions=INSTRUCTIONS)

    async def list_tools() -> list[types.Tool]:
        return listed

    server.list_tools()(list_tools)  # type: ignore[attr-defined, unused-ignore]
    server.call_tool(validate_input=False)(call)  # type: ignore[attr-defined, unused-ignore]
    return server


def serve(root: Path) -> int:
    """Serve the brain of ``root`` until the client goes away; the exit status (0: the client left)."""
    backend = LocalBackend(Brain(root))
    # Load the model and graph while the client starts up, as the Jupyter server does: the first search is quicker.
    threading.Thread(target=_warm, args=(backend.brain,), name="agent-brain-warm", daemon=True).start()
    try:
        asyncio.run(_serve(backend))
    except BaseException as err:
        if not _client_gone(err):
            raise
    finally:
        backend.close()
    _silence_stdout()  # whatever is left in stdout's buffer has nobody to go to
    return 0


async def _serve(backend: LocalBackend) -> None:
    server = build_server(BrainTools(lambda: backend))
    # The client's reading end of stdout closing shows as an error condition on our end, which the
    # loop reports as "readable": it stops the running index run before any answer fails to go out.
    loop = asyncio.get_running_loop()
    watched = os.dup(sys.stdout.fileno())

    def stdout_gone() -> None:
        loop.remove_reader(watched)
        backend.close()

    loop.add_reader(watched, stdout_gone)
    try:
        await _serve_stdio(server, backend)
    finally:
        loop.remove_reader(watched)
        os.close(watched)


async def _serve_stdio(server: Server, backend: LocalBackend) -> None:
    async with stdio_server() as (client_in, client_out):
        # Relay the client's messages, to see the end of stdin at once (the SDK waits for running
        # calls to finish first): then the running index run is stopped, and its call returns.
        relay_in, server_in = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with relay_in, client_in:
                async for message in client_in:
                    await relay_in.send(message)
            backend.close()

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await server.run(server_in, client_out, server.create_initialization_options())
            group.cancel_scope.cancel()


def _client_gone(err: BaseException) -> bool:
    """Whether ``err`` (or every error of a group) says the client's end of the pipes is closed."""
    group = getattr(err, "exceptions", None)  # an exception group (Python 3.11+, or anyio's backport)
    if isinstance(group, tuple):
        return all(_client_gone(e) for e in group)
    return isinstance(
        err, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError, anyio.ClosedResourceError)
    )


def _silence_stdout() -> None:
    try:
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):
        pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _warm(brain: Brain) -> None:
    try:
        brain.warm()
    except BrainError:  # an unreadable index: the first tool call reports it
        pass
