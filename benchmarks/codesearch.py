"""Docstring -> function code-search sets built from installed packages.

A set is a workspace holding a package's ``.py`` files with every docstring removed, plus the
queries (each function's docstring summary) and where each function lives. Sets are cached under
``benchmarks/.cache/codesearch/``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import random
import shutil
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .docstrip import Target, query_for, strip_docstrings

CORPUS_VERSION = 2  # 2: a distribution's every top-level package


@dataclass
class CodeSearchSet:
    name: str
    root: Path  # the workspace to index
    targets: list[Target]
    files: int


def sample(items: list, limit: int | None, seed: int = 0) -> list:
    """A seeded random subset of a question set (all of it when ``limit`` is None or larger)."""
    if limit is None or limit >= len(items):
        return list(items)
    return random.Random(seed).sample(items, limit)


def build_set(package: str, cache_dir: Path) -> CodeSearchSet:
    """Build (or load from the cache) the set for an installed package (distribution or import name)."""
    sources = import_roots(package)
    version = _version(package)
    home = cache_dir / "codesearch" / f"{package}-{version}-v{CORPUS_VERSION}"
    manifest = home / "targets.json"
    if not manifest.is_file():
        _materialize(sources, home)
    data = json.loads(manifest.read_text())
    return CodeSearchSet(
        name=f"{package} {version}",
        root=home / "workspace",
        targets=[Target(**t) for t in data["targets"]],
        files=data["files"],
    )


def import_roots(package: str) -> dict[str, Path]:
    """The import packages an installed name stands for, each with its folder.

    A distribution may ship its code under other names (``attrs`` lives in ``attr`` and ``attrs``),
    so a distribution name means every top-level package it installs; otherwise it is an import name.
    """
    try:
        dist = importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    files = (dist.files or []) if dist else []
    tops = sorted(
        {
            f.parts[0]
            for f in files
            if f.suffix == ".py" and len(f.parts) > 1 and not f.parts[0].endswith((".dist-info", ".egg-info"))
        }
        - {"..", "__pycache__"}
    )
    roots = {}
    for name in tops or [package]:
        module = importlib.import_module(name)
        if module.__file__ and Path(module.__file__).name == "__init__.py":
            roots[name] = Path(module.__file__).parent
    if not roots:
        raise ValueError(f"{package!r} installs no Python package with source files")
    return roots


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(importlib.import_module(package), "__version__", "0"))


def _materialize(sources: dict[str, Path], home: Path) -> None:
    """Write the stripped workspace and ``targets.json`` (last, so a half-built set is redone)."""
    shutil.rmtree(home, ignore_errors=True)
    workspace = home / "workspace"
    targets: list[Target] = []
    files = 0
    for name, src in sources.items():
        for path in sorted(src.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = (Path(name) / path.relative_to(src)).as_posix()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # invalid escape sequences in old sources
                    stripped, functions = strip_docstrings(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue  # cannot strip it reliably: leave it out rather than leak docstrings
            out = workspace / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(stripped, encoding="utf-8")
            files += 1
            for qualname, start, end, doc in functions:
                query = query_for(doc)
                if query:
                    targets.append(Target(query, rel, qualname, start, end))
    targets = _unique_queries(targets)
    home.mkdir(parents=True, exist_ok=True)
    (home / "targets.json").write_text(
        json.dumps({"files": files, "targets": [t.to_dict() for t in targets]}, indent=1)
    )


def _unique_queries(targets: list[Target]) -> list[Target]:
    """Drop queries shared by several functions: they have no single right answer."""
    counts: dict[str, int] = {}
    for t in targets:
        counts[t.query.lower()] = counts.get(t.query.lower(), 0) + 1
    return [t for t in targets if counts[t.query.lower()] == 1]


STRICT_SPAN_FACTOR = 3
STRICT_SPAN_FLOOR = 60


def is_hit(result: Mapping[str, Any], target: Target, strict: bool = False) -> bool:
    """The result is the function: same file and overlapping lines, or the same qualified symbol.

    ``strict`` also rejects results spanning far more than the function (a whole-class outline
    overlaps every method in it): at most ``max(3 x the function's lines, 60)`` lines.
    """
    if result["source"] != target.source:
        return False
    symbol = result.get("symbol_name")
    parent = result.get("parent_symbol")
    if (f"{parent}.{symbol}" if symbol and parent else symbol) == target.qualname:
        return True
    if not (result["start_line"] <= target.end_line and result["end_line"] >= target.start_line):
        return False
    if not strict:
        return True
    span = result["end_line"] - result["start_line"] + 1
    return span <= max(STRICT_SPAN_FACTOR * (target.end_line - target.start_line + 1), STRICT_SPAN_FLOOR)
