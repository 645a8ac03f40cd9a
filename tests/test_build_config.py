"""The frontend build that `pip install .` runs (hatch-jupyter-builder, configured in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

REPO = Path(__file__).resolve().parents[1]


def test_a_reinstall_after_a_pull_rebuilds_a_changed_panel():
    """Field sweep: `git pull && pip install .` in a clone installed before shipped the old panel:
    `skip-if-exists` skipped the build because a build existed. The build is skipped only when no
    file of the sources is newer than the built extension (hatch-jupyter-builder's `is_stale`)."""
    hook = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]
    assert "skip-if-exists" not in hook  # any existing build would be installed as it is
    kwargs = hook["build-kwargs"]
    built = {Path(target).parts[:2] for target in hook["ensured-targets"]}
    assert built == {Path(kwargs["build_dir"]).parts}  # the folder the build writes
    assert (REPO / kwargs["source_dir"] / "index.ts").is_file()  # the panel's sources
