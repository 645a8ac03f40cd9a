"""REST handlers under ``{base_url}agent-brain/`` (contract: the README's REST section).

Handlers call the engine and let its :class:`BrainError`s propagate; :class:`BrainHandler`
turns every error into ``{"error", "message", "field"?, "job_id"?}`` in one place.
"""

from __future__ import annotations

import json
from http.client import responses
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.utils import url_path_join
from tornado import web

from ..engine.types import (
    BrainError,
    IndexCancelled,
    IndexCorrupt,
    InvalidRequest,
    ModelMismatch,
    ModelUnavailable,
    NotIndexed,
    QueryRequest,
    WorkspaceBusy,
)
from .service import BrainService

SETTINGS_KEY = "agent_brain"
NAMESPACE = "agent-brain"

# Most specific first: the first matching class decides the HTTP status.
ERROR_STATUS: tuple[tuple[type[BrainError], int], ...] = (
    (InvalidRequest, 400),
    (NotIndexed, 503),
    (ModelUnavailable, 503),
    (IndexCorrupt, 503),
    (WorkspaceBusy, 409),
    (ModelMismatch, 409),
    (IndexCancelled, 409),
    (BrainError, 500),
)


def error_status(err: BrainError) -> int:
    return next(status for cls, status in ERROR_STATUS if isinstance(err, cls))


class BrainHandler(APIHandler):
    """Base of every route: the service, JSON in/out and the one error mapping."""

    @property
    def service(self) -> BrainService:
        return self.settings[SETTINGS_KEY]

    def json_body(self) -> Any:
        if not self.request.body:
            return {}
        try:
            return json.loads(self.request.body)
        except ValueError:
            raise InvalidRequest("body", "is not valid JSON") from None

    def reply(self, data: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(json.dumps(data))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        err = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(err, BrainError):
            self.set_status(error_status(err))
            body = err.to_dict()
        elif err is None or isinstance(err, web.HTTPError):  # auth, XSRF, 404, 405, ...
            reason = getattr(err, "reason", None) or responses.get(status_code, "error")
            body = {"error": _snake(reason), "message": getattr(err, "log_message", None) or reason}
        else:  # a bug: details stay in the server log, never in the response
            body = {"error": "internal_error", "message": "internal server error; see the server log"}
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(body))

    def log_exception(self, typ, value, tb) -> None:
        if isinstance(value, BrainError):  # an expected, user-facing error: no traceback in the log
            self.log.info("agent-brain %s %s: %s", self.request.method, self.request.path, value)
        else:
            super().log_exception(typ, value, tb)


def _snake(reason: str) -> str:
    return reason.strip().lower().replace(" ", "_").replace("-", "_")


class QueryHandler(BrainHandler):
    @web.authenticated
    async def post(self) -> None:
        request = QueryRequest.build(self.json_body())
        response = await self.service.run(self.service.brain.query, request)
        self.reply(response.to_dict())


class IndexHandler(BrainHandler):
    @web.authenticated
    async def post(self) -> None:
        job = self.service.start_index(self.json_body())
        self.reply({"job_id": job.id, **job.to_dict()}, status=202)

    @web.authenticated
    async def delete(self) -> None:
        await self.service.run(self.service.reset)
        self.reply({"status": "reset"})


class JobsHandler(BrainHandler):
    @web.authenticated
    async def get(self) -> None:
        self.reply({"jobs": [job.to_dict() for job in self.service.jobs.list()]})


class JobHandler(BrainHandler):
    @web.authenticated
    async def get(self, job_id: str) -> None:
        self._reply_job(job_id, self.service.jobs.get(job_id))

    @web.authenticated
    async def delete(self, job_id: str) -> None:
        self._reply_job(job_id, self.service.jobs.cancel(job_id))

    def _reply_job(self, job_id: str, job) -> None:
        if job is None:
            raise web.HTTPError(404, f"no job {job_id!r}", reason="Not Found")
        self.reply(job.to_dict())


class StatusHandler(BrainHandler):
    @web.authenticated
    async def get(self) -> None:
        self.reply(await self.service.run(self.service.status))


class GraphEntityHandler(BrainHandler):
    @web.authenticated
    async def get(self) -> None:
        name = self.get_query_argument("name", "")
        depth = self.get_query_argument("depth", "1").strip()
        if not depth.lstrip("-").isdigit():
            raise InvalidRequest("depth", "must be an integer")
        graph = await self.service.run(self.service.brain.graph_entity, name, int(depth))
        self.reply(graph.to_dict())


ROUTES: tuple[tuple[str, type[BrainHandler]], ...] = (
    ("query", QueryHandler),
    ("index", IndexHandler),
    ("jobs", JobsHandler),
    (r"jobs/(?P<job_id>[A-Za-z0-9_-]+)", JobHandler),
    ("status", StatusHandler),
    ("graph/entity", GraphEntityHandler),
)


def setup_handlers(web_app, service: BrainService) -> None:
    web_app.settings[SETTINGS_KEY] = service
    base_url = web_app.settings["base_url"]
    handlers = [(url_path_join(base_url, NAMESPACE, pattern), handler) for pattern, handler in ROUTES]
    web_app.add_handlers(".*$", handlers)
