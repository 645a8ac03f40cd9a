"""The ``%brain`` / ``%%brain`` magics: the CLI grammar, run inside the kernel.

Results are returned as Python objects (``r = %brain query ...`` gives a QueryResponse) and are
displayed as widgets when a kernel can render them, with plain-text and HTML fallbacks.
"""

from __future__ import annotations

import argparse
import shlex
import string
import time
from collections.abc import Callable
from html import escape
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from .. import commands, render
from ..engine import Brain
from ..engine.types import BrainError, IndexProgress, IndexReport, QueryResponse

PROG = "%brain"


class BrainMagicError(Exception):
    """Bad input or an engine error, shown as one line instead of a traceback."""

    def _render_traceback_(self) -> list[str]:
        return [str(self)]


# --------------------------------------------------------------------------- display


def _has_kernel() -> bool:
    """Widgets need a kernel with comms; terminal IPython gets text instead."""
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None


def _show(text: str, html: str, widget_factory: Callable[[], Any] | None = None) -> None:
    """Display one output: the widget view (when possible) with text/plain and text/html fallbacks."""
    data: dict[str, Any] = {"text/plain": text, "text/html": html}
    metadata: dict[str, Any] = {}
    if widget_factory is not None and _has_kernel():
        bundle = widget_factory()._repr_mimebundle_()
        view, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})  # anywidget gives a pair
        data.update({k: v for k, v in view.items() if k != "text/plain"})
    display(data, metadata=metadata or None, raw=True)


def _widgets() -> ModuleType | None:
    """The widget module, or None while it is missing (the HTML repr is used then)."""
    try:
        from . import widgets
    except ImportError:
        return None
    return widgets


def display_response(resp: QueryResponse) -> None:
    widgets = _widgets()
    factory = (lambda: widgets.ResultsWidget(resp)) if widgets else None
    _show(render.response_text(resp), render.response_html(resp), factory)


def display_report(report: IndexReport) -> None:
    _show(render.report_text(report), render.report_html(report))


class StatusView(dict):
    """``brain.status()`` as a dict that displays as a table (every skipped file listed: ``all_skipped``)."""

    def __init__(self, status: dict, all_skipped: bool = False):
        super().__init__(status)
        self.all_skipped = all_skipped

    def _ipython_display_(self) -> None:
        _show(render.status_text(self, self.all_skipped), render.status_html(self, self.all_skipped))


class GraphView(dict):
    """``brain.graph_entity()`` as a dict that displays as the graph explorer."""

    def __init__(self, graph: dict, brain: Brain | None = None):
        super().__init__(graph)
        self.brain = brain

    def _ipython_display_(self) -> None:
        widgets = _widgets()
        factory = (
            (lambda: widgets.GraphWidget(dict(self), brain=self.brain)) if widgets and self.get("matches") else None
        )
        _show(render.graph_text(self), render.graph_html(self), factory)


# --------------------------------------------------------------------------- progress


class _WidgetProgress:
    """An IntProgress bar and a label, updated live from the engine's progress callback.

    When done, its output's text/plain is replaced by the outcome, for viewers without widgets.
    """

    INTERVAL = 0.1  # seconds between redraws, except on a phase change

    def __init__(self) -> None:
        import ipywidgets as w

        self.bar = w.IntProgress(min=0, max=1, value=0, description="indexing")
        self.label = w.HTML("scanning…")
        self.box = w.HBox([self.bar, self.label])
        self.latest: IndexProgress | None = None
        self.drawn = (0.0, "")
        self.handle = display(self.box, display_id=True)

    def __call__(self, p: IndexProgress) -> None:
        self.latest = p
        now = time.monotonic()
        if p.phase == self.drawn[1] and now - self.drawn[0] < self.INTERVAL:
            return
        self.drawn = (now, p.phase)
        self.bar.max = 1000
        self.bar.value = round(10 * p.percent)
        self.bar.description = p.phase
        current = f" · <code>{escape(p.current_file)}</code>" if p.current_file else ""
        self.label.value = f"{escape(render.progress_counts(p))}{current}"

    def close(self, ok: bool, report: IndexReport | None = None) -> None:
        done, total = (self.latest.files_done, self.latest.files_total) if self.latest else (0, 0)
        self.bar.max = 1000
        self.bar.value = self.bar.max if ok else round(10 * self.latest.percent) if self.latest else 0
        self.bar.bar_style = "success" if ok else "danger"
        self.bar.description = "done" if ok else "stopped"
        if ok:
            outcome = render.report_text(report).split("\n", 1)[0] if report else f"Indexed {total} files"
        else:
            outcome = f"stopped after {done}/{total} files"
        self.label.value = escape(outcome)
        bundle = self.box._repr_mimebundle_()
        self.handle.update({**bundle, "text/plain": outcome}, raw=True)


class _TextProgress:
    """Terminal IPython: one line redrawn with ``\\r`` (padded over the longer line before it)."""

    def __init__(self) -> None:
        self.width = 0

    def __call__(self, p: IndexProgress) -> None:
        line = render.progress_line(p)
        self.width = max(self.width, len(line))
        print("\r" + line.ljust(self.width), end="", flush=True)

    def close(self, ok: bool, report: IndexReport | None = None) -> None:
        if self.width:
            print()


# --------------------------------------------------------------------------- the magics


def _expand(text: str, namespace: dict) -> str:
    """``{var}`` in a cell body from the user's namespace (a plain lookup, no eval).

    Left as typed when a name is unknown or the braces are not a field, like IPython's own expansion.
    """
    try:
        return string.Formatter().vformat(text, (), namespace)
    except (KeyError, IndexError, AttributeError, ValueError, TypeError):
        return text


@magics_class
class BrainMagics(Magics):
    """``%brain`` returns: index -> IndexReport, query -> QueryResponse, status -> StatusView (dict),
    graph -> GraphView (dict), reset -> what it kept (dict); with ``--json``, plain JSON-able data instead."""

    def __init__(self, shell: Any):
        super().__init__(shell)
        self._brains: dict[Path, Brain] = {}

    def _brain(self, root: Path) -> Brain:
        """One Brain per workspace root per kernel; it picks up new index generations itself."""
        if root not in self._brains:
            self._brains[root] = Brain(root)
        return self._brains[root]

    @line_cell_magic
    def brain(self, line: str, cell: str | None = None) -> Any:
        try:
            argv = shlex.split(line)
        except ValueError:  # an unbalanced quote, as in: %brain query what's the total
            argv = line.split()  # taken literally: words still join into the query text
        if cell is not None:
            if argv[:1] == ["query"]:
                argv = argv[1:]
            elif argv[:1] and argv[0] in commands.COMMANDS:
                raise BrainMagicError(f"%%brain runs a query (the cell body); use {PROG} {argv[0]} on a line")
            assert self.shell is not None  # a magic always runs in a shell
            argv = ["query", *argv, "--", _expand(cell, self.shell.user_ns)]
        if not argv:
            print(commands.help_text(PROG))
            return None
        return self.run(argv)

    def run(self, argv: list[str]) -> Any:
        """Run one command line (argv without the magic's name); see the class docstring for results."""
        try:
            ns = commands.parse(argv, prog=PROG, cwd=Path.cwd(), commands=commands.COMMANDS)
            brain = self._brain(ns.root)
            result = self._index(ns, brain) if ns.command == "index" else commands.execute(ns, brain)
        except commands.HelpShown:
            return None
        except (commands.UsageError, BrainError, OSError) as err:
            raise BrainMagicError(commands.describe_error(err, PROG)[0]) from None
        if ns.json:
            return commands.as_data(ns, result)
        if ns.command == "status":
            return StatusView(cast(dict, result), ns.request.all_skipped)
        if ns.command == "graph":
            return GraphView(cast(dict, result), brain)
        if ns.command == "reset":
            print(render.reset_text(cast(dict, result), ns.root))
        return result

    def _index(self, ns: argparse.Namespace, brain: Brain) -> IndexReport:
        progress = None if ns.json else (_WidgetProgress() if _has_kernel() else _TextProgress())
        report = None
        try:
            report = commands.execute(ns, brain, progress=progress)
        finally:
            if progress is not None:
                progress.close(report is not None, report)
        return report


_INTRO = """Agent Brain Lab: index this workspace and search it, from the notebook.

Line magic:  %brain COMMAND [ARGS]   (the same grammar as the `agent-brain-lab` CLI)
Cell magic:  %%brain [QUERY FLAGS]   the cell body is the query text, e.g.

    %%brain --mode multi --top-k 3
    where is the discount applied to the cart total?

Examples:
    %brain index                     index the workspace (incremental; live progress bar)
    %brain index docs --force        re-index one folder, re-embedding everything
    r = %brain query "compute total" --mode hybrid --alpha 0.7
    r.results[0].source              the response is a QueryResponse object
    %brain query {question} --json   {var} interpolates a Python variable; --json returns a dict
    %brain status                    what is indexed (a dict)
    %brain graph Cart --depth 2      the knowledge-graph neighbourhood (interactive explorer)
    %brain reset                     delete the index (keeps the embedding cache; --drop-cache too)

The workspace is the nearest folder upward holding .agent-brain/, else the current folder;
--workspace PATH overrides it. Bad input raises one line (BrainMagicError), not a traceback.
In a cell body only {name}, {name.attr} and {name[key]} are interpolated (no expressions).
Quote multi-word values of flags; an unbalanced quote (what's) is taken literally.

"""

BrainMagics.brain.__doc__ = _INTRO + commands.help_text(PROG)


def load_ipython_extension(ipython: Any) -> None:
    ipython.register_magics(BrainMagics)
    formatter = ipython.display_formatter.ipython_display_formatter
    formatter.for_type(QueryResponse, display_response)
    formatter.for_type(IndexReport, display_report)


def unload_ipython_extension(ipython: Any) -> None:
    formatter = ipython.display_formatter.ipython_display_formatter
    for kind in (QueryResponse, IndexReport):
        formatter.pop(kind, None)
    ipython.magics_manager.registry.pop("BrainMagics", None)
    ipython.magics_manager.magics["line"].pop("brain", None)
    ipython.magics_manager.magics["cell"].pop("brain", None)
