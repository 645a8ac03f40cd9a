"""Embedding on a Dask cluster: a drop-in :class:`Embedder` whose ``embed`` runs on the workers.

The client ships the model *spec* (never the model) and length-sorted batches of texts; each worker
resolves the model from the spec on its own disk, checks that its model files hash like the
client's, loads the model once per process and keeps it. Vectors come back in input order. A lost
worker's batches are recomputed by Dask itself; a scheduler that cannot be reached or goes away
ends the run with one :class:`ClusterError`. ``distributed`` is an optional dependency (the
``dask`` extra): this module imports it only when a scheduler is configured.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .embedding import DEFAULT_DIM, DEFAULT_IDENTITY, Embedder, ModelSpec, resolve_model
from .types import BrainError, IndexCancelled

TASK_TEXTS = 32  # texts per cluster task: one model batch, so a task pads to its own longest text
GROUP = 1024  # texts the indexer hands over per call (and caches after): 32 tasks keep 32 worker threads busy
WORKERS_WAIT_S = 120  # an adaptive cluster may start its first worker on demand
HANDSHAKE_GRACE_S = 5.0  # beyond Dask's connect timeout: a peer that accepts but never answers as a scheduler


class ClusterError(BrainError):
    """The Dask cluster cannot do the work: unreachable or lost scheduler, no workers, a worker
    without this package or failing a task."""

    code = "cluster_error"


class ClusterModelMismatch(ClusterError):
    """A worker's model files differ from the client's: its vectors would not match the index."""

    code = "cluster_model_mismatch"


# --------------------------------------------------------------------------- the client side


@contextmanager
def embedder_for(local: Embedder, scheduler: str | None, cancel: threading.Event | None) -> Iterator[Embedder]:
    """The embedder an index run uses: ``local`` without a scheduler, else one bound to the cluster
    for this run (connected on its first texts, closed when the run ends)."""
    if not scheduler:
        yield local
        return
    remote = DaskEmbedder(local.spec, scheduler, cancel)
    try:
        yield remote
    finally:
        remote.close()


class DaskEmbedder(Embedder):
    group_size = GROUP

    def __init__(self, spec: ModelSpec, scheduler: str, cancel: threading.Event | None = None):
        super().__init__(spec)
        self.scheduler = scheduler
        self._cancel = cancel or threading.Event()
        self._client: Any = None
        self._fingerprint = ""  # of the client's model files, taken on connecting

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed on the workers; rows come back L2-normalised, in the input order."""
        if not texts:
            return np.zeros((0, self.dim or DEFAULT_DIM), dtype=np.float32)
        client = self._connect()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[s : s + TASK_TEXTS] for s in range(0, len(order), TASK_TEXTS)]
        payload = _payload(self.spec)
        futures = [
            client.submit(embed_batch, payload, self._fingerprint, [texts[i] for i in idx], pure=False)
            for idx in batches
        ]
        try:
            results = self._gather(client, futures)
        finally:
            client.cancel(futures)  # frees them on the cluster; a no-op for finished ones
        out = np.empty((len(texts), results[0].shape[1]), dtype=np.float32)
        for idx, vectors in zip(batches, results):
            out[idx] = vectors
        self.dim = out.shape[1]
        if progress:
            progress(len(texts))
        return out

    def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            try:
                client.close(timeout=5)
            except Exception:  # a client whose scheduler is gone may fail to close: nothing is left to keep
                pass

    # ---------------------------------------------------------------- internals

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        client = self._open_client()
        self._client = client
        self._fingerprint = model_fingerprint(self.spec)
        try:
            client.wait_for_workers(1, timeout=WORKERS_WAIT_S)
            checks = client.run(prepare_worker, _payload(self.spec), self._fingerprint, on_error="return")
        except (OSError, TimeoutError) as err:
            raise ClusterError(f"the Dask cluster at {self.scheduler} has no worker ready: {err}") from err
        for worker, outcome in sorted(checks.items()):
            if isinstance(outcome, BrainError):
                raise outcome
            if isinstance(outcome, BaseException):
                raise ClusterError(
                    f"Dask worker {worker} cannot embed with agent_brain_lab (install the same version of "
                    f"agent_brain_lab and its model on every worker): {type(outcome).__name__}: {outcome}"
                )
        return client

    def _open_client(self) -> Any:
        """A client of the scheduler, within Dask's connect timeout plus ``HANDSHAKE_GRACE_S``: a peer
        that is no Dask scheduler (a web server, something silent) can make ``Client()`` hang or
        fail in odd ways (a MemoryError for a frame length read from an HTTP reply); each is one
        :class:`ClusterError`. A constructor still stuck at the deadline is left to finish (or not) on
        its own daemon thread; a client it makes after that is closed."""
        try:
            import dask
            from distributed import Client
        except ImportError as err:
            raise ClusterError(
                'dask_scheduler is set but the `distributed` package is missing: pip install "agent_brain_lab[dask]"'
            ) from err
        connect_s = float(dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s") or 30)
        outcome: dict[str, Any] = {}
        done, lock = threading.Event(), threading.Lock()

        def connect() -> None:
            try:
                # the Dask handshake on a bare connection first: a peer that answers something else fails
                # here, before a Client exists (a half-made Client blocks for seconds when collected)
                asyncio.run(_handshake(self.scheduler, connect_s))
                client = Client(self.scheduler, set_as_default=False, timeout=connect_s)
            except BaseException as err:  # handed to the waiting thread
                outcome["error"] = err
            else:
                with lock:
                    if outcome.get("abandoned"):
                        client.close(timeout=5)
                        return
                    outcome["client"] = client
            finally:
                done.set()

        threading.Thread(target=connect, name="agent-brain-dask-connect", daemon=True).start()
        limit = connect_s + HANDSHAKE_GRACE_S
        deadline = time.monotonic() + limit
        silent = ClusterError(
            f"no Dask scheduler answered at {self.scheduler} within {limit:g} s (is something else listening there?)"
        )
        while not done.wait(0.1):
            if self._cancel.is_set() or time.monotonic() >= deadline:
                with lock:
                    if "client" not in outcome:
                        outcome["abandoned"] = True
                        if self._cancel.is_set():
                            raise IndexCancelled("indexing was cancelled; the last generation keeps serving")
                        raise silent
                break
        failure = outcome.pop("error", None)
        if isinstance(failure, TimeoutError) and not str(failure):  # the handshake's own deadline
            raise silent
        if isinstance(failure, (OSError, TimeoutError)):
            raise ClusterError(f"cannot reach the Dask scheduler at {self.scheduler}: {failure}") from None
        if isinstance(failure, Exception):
            raise ClusterError(
                f"the peer at {self.scheduler} is not a Dask scheduler (it answered something else: "
                f"{type(failure).__name__}: {str(failure)[:200]})"
            ) from None
        if failure is not None:
            raise failure  # KeyboardInterrupt, SystemExit
        return outcome["client"]

    def _gather(self, client: Any, futures: list[Any]) -> list[np.ndarray]:
        """Wait for every batch, checking the cancel event; map cluster failures to one error."""
        while not all(f.done() for f in futures):
            if self._cancel.wait(0.05):
                client.cancel(futures)
                raise IndexCancelled("indexing was cancelled; the last generation keeps serving")
            if client.status not in ("running", "connecting"):
                raise ClusterError(f"lost the Dask scheduler at {self.scheduler} (client {client.status})")
        try:
            return [f.result() for f in futures]
        except BrainError:
            raise
        except Exception as err:  # whatever the cluster raised: one clear engine error
            lost = client.status != "running"  # futures are cancelled when the scheduler goes away
            what = "lost the Dask scheduler" if lost else "embedding failed on the Dask cluster"
            raise ClusterError(f"{what} at {self.scheduler}: {type(err).__name__}: {err}") from err


async def _handshake(address: str, timeout: float) -> None:
    """Open a connection to ``address`` and exchange Dask's handshake, within ``timeout`` (+1 s)."""
    from distributed.comm import connect

    comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout + 1)
    await comm.close()


def _payload(spec: ModelSpec) -> tuple[str, str | None, str]:
    """What a worker resolves the model from: the bundled default by name (its files come with the
    worker's own install), a configured model by name and directory."""
    return (spec.name, None if spec.identity == DEFAULT_IDENTITY else spec.path, spec.identity)


# --------------------------------------------------------------------------- the worker side

_models: dict[tuple, Embedder] = {}
_models_lock = threading.Lock()
_stats: Counter = Counter()  # per process: what this worker did (read with Client.run(worker_stats))


def prepare_worker(payload: tuple[str, str | None, str], fingerprint: str) -> str:
    """Resolve, check and load the model on this worker (once per process); returns its fingerprint."""
    _worker_model(payload, fingerprint)
    return fingerprint


def embed_batch(payload: tuple[str, str | None, str], fingerprint: str, texts: list[str]) -> np.ndarray:
    """A cluster task: one length-sorted batch of texts to L2-normalised vectors."""
    vectors = _worker_model(payload, fingerprint).embed(texts)
    _stats.update(batches=1, texts=len(texts))
    return vectors


def worker_stats() -> dict[str, int]:
    return {"pid": os.getpid(), **_stats}


def _worker_model(payload: tuple[str, str | None, str], fingerprint: str) -> Embedder:
    with _models_lock:
        model = _models.get((payload, fingerprint))
        if model is None:
            name, path, identity = payload
            spec = resolve_model(None if identity == DEFAULT_IDENTITY else name, path)
            found = model_fingerprint(spec)
            if spec.identity != identity or found != fingerprint:
                raise ClusterModelMismatch(
                    f"Dask worker on {socket.gethostname()} (pid {os.getpid()}) has other files for model "
                    f"{identity} (fingerprint {found[:12]}, the client has {fingerprint[:12]}): its vectors would "
                    "not match the index; install the same model on every worker"
                )
            # One ONNX thread per task: a worker runs as many tasks at once as it has threads.
            model = Embedder(spec, threads=1)
            model.load()
            _stats.update(model_loads=1)
            _models[(payload, fingerprint)] = model
        return model


# --------------------------------------------------------------------------- fingerprints

_fingerprints: dict[tuple, str] = {}


def model_fingerprint(spec: ModelSpec) -> str:
    """A hash of the model directory's files (names and contents); a model fastembed fetches by
    name has no local directory, so its name stands in."""
    if not spec.path:
        return hashlib.blake2b(f"name:{spec.name}".encode(), digest_size=16).hexdigest()
    files = sorted(p for p in Path(spec.path).iterdir() if p.is_file())
    key = (spec.path, tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files))
    if key not in _fingerprints:
        digest = hashlib.blake2b(digest_size=16)
        for p in files:
            digest.update(p.name.encode() + b"\x00")
            with p.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
        _fingerprints[key] = digest.hexdigest()
    return _fingerprints[key]
