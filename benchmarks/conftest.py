"""Fixtures the benchmarks' own tests share: the tools the oracles run (TypeScript's compiler, Go)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchmarks.tsjs_docstrings import TYPESCRIPT


def _needed(present: bool, message: str) -> None:
    """Skip without the tool on a laptop; fail under CI, whose setup steps install it."""
    if not present:
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def typescript() -> Path:
    """The TypeScript package the benchmarks drive with node (CI's node-modules step: jlpm install)."""
    _needed(shutil.which("node") is not None and TYPESCRIPT.is_dir(), "needs node and node_modules/typescript")
    return TYPESCRIPT


@pytest.fixture
def go() -> str:
    """The Go toolchain (CI: .ci/go.sh installs Debian's golang-go)."""
    found = shutil.which("go")
    _needed(found is not None, "needs the Go toolchain (Debian: golang-go)")
    assert found is not None
    return found
