"""``agent-brain-lab``: the command-line front door (grammar in :mod:`agent_brain_lab.commands`).

stdout carries the result (JSON only with ``--json``); progress and errors go to stderr.
Exit status: 0 ok, 2 invalid input, 1 any other engine error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from . import commands, render
from .engine import Brain
from .engine.types import BrainError, IndexProgress, IndexReport

if TYPE_CHECKING:
    from .engine.types import WatchState

PROG = "agent-brain-lab"

_TEXT: dict[str, Callable[[Any], str]] = {
    "index": render.report_text,
    "query": render.response_text,
    "graph": render.graph_text,
}


class ProgressBar:
    """One stderr line redrawn with ``\\r``: bar, files done/total, phase, current file."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.width = shutil.get_terminal_size((80, 20)).columns - 1
        self.drawn = False

    def __call__(self, progress: IndexProgress) -> None:
        line = render.progress_line(progress)[: self.width]
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def _print(ns: argparse.Namespace, result: Any) -> None:
    if ns.json:
        print(json.dumps(commands.as_data(ns, result), indent=2, ensure_ascii=False))
    elif ns.command == "reset":
        print(render.reset_text(result, ns.root))
    elif ns.command == "status":
        print(render.status_text(result, ns.request.all_skipped))
    else:
        print(_TEXT[ns.command](result))


def _serve_mcp(root: Path) -> int:
    try:
        from .mcp.stdio import serve
    except ModuleNotFoundError as err:  # the optional SDK is not installed
        print(f"{PROG} mcp: needs the MCP SDK ({err}): pip install 'agent_brain_lab[mcp]'", file=sys.stderr)
        return 1
    return serve(root)


def _watch(ns: argparse.Namespace, brain: Brain) -> int:
    """The watch mode on stderr, then each run on stdout (a JSON object a line with --json), until Ctrl-C."""
    from .engine.watch.follow import follow

    states: list[WatchState] = []

    def on_state(state: WatchState) -> None:
        states.append(state)
        how = f"{state.mode}: {state.reason}" if state.reason else state.mode
        print(f"Watching {brain.root} ({how}); Ctrl-C stops", file=sys.stderr, flush=True)

    def on_report(paths: list[str], report: IndexReport) -> None:
        print(json.dumps({"paths": paths, **report.to_dict()}) if ns.json else render.report_text(report), flush=True)

    def on_failure(paths: list[str], err: BaseException, wait: float) -> None:
        # The text form is the warning on stderr; --json also gets a line per failed run, in the error shape.
        if ns.json:
            error = err.to_dict() if isinstance(err, BrainError) else {"error": "internal", "message": repr(err)}
            print(json.dumps({"paths": paths, "failed": error, "retry_in_s": wait}), flush=True)

    runs = follow(
        brain, on_state=on_state, on_report=on_report, on_failure=on_failure, force_polling=ns.polling or None
    )
    print(f"Stopped watching {brain.root} after {runs} index runs", file=sys.stderr)
    return 1 if states and states[0].mode == "off" else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    bar: ProgressBar | None = None
    try:
        ns = commands.parse(args, prog=PROG, cwd=Path.cwd())
        if ns.command == "mcp":
            return _serve_mcp(ns.root)
        if ns.command == "watch":
            return _watch(ns, Brain(ns.root))
        if ns.command == "index" and not ns.json and sys.stderr.isatty():
            bar = ProgressBar(sys.stderr)
        try:
            result = commands.execute(ns, Brain(ns.root), progress=bar)
        finally:
            if bar:
                bar.close()
    except commands.HelpShown:
        return 0
    except (commands.UsageError, BrainError, OSError) as err:
        message, status = commands.describe_error(err, PROG)
        print(message, file=sys.stderr)
        return status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    try:
        _print(ns, result)
    except BrokenPipeError:  # e.g. piped into `head`: not an error worth a traceback
        sys.stderr.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
