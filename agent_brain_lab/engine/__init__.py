"""The engine: pure Python, importable without Jupyter."""

from .brain import Brain, BrainConfig, find_workspace

__all__ = ["Brain", "BrainConfig", "find_workspace"]
