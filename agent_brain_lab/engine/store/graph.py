"""The code graph: entities and relations built from per-file facts, no LLM.

Per-file facts are what the analyzers extract (symbols, raw relations as written, identifiers a doc
chunk mentions). Names are resolved here, against the whole workspace, because a call or a base class
can point into any other file. Every edge keeps the chunk ids it was seen in.
"""

from __future__ import annotations

import pickle
import posixpath
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import networkx as nx

FILE = "graph.pickle"
HUB_DEGREE = 60
MAX_PATHS = 4
CODE_SUFFIXES = (
    ".py",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".mjs",
    ".go",
    ".rs",
    ".java",
    ".rb",
    ".php",
    ".kt",
    ".scala",
    ".swift",
    ".cs",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".hpp",
    ".lua",
    ".jl",
    ".r",
    ".R",
    ".sh",
)


class CodeGraph:
    def __init__(self, graph: nx.MultiDiGraph):
        self.g = graph
        self.names: dict[str, list[str]] = defaultdict(list)
        for node, data in graph.nodes(data=True):
            for key in _lookup_keys(node, data):
                self.names[key].append(node)

    # ---------------------------------------------------------------- persistence

    def save(self, gen_dir: Path) -> None:
        with open(gen_dir / FILE, "wb") as fh:
            pickle.dump(self.g, fh, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def open(cls, gen_dir: Path) -> CodeGraph | None:
        path = gen_dir / FILE
        if not path.exists():
            return None
        with open(path, "rb") as fh:
            return cls(pickle.load(fh))

    # ---------------------------------------------------------------- reading

    def stats(self) -> dict:
        by_relation: dict[str, int] = defaultdict(int)
        for _, _, rel in self.g.edges(keys=True):
            by_relation[rel] += 1
        return {
            "entities": self.g.number_of_nodes(),
            "relations": sum(by_relation.values()),
            "by_relation": dict(sorted(by_relation.items())),
        }

    def lookup(self, name: str) -> list[str]:
        return list(self.names.get(name.lower(), ()))

    def node(self, node_id: str) -> dict:
        return {"id": node_id, **self.g.nodes[node_id]}

    def neighbourhood(self, seeds: Iterable[str], depth: int) -> dict[str, tuple[int, list[list[str]]]]:
        """Breadth-first over edges in both directions: node -> (hop, its shortest paths of node ids and
        relations). A node reached over several edges at the same hop keeps up to ``MAX_PATHS`` of them:
        "X imports Y" and "Y imports X" answer different questions."""
        reached: dict[str, tuple[int, list[list[str]]]] = {s: (0, [[s]]) for s in seeds if s in self.g}
        frontier = list(reached)
        for hop in range(1, depth + 1):
            nxt = []
            for node in frontier:
                if hop > 1 and self.g.degree(node) > HUB_DEGREE:
                    continue  # a hub (a big file, a popular import) would make everything two hops apart
                path = reached[node][1][0]
                steps = [(other, f"-{rel}->") for _, other, rel in self.g.out_edges(node, keys=True)]
                steps += [(other, f"<-{rel}-") for other, _, rel in self.g.in_edges(node, keys=True)]
                for other, step in steps:
                    if other not in reached:
                        reached[other] = (hop, [[*path, step, other]])
                        nxt.append(other)
                    elif reached[other][0] == hop and len(reached[other][1]) < MAX_PATHS:
                        reached[other][1].append([*path, step, other])
            frontier = nxt
        return reached

    def edges_between(self, nodes: set[str]) -> list[dict]:
        return [
            {"source": u, "target": v, "relation": rel, "chunk_ids": data.get("chunk_ids", [])}
            for u, v, rel, data in self.g.edges(keys=True, data=True)
            if u in nodes and v in nodes
        ]

    def label(self, node_id: str) -> str:
        data = self.g.nodes.get(node_id, {})
        return data.get("qualname") or data.get("name") or node_id


def _lookup_keys(node: str, data: dict) -> set[str]:
    keys = {str(data.get("name", "")).lower()}
    if data.get("qualname"):
        keys.add(data["qualname"].lower())
    if data.get("kind") == "file":
        stem = posixpath.splitext(posixpath.basename(node))[0]
        keys |= {node.lower(), stem.lower(), posixpath.splitext(node)[0].replace("/", ".").lower()}
    keys.discard("")
    return keys


# -------------------------------------------------------------------- building


class GraphBuilder:
    """Turns per-file facts into a :class:`CodeGraph`, resolving names workspace-wide."""

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()
        self._by_name: dict[str, list[str]] = defaultdict(list)
        self._files: set[str] = set()
        self._pending: list[tuple[str, dict]] = []

    def add_file(self, path: str, facts: dict) -> None:
        self._files.add(path)
        self.g.add_node(path, kind="file", name=path, source=path)
        for sym in facts.get("symbols", ()):
            node = f"{path}::{sym['qualname']}"
            if node in self.g:  # an impl block, extension or overload of a known symbol: one entity
                self.g.nodes[node].setdefault("more_chunk_ids", []).append(sym["chunk_id"])
            else:
                self.g.add_node(
                    node,
                    kind=sym["kind"],
                    name=sym["name"],
                    qualname=sym["qualname"],
                    source=path,
                    start_line=sym["start_line"],
                    end_line=sym["end_line"],
                    chunk_id=sym["chunk_id"],
                )
                self._by_name[sym["name"]].append(node)
            parent_q = sym["qualname"].rpartition(".")[0]
            parent = f"{path}::{parent_q}" if parent_q else path
            self._pending.append((path, {"contains": (parent, node, sym["chunk_id"])}))
            self._edge(node, path, "defined_in", sym["chunk_id"])
        for section in facts.get("sections", ()):
            node = f"{path}#{section['section_path'] or ''}"
            self.g.add_node(
                node,
                kind="section",
                name=section["section_path"] or path,
                source=path,
                start_line=section["start_line"],
                end_line=section["end_line"],
                chunk_id=section["chunk_id"],
            )
            self._edge(path, node, "contains", section["chunk_id"])
            self._pending.append((path, {"mentions": (node, section["mentions"], section["chunk_id"])}))
        for rel in facts.get("relations", ()):
            self._pending.append((path, {"relation": rel}))

    def build(self) -> CodeGraph:
        for path, item in self._pending:
            if "contains" in item:
                parent, node, chunk = item["contains"]
                self._edge(parent if parent in self.g else path, node, "contains", chunk)
            elif "mentions" in item:
                node, names, chunk = item["mentions"]
                for name in names:
                    targets = self._by_name.get(name, ())
                    for target in targets[:3]:
                        self._edge(node, target, "mentions", chunk)
            else:
                self._relation(path, item["relation"])
        return CodeGraph(self.g)

    def _relation(self, path: str, rel: dict) -> None:
        source = rel["source_id"] if rel["source_id"] in self.g else path
        kind, target, chunk = rel["relation"], rel["target"], rel["chunk_id"]
        if kind == "imports":
            resolved = self._resolve_module(path, target)
            self._edge(source, resolved or self._external(target), kind, chunk)
        elif kind == "calls":
            resolved = self._resolve_symbol(path, source, target)
            if resolved and resolved != source:
                self._edge(source, resolved, kind, chunk)
        else:  # extends / implements
            resolved = self._resolve_symbol(path, source, target)
            self._edge(source, resolved or self._external(target), kind, chunk)

    def _resolve_symbol(self, path: str, source: str, raw: str) -> str | None:
        name = raw.replace("::", ".").replace("->", ".").split("(")[0].rstrip(".").rpartition(".")[2]
        candidates = self._by_name.get(name, ())
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        owner = source.rpartition(".")[0] if "::" in source else None
        for preferred in (lambda c: owner and c.startswith(owner + "."), lambda c: c.startswith(path + "::")):
            hits = [c for c in candidates if preferred(c)]
            if hits:
                return hits[0]
        return None  # ambiguous across files: better no edge than a wrong one

    def _resolve_module(self, path: str, raw: str) -> str | None:
        target = raw.strip("'\"<> ")
        if target.startswith("."):
            if "/" in target:  # ./cart, ../lib/util (JS/TS/C)
                base = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            else:  # Python relative import: .models, ..pkg.mod
                level = len(target) - len(target.lstrip("."))
                parts = posixpath.dirname(path).split("/")
                base = "/".join(parts[: len(parts) - (level - 1)] + [p for p in target.lstrip(".").split(".") if p])
        else:
            base = target.replace(".", "/") if "/" not in target else target
        candidates = [
            base,
            *(base + s for s in CODE_SUFFIXES),
            base + "/__init__.py",
            base + "/index.ts",
            base + "/index.js",
            base + "/mod.rs",
        ]
        for cand in candidates:
            if cand in self._files:
                return cand
        return None

    def _external(self, name: str) -> str:
        node = f"ext:{name}"
        if node not in self.g:
            self.g.add_node(node, kind="external", name=name, source=None)
        return node

    def _edge(self, u: str, v: str, relation: str, chunk_id: str) -> None:
        if self.g.has_edge(u, v, key=relation):
            ids = self.g.edges[u, v, relation]["chunk_ids"]
            if chunk_id not in ids:
                ids.append(chunk_id)
        else:
            self.g.add_edge(u, v, key=relation, chunk_ids=[chunk_id])
