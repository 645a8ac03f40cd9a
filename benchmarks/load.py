"""Load over REST: concurrent clients mixing all five modes while an index job runs on the same server.

Measures what a shared server gives under load: throughput, query latency (p50/p95, overall and per
mode), errors (anything but a 200; must be 0) and how fast ``GET status`` answers meanwhile.
"""

from __future__ import annotations

import http.client
import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from agent_brain_lab.engine.types import MODES

from .metrics import latency_summary
from .rest import JupyterServer
from .sizes import Sizes
from .synth import generate, queries

Log = Callable[[str], None]
# (modules generated, seconds of load) per run size
PLAN = {"quick": (20, 20.0), "full": (200, 120.0)}  # ~270 chunks in quick
CLIENTS = 8
STATUS_EVERY_S = 0.2


class Client:
    """One keep-alive connection, as one browser tab or script would hold."""

    def __init__(self, server: JupyterServer):
        self._conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        self._headers = {"Authorization": f"token {server.token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict, float]:
        started = time.perf_counter()
        self._conn.request(method, path, body=None if body is None else json.dumps(body), headers=self._headers)
        response = self._conn.getresponse()
        data = response.read()
        return response.status, json.loads(data) if data else {}, (time.perf_counter() - started) * 1000

    def close(self) -> None:
        self._conn.close()


def load(sizes: Sizes, args, log: Log) -> dict:
    modules, seconds = PLAN.get(sizes.name, PLAN["quick"])
    (args.cache / "work").mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="load-", dir=args.cache / "work"))
    try:
        generated = generate(root, modules)
        pool = queries(300, generated)  # distinct; at most ~1 in 3 can be a function name
        with JupyterServer(root) as server:
            first = _index(Client(server), {}, log)
            log(f"[load] indexed {first['report']['chunks_total']} chunks; {CLIENTS} clients for {seconds:.0f} s")
            generate(root / "more", modules, seed=1)  # new files: the job during the load has to embed them
            return _run(server, pool, seconds, log) | {"chunks": first["report"]["chunks_total"], "modules": modules}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _index(client: Client, body: dict, log: Log) -> dict:
    status, job, _ = client.call("POST", "/agent-brain/index", body)
    if status != 202:
        raise RuntimeError(f"index refused: {status} {job}")
    while job["status"] in ("pending", "running"):
        time.sleep(0.2)
        _, job, _ = client.call("GET", f"/agent-brain/jobs/{job['id']}")
    if job["status"] != "done":
        raise RuntimeError(f"index job {job['status']}: {job['error']}")
    return job


def _run(server: JupyterServer, pool: list[str], seconds: float, log: Log) -> dict:
    control = Client(server)
    code, job, _ = control.call("POST", "/agent-brain/index", {})  # embeds the new files: busy for a while
    if code != 202:
        raise RuntimeError(f"index refused: {code} {job}\n{server.log_tail()}")
    deadline = time.monotonic() + seconds
    samples: list[tuple[str, int, float]] = []  # (mode, HTTP status, ms)
    status_ms: list[float] = []
    polls = {"indexing": 0, "total": 0, "errors": 0}
    lock = threading.Lock()

    def client_loop(n: int) -> None:
        client, i = Client(server), 0
        try:
            while time.monotonic() < deadline:
                mode = MODES[(n + i) % len(MODES)]
                query = pool[(n * 37 + i) % len(pool)]
                try:
                    code, _, ms = client.call("POST", "/agent-brain/query", {"query": query, "mode": mode, "top_k": 10})
                except (OSError, http.client.HTTPException):
                    code, ms, client = 0, 0.0, Client(server)
                with lock:
                    samples.append((mode, code, ms))
                i += 1
        finally:
            client.close()

    def status_loop() -> None:
        client = Client(server)
        while time.monotonic() < deadline:
            code, status, ms = client.call("GET", "/agent-brain/status")
            status_ms.append(ms)
            polls["total"] += 1
            polls["errors"] += code != 200
            polls["indexing"] += status.get("state") == "indexing"
            time.sleep(STATUS_EVERY_S)
        client.close()

    threads = [threading.Thread(target=client_loop, args=(n,)) for n in range(CLIENTS)]
    threads.append(threading.Thread(target=status_loop))
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    _, job, _ = control.call("GET", f"/agent-brain/jobs/{job['id']}")
    control.call("DELETE", f"/agent-brain/jobs/{job['id']}")  # the job has served its purpose
    control.close()

    ok = [ms for _, code, ms in samples if code == 200]
    errors = len(samples) - len(ok)
    out = {
        "clients": CLIENTS,
        "duration_s": round(elapsed, 1),
        "requests": len(samples),
        "errors": errors,
        "throughput_qps": round(len(ok) / elapsed, 2),
        "latency": latency_summary(ok) if ok else None,
        "by_mode": {
            mode: latency_summary(times)
            for mode in MODES
            if (times := [ms for m, code, ms in samples if m == mode and code == 200])
        },
        "status": {**latency_summary(status_ms), "max_ms": max(status_ms), "errors": polls["errors"]},
        "status_polls_indexing": polls["indexing"],
        "index_job_during_load": {"status": job["status"], "phase": job["phase"], "percent": job["percent"]},
    }
    log(
        f"  {out['requests']} queries, {out['throughput_qps']} q/s, p50 {out['latency']['p50_ms']:.0f} ms, "
        f"p95 {out['latency']['p95_ms']:.0f} ms, errors {errors}; status p95 {out['status']['p95_ms']:.0f} ms "
        f"(indexing in {polls['indexing']}/{polls['total']} polls)"
    )
    if errors or polls["errors"]:
        raise RuntimeError(f"{errors} query errors and {polls['errors']} status errors under load")
    return out
