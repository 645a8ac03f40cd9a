"""What the server extension leaves to a Jupyter server that stops: a real ``ServerApp`` in a fresh
interpreter, its stop hook, then the interpreter's own exit (atexit order is a property of a process)."""

from __future__ import annotations

import json

import pytest
from test_lazy import run_python

STOP = """
    import asyncio, atexit, gc, json, threading
    from pathlib import Path

    seen = {{}}
    # registered first, so it runs after the extension's own exit hook: what the exit collections see
    atexit.register(lambda: print(json.dumps({{**seen, "frozen_at_exit": gc.get_freeze_count() > 0}})))

    from jupyter_server.serverapp import ServerApp
    from traitlets.config import Config

    root = Path({root!r})
    (root / "notes.md").write_text("# Lighthouse notes\\n\\nThe keeper trims the wick at dusk.\\n")
    config = Config()
    config.ServerApp.root_dir = str(root)
    config.ServerApp.jpserver_extensions = {{"agent_brain_lab": True}}
    app = ServerApp(config=config)
    app.initialize(argv=[], find_extensions=False, new_httpserver=False)
    (ext,) = [p.app for p in app.extension_manager.extensions["agent_brain_lab"].extension_points.values()]

    async def use_then_stop():
        if {use!r}:  # a request on each of the service's thread pools opens the brain
            await ext.service.run(ext.service.status)
            await ext.service.run_status(ext.service.status)
        await ext.stop_extension()

    asyncio.run(use_then_stop())
    ours = [t for t in threading.enumerate() if t.name.startswith("agent-brain") and not t.daemon]
    for thread in ours:  # the pools were shut down: their idle workers end on their own
        thread.join(60)
    seen["non_daemon_threads_left"] = [t.name for t in ours if t.is_alive()]
"""


@pytest.mark.parametrize("use", [True, False], ids=["used", "never-used"])
def test_the_stop_hook_leaves_no_thread_and_only_a_used_brain_freezes_the_exit(tmp_path, use):
    done = run_python(STOP.format(root=str(tmp_path), use=use))
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"non_daemon_threads_left": [], "frozen_at_exit": use}
