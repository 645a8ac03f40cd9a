"""Server configuration for the UI tests.

!! Never use this configuration in production: it opens the server to the world
and exposes the JupyterLab application object in the browser.

The server root is a fresh copy of tests/fixtures/workspace, so every run starts
from an unindexed workspace and never writes into the repository.
"""

import os
import sys
import tempfile
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))
from workspace_fixture import copy_workspace  # tests/ is not a package: appended above

configure_jupyter_server(c)  # noqa: F821 (c is provided by the config loader)

ROOT = copy_workspace(Path(tempfile.mkdtemp(prefix="agent-brain-ui-")) / "workspace")

c.ServerApp.root_dir = str(ROOT)  # noqa: F821
c.ServerApp.port = int(os.environ.get("AGENT_BRAIN_UI_PORT", "8891"))  # noqa: F821
c.ServerApp.jpserver_extensions = {"agent_brain_lab": True}  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821 (CI containers run as root)
