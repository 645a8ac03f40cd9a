"""The workspace walker on real files: the shared fixture plus trees built in tmp_path."""

from __future__ import annotations

import builtins
import os
import socket
from pathlib import Path

import pytest
from tree_sitter_language_pack import get_parser
from workspace_fixture import copy_workspace

from agent_brain_lab.engine import workspace as ws
from agent_brain_lab.engine.types import InvalidRequest, SkippedFile
from agent_brain_lab.engine.workspace import (
    ScanOptions,
    Unreadable,
    WorkspaceFile,
    classify,
    read_text,
    resolve_inside,
    scan,
)

FIXTURE_FILES = [
    "README.md",
    "analysis.ipynb",
    "analytics/Revenue.scala",
    "analytics/forecast.jl",
    "analytics/summary.R",
    "broken.ipynb",
    "db/schema.sql",
    "docs/api.rst",
    "docs/architecture.md",
    "docs/guide.html",
    "dotnet/Invoice.cs",
    "go/pricing.go",
    "go/pricing_test.go",
    "java/ExpressOrder.java",
    "legacy/latin1.txt",
    "mobile/Cart.kt",
    "mobile/CartStore.swift",
    "native/checksum.c",
    "native/checksum.h",
    "native/ledger.cpp",
    "notes/keep.txt",
    "notes/todo.md",
    "plugins/discount.lua",
    "rust/src/lib.rs",
    "scripts/deploy.sh",
    "scripts/report.rb",
    "settings/shop.yaml",
    "shop/__init__.py",
    "shop/inventory.py",
    "shop/models.py",
    "shop/pricing.py",
    "shop/service.py",
    "tests/conftest.py",
    "tests/test_cart.py",
    "web/CartBadge.tsx",
    "web/cart.js",
    "web/pricing.test.ts",
    "web/pricing.ts",
    "web/receipt.php",
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A private copy of the fixture workspace."""
    return copy_workspace(tmp_path / "ws")


def write(root: Path, rel: str, content: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def paths(root: Path, options: ScanOptions = ScanOptions(), subpath: str = "") -> list[str]:
    return [f.path for f in scan(root, options, subpath)[0]]


def skipped(root: Path, options: ScanOptions = ScanOptions()) -> dict[str, str]:
    return {s.path: s.reason for s in scan(root, options)[1]}


# --------------------------------------------------------------------------- the fixture


def test_fixture_scan_takes_exactly_the_indexable_files(root):
    files, skips = scan(root, ScanOptions())
    assert [f.path for f in files] == FIXTURE_FILES
    assert skips == [SkippedFile("assets/logo.png", "binary file")]


def test_fixture_files_carry_type_language_and_stat(root):
    files = {f.path: f for f in scan(root, ScanOptions())[0]}
    models = files["shop/models.py"]
    assert (models.source_type, models.language) == ("code", "python")
    assert models.abs_path == root.resolve() / "shop" / "models.py"
    assert models.size == (root / "shop/models.py").stat().st_size
    assert models.mtime == (root / "shop/models.py").stat().st_mtime
    assert files["tests/test_cart.py"].source_type == "test"
    assert files["go/pricing_test.go"].source_type == "test"
    assert files["web/pricing.test.ts"].source_type == "test"
    assert (files["docs/guide.html"].source_type, files["docs/guide.html"].language) == ("doc", "html")
    assert files["analysis.ipynb"].source_type == "notebook"


def test_fixture_ignored_and_excluded_files_are_left_out_silently(root):
    files, skips = scan(root, ScanOptions())
    seen = {f.path for f in files} | {s.path for s in skips}
    for left_out in (
        "secret/keys.txt",
        "debug.log",
        "node_modules/pkg/index.js",
        "notes/scratch.txt",
        ".env",
        ".gitignore",
        "poetry.lock",
        "web/vendor.min.js",
    ):
        assert (root / left_out).exists()
        assert left_out not in seen


def test_output_is_sorted_by_path(root):
    write(root, "a-b.py")
    write(root, "a/b.py")
    write(root, "A.md", "# A\n")
    got = paths(root)
    assert got == sorted(got)
    assert {"a-b.py", "a/b.py", "A.md"} <= set(got)


# --------------------------------------------------------------------------- classify


@pytest.mark.parametrize(
    "path, expected",
    [
        ("README.md", ("doc", "markdown")),
        ("x.markdown", ("doc", "markdown")),
        ("d/a.rst", ("doc", "rst")),
        ("a.txt", ("doc", "text")),
        ("a.html", ("doc", "html")),
        ("a.HTM", ("doc", "html")),
        ("LICENSE", ("doc", "text")),
        ("c.yaml", ("doc", "yaml")),
        ("c.yml", ("doc", "yaml")),
        ("pyproject.toml", ("doc", "toml")),
        ("setup.cfg", ("doc", "ini")),
        ("p.json", ("doc", "json")),
        ("n.ipynb", ("notebook", "python")),
        ("tests/n.ipynb", ("notebook", "python")),
        ("tests/readme.md", ("doc", "markdown")),
        ("a.py", ("code", "python")),
        ("a.js", ("code", "javascript")),
        ("a.mjs", ("code", "javascript")),
        ("a.cjs", ("code", "javascript")),
        ("a.jsx", ("code", "javascript")),
        ("a.ts", ("code", "typescript")),
        ("a.tsx", ("code", "tsx")),
        ("A.java", ("code", "java")),
        ("a.go", ("code", "go")),
        ("a.rs", ("code", "rust")),
        ("a.c", ("code", "c")),
        ("a.h", ("code", "c")),
        ("a.cc", ("code", "cpp")),
        ("a.cpp", ("code", "cpp")),
        ("a.cxx", ("code", "cpp")),
        ("a.hpp", ("code", "cpp")),
        ("a.hh", ("code", "cpp")),
        ("a.cs", ("code", "csharp")),
        ("a.rb", ("code", "ruby")),
        ("a.php", ("code", "php")),
        ("a.kt", ("code", "kotlin")),
        ("a.kts", ("code", "kotlin")),
        ("a.swift", ("code", "swift")),
        ("a.scala", ("code", "scala")),
        ("a.r", ("code", "r")),
        ("a.R", ("code", "r")),
        ("a.jl", ("code", "julia")),
        ("a.lua", ("code", "lua")),
        ("a.sh", ("code", "bash")),
        ("a.bash", ("code", "bash")),
        ("a.sql", ("code", "sql")),
        ("tests/helpers.py", ("test", "python")),
        ("pkg/test/util.go", ("test", "go")),
        ("src/__tests__/a.js", ("test", "javascript")),
        ("spec/a_spec.rb", ("test", "ruby")),
        ("test_x.py", ("test", "python")),
        ("x_test.py", ("test", "python")),
        ("conftest.py", ("test", "python")),
        ("x_test.go", ("test", "go")),
        ("a.test.ts", ("test", "typescript")),
        ("a.spec.js", ("test", "javascript")),
        ("a.test.tsx", ("test", "tsx")),
        ("src/CartTest.java", ("test", "java")),
        ("CartTests.cs", ("test", "csharp")),
        ("lib/cart_spec.rb", ("test", "ruby")),
        ("latest.py", ("code", "python")),
        ("contest.py", ("code", "python")),
        ("testing.go", ("code", "go")),
        ("a.png", None),
        ("Makefile", None),
        ("a.lock", None),
        ("noext", None),
        ("a.pyc", None),
    ],
)
def test_classify(path, expected):
    assert classify(path) == expected


def test_every_code_language_is_a_tree_sitter_grammar():
    for language in set(ws.CODE_LANGUAGES.values()):
        assert get_parser(language) is not None, language


# --------------------------------------------------------------------------- excludes


def test_default_excluded_folders_are_pruned_before_descending(root, monkeypatch):
    for folder in (
        "node_modules/deep/er",
        ".git/objects",
        "venv/lib",
        ".venv/lib",
        "myenv",
        "__pycache__",
        "dist",
        "build",
        ".ipynb_checkpoints",
        ".agent-brain",
        ".mypy_cache",
        ".pytest_cache",
        ".tox/py311",
        "lib/python3.11/site-packages/pkg",
    ):
        write(root, f"{folder}/mod.py")
    write(root, "myenv/pyvenv.cfg", "home = /usr/bin\n")
    write(root, "environment/mod.py")  # a folder merely named like an env is walked
    walked: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(ws.os, "scandir", lambda p: walked.append(str(p)) or real_scandir(p))

    got = paths(root, ScanOptions(include_hidden=True))

    assert "environment/mod.py" in got
    assert not [p for p in got if p.endswith("/mod.py") and not p.startswith("environment/")]
    for name in ("node_modules", "site-packages", "myenv", "__pycache__", ".git", ".agent-brain", "dist"):
        assert not [w for w in walked if f"/{name}" in w], name


def test_lock_and_minified_files_are_excluded(root):
    for name in (
        "package-lock.json",
        "yarn.lock",
        "Cargo.lock",
        "pnpm-lock.yaml",
        "uv.lock",
        "web/app.min.css",
        "web/b.min.js",
        "web/app.js",
    ):
        write(root, name, "{}\n")
    got = set(paths(root))
    assert "web/app.js" in got
    assert not {"package-lock.json", "yarn.lock", "Cargo.lock", "pnpm-lock.yaml", "uv.lock", "web/b.min.js"} & got
    assert "web/app.min.css" not in skipped(root)


def test_hidden_files_and_folders_need_include_hidden(root):
    write(root, ".github/workflows/ci.yml", "on: push\n")
    write(root, "docs/.draft.md", "# Draft\n")
    assert not [p for p in paths(root) if "/." in "/" + p]
    with_hidden = paths(root, ScanOptions(include_hidden=True))
    assert {".github/workflows/ci.yml", "docs/.draft.md"} <= set(with_hidden)
    assert not [p for p in with_hidden if p.startswith(".git/")]


# --------------------------------------------------------------------------- .gitignore


def test_nested_gitignore_patterns_are_relative_to_their_folder(root):
    write(root, "pkg/.gitignore", "/local.md\ngenerated/\n")
    write(root, "pkg/local.md", "# ignored\n")
    write(root, "pkg/deeper/local.md", "# kept: the pattern is anchored to pkg/\n")
    write(root, "local.md", "# kept: outside pkg/\n")
    write(root, "pkg/generated/out.py")
    write(root, "generated/out.py")
    got = set(paths(root))
    assert {"pkg/deeper/local.md", "local.md", "generated/out.py"} <= got
    assert not {"pkg/local.md", "pkg/generated/out.py"} & got


def test_deeper_gitignore_negation_overrides_the_parent(root):
    write(root, ".gitignore", "*.md\n")
    write(root, "keep/.gitignore", "!important.md\n")
    write(root, "keep/important.md", "# yes\n")
    write(root, "keep/other.md", "# no\n")
    got = set(paths(root))
    assert "keep/important.md" in got
    assert "keep/other.md" not in got and "README.md" not in got


def test_files_inside_an_ignored_folder_cannot_be_reincluded(root):
    write(root, ".gitignore", "secret/\n!secret/public.md\n")
    write(root, "secret/public.md", "# still ignored, like git does\n")
    assert "secret/public.md" not in paths(root)


# --------------------------------------------------------------------------- include / exclude globs


def test_include_globs_take_only_matching_files(root):
    assert paths(root, ScanOptions(include=("shop/**/*.py",))) == [
        "shop/__init__.py",
        "shop/inventory.py",
        "shop/models.py",
        "shop/pricing.py",
        "shop/service.py",
    ]
    md = paths(root, ScanOptions(include=("*.md",)))
    assert md == ["README.md", "docs/architecture.md", "notes/todo.md"]


def test_exclude_globs_prune_folders_and_drop_files(root, monkeypatch):
    walked: list[str] = []
    real_scandir = os.scandir
    monkeypatch.setattr(ws.os, "scandir", lambda p: walked.append(str(p)) or real_scandir(p))
    got = paths(root, ScanOptions(exclude=("docs/**", "**/test_*.py", "web")))
    assert not [p for p in got if p.startswith(("docs/", "web/"))]
    assert "tests/test_cart.py" not in got and "tests/conftest.py" in got
    assert not [w for w in walked if w.endswith(("/docs", "/web"))]


def test_ignored_files_are_not_reported_as_skipped(root):
    write(root, "secret/blob.bin", b"\x00\x01")
    write(root, "node_modules/x/big.png", b"\x89PNG\x00")
    assert set(skipped(root)) == {"assets/logo.png"}


# --------------------------------------------------------------------------- skips with a reason


def test_binary_and_unsupported_files_are_skipped_with_a_reason(root):
    write(root, "src/fake.py", b"import os\x00\x00\x01")
    write(root, "Dockerfile", "FROM python:3.11\n")
    write(root, "data/blob.bin", bytes(range(256)))
    reasons = skipped(root)
    assert reasons["src/fake.py"] == "binary file"
    assert reasons["data/blob.bin"] == "binary file"
    assert reasons["Dockerfile"] == "unsupported file type"
    assert "src/fake.py" not in paths(root)


def test_a_50mb_file_is_skipped_without_being_read(root, monkeypatch):
    big = root / "huge.txt"
    with open(big, "wb") as f:
        f.truncate(50 * 1024 * 1024)
    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open
    monkeypatch.setattr(builtins, "open", lambda file, *a, **k: opened.append(str(file)) or real_open(file, *a, **k))
    monkeypatch.setattr(ws.os, "open", lambda file, *a, **k: opened.append(str(file)) or real_os_open(file, *a, **k))
    reasons = skipped(root)
    assert any(p.endswith("README.md") for p in opened)  # the spy sees what the scan opens
    assert reasons["huge.txt"] == "larger than 1.0 MB limit (52.4 MB)"
    assert str(big) not in opened and str(big.resolve()) not in opened


def test_size_limit_is_configurable_config_files_have_a_smaller_one_notebooks_a_larger_one(root):
    write(root, "notes/long.md", "word " * 100)
    write(root, "data/dump.json", "[" + "1," * 150_000 + "1]")
    write(root, "plots.ipynb", '{"cells": [], "outputs": "' + "A" * 1_500_000 + '"}')
    write(root, "huge.ipynb", '{"cells": [], "outputs": "' + "A" * 10_500_000 + '"}')
    reasons = skipped(root, ScanOptions(max_file_bytes=100))
    assert reasons["notes/long.md"] == "larger than 100 bytes limit (500 bytes)"
    assert reasons["analysis.ipynb"] == "larger than 1.0 KB limit for notebooks (1.8 KB)"
    reasons = skipped(root)
    assert reasons["data/dump.json"] == "larger than 200.0 KB limit for config files (300.0 KB)"
    assert reasons["huge.ipynb"] == "larger than 10.0 MB limit for notebooks (10.5 MB)"
    assert {"notes/long.md", "plots.ipynb"} <= set(paths(root))


def test_a_file_just_over_the_limit_says_by_how_much(root):
    """'larger than 1.0 MB limit (1.0 MB)' read as a contradiction: the size is in bytes when rounded alike."""
    write(root, "just.md", "x" * 1_002_842)
    write(root, "well.md", "x" * 1_500_000)
    reasons = skipped(root)
    assert reasons["just.md"] == "larger than 1.0 MB limit (1,002,842 bytes)"
    assert reasons["well.md"] == "larger than 1.0 MB limit (1.5 MB)"


def test_human_size():
    assert ws.human_size(999) == "999 bytes"
    assert ws.human_size(1_000_000) == "1.0 MB"
    assert ws.human_size(52_428_800) == "52.4 MB"
    assert ws.human_size(3 * 10**12) == "3000.0 GB"


# --------------------------------------------------------------------------- symlinks


def test_symlink_loops_terminate_without_duplicates(root):
    (root / "shop" / "loop").symlink_to(root / "shop", target_is_directory=True)
    (root / "docs" / "up").symlink_to(root, target_is_directory=True)
    got = paths(root)
    assert len(got) == len(set(got))
    assert not [p for p in got if "/loop/" in p or "/up/" in p]
    assert "shop/models.py" in got


def test_symlinks_out_of_the_root_are_not_followed(root, tmp_path):
    outside = tmp_path / "outside"
    write(outside, "stolen.py", "SECRET = 1\n")
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "escape.py").symlink_to(outside / "stolen.py")
    (root / "dangling.md").symlink_to(root / "missing.md")
    (root / "alias.md").symlink_to(root / "README.md")
    files, skips = scan(root, ScanOptions())
    got = [f.path for f in files]
    reasons = {s.path: s.reason for s in skips}
    assert not [p for p in got if p.startswith("escape")]
    assert reasons["escape"] == "symlink to a folder outside the workspace"
    assert reasons["escape.py"] == "symlink to a file outside the workspace"
    assert reasons["dangling.md"] == "broken symlink"
    assert "alias.md" in got


def test_special_files_are_skipped_with_what_they_are(root):
    os.mkfifo(root / "pipe.md")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "talk.py"))
    (root / "zero.md").symlink_to("/dev/zero")
    try:
        files, skips = scan(root, ScanOptions())
        single, single_skips = scan(root, ScanOptions(), subpath="pipe.md")  # named on its own: still said
    finally:
        server.close()
    reasons = {s.path: s.reason for s in skips}
    assert reasons["pipe.md"] == "not a regular file: a named pipe"
    assert reasons["talk.py"] == "not a regular file: a socket"
    assert reasons["zero.md"] == "not a regular file: a device behind a symlink"
    assert not {"pipe.md", "talk.py", "zero.md"} & {f.path for f in files}
    assert single == [] and [s.path for s in single_skips] == ["pipe.md"]


# --------------------------------------------------------------------------- subpath


def test_scan_of_a_subfolder_or_a_single_file(root):
    assert paths(root, subpath="shop") == [p for p in FIXTURE_FILES if p.startswith("shop/")]
    assert paths(root, subpath="docs/api.rst") == ["docs/api.rst"]
    assert paths(root, subpath="./docs/") == ["docs/api.rst", "docs/architecture.md", "docs/guide.html"]
    assert paths(root, subpath="secret") == []  # same rules as a full scan: ignored stays ignored
    assert paths(root, subpath="node_modules/pkg/index.js") == []


def test_a_scan_of_several_subpaths_is_one_walk_finding_what_each_finds(root):
    """A watcher's batch or a scoped run names many paths: one walk takes what a walk each would."""
    (root / "batch").mkdir()
    for i in range(50):
        (root / "batch" / f"n{i}.md").write_text(f"# Note {i}\n")
    every = [*FIXTURE_FILES, "shop", "docs/", "batch", "secret", "node_modules/pkg/index.js"]
    every += [f"batch/n{i}.md" for i in range(0, 50, 7)]
    for subpaths in (every[:3], every[::2], every[1::3], every, ["batch/n3.md", "batch"]):
        files, skipped = scan(root, ScanOptions(), subpaths)
        one_each: dict[str, object] = {}
        skips_each: dict[str, object] = {}
        for subpath in subpaths:
            found, skips = scan(root, ScanOptions(), subpath)
            one_each.update((f.path, f) for f in found)
            skips_each.update((s.path, s) for s in skips)
        assert files == sorted(one_each.values(), key=lambda f: f.path), subpaths  # type: ignore[attr-defined]
        assert skipped == sorted(skips_each.values(), key=lambda s: s.path), subpaths  # type: ignore[attr-defined]
    assert scan(root, ScanOptions(), ["", "shop"]) == scan(root, ScanOptions())


@pytest.mark.parametrize("bad", ["../", "shop/../../x", "/etc", "missing/dir"])
def test_scan_rejects_bad_subpaths(root, bad):
    with pytest.raises(InvalidRequest) as err:
        scan(root, ScanOptions(), bad)
    assert err.value.field == "path"


# --------------------------------------------------------------------------- resolve_inside


def test_resolve_inside_accepts_paths_in_the_root(root):
    real_root = root.resolve()
    assert resolve_inside(root, "") == real_root
    assert resolve_inside(root, "shop/models.py") == real_root / "shop" / "models.py"
    assert resolve_inside(root, "./docs//api.rst") == real_root / "docs" / "api.rst"
    (root / "alias").symlink_to(root / "docs", target_is_directory=True)
    assert resolve_inside(root, "alias").relative_to(real_root).as_posix() == "alias"


@pytest.mark.parametrize(
    "rel, message",
    [
        ("..", "must not contain '..'"),
        ("docs/../../etc", "must not contain '..'"),
        ("..\\etc", "must not contain '..'"),
        ("/etc/passwd", "must be relative"),
        ("C:/x", "must be relative"),
        ("nope.md", "does not exist"),
        ("out", "points outside the workspace"),
        ("a\x00b", "must be a string"),
    ],
)
def test_resolve_inside_rejects(root, tmp_path, rel, message):
    (root / "out").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(InvalidRequest) as err:
        resolve_inside(root, rel)
    assert err.value.field == "path"
    assert message in str(err.value)


# --------------------------------------------------------------------------- read_text


def fixture_file(root: Path, rel: str) -> WorkspaceFile:
    st = (root / rel).stat()
    kind = classify(rel) or ("doc", "text")
    return WorkspaceFile(rel, root / rel, st.st_size, st.st_mtime, *kind, st.st_dev, st.st_ino, root.resolve())


def test_read_text_rejects_latin1_with_a_reason(root):
    with pytest.raises(Unreadable, match="^not valid UTF-8 text$"):
        read_text(fixture_file(root, "legacy/latin1.txt"))


def test_text_in_utf16_or_utf32_with_its_bom_is_text_not_binary(tmp_path):
    """UTF-16 (what Windows PowerShell writes by default) is full of NUL bytes: it was skipped as a
    'binary file'. Its byte-order mark names the encoding; a NUL *character* still means binary."""
    from agent_brain_lab import Brain

    root = tmp_path / "ws"
    body = "# Notes\r\n\r\nThe quillfeather ledger, café.\r\n"
    for name, encoding in (("le16.md", "utf-16-le"), ("be16.md", "utf-16-be"), ("le32.md", "utf-32-le")):
        write(root, name, "\ufeff".encode(encoding) + body.encode(encoding))
    write(root, "fake.md", "\ufeff".encode("utf-16-le") + "text\x00\x01\x02".encode("utf-16-le"))  # NUL chars
    write(root, "torn.md", "\ufeff".encode("utf-16-le") + "ab".encode("utf-16-le") + b"\x00\xd8")  # lone surrogate
    files, skipped = scan(root, ScanOptions())
    assert {s.path: s.reason for s in skipped} == {"fake.md": "binary file"}
    texts = {f.path: read_text(f) for f in files if f.path != "torn.md"}
    assert texts == dict.fromkeys(["be16.md", "le16.md", "le32.md"], "# Notes\n\nThe quillfeather ledger, café.\n")
    with pytest.raises(Unreadable, match="^not valid UTF-16 text$"):
        read_text(next(f for f in files if f.path == "torn.md"))
    brain = Brain(root)
    brain.index()
    assert {h.source for h in brain.query("quillfeather", mode="bm25").results} == {"be16.md", "le16.md", "le32.md"}


def test_a_file_that_declares_its_encoding_is_read_in_it(root):
    """A Latin-1 Python file with a PEP 263 coding line (Python runs it) was skipped as 'not valid
    UTF-8 text'. The declaration on one of the first two lines is honoured when the bytes are not UTF-8."""
    write(root, "old/legacy.py", "#!/usr/bin/env python\n# -*- coding: latin-1 -*-\nNAME = 'café'\n".encode("latin-1"))
    write(root, "old/legacy.rb", "# encoding: iso-8859-15\nputs '€'\n".encode("iso-8859-15"))
    write(root, "old/unknown.py", "# coding: no-such-codec\nNAME = 'café'\n".encode("latin-1"))
    write(root, "old/notext.py", "# coding: zlib_codec\nNAME = 'café'\n".encode("latin-1"))  # not a text encoding
    write(root, "old/third.py", "\n\n# coding: latin-1\nNAME = 'café'\n".encode("latin-1"))  # too late
    write(root, "old/liar.py", "# coding: utf-8\nNAME = 'café'\n".encode("latin-1"))
    files = {f.path: f for f in scan(root, ScanOptions(), "old")[0]}
    assert read_text(files["old/legacy.py"]).endswith("NAME = 'café'\n")
    assert read_text(files["old/legacy.rb"]) == "# encoding: iso-8859-15\nputs '€'\n"
    expected = {
        "old/unknown.py": "^not valid no-such-codec text, the encoding its coding line declares$",
        "old/notext.py": "^not valid zlib_codec text, the encoding its coding line declares$",
        "old/third.py": "^not valid UTF-8 text$",
        "old/liar.py": "^not valid UTF-8 text$",
    }
    for path, reason in expected.items():
        with pytest.raises(Unreadable, match=reason):
            read_text(files[path])


def test_read_text_rejects_binary(root):
    with pytest.raises(Unreadable, match="^binary file$"):
        read_text(fixture_file(root, "assets/logo.png"))


def test_read_text_normalises_newlines_and_drops_the_bom(root):
    write(root, "win.md", "\ufeff# Title\r\n\r\nbody\rend\n".encode())
    assert read_text(fixture_file(root, "win.md")) == "# Title\n\nbody\nend\n"


def test_read_text_never_reads_past_the_scanned_size(root):
    f = fixture_file(root, "README.md")
    with open(root / "README.md", "a") as fh:
        fh.write("grown meanwhile\n")
    with pytest.raises(Unreadable, match="changed while indexing"):
        read_text(f)


def test_read_text_of_a_vanished_file(root):
    f = fixture_file(root, "README.md")
    (root / "README.md").unlink()
    with pytest.raises(Unreadable, match="^cannot read"):
        read_text(f)


def test_decode_text_matches_read_text(root):
    assert ws.decode_text(b"a\r\nb\rc") == "a\nb\nc"
    with pytest.raises(Unreadable, match="^binary file$"):
        ws.decode_text(b"\x89PNG\x00")
