"""REST handlers under ``{base_url}agent-brain/`` (contract: the README's REST section).

Handlers call the engine and let its :class:`BrainError`s propagate; :class:`BrainHandler`
turns every error into ``{"error", "message", "field"?, "job_id"?}`` in one place. The routes
are described by ``openapi.json`` beside this file (served at ``agent-brain/openapi.json``), which
``server/contract.py`` generates from the engine's types.
"""

from __future__ import annotations

import json
from http.client import responses
from pathlib import Path
from types import TracebackType
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..engine.types import (
    NOT_TEXT,
    BrainError,
    DiskFull,
    GraphRequest,
    IndexCancelled,
    IndexProblem,
    InvalidRequest,
    ModelMismatch,
    ModelUnavailable,
    NotIndexed,
    QueryRequest,
    ResetRequest,
    StatusRequest,
    WorkspaceBusy,
)
from .jobs import Job, StartedJob
from .service import BrainService

SETTINGS_KEY = "agent_brain"
NAMESPACE = "agent-brain"
AUTH_RESOURCE = "agent_brain"  # what an Authorizer is asked about
READ, WRITE = "read", "write"
MAX_BODY_BYTES = 256 * 1024
MAX_BODY_DEPTH = 8  # the deepest valid body is 2 (an object holding lists of strings)
OPENAPI_FILE = Path(__file__).with_name("openapi.json")  # written by server/contract.py
STATUS_QUERY = ("skipped",)  # the query-string fields of GET status (StatusRequest)
GRAPH_QUERY = tuple(GraphRequest.PARAMS)  # of GET graph/entity

# Most specific first: the first matching class decides the HTTP status.
ERROR_STATUS: tuple[tuple[type[BrainError], int], ...] = (
    (InvalidRequest, 400),
    (NotIndexed, 503),
    (ModelUnavailable, 503),
    (DiskFull, 507),  # Insufficient Storage
    (IndexProblem, 503),  # index_corrupt, index_newer, read_only, no_access, io_error, not_a_folder
    (WorkspaceBusy, 409),
    (ModelMismatch, 409),
    (IndexCancelled, 409),
    (BrainError, 500),
)


def error_status(err: BrainError) -> int:
    return next(status for cls, status in ERROR_STATUS if isinstance(err, cls))


class BrainHandler(APIHandler):
    """Base of every route: the service, JSON in/out, authorization and the one error mapping.

    Every verb is ``@web.authenticated`` then ``@authorized(READ|WRITE)``: jupyter-server's
    Authorizer (JupyterHub RBAC, a custom ``ServerApp.authorizer_class``) decides per action.
    """

    auth_resource = AUTH_RESOURCE

    @property
    def service(self) -> BrainService:
        return self.settings[SETTINGS_KEY]

    def json_body(self) -> Any:
        return parse_json_body(self.request.body)

    def reply(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(json.dumps(data))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        err = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(err, BrainError):
            self.set_status(error_status(err))
            body = err.to_dict()
            self._user_state_error = isinstance(err, NotIndexed)
        elif err is None or isinstance(err, web.HTTPError):  # auth, XSRF, 404, 405, ...
            reason = getattr(err, "reason", None) or responses.get(status_code, "error")
            body = {"error": _snake(reason), "message": getattr(err, "log_message", None) or reason}
        else:  # a bug: details stay in the server log, never in the response
            body = {"error": "internal_error", "message": "internal server error; see the server log"}
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body))

    def _log(self) -> None:
        """The access log line. A 503 for a workspace nobody indexed yet is a state the user fixes
        with one click, not a server error: one line at info level, without the request headers
        jupyter-server adds to every 5xx."""
        if getattr(self, "_user_state_error", False):
            request = self.request
            self.log.info(
                "%d %s %s (%.2fms): not indexed yet",
                self.get_status(),
                request.method,
                request.path,
                1000.0 * request.request_time(),
            )
            return
        super()._log()

    def log_exception(
        self, typ: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if isinstance(value, BrainError):  # an expected, user-facing error: no traceback in the log
            self.log.info("agent-brain %s %s: %s", self.request.method, self.request.path, value)
        else:
            super().log_exception(typ, value, tb)


def parse_json_body(raw: bytes) -> Any:
    """A request body as JSON; ``InvalidRequest("body")`` when too large, too deep or not JSON.

    (Whether it is an object is the engine's check, with the fields.)
    """
    if not raw:
        return {}
    if len(raw) > MAX_BODY_BYTES:
        raise InvalidRequest("body", f"must be at most {MAX_BODY_BYTES} bytes")
    try:
        body = json.loads(raw)
    except RecursionError:  # the C decoder guards its recursion: far too deep
        body = None
        too_deep = True
    except ValueError:  # bad UTF-8 or JSON; numbers past int's digit limit
        raise InvalidRequest("body", "is not valid JSON") from None
    else:
        too_deep = json_depth(body) > MAX_BODY_DEPTH
    if too_deep:
        raise InvalidRequest("body", f"must not nest deeper than {MAX_BODY_DEPTH} levels")
    return body


def query_fields(arguments: dict[str, list[bytes]], names: tuple[str, ...]) -> dict[str, str | None]:
    """Query-string fields as the client sent them, for the validator: tornado's ``get_argument``
    would turn NUL and control characters into spaces first. The last value of each, strict UTF-8
    (encoded surrogates included): anything else is ``InvalidRequest`` naming the field."""
    fields: dict[str, str | None] = {}
    for name in names:
        values = arguments.get(name)
        try:
            fields[name] = values[-1].decode("utf-8") if values else None
        except UnicodeDecodeError:
            raise InvalidRequest(name, NOT_TEXT) from None
    return fields


def json_depth(value: Any) -> int:
    """Deepest nesting of lists/objects in parsed JSON, walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _snake(reason: str) -> str:
    return reason.strip().lower().replace(" ", "_").replace("-", "_")


class QueryHandler(BrainHandler):
    @web.authenticated
    @authorized(READ)
    async def post(self) -> None:
        request = QueryRequest.build(self.json_body())
        response = await self.service.run(self.service.query, request)
        self.reply(response.to_dict())


class IndexHandler(BrainHandler):
    @web.authenticated
    @authorized(WRITE)
    async def post(self) -> None:
        job = self.service.start_index(self.json_body())
        started: StartedJob = {"job_id": job.id, **job.to_dict()}
        self.reply(started, status=202)

    @web.authenticated
    @authorized(WRITE)
    async def delete(self) -> None:
        request = ResetRequest.build(self.json_body())
        self.reply(await self.service.run(self.service.reset, drop_cache=request.drop_cache))


class JobsHandler(BrainHandler):
    @web.authenticated
    @authorized(READ)
    async def get(self) -> None:
        self.reply({"jobs": [job.to_dict() for job in self.service.jobs.list()]})


class JobHandler(BrainHandler):
    @web.authenticated
    @authorized(READ)
    async def get(self, job_id: str) -> None:
        self._reply_job(job_id, self.service.jobs.get(job_id))

    @web.authenticated
    @authorized(WRITE)
    async def delete(self, job_id: str) -> None:
        self._reply_job(job_id, self.service.jobs.cancel(job_id))

    def _reply_job(self, job_id: str, job: Job | None) -> None:
        if job is None:
            raise web.HTTPError(404, f"no job {job_id!r}", reason="Not Found")
        self.reply(job.to_dict())


class StatusHandler(BrainHandler):
    @web.authenticated
    @authorized(READ)
    async def get(self) -> None:
        request = StatusRequest.build(query_fields(self.request.query_arguments, STATUS_QUERY))
        self.reply(await self.service.run_status(self.service.status, request))


class GraphEntityHandler(BrainHandler):
    @web.authenticated
    @authorized(READ)
    async def get(self) -> None:
        request = GraphRequest.build(query_fields(self.request.query_arguments, GRAPH_QUERY))
        graph = await self.service.run(self.service.graph_entity, request)
        self.reply(graph.to_dict())


class OpenAPIHandler(BrainHandler):
    """The OpenAPI 3 description of these routes, with this server's base URL."""

    @web.authenticated
    @authorized(READ)
    async def get(self) -> None:
        spec = json.loads(OPENAPI_FILE.read_text())
        spec["servers"] = [{"url": self.base_url.rstrip("/") or "/"}]
        self.reply(spec)


class NotFoundHandler(BrainHandler):
    """Anything else under ``agent-brain/``: a JSON 404 like every other error of these routes."""

    @web.authenticated
    async def get(self) -> None:
        raise web.HTTPError(404, f"no route {self.request.method} {self.request.path}", reason="Not Found")

    post = put = patch = delete = get


ROUTES: tuple[tuple[str, type[BrainHandler]], ...] = (
    ("query", QueryHandler),
    ("index", IndexHandler),
    ("jobs", JobsHandler),
    (r"jobs/(?P<job_id>[A-Za-z0-9_-]+)", JobHandler),
    ("status", StatusHandler),
    ("graph/entity", GraphEntityHandler),
    ("openapi.json", OpenAPIHandler),
    (r".*", NotFoundHandler),  # last: only what no route above matched
)


def setup_handlers(web_app: web.Application, service: BrainService) -> None:
    web_app.settings[SETTINGS_KEY] = service
    base_url = web_app.settings["base_url"]
    handlers = [(url_path_join(base_url, NAMESPACE, pattern), handler) for pattern, handler in ROUTES]
    web_app.add_handlers(".*$", handlers)
