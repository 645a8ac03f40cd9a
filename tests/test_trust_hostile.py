"""Hostile workspaces met through the real engine: names the file system refuses to resolve are a
clear InvalidRequest naming the field, never a traceback."""

from __future__ import annotations

import os
import re

import pytest

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import InvalidRequest


@pytest.mark.parametrize(
    "path, problem",
    [
        ("loop1", "symlink loop"),  # loop1 -> loop2 -> loop1
        ("loop1/inner", "symlink loop"),
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
    assert not brain.is_indexed()  # refused before any work
