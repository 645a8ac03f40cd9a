"""Notebook widgets: ranked query results and an interactive knowledge-graph explorer.

Both are anywidgets whose state is plain JSON in synced traitlets. What a person reads about a
result (``location``, ``anchor``, ``focus_line``, the legs' labels, the fusion and coverage notes)
and what matched (``highlights``) come from the engine (engine/labels.py); the rest (score bars,
snippet windows, merged neighbourhoods) is derived here, so the front end only draws and the
state can be checked from Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anywidget
import traitlets as t

from ..engine.explore import group_label
from ..engine.types import BrainError, QueryResponse

STATIC = Path(__file__).parent / "static"
MAX_GRAPH_NODES = 400  # keeps the O(n²) force layout interactive in the browser
SNIPPET_LINES = 8  # lines of a hit shown before "Show more"


def _module(*names: str) -> str:
    """anywidget loads one ES module per widget, so the shared helpers are prepended to it."""
    return "\n".join((STATIC / name).read_text(encoding="utf-8") for name in names)


# --------------------------------------------------------------------------- shared mapping


def snippet_window(text: str, highlights: list[list[int]], lines: int = SNIPPET_LINES) -> dict[str, Any]:
    """What a hit shows before "Show more": at most ``lines`` lines from the one above the first
    marked line (the engine's highlights; for a graph hit the line its relation is written on), as
    the panel's snippet does, with the ranges moved into it; ``…`` lines stand for what is cut."""
    rows = text.rstrip().split("\n")
    starts, offset = [], 0
    for row in rows:
        starts.append(offset)
        offset += len(row) + 1
    first = highlights[0][0] if highlights else 0
    marked = max((i for i, s in enumerate(starts) if s <= first), default=0)
    start = max(0, min(marked - 1, len(rows) - lines))
    stop = min(len(rows), start + lines)
    before, after = ("…\n" if start else ""), ("\n…" if stop < len(rows) else "")
    shift = starts[start] - len(before)
    end = starts[stop] - 1 if stop < len(rows) else offset - 1
    return {
        "text": before + "\n".join(rows[start:stop]) + after,
        "highlights": [
            [max(a, starts[start]) - shift, min(b, end) - shift] for a, b in highlights if b > starts[start] and a < end
        ],
        "cut": bool(before or after),
    }


# --------------------------------------------------------------------------- results


class ResultsWidget(anywidget.AnyWidget):
    """Ranked hits of one :class:`QueryResponse`, with per-leg score bars and the engine's highlights."""

    _esm = _module("shared.js", "results.js")
    _css = _module("shared.css", "results.css")

    query = t.Unicode("").tag(sync=True)
    mode = t.Unicode("").tag(sync=True)
    query_time_ms = t.Float(0.0).tag(sync=True)
    generation = t.Int(0).tag(sync=True)
    fallback = t.Unicode(None, allow_none=True).tag(sync=True)
    query_entities = t.List(t.Unicode()).tag(sync=True)
    intent = t.Unicode(None, allow_none=True).tag(sync=True)
    weights = t.Dict(value_trait=t.Float()).tag(sync=True)
    coverage = t.Float(1.0).tag(sync=True)
    fusion_note = t.Unicode(None, allow_none=True).tag(sync=True)
    coverage_note = t.Unicode(None, allow_none=True).tag(sync=True)
    results = t.List(t.Dict()).tag(sync=True)

    def __init__(self, response: QueryResponse, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.hold_sync():
            self.query = response.query
            self.mode = response.mode
            self.query_time_ms = response.query_time_ms
            self.generation = response.generation
            self.fallback = response.fallback
            self.query_entities = list(response.query_entities)
            self.intent = response.intent
            self.weights = dict(response.weights)
            self.coverage = 1.0 if response.coverage is None else response.coverage  # None: no vector leg
            self.fusion_note = response.fusion_note
            self.coverage_note = response.coverage_note
            self.results = _map_results(response)


def _map_results(response: QueryResponse) -> list[dict[str, Any]]:
    hits = [r.to_dict() for r in response.results]
    best: dict[str, float] = {}
    for hit in hits:
        for leg in hit["legs"]:
            best[leg["leg"]] = max(best.get(leg["leg"], 0.0), leg["score"] or 0.0)
    top = max((h["score"] for h in hits), default=0.0)
    return [
        {
            **hit,
            "snippet": snippet_window(hit["text"], hit["highlights"]),
            "rank": rank,
            "score_fraction": _fraction(hit["score"], top),
            "legs": [{**leg, "fraction": _leg_fraction(leg, best)} for leg in hit["legs"]],
        }
        for rank, hit in enumerate(hits, start=1)
    ]


def _leg_fraction(leg: dict[str, Any], best: dict[str, float]) -> float | None:
    """How full a leg's bar is (None: the leg ranked the hit without a score). Vector scores are
    cosines, already on a 0..1 scale; the other legs' scores are unbounded, so their bars are
    relative to the best hit of this response."""
    score = leg["score"]
    if score is None:
        return None
    if leg["leg"] == "vector":
        return min(max(score, 0.0), 1.0)
    return _fraction(score, best[leg["leg"]])


def _fraction(value: float, best: float) -> float:
    return min(max(value / best, 0.0), 1.0) if best > 0 else 0.0


# --------------------------------------------------------------------------- graph


class GraphWidget(anywidget.AnyWidget):
    """An entity's neighbourhood as a node-link view: the queried entity in the middle, what points
    at it on the left and what it points at on the right, one captioned block per relation (the
    engine's groups). Clicking a node expands it through ``brain``; clicking a group's "+42 more
    callers" shows the neighbours the engine held back (``Brain.graph_entity`` caps each relation)."""

    _esm = _module("shared.js", "graph.js")
    _css = _module("shared.css", "graph.css")

    query = t.Unicode("").tag(sync=True)
    matches = t.List(t.Unicode()).tag(sync=True)
    nodes = t.List(t.Dict()).tag(sync=True)
    edges = t.List(t.Dict()).tag(sync=True)
    chunks = t.List(t.Dict()).tag(sync=True)
    groups = t.List(t.Dict()).tag(sync=True)
    hidden_relations = t.Dict().tag(sync=True)
    expanded = t.List(t.Unicode()).tag(sync=True)
    message = t.Unicode("").tag(sync=True)

    def __init__(self, graph: Any, brain: Any | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._brain = brain
        graph = graph.to_dict() if hasattr(graph, "to_dict") else graph  # Brain.graph_entity() or its dict
        # expansions follow the options the view was asked with
        self._options = {k: graph[k] for k in ("per_relation", "all_relations") if k in graph}
        with self.hold_sync():
            self.query = graph["query"]
            self.matches = list(graph["matches"])
            self.expanded = list(graph["matches"])
            self.hidden_relations = dict(graph.get("hidden_relations") or {})
            added = self._merge(graph, base_hop=0)
            self.message = "" if graph["matches"] else str(graph.get("note"))  # the engine's words
            if added < len(graph["nodes"]):
                self.message = f"Showing the first {MAX_GRAPH_NODES} nodes."
        self.on_msg(self._on_msg)

    def expand(self, node_id: str) -> int:
        """Merge the 1-hop neighbourhood of a shown node; returns how many nodes were added."""
        node = next((n for n in self.nodes if n["id"] == node_id), None)
        if node is None:
            self.message = f"Unknown node {node_id!r}."
            return 0
        if self._brain is None:
            self.message = "Expanding needs a Brain: GraphWidget(graph, brain=brain)."
            return 0
        try:
            graph = self._brain.graph_entity(node_id, 1, **self._options).to_dict()  # an id is exact, a name not
        except BrainError as err:
            self.message = str(err)
            return 0
        with self.hold_sync():
            added = self._merge(graph, base_hop=node["hop"])
            if node_id not in self.expanded:
                self.expanded = [*self.expanded, node_id]
            self.message = f"{node['name']}: {added} new node{'s' if added != 1 else ''}."
            if not added and graph.get("hidden_relations"):
                self.message += f" Structure hidden: {', '.join(map(str, graph['hidden_relations']))}."
            if len(self.nodes) >= MAX_GRAPH_NODES:
                self.message += f" (view capped at {MAX_GRAPH_NODES} nodes)"
        return added

    def expand_group(self, group_id: str) -> int:
        """Show the neighbours a group holds back (no engine call: the group carries them)."""
        group = next((g for g in self.groups if g["id"] == group_id), None)
        if group is None:
            self.message = f"Unknown group {group_id!r}."
            return 0
        hop = next((n["hop"] for n in self.nodes if n["id"] == group["parent"]), 0) + 1
        revealed = {"nodes": [{**m, "hop": 0} for m in group["more"]], "edges": group["more_edges"], "chunks": []}
        with self.hold_sync():
            added = self._merge(revealed, base_hop=hop)
            self.message = f"{added} more {group['phrase']} shown."
            if len(self.nodes) >= MAX_GRAPH_NODES:
                self.message += f" (view capped at {MAX_GRAPH_NODES} nodes)"
        return added

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind not in ("expand", "expand_group"):
            self.message = "Ignored an unknown message from the view."
            return
        node_id = content.get("id")
        try:
            action = self.expand if kind == "expand" else self.expand_group
            action(node_id if isinstance(node_id, str) else repr(node_id))
        finally:
            self.send({"type": "expanded", "id": node_id})  # lets the view stop its spinner

    def _merge(self, graph: dict[str, Any], base_hop: int) -> int:
        """Union nodes (keeping the smallest hop from the original query), edges, chunks and groups;
        a group holds back only neighbours not shown."""
        nodes = {n["id"]: n for n in self.nodes}
        before = len(nodes)
        for node in graph["nodes"]:
            hop = base_hop + int(node.get("hop") or 0)
            old = nodes.get(node["id"])
            if old is None and len(nodes) < MAX_GRAPH_NODES:
                nodes[node["id"]] = {**node, "hop": hop}
            elif old is not None and hop < old["hop"]:
                nodes[node["id"]] = {**old, "hop": hop}
        edges = {(e["source"], e["target"], e["relation"]): e for e in self.edges}
        for edge in graph["edges"]:
            if edge["source"] not in nodes or edge["target"] not in nodes:
                continue
            key = (edge["source"], edge["target"], edge["relation"])
            chunk_ids = edges[key]["chunk_ids"] if key in edges else []
            edges[key] = {**edge, "chunk_ids": list(dict.fromkeys([*chunk_ids, *edge.get("chunk_ids", [])]))}
        chunks = {c["chunk_id"]: c for c in self.chunks}
        for chunk in graph["chunks"]:
            chunks.setdefault(chunk["chunk_id"], chunk)
        groups = {g["id"]: g for g in self.groups}
        for group in graph.get("groups", []):
            if group["parent"] in nodes and group["id"] not in groups:
                groups[group["id"]] = group
        self.nodes = list(nodes.values())
        self.edges = list(edges.values())
        self.chunks = list(chunks.values())
        self.groups = [_held_back(g, nodes) for g in groups.values()]
        return len(nodes) - before


def _held_back(group: dict[str, Any], nodes: dict[str, Any]) -> dict[str, Any]:
    """``group`` with the neighbours now shown moved from ``more`` to ``shown``."""
    more = [m for m in group["more"] if m["id"] not in nodes]
    if len(more) == len(group["more"]):
        return group
    kept = {m["id"] for m in more}
    shown = [*group["shown"], *(m["id"] for m in group["more"] if m["id"] not in kept)]
    more_edges = [e for e in group["more_edges"] if e["source"] in kept or e["target"] in kept]
    return {
        **group,
        "shown": shown,
        "more": more,
        "more_edges": more_edges,
        "label": group_label(len(more), group["phrase"]),
    }
