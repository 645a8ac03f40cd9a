"""The server extension: an ``ExtensionApp`` that builds the service from ``c.AgentBrain``, mounts
the routes, and stops its threads in the server's stop hook.

Loading it is light: the engine (numpy, usearch, the model, ...) is imported when the brain is
first used, and the disk follower starts with the first index (see :class:`DiskFollower`).
"""

from __future__ import annotations

import atexit
import gc

from jupyter_server.extension.application import ExtensionApp

from .autosave import SaveHook
from .config import AgentBrain
from .handlers import setup_handlers
from .service import BrainService
from .watcher import DiskFollower

FOLLOWER_KEY = "agent_brain_follower"


class AgentBrainApp(ExtensionApp):
    """The Agent Brain routes under ``<base_url>agent-brain/``; admin options are ``c.AgentBrain.*``."""

    name = "agent_brain_lab"
    load_other_extensions = True

    service: BrainService | None = None
    follower: DiskFollower | None = None

    def initialize_settings(self) -> None:
        server = self.serverapp
        assert server is not None  # linked before the settings are made
        options = AgentBrain(parent=server)
        root = options.resolve_root(server.root_dir)
        self.service = BrainService(root, options.brain_config(), log=server.log)
        if options.watch or options.auto_reindex_on_save:
            follower = DiskFollower(self.service, watch=options.watch, delay=options.reindex_delay, log=server.log)
            self.follower = follower
            self.service.watch_status = follower.status
            self.service.retrying = lambda: follower.failed
            self.service.on_index = follower.start
            self.settings[FOLLOWER_KEY] = follower
            if options.auto_reindex_on_save:
                server.contents_manager.register_post_save_hook(SaveHook(root, follower.add, log=server.log))
            if follower.index_exists():  # an indexed workspace is kept in step from the start
                follower.start_in_background()
        server.log.info("agent-brain: serving the brain of %s at %sagent-brain/", root, server.base_url)

    def initialize_handlers(self) -> None:
        assert self.service is not None and self.serverapp is not None
        setup_handlers(self.serverapp.web_app, self.service)

    async def stop_extension(self) -> None:
        """Stop following the disk and cancel a running index job (it commits nothing); once the
        brain was used, have the exiting interpreter skip its garbage collections (see below)."""
        if self.follower is not None:
            self.follower.close()
        if self.service is not None:
            self.service.close()
            if self.service.opened:
                atexit.register(freeze_at_exit)


def freeze_at_exit() -> None:
    """Move every live object out of reach of the collections Python runs while it exits.

    A server's exit is mostly those collections (CPython's finalisation traverses every tracked
    object, several times), so it grows with what is imported: the engine's model stack (fastembed
    and its dependencies, ~1,000 modules) made a used server's SIGTERM take about 1 s longer than a
    bare one's. Registered by the stop hook, it runs at exit only, after every thread was joined
    and before the atexit handlers registered earlier; objects made later are still collected.
    Objects are still freed by reference counting as before; only reference cycles alive at exit
    are left to the operating system, as Python allows (``__del__`` is not guaranteed at exit).
    """
    gc.freeze()
