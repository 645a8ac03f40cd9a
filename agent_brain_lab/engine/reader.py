"""The index reader: one catalog and one generation of the same index, held open between reads.

Many processes may open one workspace's index while one of them writes, resets or restores it. The
rule a reader follows: before each read it compares the index's :class:`Identity` on disk (index id,
generation, catalog file, generation folder) with the one its :class:`View` was opened under, and
reopens catalog and snapshot together when it changed, so chunk keys are only ever looked up in the
catalog they came from. An error under an index that was replaced meanwhile is the replacement, not
damage: look again. An error under an unchanged index is damage only once two fresh opens saw it.
After three looks at an index still moving, the reader gives up with :class:`WorkspaceBusy`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from .snapshot import Snapshot
from .store.catalog import Catalog, CatalogChanged, catalog_errors
from .store.generations import FIX_RESET, IndexDir, busy, inode_of
from .store.graph import CodeGraph
from .types import IndexCorrupt, IndexProblem, NotIndexed, WorkspaceBusy

T = TypeVar("T")

LOOKS = 3  # looks at an index being replaced before a reader gives up (WorkspaceBusy)
SETTLE_SECONDS = 0.05  # a pause before looking again at a catalog that did not match INDEX_ID


class Identity(NamedTuple):
    """What names one index on disk: any change means what a reader holds open no longer describes
    it (a generation folder published again under the same number is a new folder)."""

    index_id: str | None
    generation: int  # 0: no index
    catalog_inode: tuple[int, int] | None  # (device, inode) of catalog.sqlite
    generation_inode: tuple[int, int] | None  # (device, inode) of the generation's folder

    @classmethod
    def of(cls, index_dir: IndexDir) -> Identity:
        """The identity of the index in ``index_dir`` now (IndexProblem when CURRENT is unreadable)."""
        gen = index_dir.current()
        generation_inode = inode_of(index_dir.gen_folder(gen)) if gen else None
        return cls(index_dir.index_id(), gen, inode_of(index_dir.catalog_file), generation_inode)


@dataclass(frozen=True)
class View:
    """What a reader holds open: one catalog and one generation of the same index."""

    identity: Identity
    catalog: Catalog
    snapshot: Snapshot


class _Replaced(Exception):
    """The index was replaced while it was being opened or read: look again."""


class _Mismatch(Exception):
    """The catalog opened does not belong to the index INDEX_ID names (once: look again)."""


class IndexReader:
    """Reads one workspace's index for a :class:`~agent_brain_lab.engine.brain.Brain`, from any thread."""

    def __init__(self, index_dir: IndexDir):
        self._dir = index_dir
        self._view: View | None = None
        self._lock = threading.Lock()

    def read(self, work: Callable[[View], T]) -> T:
        """Run ``work`` on the current view; a catalog replaced under it (reset and re-indexed by
        another process between the identity check and a connection) is reopened and tried again."""
        doubted = False
        for _ in range(LOOKS):
            view = self.view()
            try:
                with catalog_errors(self._dir.path, reading=True):
                    return work(view)
            except CatalogChanged:
                pass  # its file was replaced since this connection opened it
            except IndexProblem:
                if not self.replaced(view.identity):
                    if doubted:
                        raise  # seen twice, from two fresh opens: damage
                    doubted = True  # a connection misled by files replaced under it: a second look decides
            self.forget(view)  # files removed under a reader by a publish or reset, not damage: look again
        raise WorkspaceBusy("the index was replaced by another process while reading it: try again")

    def view(self, written: tuple[int, CodeGraph] | None = None) -> View:
        """The catalog and generation of the index on disk, reopened together when its identity
        changed since the last read (NotIndexed when there is no index).

        ``written``: (generation, graph) this process just published: served with the graph still in
        memory and without re-reading the files it just wrote."""
        self._dir.check_folder()
        doubted: Identity | None = None  # the identity under which a catalog did not match INDEX_ID
        for _ in range(LOOKS):
            if doubted is not None:
                time.sleep(SETTLE_SECONDS)  # outside the lock: let a reset that replaces the catalog finish
            identity = Identity.of(self._dir)
            if not identity.generation:
                self.forget()
                raise NotIndexed(building=self._dir.exists() and self._dir.writer_active())
            with self._lock:
                held = self._held(identity)
                if held is not None:
                    return held
                try:
                    self._view = self._open(identity, written, doubted)
                    return self._view
                except _Replaced:
                    pass
                except _Mismatch:
                    doubted = identity
        raise WorkspaceBusy("the index is being replaced by another process: try again in a moment")

    def settled(self, check: Callable[[], T]) -> T:
        """Run ``check``, which opens index files of its own: IndexCorrupt under an index replaced
        meanwhile (files removed under us by a reset or publish) is looked at again, not reported."""
        for _ in range(LOOKS):
            identity = Identity.of(self._dir)
            try:
                return check()
            except IndexCorrupt:
                if not self.replaced(identity):
                    raise  # damage
        raise busy()

    def replaced(self, identity: Identity) -> bool:
        """Whether the index on disk is no longer the one ``identity`` describes (an unreadable
        CURRENT counts as not replaced: that is damage to report)."""
        try:
            return Identity.of(self._dir) != identity
        except IndexProblem:
            return False

    def forget(self, view: View | None = None) -> None:
        """Drop the open view (only ``view``, if given: another thread may have replaced it already)."""
        with self._lock:
            if self._view is not None and (view is None or self._view is view):
                self._view.catalog.close()
                self._view = None

    def _held(self, identity: Identity) -> View | None:
        """The view held open, when it still describes ``identity`` and its catalog still answers."""
        view = self._view
        if view is None or view.identity != identity:
            return None
        try:
            with catalog_errors(self._dir.path, reading=True):
                if view.catalog.same_index():
                    return view
        except (IndexProblem, CatalogChanged):
            pass  # damage, a catalog removed or replaced since it was opened: a fresh open decides
        view.catalog.close()  # another catalog was copied over the file: reopen
        return None

    def _open(self, identity: Identity, written: tuple[int, CodeGraph] | None, doubted: Identity | None) -> View:
        """Catalog and snapshot of the index ``identity`` names, opened together (_Replaced when
        it moved meanwhile, _Mismatch the first time its catalog names another index)."""
        held = self._view
        # a later generation of the same index: what it shares with this one is not loaded twice
        before = held.snapshot if held is not None and held.identity.index_id == identity.index_id else None
        self._view = None
        with self._unless_replaced(identity):
            self._dir.check_format()
            catalog = Catalog(self._dir.catalog_path)
        try:
            with self._unless_replaced(identity):
                if self.replaced(identity):
                    raise _Replaced
                if catalog.index_id != identity.index_id:
                    # seen twice under one identity (a connection opened while a reset replaced the
                    # catalog's files can misread once): a catalog from another index
                    if doubted == identity:
                        raise IndexCorrupt(
                            ".agent-brain/catalog.sqlite does not belong to the index INDEX_ID names", FIX_RESET
                        )
                    raise _Mismatch
                gen = identity.generation
                graph = written[1] if written and written[0] == gen else None
                snapshot = Snapshot(gen, self._dir.gen_path(gen), graph, verify=graph is None, previous=before)
        except BaseException:
            catalog.close()
            raise
        return View(identity, catalog, snapshot)

    @contextmanager
    def _unless_replaced(self, identity: Identity) -> Iterator[None]:
        """An IndexProblem while the index moved away from ``identity`` is the move (_Replaced), not damage."""
        try:
            yield
        except IndexProblem:
            if self.replaced(identity):
                raise _Replaced from None
            raise
