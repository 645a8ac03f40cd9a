"""Fixtures the benchmarks' own tests share."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchmarks.tsjs_docstrings import TYPESCRIPT


@pytest.fixture
def typescript() -> Path:
    """The TypeScript package the benchmarks drive with node; without it (or node) a test skips on
    a laptop and fails under CI, whose node-modules step installs it (jlpm install)."""
    if shutil.which("node") is None or not TYPESCRIPT.is_dir():
        message = "needs node and the repository's node_modules/typescript (jlpm install)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return TYPESCRIPT
