"""Generated workspaces of a chosen size: Python packages and Markdown docs that look like a project.

Modules import each other and call each other's functions (so the graph has edges), classes hold
methods, functions have docstrings and bodies of a few lines, docs have sections that mention the
code. Everything comes from a seeded RNG: the same arguments give the same bytes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

VERBS = [
    "load",
    "save",
    "parse",
    "render",
    "build",
    "fetch",
    "merge",
    "split",
    "check",
    "update",
    "remove",
    "create",
    "resolve",
    "encode",
    "decode",
    "compute",
    "apply",
    "open",
    "close",
    "read",
    "write",
    "send",
    "receive",
    "filter",
    "sort",
    "validate",
    "convert",
]
NOUNS = [
    "config",
    "user",
    "session",
    "token",
    "header",
    "request",
    "response",
    "cache",
    "record",
    "table",
    "index",
    "query",
    "schema",
    "column",
    "widget",
    "layout",
    "message",
    "queue",
    "event",
    "handler",
    "payload",
    "buffer",
    "stream",
    "path",
    "file",
    "chunk",
    "graph",
    "node",
    "edge",
    "model",
    "vector",
    "score",
    "report",
    "metric",
    "job",
    "task",
    "worker",
    "batch",
]
ADJECTIVES = ["raw", "cached", "pending", "active", "stale", "remote", "local", "default", "partial", "nested"]
TOPICS = [
    "Installation",
    "Configuration",
    "Architecture",
    "Indexing",
    "Querying",
    "Deployment",
    "Troubleshooting",
    "Security",
    "Performance",
    "Testing",
]


def _ident(rng: random.Random, parts: int) -> list[str]:
    return [rng.choice(VERBS)] + [rng.choice(NOUNS) for _ in range(parts - 1)]


def _sentence(rng: random.Random, words: int) -> str:
    pool = VERBS + NOUNS + ADJECTIVES + ["the", "a", "of", "to", "for", "with", "from", "and", "when", "if"]
    text = " ".join(rng.choice(pool) for _ in range(words))
    return text[0].upper() + text[1:] + "."


class _Module:
    def __init__(self, package: str, name: str, functions: list[str], classes: list[str]):
        self.package, self.name, self.functions, self.classes = package, name, functions, classes


def _python_module(rng: random.Random, mod: _Module, others: list[_Module]) -> str:
    out = [f'"""{_sentence(rng, 9)}"""', "", "from __future__ import annotations", ""]
    imported = rng.sample(others, min(2, len(others)))
    for other in imported:
        out.append(f"from {other.package}.{other.name} import {other.functions[0]}")
    callable_names = [o.functions[0] for o in imported] + mod.functions
    out.append("")
    for fn in mod.functions:
        out += _function(rng, fn, callable_names, indent="")
    for cls in mod.classes:
        out += [f"class {cls}:", f'    """{_sentence(rng, 10)}"""', ""]
        for _ in range(3):
            out += _function(rng, "_".join(_ident(rng, 2)), callable_names, indent="    ", method=True)
    return "\n".join(out) + "\n"


def _function(rng: random.Random, name: str, callees: list[str], indent: str, method: bool = False) -> list[str]:
    args = list(dict.fromkeys(["self"] * method + [rng.choice(NOUNS) for _ in range(rng.randint(1, 3))]))
    body = [f"{indent}def {name}({', '.join(args)}):", f'{indent}    """{_sentence(rng, rng.randint(6, 14))}"""']
    var = rng.choice(NOUNS)
    body.append(f"{indent}    {var} = {{}}")
    for _ in range(rng.randint(2, 7)):
        callee = rng.choice(callees)
        key = rng.choice(NOUNS)
        body.append(f'{indent}    {var}["{key}"] = {callee}({args[-1]})')
        if rng.random() < 0.3:
            body.append(f'{indent}    if not {var}["{key}"]:')
            body.append(f'{indent}        raise ValueError("{_sentence(rng, 5)}")')
    body += [f"{indent}    return {var}", ""]
    return body


def _markdown(rng: random.Random, title: str, mentions: list[str]) -> str:
    out = [f"# {title}", "", _sentence(rng, 25), ""]
    for topic in rng.sample(TOPICS, 4):
        out += [f"## {topic}", ""]
        for _ in range(rng.randint(2, 4)):
            out += [f"{_sentence(rng, 30)} See `{rng.choice(mentions)}` for details.", ""]
    return "\n".join(out) + "\n"


@dataclass
class Generated:
    files: list[Path]
    functions: list[str]
    classes: list[str]


def generate(
    root: Path,
    modules: int,
    functions_per_module: int = 8,
    classes_per_module: int = 1,
    docs_every: int = 10,
    seed: int = 0,
) -> Generated:
    """Write ``modules`` Python files (plus one Markdown page per ``docs_every``) under ``root``."""
    rng = random.Random(seed)
    mods: list[_Module] = []
    for i in range(modules):
        package = f"pkg{i // 50:03d}"
        names = {"_".join(_ident(rng, rng.randint(2, 3))) + f"_{i}_{j}" for j in range(functions_per_module)}
        classes = ["".join(w.title() for w in _ident(rng, 2)) + f"{i}x{j}" for j in range(classes_per_module)]
        mods.append(_Module(package, f"mod{i:05d}", sorted(names), classes))
    written = []
    for i, mod in enumerate(mods):
        others = mods[max(0, i - 20) : i] or mods[1:2]
        path = root / mod.package / f"{mod.name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        init = path.parent / "__init__.py"
        if not init.exists():
            init.write_text("")
        path.write_text(_python_module(rng, mod, others))
        written.append(path)
        if docs_every and i % docs_every == 0:
            doc = root / "docs" / f"{mod.name}.md"
            doc.parent.mkdir(parents=True, exist_ok=True)
            doc.write_text(_markdown(rng, f"{mod.package}.{mod.name}", mod.functions + mod.classes))
            written.append(doc)
    return Generated(written, [f for m in mods for f in m.functions], [c for m in mods for c in m.classes])


def queries(count: int, generated: Generated, seed: int = 1) -> list[str]:
    """Distinct queries: natural language, a function's name, a class's name in a sentence.

    Distinct on purpose: the engine caches query embeddings, and a repeat would hide their cost.
    """
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        kind = len(out) % 3
        if kind == 0:
            q = f"how to {rng.choice(VERBS)} the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(NOUNS)}"
        elif kind == 1:
            q = rng.choice(generated.functions)
        else:
            q = f"where is {rng.choice(generated.classes)} used for {rng.choice(NOUNS)} {rng.choice(VERBS)}"
        out[q] = None
    return list(out)
