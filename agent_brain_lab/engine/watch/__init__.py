"""Follow the disk: turn file-system changes under a workspace into batched index runs.

One job a module, each feeding the next:

- :mod:`.sieve`: which changed paths are worth a look at all (the cheap first filter of every event);
- :mod:`.source`: one watchfiles watch over a set of folders, by file-system events or by polling;
- :mod:`.watcher`: :class:`~.watcher.Watcher` keeps a watch on the folders the workspace rules walk
  into, sets it up anew (handing over, losing no change) when that set changes, and falls back to
  polling when events cannot be had;
- :mod:`.batcher`: :class:`~.batcher.ChangeBatcher` debounces and dedupes the changed paths (from the
  watcher, and from a server's save hook: one path for both), hands each burst to one run and keeps
  a failed run's paths for a retry with back-off;
- :mod:`.follow`: :func:`~.follow.follow`, the three together for ``agent-brain-lab watch``.

Nothing under ``.agent-brain/`` (the index's own writes), ``.git/`` internals or other excluded
folders, and no editor temp file, ever reaches the batcher: a watcher that reacted to its own
index writes would loop forever. Importing this package loads nothing: watchfiles comes with
:mod:`.source`.
"""
