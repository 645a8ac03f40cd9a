"""The one request validator (engine/types.py) and the command grammar that feeds it.

Every field of every request refuses bad input with ``InvalidRequest`` naming the field, and never
fails any other way (no TypeError, OverflowError, RecursionError: no 500 at any front door).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_brain_lab.commands import UsageError, describe_error, parse
from agent_brain_lab.engine.types import (
    MAX_GLOB_CHARS,
    MAX_GLOBS,
    GraphRequest,
    IndexRequest,
    InvalidRequest,
    QueryRequest,
)

NOT_ASCII_INTEGERS = ["²", "٣", "1_0", "５", "1.0", "0x10", "1e3", "", "  ", "+", "9" * 40, "½"]
BAD_TEXT = ["\ud800", "ok\udfffok", "nul\x00", "\x00"]


def refused(build, data: dict, field: str) -> InvalidRequest:
    with pytest.raises(InvalidRequest) as caught:
        build(data)
    assert caught.value.field == field, caught.value
    assert str(caught.value).startswith(f"{field}: ")
    return caught.value


# --------------------------------------------------------------------------- integers


@pytest.mark.parametrize("value", NOT_ASCII_INTEGERS)
@pytest.mark.parametrize(
    "build, base, field",
    [
        (QueryRequest.build, {"query": "x"}, "top_k"),
        (QueryRequest.build, {"query": "x"}, "rrf_k"),
        (QueryRequest.build, {"query": "x"}, "traversal_depth"),
        (IndexRequest.build, {}, "chunk_size"),
        (IndexRequest.build, {}, "chunk_overlap"),
        (GraphRequest.build, {"name": "Cart"}, "depth"),
    ],
)
def test_only_ascii_digits_are_integers(build, base, field, value):
    refused(build, {**base, field: value}, field)


def test_query_and_index_integers_coerce_alike():
    assert QueryRequest.build({"query": "x", "top_k": "5"}).top_k == 5
    assert QueryRequest.build({"query": "x", "top_k": " 7 "}).top_k == 7
    assert IndexRequest.build({"chunk_size": "500"}).chunk_size == 500
    assert IndexRequest.build({"chunk_size": "500", "chunk_overlap": "50"}).chunk_overlap == 50
    assert GraphRequest.build({"name": "Cart", "depth": "2"}).depth == 2
    for build, base, field in [
        (QueryRequest.build, {"query": "x"}, "top_k"),
        (IndexRequest.build, {}, "chunk_size"),
        (GraphRequest.build, {"name": "Cart"}, "depth"),
    ]:
        refused(build, {**base, field: True}, field)
        refused(build, {**base, field: 2.5}, field)
        refused(build, {**base, field: [3]}, field)
        refused(build, {**base, field: float("inf")}, field)


def test_a_huge_integer_is_out_of_range_as_a_string_and_as_a_number():
    """The CLI, %brain and the MCP Inspector send numbers as text: 20 nines must get the error the JSON
    integer gets at the REST door, not "must be an integer (ASCII digits)"."""
    for value in ("9" * 20, " +" + "9" * 4000 + " ", 10**20, "-" + "9" * 20):
        error = refused(QueryRequest.build, {"query": "x", "top_k": value}, "top_k")
        assert str(error) == "top_k: must be between 1 and 100", value
    assert QueryRequest.build({"query": "x", "top_k": "0" * 30 + "7"}).top_k == 7
    assert GraphRequest.build({"name": "Cart", "depth": "-" + "0" * 25}).depth == 0


LONG_DECIMAL = "0." + "0" * 39 + "1"  # 41 digits: a number, however many digits a double holds


def test_a_long_decimal_is_a_number_as_text_and_as_json():
    """The CLI and %brain send numbers as text: any number of digits is read to the nearest double, as
    the JSON number is at the REST door; past the doubles (or as a huge JSON integer), out of range."""
    built = QueryRequest.build({"query": "x", "similarity_threshold": LONG_DECIMAL, "alpha": " 0." + "5" * 60})
    assert built.similarity_threshold == json.loads(LONG_DECIMAL) == 1e-40
    assert built.alpha == json.loads("0." + "5" * 60)
    for value in ("9" * 40 + ".5", "1e5000", "-" + "9" * 400, "+1" + "0" * 4000, 10**400, json.loads("1e400")):
        error = refused(QueryRequest.build, {"query": "x", "alpha": value}, "alpha")
        assert str(error) == "alpha: must be between 0 and 1", str(value)[:40]


@pytest.mark.parametrize("value", ["²", "nan", "inf", "1_0", "٠.٥", [0.5], True, float("nan")])
def test_floats_are_ascii_numbers_in_range(value):
    refused(QueryRequest.build, {"query": "x", "alpha": value}, "alpha")


def test_float_strings_in_ascii_are_accepted():
    assert QueryRequest.build({"query": "x", "alpha": "0.25"}).alpha == 0.25
    assert QueryRequest.build({"query": "x", "similarity_threshold": "-.5"}).similarity_threshold == -0.5


@pytest.mark.parametrize("glob", ["/etc/*", "\\etc\\*", "\\\\server\\share\\*", "a\\..\\..\\*", "./../x", "**/../*"])
@pytest.mark.parametrize(
    "build, field",
    [
        (lambda g: QueryRequest.build({"query": "x", "file_paths": [g]}), "file_paths"),
        (lambda g: IndexRequest.build({"include": [g]}), "include"),
        (lambda g: IndexRequest.build({"exclude": g}), "exclude"),
    ],
)
def test_a_glob_out_of_the_root_is_refused_however_its_separators_are_spelled(glob, build, field):
    """A backslash is a separator (the glob matched is ``/etc/*``), so ``\\etc\\*`` was taken as a
    filter matching nothing where ``/etc/*`` is refused: both are refused now, naming the field."""
    with pytest.raises(InvalidRequest) as raised:
        build(glob)
    assert raised.value.field == field and "must be relative to the workspace root" in str(raised.value)


def test_a_glob_with_windows_separators_is_matched_with_slashes():
    assert QueryRequest.build({"query": "x", "file_paths": ["src\\**\\*.py"]}).file_paths == ("src/**/*.py",)


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize("bad", BAD_TEXT)
@pytest.mark.parametrize(
    "build, data, field",
    [
        (QueryRequest.build, {"query": "{}"}, "query"),
        (QueryRequest.build, {"query": "x", "file_paths": ["{}"]}, "file_paths"),
        (QueryRequest.build, {"query": "x", "languages": ["{}"]}, "languages"),
        (QueryRequest.build, {"query": "x", "source_types": "{}"}, "source_types"),
        (QueryRequest.build, {"query": "x", "mode": "{}"}, "mode"),
        (IndexRequest.build, {"path": "{}"}, "path"),
        (IndexRequest.build, {"paths": ["docs", "{}"]}, "paths"),
        (IndexRequest.build, {"include": ["{}"]}, "include"),
        (IndexRequest.build, {"exclude": "{}"}, "exclude"),
        (GraphRequest.build, {"name": "{}"}, "name"),
    ],
)
def test_text_fields_refuse_nul_and_lone_surrogates(build, data, field, bad):
    fill = {
        k: [v.format(bad) for v in vals] if isinstance(vals, list) else vals.format(bad) for k, vals in data.items()
    }
    err = refused(build, fill, field)
    str(err).encode("utf-8")  # the message itself can be sent
    assert "\x00" not in str(err)


def test_unknown_field_with_a_surrogate_is_named_safely():
    err = refused(QueryRequest.build, {"query": "x", "\ud800": 1}, "\ufffd")
    assert err.to_dict()["field"].encode("utf-8")


# --------------------------------------------------------------------------- globs and lists


@pytest.mark.parametrize("glob", ["[]", "[z-a]", "[!]", "docs/[]/x"])
@pytest.mark.parametrize(
    "build, base, field",
    [
        (QueryRequest.build, {"query": "x"}, "file_paths"),
        (IndexRequest.build, {}, "include"),
        (IndexRequest.build, {}, "exclude"),
    ],
)
def test_malformed_globs_are_refused(build, base, field, glob):
    refused(build, {**base, field: [glob]}, field)


def test_glob_and_list_limits():
    refused(QueryRequest.build, {"query": "x", "file_paths": ["a" * (MAX_GLOB_CHARS + 1)]}, "file_paths")
    refused(QueryRequest.build, {"query": "x", "file_paths": ["*.py"] * (MAX_GLOBS + 1)}, "file_paths")
    refused(QueryRequest.build, {"query": "x", "languages": ["python"] * 33}, "languages")
    refused(IndexRequest.build, {"paths": ["a"] * 257}, "paths")
    refused(IndexRequest.build, {"path": "docs/" + "é" * 200}, "path")  # 400 bytes: the file system refuses it
    refused(QueryRequest.build, {"query": "x" * 1001}, "query")
    refused(GraphRequest.build, {"name": "x" * 257}, "name")
    # include/exclude go to pathspec, whose regexes are polynomial in the number of stars
    refused(IndexRequest.build, {"include": ["*a*a*a*aZ"]}, "include")
    assert IndexRequest.build({"include": ["**/*a*.py"]}).include == ("**/*a*.py",)


def test_index_request_shapes():
    assert IndexRequest.build({}) == IndexRequest()
    assert IndexRequest.build({"path": "docs", "paths": ["src", "docs"]}).paths == ("docs", "src")
    assert IndexRequest.build({"path": ["docs", ""]}).paths == ()  # "" is the root: everything
    assert IndexRequest.build({"include": "*.py"}).include == ("*.py",)  # a string is one glob, as for file_paths
    assert IndexRequest.build({"force": True, "chunk_size": 400}).settings() == {"chunk_size": 400}
    refused(IndexRequest.build, {"force": "yes"}, "force")
    refused(IndexRequest.build, {"chunk_size": 400, "chunk_overlap": 400}, "chunk_overlap")
    refused(IndexRequest.build, {"recursive": True}, "recursive")
    refused(IndexRequest.build, ["not", "an", "object"], "body")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- properties

_json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
_json = st.recursive(
    _json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    data=st.dictionaries(
        st.sampled_from([*QueryRequest.field_names(), "extra"]), _json | st.text(max_size=40), max_size=6
    )
)
def test_query_validator_raises_only_invalid_request(data):
    try:
        request = QueryRequest.build(data)
    except InvalidRequest as err:
        assert err.field in (*QueryRequest.field_names(), "extra")
    else:
        assert 1 <= request.top_k <= 100 and request.query.strip() and request.mode


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.dictionaries(st.sampled_from([*tuple(IndexRequest.PARAMS), "extra"]), _json, max_size=5))
def test_index_validator_raises_only_invalid_request(data):
    try:
        request = IndexRequest.build(data)
    except InvalidRequest as err:
        assert err.field in (*tuple(IndexRequest.PARAMS), "extra")
    else:
        assert request.chunk_overlap is None or request.chunk_overlap < (request.chunk_size or 100_000)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(name=_json, depth=_json)
def test_graph_validator_raises_only_invalid_request(name, depth):
    try:
        request = GraphRequest.build({"name": name, "depth": depth})
    except InvalidRequest as err:
        assert err.field in ("name", "depth")
    else:
        assert 0 <= request.depth <= 3 and request.name


# --------------------------------------------------------------------------- the command grammar (CLI and %brain)


@pytest.mark.parametrize(
    "argv, shown",
    [
        (["graph", "Cart", "--depth", "²"], "--depth"),
        (["query", "x", "--top-k", "٣"], "--top-k"),
        (["query", "x", "--paths", "[z-a]"], "--paths"),
        (["query", "nul\x00"], "query"),
        (["index", "--chunk-size", "²"], "--chunk-size"),
        (["index", "--include", "[]"], "--include"),
        (["index", "no\x00where"], "PATH"),
    ],
)
def test_command_line_values_go_through_the_validator(argv, shown, tmp_path: Path):
    with pytest.raises(InvalidRequest) as caught:
        parse(["--workspace", str(tmp_path), *argv], prog="agent-brain-lab", cwd=tmp_path)
    line, status = describe_error(caught.value, "agent-brain-lab")
    assert status == 2 and line.startswith(f"agent-brain-lab: {shown}: "), line


def test_command_line_index_and_graph_requests(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    ns = parse(["index", "docs", "--chunk-size", "500", "--include", "*.md"], prog="p", cwd=tmp_path)
    assert ns.request == IndexRequest(paths=("docs",), include=("*.md",), chunk_size=500)
    ns = parse(["graph", "Cart", "--depth", "2"], prog="p", cwd=tmp_path)
    assert ns.request == GraphRequest("Cart", 2)
    with pytest.raises(UsageError):
        parse(["--workspace", "a\x00b", "status"], prog="p", cwd=tmp_path)


def test_status_request_lists_the_first_skips_or_all_of_them():
    from agent_brain_lab.engine.types import MAX_SKIPPED_LISTED, StatusRequest

    big = "larger than 1.0 MB limit (1.2 MB)"
    skips = [{"path": f"f{i}", "reason": big if i % 2 else "binary file"} for i in range(120)]
    first = StatusRequest.build({}).listed(skips)
    assert first["skipped"] == skips[:MAX_SKIPPED_LISTED] and first["skipped_total"] == 120
    assert first["skipped_by_reason"] == {"binary file": 60, "larger than 1.0 MB limit": 60}
    assert StatusRequest.build({"skipped": "all"}).listed(skips)["skipped"] == skips
    assert StatusRequest.build({"all_skipped": True}) == StatusRequest.build({"skipped": "all"})
    bad_requests = (({"skipped": "everything"}, "skipped"), ({"all_skipped": "yes"}, "all_skipped"), ({"x": 1}, "x"))
    for bad, field in bad_requests:
        with pytest.raises(InvalidRequest) as err:
            StatusRequest.build(bad)
        assert err.value.field == field
