"""The settings of one workspace's brain (light: front doors build it before the engine loads)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from .types import InvalidRequest

if TYPE_CHECKING:
    from .workspace import ScanOptions


@dataclass(frozen=True)
class BrainConfig:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = 1_000_000
    include_hidden: bool = False
    chunk_size: int = 1500
    chunk_overlap: int = 200
    model: str | None = None
    model_path: str | None = None
    graph_enabled: bool = True
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    dask_scheduler: str | None = None  # address of a Dask scheduler to embed on while indexing; None/"": locally

    def updated(self, **overrides: Any) -> BrainConfig:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidRequest(unknown[0], "unknown setting")
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items() if v is not None
        }
        config = replace(self, **values)
        if config.chunk_size < 100:
            raise InvalidRequest("chunk_size", "must be at least 100 characters")
        if not 0 <= config.chunk_overlap < config.chunk_size:
            raise InvalidRequest("chunk_overlap", "must be between 0 and chunk_size")
        if config.max_file_bytes < 1:
            raise InvalidRequest("max_file_bytes", "must be positive")
        return config

    def scan_options(self) -> ScanOptions:
        """The workspace rules a scan (and a watcher) applies."""
        from .workspace import ScanOptions

        return ScanOptions(self.include, self.exclude, self.max_file_bytes, self.include_hidden)
