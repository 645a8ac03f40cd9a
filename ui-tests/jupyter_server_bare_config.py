"""Server configuration for the UI test of a JupyterLab whose server does not run the
Agent Brain server extension (the labextension is installed, the server part is not enabled):
the panel must say so once, with how to check.

!! Never use this configuration in production (see jupyter_server_test_config.py).
"""

import os
import tempfile

from jupyterlab.galata import configure_jupyter_server

configure_jupyter_server(c)  # noqa: F821 (c is provided by the config loader)

c.ServerApp.root_dir = tempfile.mkdtemp(prefix="agent-brain-ui-bare-")  # noqa: F821
c.ServerApp.port = int(os.environ.get("AGENT_BRAIN_UI_BARE_PORT", "8991"))  # noqa: F821
c.ServerApp.jpserver_extensions = {"agent_brain_lab": False}  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821 (CI containers run as root)
