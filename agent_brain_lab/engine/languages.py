"""The languages the engine names: by file suffix, by a script's ``#!`` line, by a notebook's kernel.

Files are classified by these tables (engine/workspace.py, engine/chunking/notebook.py), and a query's
``languages`` filter is checked against the same names (engine/types.py): a name none of them gives,
and no chunk of the index carries, matches nothing and is refused rather than answered with nothing.
A filter may also name a language as its file suffix or kernel does (``py``, ``c++``): :func:`canonical`.
"""

from __future__ import annotations

DOC_LANGUAGES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
}
CONFIG_LANGUAGES = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".json": "json",
}
CODE_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".r": "r",
    ".jl": "julia",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".sql": "sql",
}
# A script's interpreter, as its first line names it (``#!/usr/bin/env bash``, ``#!/bin/sh``,
# ``#!/usr/bin/python3.11``), -> the language it is read as, for a file whose name has no code suffix
# (bats' ``bin/bats``, ``libexec/bats-core/bats-exec-test``). Only languages the chunker parses.
SHEBANG_LANGUAGES = {
    "sh": "bash",
    "bash": "bash",
    "dash": "bash",
    "ksh": "bash",
    "zsh": "bash",
    "python": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "ts-node": "typescript",
    "ruby": "ruby",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "rscript": "r",
    "julia": "julia",
}

# A notebook kernel's own name for its language (kernelspec ``language``) -> the name the engine uses.
LANGUAGE_ALIASES = {
    "python3": "python",
    "ipython": "python",
    "ipython3": "python",
    "c++": "cpp",
    "c#": "csharp",
    "sh": "bash",
    "shell": "bash",
    "js": "javascript",
    "node": "javascript",
}


NOTEBOOK_DEFAULT = "python"  # a notebook whose metadata names no language
# Every language a file of the workspace can be indexed as. A notebook whose kernel names another
# language (``haskell``) indexes its code cells under that name: the index knows it, this list does not.
KNOWN_LANGUAGES = tuple(
    sorted(
        {
            *DOC_LANGUAGES.values(),
            *CONFIG_LANGUAGES.values(),
            *CODE_LANGUAGES.values(),
            *SHEBANG_LANGUAGES.values(),
            *LANGUAGE_ALIASES.values(),
            NOTEBOOK_DEFAULT,
        }
    )
)
# Other names for them: a file suffix without its dot (``py``, ``md``, ``yml``), a kernel's (``python3``).
_SUFFIXES = {
    suffix.lstrip("."): language
    for table in (DOC_LANGUAGES, CONFIG_LANGUAGES, CODE_LANGUAGES)
    for suffix, language in table.items()
}
ALIASES = {name: language for name, language in (_SUFFIXES | LANGUAGE_ALIASES).items() if name not in KNOWN_LANGUAGES}


def canonical(name: str) -> str:
    """The engine's name of a language given as a user may write it (any case, a suffix, a kernel's)."""
    name = name.strip().lower()
    return ALIASES.get(name, name)
