"""The one command grammar behind both the CLI and the ``%brain`` magics.

``parse`` turns an argv list into a validated namespace (workspace resolved, query request
built through :meth:`QueryRequest.build`, index path made relative to the root);
``execute`` runs it on a :class:`Brain`. Front doors only choose how to show the result.
"""

from __future__ import annotations

import argparse
import contextvars
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .engine import find_workspace
from .engine.types import (
    MAX_SKIPPED_LISTED,
    MODES,
    SOURCE_TYPES,
    BrainError,
    GraphRequest,
    IndexRequest,
    InvalidRequest,
    NotIndexed,
    ProgressCallback,
    QueryRequest,
    ResetRequest,
    StatusRequest,
    dask_address,
)
from .engine.workspace import resolve_path

if TYPE_CHECKING:
    from .engine import Brain

# What execute() runs: every door's commands, the %brain magic's whole set.
COMMANDS = ("index", "query", "status", "reset", "graph")
# The command line's: those, plus the two agent_brain_lab.cli runs itself (a server, a watch until Ctrl-C).
CLI_COMMANDS = (*COMMANDS, "mcp", "watch")

# query flag dest -> QueryRequest field
_QUERY_FIELDS = {
    "mode": "mode",
    "top_k": "top_k",
    "alpha": "alpha",
    "threshold": "similarity_threshold",
    "rrf_k": "rrf_k",
    "depth": "traversal_depth",
    "paths": "file_paths",
}
# QueryRequest field -> the flag that sets it, so errors name what the user typed
_FLAGS = {field: "--" + dest.replace("_", "-") for dest, field in _QUERY_FIELDS.items()}
_FLAGS.update(
    {
        "source_types": "--source-types",
        "languages": "--languages",
        "path": "PATH",
        "depth": "--depth",
        "name": "ENTITY",
        "include": "--include",
        "exclude": "--exclude",
        "chunk_size": "--chunk-size",
        "chunk_overlap": "--chunk-overlap",
        "dask_scheduler": "--dask-scheduler",
        "drop_cache": "--drop-cache",
    }
)


class UsageError(Exception):
    """A malformed command line; ``str(err)`` is the one line shown to the user."""


class HelpShown(Exception):
    """``--help`` was printed; nothing more to do."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so a kernel survives bad input."""

    commands: Mapping[str, argparse.ArgumentParser]  # the sub-command parsers, for help_text

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if status:
            self.error((message or "failed").strip())
        raise HelpShown()


def build_parser(prog: str = "agent-brain-lab", commands: Sequence[str] = CLI_COMMANDS) -> _Parser:
    """The grammar of ``commands`` (a door's own set: an unknown one is refused naming exactly these).
    Values of query flags stay strings: QueryRequest.build validates them."""
    parser = _Parser(
        prog=prog,
        description="Index a workspace (docs, code, notebooks) and search it in five modes.",
    )
    workspace_help = "workspace root (default: nearest folder upward holding .agent-brain/, else the current folder)"
    parser.add_argument("--workspace", metavar="PATH", default=None, help=workspace_help)
    # Also accepted after the sub-command; SUPPRESS keeps it from overwriting the value given before it.
    common = _Parser(add_help=False)
    common.add_argument("--workspace", metavar="PATH", default=argparse.SUPPRESS, help=workspace_help)
    as_json = _Parser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="JSON output only (the magic returns a plain dict)")

    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands:
        help_line, takes_json, add_arguments = _GRAMMAR[name]
        add_arguments(sub.add_parser(name, parents=[common, as_json] if takes_json else [common], help=help_line))
    parser.commands = sub.choices  # for help_text
    return parser


def _index_arguments(index: argparse.ArgumentParser) -> None:
    index.add_argument(
        "path",
        nargs="?",
        default="",
        metavar="PATH",
        help="file or folder to (re)index, relative to the current folder (default: the whole workspace)",
    )
    index.add_argument("--force", action="store_true", help="re-embed everything, even unchanged files")
    index.add_argument("--include", action="append", metavar="GLOB", help="only index files matching GLOB (repeatable)")
    index.add_argument("--exclude", action="append", metavar="GLOB", help="skip files matching GLOB (repeatable)")
    index.add_argument("--chunk-size", metavar="N", help="characters per chunk for this run (default: configured)")
    index.add_argument("--chunk-overlap", metavar="N", help="characters chunks overlap by (default: configured)")
    index.add_argument("--dask-scheduler", metavar="ADDR", help="embed on this Dask cluster (e.g. tcp://host:8786)")


def _query_arguments(query: argparse.ArgumentParser) -> None:
    query.add_argument("text", nargs="+", metavar="TEXT", help="the query (quote it, or put the flags after it)")
    query.add_argument("--mode", metavar="M", help=f"one of {', '.join(MODES)} (default: {QueryRequest.mode})")
    query.add_argument("--top-k", metavar="K", help=f"number of results (default: {QueryRequest.top_k})")
    query.add_argument(
        "--alpha", metavar="A", help=f"hybrid weight of the vector leg, 0..1 (default: {QueryRequest.alpha})"
    )
    query.add_argument(
        "--threshold", metavar="T", help=f"minimum vector similarity (default: {QueryRequest.similarity_threshold:g})"
    )
    query.add_argument("--rrf-k", metavar="K", help=f"RRF constant for multi (default: {QueryRequest.rrf_k})")
    query.add_argument("--depth", metavar="D", help=f"graph traversal depth (default: {QueryRequest.traversal_depth})")
    query.add_argument(
        "--source-types",
        nargs="+",
        action="extend",
        metavar="TYPE",
        help=f"keep only these source types ({', '.join(SOURCE_TYPES)})",
    )
    query.add_argument(
        "--languages",
        nargs="+",
        action="extend",
        metavar="LANG",
        help="keep only these languages (e.g. python markdown, or a suffix: py md; `status` lists those indexed)",
    )
    query.add_argument(
        "--paths",
        nargs="+",
        action="extend",
        metavar="GLOB",
        help="keep only files matching these globs, relative to the root (** allowed)",
    )


def _status_arguments(status: argparse.ArgumentParser) -> None:
    status.add_argument(
        "--all-skipped",
        action="store_true",
        help=f"list every skipped file (default: the first {MAX_SKIPPED_LISTED}; all are counted by reason)",
    )


def _reset_arguments(reset: argparse.ArgumentParser) -> None:
    reset.add_argument("--drop-cache", action="store_true", help="delete the embedding cache too")


def _graph_arguments(graph: argparse.ArgumentParser) -> None:
    graph.add_argument("entity", metavar="ENTITY", help="entity name, e.g. a class or function")
    graph.add_argument("--depth", metavar="D", help=f"hops to follow (default: {GraphRequest.depth})")
    graph.add_argument(
        "--per-relation",
        metavar="N",
        help=f"neighbours shown per relation, the rest grouped (default: {GraphRequest.per_relation}; 0: all)",
    )
    graph.add_argument(
        "--all-relations",
        action="store_true",
        help="also follow contains/defined_in (file, class and member structure), hidden by default",
    )


def _watch_arguments(watch: argparse.ArgumentParser) -> None:
    watch.add_argument("--polling", action="store_true", help="poll the disk instead of file-system events")


# Each sub-command: its help line, whether it takes --json, and its own arguments.
_GRAMMAR: dict[str, tuple[str, bool, Callable[[argparse.ArgumentParser], None]]] = {
    "index": ("index the workspace or part of it (incremental)", True, _index_arguments),
    "query": ("search the index", True, _query_arguments),
    "status": ("show what is indexed", True, _status_arguments),
    "graph": ("show an entity's neighbourhood in the knowledge graph", True, _graph_arguments),
    "reset": ("delete the index (the embedding cache is kept: no re-embedding)", True, _reset_arguments),
    "mcp": ("serve the brain to AI agents: an MCP server on stdin/stdout", False, lambda _: None),
    "watch": ("index, then re-index what changes on disk, until Ctrl-C", True, _watch_arguments),
}


def help_text(prog: str) -> str:
    """The full help of the %brain magic: the overview plus each of its sub-commands' own help."""
    parser = build_parser(prog, COMMANDS)
    return "\n".join([parser.format_help()] + [parser.commands[name].format_help() for name in COMMANDS])


def parse(argv: Sequence[str], *, prog: str, cwd: Path, commands: Sequence[str] = CLI_COMMANDS) -> argparse.Namespace:
    """Parse and validate a command line of one of ``commands`` (the door's own set).

    Adds ``root`` (the workspace) and ``request``: a QueryRequest, an IndexRequest (paths relative
    to the root), a GraphRequest or a StatusRequest, built by the engine's one validator.
    Raises UsageError for a malformed line, InvalidRequest for a bad value, HelpShown for --help.
    """
    ns = build_parser(prog, commands).parse_args(list(argv))
    ns.root = _workspace(ns.workspace, cwd, prog)
    if ns.command == "query":
        ns.request = query_request(ns)
    elif ns.command == "index":
        ns.request = index_request(ns, cwd)
        ns.dask_scheduler = dask_address(ns.dask_scheduler) if ns.dask_scheduler is not None else None
    elif ns.command == "reset":
        ns.request = ResetRequest.build({"drop_cache": ns.drop_cache})
    elif ns.command == "graph":
        ns.request = GraphRequest.build(
            {"name": ns.entity, "depth": ns.depth, "per_relation": ns.per_relation, "all_relations": ns.all_relations}
        )
    elif ns.command == "status":
        ns.request = StatusRequest.build({"all_skipped": ns.all_skipped})
    return ns


def query_request(ns: argparse.Namespace) -> QueryRequest:
    data: dict[str, Any] = {"query": " ".join(ns.text)}
    data.update({field: getattr(ns, dest) for dest, field in _QUERY_FIELDS.items()})
    # "code,doc" and "code doc" both work: QueryRequest.build splits a string on commas.
    data["source_types"] = ",".join(ns.source_types) if ns.source_types else None
    data["languages"] = ",".join(ns.languages) if ns.languages else None
    return QueryRequest.build(data)


def index_request(ns: argparse.Namespace, cwd: Path) -> IndexRequest:
    fields = {"path": ns.path, "force": ns.force, "include": ns.include, "exclude": ns.exclude}
    request = IndexRequest.build({**fields, "chunk_size": ns.chunk_size, "chunk_overlap": ns.chunk_overlap})
    return replace(request, paths=tuple(_relative_to_root(p, cwd, ns.root) for p in request.paths))


def _workspace(given: str | None, cwd: Path, prog: str) -> Path:
    if given is None:
        return find_workspace(cwd)
    if "\x00" in given:
        raise UsageError(f"{prog}: --workspace: a path cannot hold a NUL character")
    try:
        root = resolve_path(cwd / Path(given).expanduser())
    except OSError as err:
        raise UsageError(f"{prog}: --workspace: {given} cannot be opened: {err.strerror or err}") from None
    if not root.is_dir():
        raise UsageError(f"{prog}: --workspace: {given} is not a folder")
    return root


def _relative_to_root(path: str, cwd: Path, root: Path) -> str:
    """A PATH typed relative to the current folder, as the engine wants it: relative to the root."""
    if not path:
        return ""
    try:
        target = resolve_path(cwd / Path(path).expanduser())
    except OSError as err:
        raise InvalidRequest("path", f"{path} cannot be opened: {err.strerror or err}") from None
    if not target.is_relative_to(root):
        raise InvalidRequest("path", f"{path} is outside the workspace {root}")
    relative = target.relative_to(root).as_posix()
    return "" if relative == "." else relative


def execute(ns: argparse.Namespace, brain: Brain, progress: ProgressCallback | None = None) -> Any:
    """Run a parsed command, one of :data:`COMMANDS` (``mcp`` and ``watch`` are run by the CLI
    itself); returns what the engine returned."""
    actions: dict[str, Callable[[], Any]] = {
        "index": lambda: run_cancellable(
            brain.index,
            force=ns.request.force,
            path=list(ns.request.paths) or "",
            progress=progress,
            **ns.request.settings(),
            dask_scheduler=ns.dask_scheduler,
        ),
        "query": lambda: brain.query(ns.request),
        "status": lambda: brain.status(ns.request).to_dict(),
        "graph": lambda: brain.graph_entity(ns.request).to_dict(),
        "reset": lambda: brain.reset(drop_cache=ns.request.drop_cache),
    }
    return actions[ns.command]()


def as_data(ns: argparse.Namespace, result: Any) -> Any:
    """The JSON-able form of a command's result (what ``--json`` prints or returns)."""
    if ns.command == "reset":
        return {**result, "root": str(ns.root)}
    return result.to_dict() if hasattr(result, "to_dict") else dict(result)


def run_cancellable(index: Callable[..., Any], **kwargs: Any) -> Any:
    """Run ``index`` in a worker thread so that Ctrl-C (or a kernel interrupt) sets its cancel
    event and the engine stops cleanly, committing nothing, instead of dying mid-write."""
    cancel, finished = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = index(cancel=cancel, **kwargs)
        except BaseException as err:  # handed back to the calling thread below
            outcome["error"] = err
        finally:
            finished.set()

    # The copied context keeps the kernel's parent message, so widget updates reach the right cell.
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), name="agent-brain-index", daemon=True).start()
    # Wait on an Event, not Thread.join: an interrupted join can mark a live thread finished (Python 3.11).
    try:
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        cancel.set()
        finished.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def describe_error(err: BaseException, prog: str) -> tuple[str, int]:
    """One line for the user and the exit status: 2 for bad input, 1 for other failures."""
    if isinstance(err, UsageError):
        return str(err), 2
    if isinstance(err, InvalidRequest):
        detail = str(err).removeprefix(f"{err.field}: ")
        return f"{prog}: {_FLAGS.get(err.field, err.field)}: {detail}", 2
    if isinstance(err, NotIndexed) and not err.building:
        return f"{prog}: {err} (run `{prog} index`)", 1
    if isinstance(err, BrainError):
        return f"{prog}: {err}", 1
    if isinstance(err, OSError):
        return f"{prog}: {err.strerror or err}" + (f": {err.filename}" if err.filename else ""), 1
    raise TypeError(f"not a user-facing error: {err!r}")
