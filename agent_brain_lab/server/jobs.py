"""Background index jobs: one at a time, on one worker thread, with progress and cancel.

The IOLoop only ever touches :class:`Job` snapshots; the engine runs on the worker thread.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Annotated, Any, TypedDict

from ..engine.types import (
    BrainError,
    Doc,
    IndexCancelled,
    IndexProgress,
    IndexReport,
    JobStatus,
    Phase,
    Shape,
    SkippedFile,
    WorkspaceBusy,
)

ACTIVE: tuple[JobStatus, ...] = ("pending", "running")
ETA_MIN_SECONDS = 3.0  # embedding watched this long (and some chunks embedded) before an ETA is given
FINISHED: tuple[JobStatus, ...] = ("done", "failed", "cancelled")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class JobRunning(WorkspaceBusy):
    """A job of this server is pending or running; carries its id so a client can follow it."""

    def __init__(self, job: Job):
        super().__init__(f"an index job is already {job.status} (job {job.id}, path {job.path!r})")
        self.job_id = job.id

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "job_id": self.job_id}


class JobView(TypedDict):
    """A job as the REST routes return it (``Job.to_dict``)."""

    id: Annotated[str, Doc("the job's id")]
    status: Annotated[JobStatus, Doc("pending, running, then done, failed or cancelled")]
    path: Annotated[str, Doc("the folder or file indexed, relative to the root ('' is everything)")]
    paths: Annotated[list[str], Doc("path and the paths of the saves merged into this job")]
    force: Annotated[bool, Doc("whether every file is re-indexed")]
    merged_into: Annotated[
        str | None,
        Doc(
            "the running job whose embedding phase serves this save: started at once, done once its files"
            " are published for keyword and graph search (their embedding joins that job's queue); if that run"
            " ends before serving it, the save runs as its own job, which the status names"
        ),
    ]
    phase: Annotated[Phase, Doc("what the run is doing now")]
    files_done: Annotated[int, Doc("files the run has chunked")]
    files_total: Annotated[int, Doc("files the run will look at")]
    chunks: Annotated[int, Doc("chunks the run holds so far")]
    embedded: Annotated[int, Doc("embedding phase: how many of chunks have a vector")]
    eta_s: Annotated[
        float | None, Doc("embedding phase: seconds left at this run's embedding rate so far (null until known)")
    ]
    current_file: Annotated[str | None, Doc("the file being chunked")]
    percent: Annotated[float, Doc("0..100: files done, or in the embedding phase chunks embedded")]
    started: Annotated[str | None, Doc("when the run started (ISO 8601, UTC)")]
    finished: Annotated[str | None, Doc("when the job ended (ISO 8601, UTC)")]
    error: Annotated[str | None, Doc("failed: the error code and what went wrong")]
    skipped: Annotated[list[dict[str, str]], Doc("the report's skipped files (empty until done)"), Shape(SkippedFile)]
    report: Annotated[dict[str, Any] | None, Doc("done: what the run did"), Shape(IndexReport)]


class StartedJob(JobView):
    """What ``POST index`` answers: the job queued."""

    job_id: Annotated[str, Doc("the same as id")]


@dataclasses.dataclass
class Job:
    path: str
    force: bool = False
    more_paths: list[str] = dataclasses.field(default_factory=list)  # saves merged into this pending job
    options: dict[str, Any] = dataclasses.field(default_factory=dict)  # more brain.index() keywords
    # The running job this one was handed to, whose embedding phase serves it (engine/merges.py). Kept
    # once that run ends: if it ended before serving this job (cancelled), this job runs on its own.
    merged_into: str | None = None
    id: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex[:12])
    status: JobStatus = "pending"
    progress: IndexProgress = dataclasses.field(default_factory=lambda: IndexProgress(phase="pending"))
    started: str | None = None
    finished: str | None = None
    error: str | None = None
    report: IndexReport | None = None
    cancel: threading.Event = dataclasses.field(default_factory=threading.Event)
    exception: BaseException | None = dataclasses.field(default=None, repr=False)  # failed: what was raised
    # Called with the job once it has ended (done, failed or cancelled), on the thread that ended it.
    on_end: list[Callable[[Job], object]] = dataclasses.field(default_factory=list, repr=False)
    # (monotonic time, embedded count) when this run's embedding phase was first seen: the ETA's base
    _embedding_since: tuple[float, int] | None = dataclasses.field(default=None, repr=False)
    _clock: Callable[[], float] = dataclasses.field(default=time.monotonic, repr=False)

    @property
    def paths(self) -> list[str]:
        return [self.path, *self.more_paths]

    def covers(self, path: str) -> bool:
        return any(not p or path == p or path.startswith(p.rstrip("/") + "/") for p in self.paths)

    def record_progress(self, progress: IndexProgress) -> None:
        """Progress callback for ``brain.index``; copies, since the engine may reuse its object."""
        self.progress = dataclasses.replace(progress)
        if progress.phase == "embedding" and self._embedding_since is None:
            self._embedding_since = (self._clock(), progress.embedded)

    @property
    def eta_s(self) -> float | None:
        """Seconds until the embedding phase ends, from this run's embedding rate so far; None outside
        that phase or before the rate is known (``ETA_MIN_SECONDS`` watched and a chunk embedded)."""
        progress, since = self.progress, self._embedding_since
        if self.status != "running" or progress.phase != "embedding" or since is None:
            return None
        elapsed, done = self._clock() - since[0], progress.embedded - since[1]
        if elapsed < ETA_MIN_SECONDS or done <= 0:
            return None
        return round(max(0, progress.chunks - progress.embedded) * elapsed / done, 1)

    def to_dict(self) -> JobView:
        progress = self.progress
        report = self.report.to_dict() if self.report else None
        return {
            "id": self.id,
            "status": self.status,
            "path": self.path,
            "paths": self.paths,
            "force": self.force,
            "merged_into": self.merged_into,
            "phase": progress.phase,
            "files_done": progress.files_done,
            "files_total": progress.files_total,
            "chunks": progress.chunks,
            "embedded": progress.embedded,
            "eta_s": self.eta_s,
            "current_file": progress.current_file,
            "percent": round(progress.percent, 1),
            "started": self.started,
            "finished": self.finished,
            "error": self.error,
            "skipped": report["skipped"] if report else [],
            "report": report,
        }


class JobManager:
    """Queue of index jobs run one after another by ``run(job) -> IndexReport``.

    ``submit(..., exclusive=True)`` (a user's request) refuses while another job is active;
    ``exclusive=False`` (re-index on save) queues behind it instead. ``merge_into`` (a running job
    whose run is embedding) starts the job at once, on its own thread, as a request that run serves
    between two batches: it is not queued behind the embedding phase.
    """

    def __init__(self, run: Callable[[Job], IndexReport], *, keep: int = 50, log: logging.Logger | None = None):
        self._run = run
        self._keep = keep
        self._log = log or logging.getLogger(__name__)
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._closed = False

    # ------------------------------------------------------------------ queries

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def list(self) -> list[Job]:
        """Newest first."""
        with self._lock:
            return list(reversed(self._jobs.values()))

    def active(self) -> Job | None:
        """The running job, else the oldest pending one, else None. A job a running run serves is not
        one (that run is); one whose run ended before serving it (a cancel) runs on its own and is."""
        with self._lock:
            return self._active_locked()

    def _active_locked(self) -> Job | None:
        running = [j for j in self._jobs.values() if j.status == "running" and not self._served_locked(j)]
        pending = [j for j in self._jobs.values() if j.status == "pending"]
        return next(iter(running + pending), None)

    def _served_locked(self, job: Job) -> bool:
        """Whether ``job`` is a request its run is serving now (that run is still running)."""
        target = self._jobs.get(job.merged_into) if job.merged_into else None
        return target is not None and target.status == "running"

    # ------------------------------------------------------------------ changes

    def submit(
        self,
        path: str | Sequence[str],
        *,
        force: bool = False,
        exclusive: bool = True,
        merge_into: Job | None = None,
        **options: Any,
    ) -> Job:
        """Queue a run of ``path`` (or of several paths: one run for all of them)."""
        paths = [path] if isinstance(path, str) else list(path)
        with self._lock:
            if self._closed:
                raise BrainError("the server is shutting down")
            if merge_into is not None and merge_into.status == "running":
                self._hand_over_pending_locked(merge_into)  # saves queued before the run began to embed
                job = Job(path=paths[0], more_paths=paths[1:], options=options)
                self._jobs[job.id] = job
                self._forget_old_locked()
                self._hand_over_locked(job, merge_into)
                return job
            active = self._active_locked()
            if exclusive and active is not None:
                raise JobRunning(active)
            if not exclusive:
                for job in self._jobs.values():
                    if job.status == "pending" and not job.force:  # one queued run picks up every save
                        job.more_paths.extend(p for p in paths if not job.covers(p))
                        return job
            job = Job(path=paths[0], more_paths=paths[1:], force=force, options=options)
            self._jobs[job.id] = job
            self._forget_old_locked()
            self._ensure_worker_locked()
        self._queue.put(job)
        return job

    def hand_over_pending(self, running: Job) -> None:
        """``running``'s run now embeds and takes requests: the saves queued behind it (while it
        analysed) start now as such requests, instead of waiting for its whole embedding phase."""
        with self._lock:
            if running.status == "running" and not self._closed:
                self._hand_over_pending_locked(running)

    def _hand_over_pending_locked(self, running: Job) -> None:
        for queued in list(self._jobs.values()):
            # A save's run (some paths, no force): what a run's embedding phase can serve.
            if queued.status == "pending" and not queued.force and all(queued.paths):
                self._hand_over_locked(queued, running)

    def _hand_over_locked(self, job: Job, running: Job) -> None:
        """Run ``job`` now, on its own thread, as a request served by ``running``'s embedding phase
        (the worker skips it if it was queued: it is no longer pending)."""
        job.merged_into, job.status, job.started = running.id, "running", _now()
        threading.Thread(target=self._execute, args=(job,), name="agent-brain-merge", daemon=True).start()

    def cancel(self, job_id: str) -> Job | None:
        """Ask a job to stop; a pending job is cancelled at once. Finished jobs are left as they are."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return None
            job.cancel.set()
            if job.status == "pending":
                self._finish(job, "cancelled")
            return job

    def close(self, timeout: float = 5.0) -> None:
        """Cancel everything and stop the worker (server shutdown, tests)."""
        with self._lock:
            self._closed = True
            for job in self._jobs.values():
                job.cancel.set()
            worker = self._worker
        self._queue.put(None)
        if worker is not None:
            worker.join(timeout)

    # ------------------------------------------------------------------ worker

    def _ensure_worker_locked(self) -> None:
        if self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._work, name="agent-brain-index", daemon=True)
            self._worker.start()

    def _forget_old_locked(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.status in FINISHED]
        for job_id in finished[: max(0, len(self._jobs) - self._keep)]:
            del self._jobs[job_id]

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._lock:
                if job.status != "pending":  # cancelled while queued
                    continue
                job.status = "running"
                job.started = _now()
            self._execute(job)

    def _execute(self, job: Job) -> None:
        try:
            report = self._run(job)
        except IndexCancelled:
            self._finish(job, "cancelled")
        except BrainError as err:
            job.exception = err
            self._finish(job, "failed", error=f"{err.code}: {err}")
        except Exception as err:  # the worker must survive; the traceback goes to the server log only
            self._log.exception("agent-brain: index job %s failed", job.id)
            job.exception = err
            self._finish(job, "failed", error=f"internal error: {type(err).__name__}")
        else:
            job.report = report
            job.progress = dataclasses.replace(
                job.progress,
                phase="done",
                files_done=job.progress.files_total or report.files_total,
                files_total=job.progress.files_total or report.files_total,
                current_file=None,
            )
            self._finish(job, "done")

    def _finish(self, job: Job, status: JobStatus, error: str | None = None) -> None:
        job.error = error
        job.finished = _now()
        job.status = status
        for call in job.on_end:
            try:
                call(job)
            except Exception:  # a listener's fault ends nothing else
                self._log.exception("agent-brain: a listener of job %s failed", job.id)
