"""The settings of one workspace's brain (light: front doors build it before the engine loads)."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from .types import InvalidRequest, dask_address

if TYPE_CHECKING:
    from .workspace import ScanOptions


# The defaults, each defined here once: the scan (ScanOptions), the chunker (ChunkSettings) and the
# Jupyter server's traits take theirs from these.
MAX_FILE_BYTES = 1_000_000  # a larger file is skipped
CHUNK_SIZE = 1500  # characters
CHUNK_OVERLAP = 200  # characters
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class BrainConfig:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = MAX_FILE_BYTES
    include_hidden: bool = False
    chunk_size: int = CHUNK_SIZE
    chunk_overlap: int = CHUNK_OVERLAP
    model: str | None = None
    model_path: str | None = None
    graph_enabled: bool = True
    bm25_k1: float = BM25_K1
    bm25_b: float = BM25_B
    dask_scheduler: str | None = None  # address of a Dask scheduler to embed on while indexing; None/"": locally
    # the index folder group-readable as far as the root is (default: private to its owner, 0700/0600);
    # None: the environment variable SHARE_ENV ("1"/"0"), else off
    share_index_with_group: bool | None = None

    def __post_init__(self) -> None:
        """The one place a configuration is checked, however it was made (constructor, ``updated``)."""
        if self.chunk_size < 100:
            raise InvalidRequest("chunk_size", "must be at least 100 characters")
        if not 0 <= self.chunk_overlap < self.chunk_size:
            raise InvalidRequest("chunk_overlap", "must be between 0 and chunk_size")
        if self.max_file_bytes < 1:
            raise InvalidRequest("max_file_bytes", "must be positive")
        object.__setattr__(self, "dask_scheduler", dask_address(self.dask_scheduler) or None)
        share = self.share_index_with_group
        if share is None:
            share = _env_flag(SHARE_ENV)
        if not isinstance(share, bool):
            raise InvalidRequest("share_index_with_group", "must be true or false")
        object.__setattr__(self, "share_index_with_group", share)

    def updated(self, **overrides: Any) -> BrainConfig:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise InvalidRequest(unknown[0], "unknown setting")
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in overrides.items() if v is not None
        }
        return replace(self, **values)

    def scan_options(self) -> ScanOptions:
        """The workspace rules a scan (and a watcher) applies."""
        from .workspace import ScanOptions

        return ScanOptions(self.include, self.exclude, self.max_file_bytes, self.include_hidden)


SHARE_ENV = "AGENT_BRAIN_SHARE_INDEX_WITH_GROUP"


def _env_flag(name: str) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise InvalidRequest(name, f"must be 1 or 0 (got {value[:20]!r})")
