"""Where the test fixtures are, and the one way tests copy the fixture workspace.

``FIXTURES`` is tests/fixtures; ``FIXTURE`` its sample project, tests/fixtures/workspace.

A test never indexes the fixture in place: ``copy_workspace`` gives it a private copy, the whole
tree or only some of its members, each at its own relative path or at another one.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "workspace"


def copy_workspace(dest: Path, members: Iterable[str] | None = None, renames: Mapping[str, str] | None = None) -> Path:
    """Copy the fixture workspace to ``dest`` and return ``dest``.

    Without ``members`` or ``renames`` the whole tree is copied. Otherwise ``dest`` is created and
    holds only ``members`` (files or folders, relative to the fixture, at the same relative path)
    and each ``renames`` key copied to its value (``{"README.md": "docs/README.md"}``).
    Links are copied as links.
    """
    if members is None and renames is None:
        shutil.copytree(FIXTURE, dest, symlinks=True)
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    pairs = [(rel, rel) for rel in members or ()] + list((renames or {}).items())
    for rel, target in pairs:
        source, to = FIXTURE / rel, dest / target
        to.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, to, symlinks=True)
        else:
            shutil.copy(source, to)
    return dest
