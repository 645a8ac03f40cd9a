"""Fixtures shared by test files."""

from __future__ import annotations

import pytest
from hub_workspace import write_hub_workspace
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain


@pytest.fixture(scope="session")
def hub_brain(tmp_path_factory) -> Brain:
    """An indexed workspace whose ``dispatch`` has 124 callers (tests/hub_workspace.py)."""
    brain = Brain(write_hub_workspace(tmp_path_factory.mktemp("hub")))
    brain.index()
    return brain


@pytest.fixture(scope="module")
def brain(tmp_path_factory) -> Brain:
    """The whole fixture workspace, copied and indexed once per test module (a module may define its own)."""
    root = tmp_path_factory.mktemp("ws") / "workspace"
    copy_workspace(root)
    brain = Brain(root)
    brain.index()
    return brain
