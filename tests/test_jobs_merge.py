"""The job queue's hand-over: while a job's run embeds, save jobs start at once as requests that run
serves (``merged_into``), including saves queued before it began to embed."""

from __future__ import annotations

import threading
import time

from agent_brain_lab.engine.types import IndexReport
from agent_brain_lab.server.jobs import JobManager


def wait_for(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_saves_are_handed_to_the_running_job_and_queued_ones_follow():
    release, ran = threading.Event(), []

    def run(job) -> IndexReport:  # what BrainService runs: here the first job holds until released
        ran.append(job.paths)
        if job.paths == [""]:
            assert release.wait(30)
        return IndexReport(generation=len(ran))

    jobs = JobManager(run)
    try:
        first = jobs.submit("")
        assert wait_for(lambda: first.status == "running")
        queued = jobs.submit(["a.py"], exclusive=False)  # before the run embeds: queued behind it
        assert queued.status == "pending" and queued.merged_into is None
        saved = jobs.submit(["b.py"], exclusive=False, merge_into=first)
        assert wait_for(lambda: saved.status == queued.status == "done")
        assert first.status == "running" and saved.merged_into == queued.merged_into == first.id
        assert sorted(map(tuple, ran)) == [("",), ("a.py",), ("b.py",)]
        assert jobs.active() is first and saved.to_dict()["merged_into"] == first.id
    finally:
        release.set()
    assert wait_for(lambda: first.status == "done")
    jobs.close()  # the worker has taken everything queued and stopped
    assert len(ran) == 3  # it skipped the job handed over while it was queued
