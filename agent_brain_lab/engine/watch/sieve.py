"""The first sieve of every change: which paths are worth a look at all.

Run on each event, before anything touches the disk, so it only looks at the name: excluded
folders, hidden names and editor temp files go here; the full workspace rules (.gitignore,
excludes, size, type) are the batcher's, later, once a burst has ended.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from ..workspace import EXCLUDED_DIRS, valid_name

# Swap, backup, lock and atomic-write files of editors and tools (vim, emacs, JetBrains, gedit, kate, sed -i).
EDITOR_TEMP = re.compile(
    r"(~$|^\.?#|#$|\.sw[a-p]$|\.sw[x-z]$|\.tmp$|\.temp$|\.part$|\.crswap$|\.kate-swp$|___jb_(tmp|old)___$"
    r"|^\.goutputstream-|^sed[A-Za-z0-9]{6}$|^4913$)"
)


def relevant(root: Path, path: str, include_hidden: bool = False) -> str | None:
    """The root-relative POSIX path of a changed file worth a look, or None.

    A cheap first sieve run on every event: excluded folders, hidden names and editor temp files
    are dropped here; the full workspace rules (.gitignore, excludes, size, type) are applied later.
    A changed ``.gitignore`` stands for its folder, whose files it may take in or leave out; so does a
    name that is not valid UTF-8 (no request can name it: the folder's scan reports it as skipped).
    """
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        return None
    parts = PurePosixPath(rel).parts
    if not parts or any(p in EXCLUDED_DIRS for p in parts) or EDITOR_TEMP.search(parts[-1]):
        return None
    if parts[-1] == ".gitignore":
        return "/".join(parts[:-1])
    if not include_hidden and any(p.startswith(".") for p in parts):
        return None
    return rel if valid_name(parts[-1]) else "/".join(parts[:-1])
