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


def holding_run():
    """What BrainService runs, recorded in ``ran``: here the run of everything holds until ``release``."""
    release, ran = threading.Event(), []

    def run(job) -> IndexReport:
        ran.append(job.paths)
        if job.paths == [""]:
            assert release.wait(30)
        return IndexReport(generation=len(ran))

    return release, ran, run


def test_saves_are_handed_to_the_running_job_and_queued_ones_follow():
    release, ran, run = holding_run()
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


def test_a_job_handed_to_a_run_that_ends_first_is_the_active_job_while_it_runs_on_its_own():
    """A run that ends (cancelled) refuses what it had not served: that save runs alone, and the
    status (``active``) names it while it does."""
    first_done, alone, ran = threading.Event(), threading.Event(), []

    def run(job) -> IndexReport:
        ran.append(job.paths)
        assert (first_done if job.paths == [""] else alone).wait(30)
        return IndexReport(generation=len(ran))

    jobs = JobManager(run)
    try:
        first = jobs.submit("")
        assert wait_for(lambda: first.status == "running")
        saved = jobs.submit(["b.py"], exclusive=False, merge_into=first)
        assert wait_for(lambda: len(ran) == 2) and jobs.active() is first  # served by the run: not the job
        first_done.set()
        assert wait_for(lambda: first.status == "done")
        assert saved.status == "running" and jobs.active() is saved and saved.merged_into == first.id
    finally:
        first_done.set()
        alone.set()
    assert wait_for(lambda: saved.status == "done") and jobs.active() is None
    jobs.close()


def test_queued_saves_are_handed_over_once_the_run_embeds_and_other_requests_stay_queued():
    release, ran, run = holding_run()
    jobs = JobManager(run)
    try:
        first = jobs.submit("")
        assert wait_for(lambda: first.status == "running")
        forced = jobs.submit("docs", exclusive=False, force=True)  # not a save: a run's embedding cannot serve it
        queued = jobs.submit(["a.py"], exclusive=False)  # the run still analyses: it waits
        assert jobs.submit(["c.py"], exclusive=False) is queued  # one queued run picks up every save
        assert forced is not queued and forced.status == queued.status == "pending"
        jobs.hand_over_pending(first)  # the run now embeds (BrainService calls this on its progress)
        assert wait_for(lambda: queued.status == "done") and queued.merged_into == first.id
        assert first.status == "running" and forced.status == "pending" and forced.merged_into is None
        assert ["a.py", "c.py"] in ran
    finally:
        release.set()
    assert wait_for(lambda: forced.status == "done")
    jobs.close()
