"""Admin options of the server extension (``c.AgentBrain.*``), mapped onto :class:`BrainConfig`."""

from __future__ import annotations

from pathlib import Path

from traitlets import Bool, Float, Int, List, Unicode
from traitlets.config import Configurable

from ..engine.config import MAX_FILE_BYTES, BrainConfig


class AgentBrain(Configurable):
    """Options an admin sets in ``jupyter_server_config.py``; users tune queries in the panel."""

    root = Unicode(
        "",
        help="Workspace folder to index. Empty: the server's root_dir.",
    ).tag(config=True)

    include = List(
        Unicode(),
        help="Glob patterns (relative to the root) of files to index. Empty: every supported file.",
    ).tag(config=True)

    exclude = List(
        Unicode(),
        help="Glob patterns (relative to the root) of files never to index, on top of .gitignore.",
    ).tag(config=True)

    model = Unicode(
        None,
        allow_none=True,
        help="fastembed model name. None: the engine's bundled default.",
    ).tag(config=True)

    model_path = Unicode(
        None,
        allow_none=True,
        help="Local directory holding the embedding model files (nothing is downloaded).",
    ).tag(config=True)

    dask_scheduler = Unicode(
        "",
        help="Address of a Dask scheduler to embed on while indexing (needs agent_brain_lab[dask]). Empty: locally.",
    ).tag(config=True)

    graph_enabled = Bool(True, help="Build the knowledge graph used by the graph and multi modes.").tag(config=True)

    auto_reindex_on_save = Bool(
        True,
        help="Re-index a file (incrementally) shortly after it is saved through Jupyter.",
    ).tag(config=True)

    watch = Bool(
        True,
        help="Follow the disk: re-index files changed outside Jupyter (git checkout, a terminal, another editor).",
    ).tag(config=True)

    reindex_delay = Float(
        1.0,
        help="Seconds to wait after the last save or change of a file before re-indexing it.",
    ).tag(config=True)

    max_file_bytes = Int(MAX_FILE_BYTES, help="Files larger than this are skipped.").tag(config=True)

    def resolve_root(self, server_root_dir: str) -> Path:
        """The workspace root: ``root`` if set (relative to the server root), else the server root."""
        server_root = Path(server_root_dir).expanduser()
        root = Path(self.root).expanduser() if self.root else server_root
        if not root.is_absolute():
            root = server_root / root
        return root.resolve()

    def brain_config(self) -> BrainConfig:
        return BrainConfig(
            include=tuple(self.include),
            exclude=tuple(self.exclude),
            max_file_bytes=self.max_file_bytes,
            model=self.model,
            model_path=self.model_path,
            graph_enabled=self.graph_enabled,
            dask_scheduler=self.dask_scheduler,
        )
