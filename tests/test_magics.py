"""The %brain magics in a real IPython shell, on a real (small) workspace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from IPython.testing.globalipapp import get_ipython
from IPython.utils.capture import capture_output
from workspace_fixture import copy_workspace

from agent_brain_lab import Brain
from agent_brain_lab.engine.types import IndexReport, InvalidRequest, QueryResponse
from agent_brain_lab.kernel.magics import BrainMagicError, GraphView, StatusView


@pytest.fixture(scope="module")
def ip():
    shell = get_ipython()
    shell.run_line_magic("load_ext", "agent_brain_lab")
    yield shell
    shell.run_line_magic("unload_ext", "agent_brain_lab")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("magics") / "shop-demo"
    return copy_workspace(root, ["shop", "README.md", "docs/architecture.md"])


def run(ip, source: str):
    """Run a cell; fail with the cell's own error if it raised."""
    result = ip.run_cell(source)
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return result


@pytest.fixture(scope="module")
def indexed(ip, workspace) -> IndexReport:
    ip.user_ns["ws"] = str(workspace)
    run(ip, "report = %brain index --workspace {ws}")
    return ip.user_ns["report"]


def test_index_returns_the_report(indexed, workspace):
    assert isinstance(indexed, IndexReport)
    assert indexed.files_indexed >= 5
    assert (workspace / ".agent-brain").is_dir()


def test_query_returns_a_response_object(ip, indexed):
    ip.user_ns["question"] = "where is the discount applied"
    run(ip, "r = %brain query {question} --mode hybrid --top-k 3 --workspace {ws}")
    r = ip.user_ns["r"]
    assert isinstance(r, QueryResponse)
    assert r.query == "where is the discount applied"  # interpolated, not "{question}"
    assert r.mode == "hybrid" and 1 <= len(r.results) <= 3
    assert r.results[0].source in {"shop/pricing.py", "README.md", "docs/architecture.md", "shop/service.py"}


def test_cell_magic_body_is_the_query(ip, indexed):
    ip.user_ns["symbol"] = "InsufficientStockError"
    r = run(ip, "%%brain --mode bm25 --top-k 2 --workspace {ws}\nwho raises {symbol}?\n").result
    assert isinstance(r, QueryResponse)
    assert r.query == "who raises InsufficientStockError?"
    assert r.mode == "bm25" and len(r.results) <= 2
    assert any("InsufficientStockError" in hit.text for hit in r.results)


def test_cell_body_braces_without_a_variable_stay_as_typed(ip, indexed):
    r = run(ip, "%%brain query --mode bm25 --workspace {ws}\nthe {unknown_name} total\n").result
    assert r.query == "the {unknown_name} total"


def test_unbalanced_quote_is_taken_literally(ip, indexed):
    run(ip, "r2 = %brain query what's the total --mode bm25 --workspace {ws}")
    assert ip.user_ns["r2"].query == "what's the total"


def test_every_mode_and_json(ip, indexed):
    for mode in ("vector", "bm25", "hybrid", "graph", "multi"):
        run(ip, f"d = %brain query compute_total Cart --mode {mode} --json --workspace {{ws}}")
        data = ip.user_ns["d"]
        assert isinstance(data, dict) and data["mode"] == mode and data["results"]


def test_a_decimal_longer_than_a_double_is_a_number(ip, indexed):
    run(ip, "d = %brain query compute_total --mode vector --threshold 0." + "0" * 39 + "1 --json --workspace {ws}")
    assert ip.user_ns["d"]["results"]


def test_response_display_has_text_and_html(ip, indexed):
    r = ip.user_ns["r"]
    with capture_output() as captured:
        ip.display_formatter.format(r)
    (output,) = captured.outputs
    first = r.results[0]
    location = f"{first.source}:{first.start_line}-{first.end_line}"
    assert location in output.data["text/plain"]
    assert location in output.data["text/html"]
    assert "<script" not in output.data["text/html"]


def test_status_and_discovery_from_a_subfolder(ip, indexed, workspace, monkeypatch):
    monkeypatch.chdir(workspace / "shop")
    run(ip, "s = %brain status")
    s = ip.user_ns["s"]
    assert isinstance(s, StatusView)
    assert Path(s["root"]) == workspace and s["state"] == "ready"
    with capture_output() as captured:
        ip.display_formatter.format(s)
    assert "ready" in captured.outputs[0].data["text/plain"]


def test_a_file_where_the_index_folder_belongs_is_named_and_kept(ip, tmp_path, capsys):
    """`.agent-brain` a file: status said "corrupt" and a query advised `reset`, which deleted it."""
    (tmp_path / "a.md").write_text("# Avocet\n\nThe avocet sweeps the mud.\n")
    (tmp_path / ".agent-brain").write_text("my notes")
    ip.user_ns["odd"] = str(tmp_path)
    run(ip, "s = %brain status --workspace {odd}")
    status = ip.user_ns["s"]
    assert status["state"] == "not_a_folder" and "is a file of 8 bytes" in status["problem"]
    for cell in (
        "%brain query avocet --workspace {odd}",
        "%brain index --workspace {odd}",
        "%brain reset --workspace {odd}",
    ):
        capsys.readouterr()
        result = ip.run_cell(cell)
        assert isinstance(result.error_in_exec, BrainMagicError)
        assert str(result.error_in_exec) == f"%brain: {status['problem']} — fix: {status['fix']}"
    assert (tmp_path / ".agent-brain").read_text() == "my notes"


def test_an_index_whose_exclude_leaves_no_file_is_refused_and_the_index_kept(ip, indexed, workspace, capsys):
    """`%brain index --exclude **` emptied the index; the run is refused with the engine's words."""
    before = Brain(workspace).status()
    result = ip.run_cell("%brain index --exclude ** --workspace {ws}")
    with pytest.raises(InvalidRequest) as raised:
        Brain(workspace).index(exclude="**")
    assert str(result.error_in_exec) == f"%brain: --exclude: {str(raised.value).removeprefix('exclude: ')}"
    shown = capsys.readouterr()
    assert "Traceback" not in shown.out + shown.err
    after = Brain(workspace).status()
    assert (after.generation, after.files) == (before.generation, before.files)


def test_graph_returns_a_dict_view(ip, indexed):
    run(ip, "g = %brain graph Cart --depth 1 --workspace {ws}")
    g = ip.user_ns["g"]
    assert isinstance(g, GraphView) and g["matches"]
    assert "Cart" in {n["name"] for n in g["nodes"]}
    with capture_output() as captured:
        ip.display_formatter.format(g)
    assert captured.outputs[0].data["text/plain"].startswith("Cart: ")


def test_a_graph_typo_shows_the_engines_note(ip, indexed, workspace):
    run(ip, "g = %brain graph Cartt --workspace {ws}")
    g = ip.user_ns["g"]
    note = Brain(workspace).graph_entity("Cartt").note
    assert g["matches"] == [] and note.startswith("no entity named 'Cartt' in the graph (did you mean 'cart'")
    with capture_output() as captured:
        ip.display_formatter.format(g)
    shown = captured.outputs[0].data if captured.outputs else {}
    assert note in "".join(str(v) for v in shown.values()) or note in captured.stdout


def test_brain_objects_are_cached_per_root(ip, indexed, workspace):
    magics = ip.magics_manager.registry["BrainMagics"]
    run(ip, "%brain status --workspace {ws}")
    first = magics._brains[workspace]
    run(ip, "%brain query cart --workspace {ws}")
    assert magics._brains[workspace] is first


@pytest.mark.parametrize(
    ("cell", "needle"),
    [
        ('%brain query "" --workspace {ws}', "query: must be a non-blank string"),
        ("%brain query cart --mode fuzzy --workspace {ws}", "--mode: must be one of"),
        ("%brain query cart --languages cobol --workspace {ws}", "--languages: unknown language 'cobol'; known"),
        ("%brain query cart --language Pyhton --workspace {ws}", "(did you mean 'python'?)"),
        ('%brain query cart --languages "" --workspace {ws}', "--languages: a blank value names nothing"),
        ('%brain query cart --paths "" --workspace {ws}', "--paths: a blank value names nothing"),
        ("%brain query cart --bogus --workspace {ws}", "unrecognized arguments: --bogus"),
        ("%brain graph Cart --depth x --workspace {ws}", "--depth: must be an integer (ASCII digits)"),
        ("%brain graph Cart --depth 99 --workspace {ws}", "--depth: must be between"),
        ("%brain query cart --alpha " + "9" * 40 + ".5 --workspace {ws}", "--alpha: must be between 0 and 1"),
        ("%%brain --mode vector --workspace {ws}\n   \n", "query: must be a non-blank string"),
        ("%%brain status --workspace {ws}\ncart\n", "%%brain runs a query (the cell body)"),
    ],
)
def test_bad_input_is_one_line(ip, indexed, capsys, cell, needle):
    capsys.readouterr()
    result = ip.run_cell(cell)
    assert isinstance(result.error_in_exec, BrainMagicError)
    assert needle in str(result.error_in_exec)
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert needle in text and "Traceback" not in text
    assert len(text.strip().splitlines()) == 1, text


def test_index_in_a_terminal_draws_a_text_progress_bar(ip, tmp_path, capsys):
    (tmp_path / "one.md").write_text("# One\n\nCarts hold items.\n")
    (tmp_path / "two.py").write_text("def checkout(cart):\n    return sum(cart)\n")
    ip.user_ns["tiny"] = str(tmp_path)
    run(ip, "rep = %brain index --workspace {tiny}")
    out = capsys.readouterr().out
    assert "\r[" in out and "/2 " in out
    assert ip.user_ns["rep"].files_indexed == 2
    run(ip, "%brain reset --workspace {tiny}")
    assert "Index reset: " in capsys.readouterr().out
    result = ip.run_cell("%brain query cart --workspace {tiny}")
    assert isinstance(result.error_in_exec, BrainMagicError)
    assert "%brain index" in str(result.error_in_exec)


def test_help_documents_everything(ip):
    doc = ip.find_line_magic("brain").__doc__
    for word in (
        "%%brain",
        "index",
        "query",
        "status",
        "graph",
        "reset",
        "--mode",
        "--top-k",
        "--workspace",
        "{var}",
        "--depth",
        "--json",
    ):
        assert word in doc, word
    assert ip.find_cell_magic("brain") is not None


def test_displayed_results_mark_the_engine_highlights(ip, indexed):
    run(ip, "hl = %brain query apply discount --mode bm25 --top-k 3 --workspace {ws}")
    r = ip.user_ns["hl"]
    assert r.results and r.results[0].highlights
    with capture_output() as captured:
        ip.display_formatter.format(r)
    html = captured.outputs[0].data["text/html"]
    first = r.results[0]
    shown = first.text[first.highlights[0][0] : first.highlights[0][1]]
    assert f"<mark>{shown}</mark>" in html
    assert {m.lower() for m in re.findall(r"<mark>(.*?)</mark>", html)} <= {"apply", "discount", "discounts"}


def test_file_names_with_control_characters_print_escaped(ip, tmp_path, capsys):
    name = "we\x1b[31mird\tna\rme\n.md"
    (tmp_path / name).write_text("# Refunds\n\nRefunds are issued within ten days.\n")
    ip.user_ns["odd"] = str(tmp_path)
    run(ip, "%brain index --workspace {odd}")
    run(ip, "odd_r = %brain query refunds --mode bm25 --workspace {odd}")
    assert ip.user_ns["odd_r"].results[0].source == name  # the data keeps the real name
    with capture_output() as captured:
        ip.display_formatter.format(ip.user_ns["odd_r"])
    data = captured.outputs[0].data
    escaped = "we\\x1b[31mird\\tna\\rme\\n.md"
    for text in (data["text/plain"], data["text/html"]):
        assert escaped in text
        assert not any(c in text for c in "\x1b\r\t"), text
        assert "me\n.md" not in text
    capsys.readouterr()


MAGIC_CHOICES = "(choose from 'index', 'query', 'status', 'reset', 'graph')"  # what %brain runs, no more


@pytest.mark.parametrize("command", ["watch", "mcp", "frobnicate"])
def test_an_unknown_command_names_exactly_what_the_magic_runs(ip, indexed, capsys, command):
    """``watch`` and ``mcp`` are the command line's own (a watch until Ctrl-C, a stdio server)."""
    capsys.readouterr()
    result = ip.run_cell(f"%brain {command} --workspace {{ws}}")
    assert isinstance(result.error_in_exec, BrainMagicError)
    assert str(result.error_in_exec) == f"%brain: argument COMMAND: invalid choice: '{command}' {MAGIC_CHOICES}"
    capsys.readouterr()


def test_the_help_shows_only_what_the_magic_runs(ip):
    doc = ip.find_line_magic("brain").__doc__
    listed = re.search(r"positional arguments:\n  COMMAND\n((?:    .*\n)+)", doc)
    assert listed is not None, doc
    assert re.findall(r"^    (\w+) ", listed.group(1), re.M) == ["index", "query", "status", "reset", "graph"]
    assert "usage: %brain watch" not in doc and "usage: %brain mcp" not in doc


def test_a_kernel_refuses_a_command_line_only_command_naming_what_it_runs(tmp_path):
    """In a real ipykernel, as a notebook user meets it."""
    from nbclient.exceptions import CellExecutionError
    from test_lazy import execute

    with pytest.raises(CellExecutionError) as refused:
        execute(["%load_ext agent_brain_lab", "%brain watch"], tmp_path)
    assert refused.value.ename == "BrainMagicError"
    assert refused.value.evalue == f"%brain: argument COMMAND: invalid choice: 'watch' {MAGIC_CHOICES}"
