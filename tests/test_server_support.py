"""Helpers shared by the server tests (no tests here)."""

from __future__ import annotations

import functools

from jupyter_core.utils import ensure_event_loop


def on_server_loop(test):
    """Run an async test on the loop the pytest-jupyter server runs on.

    With ``asyncio_mode = "auto"`` pytest-asyncio would run a bare ``async def`` test on a loop
    of its own, where every request to the server hangs; a plain function is left alone.
    """

    @functools.wraps(test)
    def run(**fixtures):
        ensure_event_loop(prefer_selector_loop=True).run_until_complete(test(**fixtures))

    return run
