"""Hostile workspaces met through the real engine: names the file system refuses to resolve are a
clear InvalidRequest naming the field, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import InvalidRequest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "path, problem",
    [
        ("loop1", "symbolic links"),  # loop1 -> loop2 -> loop1
        ("loop1/inner", "symbolic links"),
        ("n" * 300, "at most 255 bytes|too long"),  # longer than the file system allows (admits: ENAMETOOLONG)
    ],
)
def test_unresolvable_paths_are_invalid_requests(tmp_path, path, problem):
    (tmp_path / "a.md").write_text("# A\n\nalpha\n")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    brain = Brain(tmp_path)
    for call in (lambda: brain.index(path=path), lambda: brain.admits(path)):
        with pytest.raises(InvalidRequest) as err:
            call()
        assert err.value.field == "path" and re.search(problem, str(err.value))
    assert not brain.has_index()  # refused before any work


def test_the_cli_reports_a_symlink_loop_without_a_traceback(tmp_path):
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for args in (["index", "loop1"], ["index", "loop1/x"], ["--workspace", "loop1", "status"]):
        proc = subprocess.run(
            [sys.executable, "-m", "agent_brain_lab.cli", *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert proc.returncode != 0 and "symbolic links" in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
