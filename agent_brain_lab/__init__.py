"""Agent Brain Lab: a searchable brain of the open workspace, for JupyterLab.

This module holds entry points only, and stays light: every Jupyter server, kernel and
``jupyter labextension list`` imports it. Jupyter is imported by the entry point that needs it and the
engine (numpy, usearch, onnxruntime, ...) on first use of ``Brain`` (PEP 562), so that
``from agent_brain_lab import Brain`` works without Jupyter and costs nothing until then.
"""

from typing import TYPE_CHECKING, Any

from .engine import native

try:
    from ._version import __version__
except ImportError:  # running from a source tree that was never built
    __version__ = "dev"

if TYPE_CHECKING:
    from .engine import Brain

native.prime()  # before anything can load usearch: see engine/native.py

__all__ = ["Brain", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "Brain":
        from .engine import Brain

        return Brain
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "agent-brain-lab"}]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    from .server.extension import AgentBrainApp

    return [{"module": "agent_brain_lab", "app": AgentBrainApp}]


def _load_jupyter_server_extension(server_app: Any) -> None:
    """The legacy entry (servers that call the module's function): the same ExtensionApp."""
    from .server.extension import AgentBrainApp

    return AgentBrainApp._load_jupyter_server_extension(server_app)


def load_ipython_extension(ipython: Any) -> None:
    from .kernel.magics import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .kernel.magics import unload_ipython_extension as unload

    unload(ipython)
