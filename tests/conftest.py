"""Fixtures shared by test files."""

from __future__ import annotations

import pytest
from hub_workspace import write_hub_workspace

from agent_brain_lab import Brain


@pytest.fixture(scope="session")
def hub_brain(tmp_path_factory) -> Brain:
    """An indexed workspace whose ``dispatch`` has 124 callers (tests/hub_workspace.py)."""
    brain = Brain(write_hub_workspace(tmp_path_factory.mktemp("hub")))
    brain.index()
    return brain
