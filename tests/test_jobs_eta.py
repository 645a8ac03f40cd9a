"""The embedding ETA a job reports: from the run's own embedding rate, never guessed before it."""

from __future__ import annotations

from agent_brain_lab.engine.types import IndexProgress
from agent_brain_lab.server.jobs import ETA_MIN_SECONDS, Job


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def running_job(clock: Clock) -> Job:
    job = Job(path="", _clock=clock)
    job.status = "running"
    return job


def test_eta_follows_the_embedding_rate_of_this_run():
    clock = Clock()
    job = running_job(clock)
    job.record_progress(IndexProgress("indexing", 10, 40, 500))
    assert job.to_dict()["eta_s"] is None  # analysis: no ETA
    job.record_progress(IndexProgress("embedding", 40, 40, 1000, embedded=200))  # 200 came from the cache
    assert job.eta_s is None  # no rate yet
    clock.now += ETA_MIN_SECONDS + 1  # 4 s later, 100 more embedded: 25 chunks/s
    job.record_progress(IndexProgress("embedding", 40, 40, 1000, embedded=300))
    assert job.to_dict()["eta_s"] == 28.0  # 700 left at 25/s
    assert job.to_dict()["embedded"] == 300


def test_no_eta_without_progress_or_once_finished():
    clock = Clock()
    job = running_job(clock)
    job.record_progress(IndexProgress("embedding", 1, 1, 3000, embedded=0))
    clock.now += 60
    assert job.eta_s is None  # a minute and nothing embedded: no rate to extrapolate
    job.record_progress(IndexProgress("embedding", 1, 1, 3000, embedded=600))
    assert job.eta_s == 240.0
    job.status = "done"
    assert job.eta_s is None
