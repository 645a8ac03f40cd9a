"""The agent-brain-lab CLI, run as a real subprocess on a copy of the fixture workspace."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from workspace_fixture import copy_workspace

from agent_brain_lab.engine import Brain
from agent_brain_lab.engine.store.generations import IndexDir
from agent_brain_lab.engine.types import MODES, NotIndexed

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 600


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agent_brain_lab.cli", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def ok_json(*args: str, cwd: Path):
    proc = cli(*args, "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # stdout holds JSON and nothing else


def failure(*args: str, cwd: Path, status: int) -> str:
    proc = cli(*args, cwd=cwd)
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, dict]:
    """A copy of the fixture workspace, indexed once through the CLI; the index report."""
    root = tmp_path_factory.mktemp("cli") / "workspace"
    copy_workspace(root)
    proc = cli("index", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal
    return root, json.loads(proc.stdout)


def test_index_reports_files_and_chunks(indexed):
    root, report = indexed
    assert report["files_indexed"] >= 20
    assert report["chunks_total"] >= report["files_indexed"]
    assert report["generation"] >= 1
    assert all(s["path"] and s["reason"] for s in report["skipped"])
    assert (root / ".agent-brain").is_dir()


def test_reindex_is_incremental(indexed):
    root, first = indexed
    again = ok_json("index", cwd=root)
    assert again["files_indexed"] == 0
    assert again["chunks_embedded"] == 0
    assert again["chunks_total"] == first["chunks_total"]


@pytest.mark.parametrize("mode", MODES)
def test_query_every_mode_json(indexed, mode):
    root, _ = indexed
    resp = ok_json("query", "compute_total applies the discount", "--mode", mode, "--top-k", "4", cwd=root)
    assert resp["mode"] == mode
    assert 1 <= len(resp["results"]) <= 4
    for hit in resp["results"]:
        assert (root / hit["source"]).is_file()
        assert 1 <= hit["start_line"] <= hit["end_line"]
    sources = {hit["source"] for hit in resp["results"]}
    assert sources & {"shop/pricing.py", "README.md", "docs/architecture.md", "docs/api.rst"}, sources


def test_query_text_output(indexed):
    root, _ = indexed
    proc = cli("query", "InsufficientStockError: not enough items", "--mode", "bm25", cwd=root)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[1]
    assert re.match(r"^ 1\. \d+\.\d{4}  \S+:\d+-\d+", first), proc.stdout
    assert "bm25 " in proc.stdout and "│ " in proc.stdout
    assert "InsufficientStockError" in proc.stdout


def test_query_unquoted_words_and_filters(indexed):
    root, _ = indexed
    resp = ok_json(
        "query", "stock", "reservation", "--source-types", "code", "--languages", "python", "--top-k", "3", cwd=root
    )
    assert resp["query"] == "stock reservation"
    assert resp["results"] and all(h["language"] == "python" and h["source_type"] == "code" for h in resp["results"])
    resp = ok_json("query", "total", "--mode", "bm25", "--paths", "shop/**", cwd=root)
    assert resp["results"] and all(h["source"].startswith("shop/") for h in resp["results"])


def test_status(indexed):
    root, report = indexed
    status = ok_json("status", cwd=root)
    assert status["state"] == "ready"
    assert Path(status["root"]) == root
    assert status["files"]["total"] == report["files_indexed"]  # the first index embedded every live file
    assert status["generation"] >= report["generation"]
    text = cli("status", cwd=root).stdout
    assert re.search(r"^state\s+ready$", text, re.M), text
    assert str(root) in text


def test_status_all_skipped_lists_every_skipped_file(tmp_path):
    """The summary names five skipped files and says '`status --all-skipped` lists them'; that command
    printed the same five. Now its text (and the magic's view) lists every one on a row of its own."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "README.md").write_text("# Readme\n\nplain\n")
    names = [f"blob{i}.py" for i in range(8)] + ["new\nline.py"]
    for name in names:
        (root / name).write_bytes(b"\x00binary")
    assert cli("index", cwd=root).returncode == 0
    summary = cli("status", cwd=root).stdout
    assert "… 4 more (`status --all-skipped` lists them)" in summary
    listed = cli("status", "--all-skipped", cwd=root).stdout
    rows = re.findall(r"^ +(\S.*) \(binary file\)$", listed, re.M)
    assert sorted(rows) == sorted(n.replace("\n", "\\n") for n in names), listed
    assert re.search(r"^skipped +9: 9 binary file$", listed, re.M), listed

    from agent_brain_lab import render
    from agent_brain_lab.kernel.magics import StatusView

    view = StatusView(ok_json("status", "--all-skipped", cwd=root), all_skipped=True)  # what %brain status shows
    assert all(n.replace("\n", "\\n") in render.status_html(view, view.all_skipped) for n in names)


def test_bidi_controls_in_names_and_code_are_shown_escaped(tmp_path):
    """A name with U+202E (right-to-left override) is displayed reversed by a terminal ('invoice\\u202egpj.py'
    reads 'invoiceyp.jpg'), and code carrying bidi controls reads other than it runs (Trojan Source):
    both reached the terminal raw; they are escaped like every other control character now."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "invoice\u202egpj.py").write_text("def invoice_total():\n    return 1\n")
    (root / "access.py").write_text(
        "def is_admin(user):\n"
        "    # check \u202e } \u2066if user.admin:\u2069 \u2066 # begin admins only\n"
        "    return False\n"
    )
    assert cli("index", cwd=root).returncode == 0
    for query in ("invoice_total", "is_admin admins"):
        out = cli("query", query, "--mode", "bm25", cwd=root).stdout
        assert not any(c in out for c in "\u202e\u2066\u2069"), out
    assert "invoice\\u202egpj.py:1-2" in cli("query", "invoice_total", "--mode", "bm25", cwd=root).stdout


def test_graph(indexed):
    root, _ = indexed
    graph = ok_json("graph", "Cart", "--depth", "1", cwd=root)
    assert graph["matches"]
    names = {n["name"] for n in graph["nodes"]}
    assert "Cart" in names and len(names) > 1
    assert all(e["relation"] for e in graph["edges"])
    text = cli("graph", "Cart", cwd=root).stdout
    assert text.startswith("Cart: ") and "-> " in text

    unknown = ok_json("graph", "NoSuchThingAnywhere", cwd=root)
    assert unknown["matches"] == []
    assert "no entity named" in cli("graph", "NoSuchThingAnywhere", cwd=root).stdout
    typo = ok_json("graph", "Cartt", cwd=root)["note"]
    assert typo.startswith("no entity named 'Cartt' in the graph (did you mean 'cart'")
    assert cli("graph", "Cartt", cwd=root).stdout.strip() == typo


def test_workspace_discovered_from_subfolder(indexed):
    root, _ = indexed
    status = ok_json("status", cwd=root / "shop")
    assert Path(status["root"]) == root
    # PATH is relative to the current folder, so "." from shop/ re-indexes just that folder
    report = ok_json("index", ".", cwd=root / "shop")
    assert report["files_indexed"] == 0
    other = root.parent / "elsewhere"
    other.mkdir(exist_ok=True)
    assert Path(ok_json("status", "--workspace", str(root), cwd=other)["root"]) == root


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("query", "   "), "query: must be a non-blank string"),
        (("query",), "required: TEXT"),
        (("query", "x", "--mode", "fuzzy"), "--mode: must be one of"),
        (("query", "x", "--mode", "hybird"), "--mode: must be one of vector, bm25, hybrid, graph, multi (did you mean"),
        (("query", "x", "--top-k", "0"), "--top-k: must be between"),
        (("query", "x", "--alpha", "abc"), "--alpha: must be a number"),
        (("query", "x", "--alpha", "9" * 40 + ".5"), "--alpha: must be between 0 and 1"),
        (("query", "x", "--source-types", "video"), "--source-types: unknown value 'video'"),
        (("query", "x", "--paths", "../etc/*"), "--paths: '../etc/*' must be relative"),
        (("query", "x", "--languages", "cobol"), "--languages: unknown language 'cobol'; known languages: bash, c,"),
        (("query", "x", "--language", "pyhton"), "--languages: unknown language 'pyhton' (did you mean 'python'?)"),
        (("query", "x", "--languages", ""), "--languages: a blank value names nothing: leave it out"),
        (("query", "x", "--languages", "python", " "), "--languages: a blank value names nothing"),
        (("query", "x", "--source-types", ""), "--source-types: a blank value names nothing"),
        (("query", "x", "--paths", ""), "--paths: a blank value names nothing"),
        (("query", "caf\udce9"), "query: must be valid UTF-8 text without NUL characters"),  # the byte 0xE9
        (("graph", "Cart\udcff"), "ENTITY: must be valid UTF-8 text without NUL characters"),
        (("graph", "Cart", "--depth", "99"), "--depth: must be between"),
        (("index", "/"), "PATH: / is outside the workspace"),
        (("index", "--exclude", "**"), "--exclude: '**' leaves no file to index in the workspace, where"),
        (("index", "shop", "--exclude", "shop/**"), "--exclude: 'shop/**' leaves no file to index in 'shop', where"),
        (("index", "--exclude", ""), "--exclude: a blank value names nothing"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        (("status", "--workspace", "/no/such/dir"), "--workspace: /no/such/dir is not a folder"),
    ],
)
def test_invalid_input_exits_2_with_one_line(indexed, args, needle):
    root, _ = indexed
    line = failure(*args, cwd=root, status=2)
    assert line.startswith("agent-brain-lab")
    assert needle in line


def test_an_exclude_of_every_file_keeps_the_index_serving(indexed):
    """`index --exclude '**'` published an empty index and exited 0; it is refused and nothing changes."""
    root, _ = indexed
    before = ok_json("status", cwd=root)
    line = failure("index", "--exclude", "*", "--exclude", "**/*.md", cwd=root, status=2)
    assert "the last index keeps serving as it was" in line
    after = ok_json("status", cwd=root)
    assert (after["generation"], after["files"]) == (before["generation"], before["files"])
    assert ok_json("query", "cart total", "--mode", "bm25", cwd=root)["results"]


def test_a_filter_that_leaves_no_chunk_says_why_in_text_and_json(indexed):
    root, _ = indexed
    note = ok_json("query", "cart total", "--languages", "toml", cwd=root)["filter_note"]
    assert note.startswith("no chunk of this index passes the filters: languages toml (this index holds: ")
    proc = cli("query", "cart total", "--languages", "toml", cwd=root)
    assert proc.returncode == 0 and note in proc.stdout.splitlines() and "no results" in proc.stdout


def test_a_decimal_longer_than_a_double_is_a_number(indexed):
    root, _ = indexed
    tiny = "0." + "0" * 39 + "1"
    response = ok_json("query", "cart total", "--mode", "vector", "--threshold", tiny, cwd=root)
    assert response["results"], response


def test_engine_errors_exit_1(tmp_path):
    (tmp_path / "a.md").write_text("# A\nnothing indexed here yet\n")
    line = failure("query", "anything", cwd=tmp_path, status=1)
    assert "agent-brain-lab index" in line  # the hint names the command to run
    line = failure("index", "missing-folder", cwd=tmp_path, status=2)
    assert "path" in line.lower()


def test_reset_then_not_indexed(tmp_path):
    (tmp_path / "notes.md").write_text("# Notes\n\nThe cart total includes tax.\n")
    assert ok_json("index", cwd=tmp_path)["files_indexed"] == 1
    proc = cli("reset", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("Index reset: ")
    assert ok_json("status", cwd=tmp_path)["state"] == "empty"
    failure("query", "cart total", cwd=tmp_path, status=1)


def test_a_query_while_the_first_index_runs_says_it_runs(tmp_path):
    """Field sweep: during a first index's analysis, status said "the first index is analysing the
    files" while a query said "no index yet: index it first (run `agent-brain-lab index`)"."""
    (tmp_path / "notes.md").write_text("# Notes\n\nThe cart total includes tax.\n")
    with IndexDir(tmp_path).writer_lock():  # what a first index run holds until it publishes
        assert ok_json("status", cwd=tmp_path)["state"] == "indexing"
        line = failure("query", "cart total", cwd=tmp_path, status=1)
        assert "the first index is being built" in line
        assert "index it first" not in line and "agent-brain-lab index" not in line
        with pytest.raises(NotIndexed) as caught:  # the error every door maps (REST 503, MCP, %brain)
            Brain(tmp_path).query("cart total", mode="bm25")
        assert caught.value.building and caught.value.code == "not_indexed"
    line = failure("query", "cart total", cwd=tmp_path, status=1)  # nobody indexing: ask for it
    assert "index it first" in line and "agent-brain-lab index" in line


def test_python_dash_m_runs_the_command(tmp_path):
    """Field sweep: `python -m agent_brain_lab status` said "No module named agent_brain_lab.__main__"."""
    (tmp_path / "notes.md").write_text("# Notes\n\nThe cart total includes tax.\n")
    proc = subprocess.run(
        [sys.executable, "-m", "agent_brain_lab", "status", "--json"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["state"] == "empty"


def test_help_lists_every_command(tmp_path):
    proc = cli("--help", cwd=tmp_path)
    assert proc.returncode == 0
    for command in ("index", "query", "status", "reset", "graph"):
        assert command in proc.stdout
    assert "--top-k" in cli("query", "--help", cwd=tmp_path).stdout


def index_on_a_terminal(root: Path, interrupt_on: str = "") -> tuple[int, str, str]:
    """Run ``index`` with stderr on a pseudo-terminal; send Ctrl-C once ``interrupt_on`` shows.

    Returns the exit status, stdout and everything drawn on the terminal.
    """
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_brain_lab.cli", "index"],
        cwd=root,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    drawn, interrupted = "", False
    while select.select([master], [], [], TIMEOUT)[0]:
        try:
            data = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        drawn += data.decode(errors="replace")
        if interrupt_on and not interrupted and interrupt_on in drawn:
            proc.send_signal(signal.SIGINT)
            interrupted = True
    stdout, _ = proc.communicate(timeout=TIMEOUT)
    os.close(master)
    return proc.returncode, stdout, drawn


def test_progress_bar_on_a_terminal(tmp_path):
    for i in range(3):
        (tmp_path / f"doc{i}.md").write_text(f"# Doc {i}\n\nParagraph {i} about carts and orders.\n")
    status, stdout, drawn = index_on_a_terminal(tmp_path)
    assert status == 0
    assert "\r[" in drawn and "/3 " in drawn and "doc1.md" in drawn, drawn
    assert stdout.startswith("Indexed 3 of 3 files")


def test_ctrl_c_cancels_cleanly_and_commits_nothing(tmp_path):
    for i in range(600):  # enough chunks for several embedding groups, so the cancel check comes around
        (tmp_path / f"note{i:03}.md").write_text(
            f"# Note {i}\n\nItem {i} costs {i * 7 % 101} coins in shop {i % 13}.\n"
        )
    status, stdout, drawn = index_on_a_terminal(tmp_path, interrupt_on="\r[")
    assert status == 1, (stdout, drawn)
    assert stdout == ""
    assert drawn.strip().splitlines()[-1].startswith("agent-brain-lab: indexing was cancelled"), drawn
    after = ok_json("status", cwd=tmp_path)
    assert after["state"] == "empty" and after["generation"] == 0


def test_console_script(indexed):
    """The installed command, found beside this Python (a virtualenv's bin, activated or not) or on PATH."""
    root, _ = indexed
    beside = Path(sys.executable).parent / "agent-brain-lab"
    script = str(beside) if beside.exists() else shutil.which("agent-brain-lab")
    assert script, "the package's console script is not installed (pip install .)"
    proc = subprocess.run([script, "status", "--json"], cwd=root, capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["state"] == "ready"


def test_console_script_entry_point_resolves(capsys):
    """pyproject's console script names a main() that returns exit statuses instead of exiting."""
    import importlib

    import tomllib

    target = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["agent-brain-lab"]
    module, _, name = target.partition(":")
    main = getattr(importlib.import_module(module), name)
    assert main(["query", " "]) == 2
    assert capsys.readouterr().err.strip() == "agent-brain-lab: query: must be a non-blank string"
    assert main(["--help"]) == 0
