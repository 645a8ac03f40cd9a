"""The engine: pure Python, importable without Jupyter.

Its names load on first use (PEP 562): importing a light module of the engine (types, native,
workspace) does not import the query stack (numpy, usearch, ...).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .brain import Brain, find_workspace
    from .config import BrainConfig

__all__ = ["Brain", "BrainConfig", "find_workspace"]


def __getattr__(name: str) -> Any:
    if name == "BrainConfig":
        from .config import BrainConfig

        return BrainConfig
    if name in __all__:
        from . import brain

        return getattr(brain, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
