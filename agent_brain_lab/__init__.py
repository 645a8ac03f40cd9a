"""Agent Brain Lab: a searchable brain of the open workspace, for JupyterLab.

This module holds entry points only; Jupyter is imported lazily so that
``from agent_brain_lab import Brain`` works without it.
"""

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "dev"

from .engine import Brain

__all__ = ["Brain", "__version__"]


def _jupyter_labextension_paths():
    return [{"src": "labextension", "dest": "agent-brain-lab"}]


def _jupyter_server_extension_points():
    return [{"module": "agent_brain_lab"}]


def _load_jupyter_server_extension(server_app):
    from .server.extension import load_jupyter_server_extension

    load_jupyter_server_extension(server_app)


def load_ipython_extension(ipython):
    from .kernel.magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython):
    from .kernel.magics import unload_ipython_extension as unload

    unload(ipython)
