"""Indexing through a real Dask cluster (worker processes on this machine) against local indexing."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from workspace_fixture import copy_workspace

distributed = pytest.importorskip("distributed")
import dask  # noqa: E402  (installed with distributed)

from agent_brain_lab import Brain, cli  # noqa: E402
from agent_brain_lab.engine.embed_dask import (  # noqa: E402
    HANDSHAKE_GRACE_S,
    ClusterError,
    ClusterModelMismatch,
    worker_stats,
)
from agent_brain_lab.engine.types import MODES, BrainError, IndexCancelled, InvalidRequest  # noqa: E402
from agent_brain_lab.server.config import AgentBrain  # noqa: E402

REPO = Path(__file__).parents[1]
INCLUDE = ("shop/**", "docs/**", "tests/**", "README.md")  # 47 chunks of code, tests and docs
QUERIES = ("compute the cart total with discounts", "reserve stock in the inventory", "What calls apply_discount?")


def _workspace(tmp_path_factory, name: str) -> Path:
    root = tmp_path_factory.mktemp(name) / "workspace"
    return copy_workspace(root)


def _cluster(n_workers: int, **env: str):
    """Worker processes that import this tree (not another install of the package)."""
    pythonpath = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return distributed.LocalCluster(
        processes=True,
        n_workers=n_workers,
        threads_per_worker=1,
        dashboard_address=":0",
        env={"PYTHONPATH": pythonpath, **env},
    )


def _answers(brain: Brain) -> dict:
    return {
        (mode, q): [(r.source, r.start_line, r.end_line) for r in brain.query(q, mode=mode, top_k=5).results]
        for mode in MODES
        for q in QUERIES
    }


def _index_in_thread(brain: Brain, **kwargs):
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["report"] = brain.index(**kwargs)
        except BaseException as err:  # handed to the test
            outcome["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _wait_for_tasks_on_workers(client, timeout: float = 120) -> dict:
    """The workers' addresses with embedding tasks in progress, as soon as there are any."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = {w: keys for w, keys in client.processing().items() if keys}
        if busy:
            return busy
        time.sleep(0.02)
    raise AssertionError("no task reached the workers")


@pytest.fixture(scope="module")
def cluster():
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        yield cluster, client


@pytest.fixture(scope="module")
def local_brain(tmp_path_factory) -> Brain:
    brain = Brain(_workspace(tmp_path_factory, "local"), include=INCLUDE)
    brain.index()
    return brain


@pytest.fixture(scope="module")
def cluster_run(cluster, tmp_path_factory):
    """A workspace indexed through the cluster, with what the workers and the client did meanwhile."""
    cluster, client = cluster
    brain = Brain(_workspace(tmp_path_factory, "remote"), include=INCLUDE, dask_scheduler=cluster.scheduler_address)
    report = brain.index()
    embedded_locally = brain._embedder._model is not None  # queries load it later; indexing must not have
    return brain, report, client.run(worker_stats), embedded_locally


def test_cluster_index_answers_exactly_like_local(local_brain, cluster_run):
    brain, report, _, _ = cluster_run
    assert report.chunks_total == local_brain.status().chunks["total"] == 47
    assert _answers(brain) == _answers(local_brain)
    for q in QUERIES:  # and the similarities themselves agree
        remote = [r.vector_score for r in brain.query(q, mode="vector").results]
        local = [r.vector_score for r in local_brain.query(q, mode="vector").results]
        assert remote == pytest.approx(local, abs=1e-4)


def test_every_text_was_embedded_on_the_workers_which_loaded_the_model_once(cluster_run):
    _, report, stats, embedded_locally = cluster_run
    assert not embedded_locally
    assert report.chunks_embedded == 47
    assert len(stats) == 2
    assert sum(s["texts"] for s in stats.values()) == 47
    assert all(s["texts"] > 0 and s["model_loads"] == 1 for s in stats.values())


def test_reindexing_ships_only_texts_missing_from_the_cache(cluster, cluster_run):
    brain, _, before, _ = cluster_run
    _, client = cluster
    (brain.root / "shop" / "extra.py").write_text("def restock(item, count):\n    return item.add(count)\n")
    report = brain.index()
    after = client.run(worker_stats)
    assert report.chunks_embedded == 1
    assert sum(s["texts"] for s in after.values()) - sum(s["texts"] for s in before.values()) == 1
    assert all(s["model_loads"] == 1 for s in after.values())


def test_the_cli_flag_and_the_server_option_reach_the_indexer(cluster, tmp_path_factory, capsys):
    cluster, client = cluster
    root = _workspace(tmp_path_factory, "cli")
    before = sum(s["texts"] for s in client.run(worker_stats).values())
    argv = ["--workspace", str(root), "index", "--include", "shop/**", "--dask-scheduler", cluster.scheduler_address]
    assert cli.main([*argv, "--json"]) == 0
    embedded = json.loads(capsys.readouterr().out)["chunks_embedded"]
    assert embedded > 0
    assert sum(s["texts"] for s in client.run(worker_stats).values()) - before == embedded
    assert AgentBrain(dask_scheduler="tcp://10.0.0.5:8786").brain_config().dask_scheduler == "tcp://10.0.0.5:8786"


def test_an_unreachable_scheduler_is_one_clear_error_and_nothing_is_committed(tmp_path_factory):
    brain = Brain(_workspace(tmp_path_factory, "unreachable"), include=INCLUDE, dask_scheduler="tcp://127.0.0.1:1")
    timeout = dask.config.set({"distributed.comm.timeouts.connect": "1s"})
    with timeout, pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        brain.index()
    assert not brain.has_index()
    assert brain.index(dask_scheduler="").chunks_total == 47  # the lock was released; "" embeds locally


def test_a_worker_with_other_model_files_is_refused(tmp_path_factory):
    """The worker assembles the default model in its own cache, where a tokenizer setting differs."""
    cache = tmp_path_factory.mktemp("worker-cache")
    brain = Brain(_workspace(tmp_path_factory, "mismatch"), include=INCLUDE)
    good = Path(brain._model.path)
    bad = cache / "agent-brain-lab" / good.name
    bad.mkdir(parents=True)
    for f in good.iterdir():
        if f.name == "model.onnx":
            (bad / f.name).symlink_to(f.resolve())
        else:
            shutil.copyfile(f, bad / f.name)
    config = bad / "tokenizer_config.json"
    config.write_text(config.read_text().replace('"model_max_length": 256', '"model_max_length": 128'))
    with _cluster(1, XDG_CACHE_HOME=str(cache)) as cluster, pytest.raises(ClusterModelMismatch, match="other files"):
        brain.index(dask_scheduler=cluster.scheduler_address)
    assert not brain.has_index()


def test_cancelling_cancels_the_cluster_futures(cluster, tmp_path_factory):
    cluster, client = cluster
    brain = Brain(_workspace(tmp_path_factory, "cancel"), include=INCLUDE, dask_scheduler=cluster.scheduler_address)
    cancel = threading.Event()
    thread, outcome = _index_in_thread(brain, cancel=cancel)
    _wait_for_tasks_on_workers(client)
    cancel.set()
    thread.join(60)
    assert isinstance(outcome.get("error"), IndexCancelled)
    assert not brain.has_index()
    deadline = time.monotonic() + 10
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0


def test_a_worker_killed_mid_run_has_its_batches_recomputed(cluster, local_brain, tmp_path_factory):
    cluster, client = cluster
    brain = Brain(_workspace(tmp_path_factory, "kill"), include=INCLUDE, dask_scheduler=cluster.scheduler_address)
    thread, outcome = _index_in_thread(brain)
    busy = _wait_for_tasks_on_workers(client)
    victim = sorted(busy)[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    thread.join(180)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["report"].chunks_embedded == 47
    assert pid not in client.run(os.getpid).values()  # the killed process really is gone
    assert _answers(brain) == _answers(local_brain)


def test_a_lost_scheduler_is_one_clear_error_and_nothing_is_committed(tmp_path_factory):
    brain = Brain(_workspace(tmp_path_factory, "lost"), include=INCLUDE)
    cluster = _cluster(1)
    with distributed.Client(cluster) as client:
        thread, outcome = _index_in_thread(brain, dask_scheduler=cluster.scheduler_address)
        _wait_for_tasks_on_workers(client)
        cluster.close()
    thread.join(120)
    assert isinstance(outcome.get("error"), BrainError) and outcome["error"].code == "cluster_error"
    assert str(outcome["error"]).startswith(f"lost the Dask scheduler at {cluster.scheduler_address}")
    assert not brain.has_index()


# ------------------------------------------------------------------ hostile addresses and peers


@pytest.mark.parametrize(
    "address", ["not a url", "tcp://", "http://host:8786", "tcp://host:99999", "tcp://host", "tcp://a b:1", "\x00"]
)
def test_a_malformed_scheduler_address_is_refused_at_once_by_every_front_door(address, tmp_path, capsys):
    """One validator (engine/types.py dask_address): the CLI exits 2 naming the flag, no traceback;
    Python and the server option raise InvalidRequest before anything is indexed."""
    (tmp_path / "a.md").write_text("# A\n\nhello\n")
    assert cli.main(["--workspace", str(tmp_path), "index", "--dask-scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "--dask-scheduler" in err and "Traceback" not in err
    with pytest.raises(InvalidRequest, match="dask_scheduler"):
        Brain(tmp_path, dask_scheduler=address)
    with pytest.raises(InvalidRequest, match="dask_scheduler"):
        Brain(tmp_path).index(dask_scheduler=address)
    with pytest.raises(InvalidRequest, match="dask_scheduler"):
        AgentBrain(dask_scheduler=address).brain_config()
    assert not (tmp_path / ".agent-brain").exists()


class _HTTP(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"hello from a web server\n")

    def log_message(self, *args) -> None:
        pass


@contextmanager
def _peer(kind: str) -> Iterator[str]:
    """A real TCP server on localhost that is no Dask scheduler: a plain HTTP server, one that sends
    bytes of nonsense, or one that accepts and never says a word."""
    if kind == "http":
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HTTP)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"tcp://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)
            if kind == "nonsense":
                conn.sendall(b"\x07GARBAGE" * 512)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for conn in accepted:
            conn.close()


@pytest.mark.parametrize("kind", ["http", "nonsense", "silent"])
def test_a_peer_that_is_no_dask_scheduler_is_one_clear_error_and_nothing_is_committed(kind, tmp_path_factory):
    root = _workspace(tmp_path_factory, f"peer-{kind}")
    with _peer(kind) as address, dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        brain = Brain(root, include=INCLUDE, dask_scheduler=address)
        thread, outcome = _index_in_thread(brain)
        # a bound on a hang (the reported failure ran 6+ minutes), not a speed target
        thread.join(2 + HANDSHAKE_GRACE_S + 60)
        assert not thread.is_alive(), "indexing against a non-Dask peer hung"
    err = outcome.get("error")
    assert isinstance(err, ClusterError), outcome
    assert address in str(err) and ("not a Dask scheduler" in str(err) or "no Dask scheduler answered" in str(err))
    assert not brain.has_index()
    assert brain.index(dask_scheduler="").chunks_total == 47  # the writer lock was released
