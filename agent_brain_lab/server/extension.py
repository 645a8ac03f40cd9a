"""Server-extension entry point: build the service from ``c.AgentBrain`` and mount the routes."""

from __future__ import annotations

import atexit

from .autosave import SaveHook
from .config import AgentBrain
from .handlers import setup_handlers
from .service import BrainService
from .watcher import DiskFollower

FOLLOWER_KEY = "agent_brain_follower"


def load_jupyter_server_extension(server_app) -> None:
    options = AgentBrain(parent=server_app)
    root = options.resolve_root(server_app.root_dir)
    service = BrainService(root, options.brain_config(), log=server_app.log)
    setup_handlers(server_app.web_app, service)
    atexit.register(service.close)  # cancel a running job cleanly; function-form extensions get no stop hook
    if service.healthy and (options.watch or options.auto_reindex_on_save):
        follower = DiskFollower(
            service,
            watch=options.watch,
            delay=options.reindex_delay,
            loop=server_app.io_loop.asyncio_loop,
            log=server_app.log,
        )
        service.watch_status = follower.status
        server_app.web_app.settings[FOLLOWER_KEY] = follower
        atexit.register(follower.close)
        if options.auto_reindex_on_save:
            hook = SaveHook(service.root, follower.batcher, log=server_app.log)
            server_app.contents_manager.register_post_save_hook(hook)
    server_app.log.info("agent-brain: serving the brain of %s at %sagent-brain/", root, server_app.base_url)
