"""A generated workspace with a high-degree entity, for the graph explorer's tests.

``dispatch`` (hub/core.py) is called by ``CALLERS`` functions spread over six modules and by a
method of ``Session``; ``Session`` has ``METHODS`` methods and ``SUBCLASSES`` subclasses; a doc
mentions both. Run ``python tests/hub_workspace.py DIR`` to write it somewhere (the UI tests do).
"""

from __future__ import annotations

import sys
from pathlib import Path

CALLERS = 120
FILES = 6
METHODS = 14
SUBCLASSES = 3


def write_hub_workspace(root: Path) -> Path:
    pkg = root / "hub"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('"""The hub package."""\n')
    methods = "".join(
        f'\n    def step_{m}(self, event):\n        """Step {m} of a session."""\n        return event\n'
        for m in range(METHODS - 1)
    )
    (pkg / "core.py").write_text(
        '"""Event routing."""\n\n\n'
        "def dispatch(event):\n"
        '    """Route one event to its handler."""\n'
        "    return event\n\n\n"
        "class Session:\n"
        '    """A conversation of events."""\n\n'
        "    def send(self, event):\n"
        '        """Send through dispatch."""\n'
        f"        return dispatch(event)\n{methods}"
    )
    per_file = CALLERS // FILES
    for f in range(FILES):
        body = "".join(
            f'\n\ndef handle_{f}_{i}(event):\n    """Handle event kind {f}.{i}."""\n    return dispatch(event)\n'
            for i in range(per_file)
        )
        (pkg / f"handlers_{f}.py").write_text(f'"""Handlers, part {f}."""\nfrom hub.core import dispatch\n{body}')
    subclasses = "".join(
        f'\n\nclass Session{s}(Session):\n    """Session flavour {s}."""\n\n'
        f"    def send(self, event):\n        return dispatch(event)\n"
        for s in range(SUBCLASSES)
    )
    (pkg / "flavours.py").write_text(f'"""Session flavours."""\nfrom hub.core import Session, dispatch\n{subclasses}')
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "routing.md").write_text(
        "# Routing\n\n## Dispatch\n\nEvery handler calls `dispatch` with its event.\n\n"
        "## Sessions\n\nA `Session` sends its events through `dispatch`.\n"
    )
    return root


if __name__ == "__main__":
    print(write_hub_workspace(Path(sys.argv[1])))
