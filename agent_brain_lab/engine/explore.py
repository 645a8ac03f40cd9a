"""An entity's neighbourhood for a person to read: grouped by relation, capped, structure hidden.

``Brain.graph_entity()`` answers with this, so the notebook explorer, the CLI text, the HTML and
REST all show the same thing. A walk from the matched entities, one hop at a time; at each node
the neighbours not reached at a nearer hop fall into one group per relation and direction
("callers", "calls", "subclasses", ...). Each group shows at most ``per_relation`` neighbours
(``PER_RELATION`` by default) and ``MAX_SHOWN`` nodes in all, taken round-robin across the groups
of a hop so a big group cannot crowd out a small one; the rest stay in the group (``more``), with
names, locations and edges, for a front door to reveal on request. Only shown nodes are walked
further. ``per_relation=0`` lifts both caps (everything within ``depth``).

``contains`` and ``defined_in`` (a file holds a class holds a method) are structure, not what an
entity does: unless ``all_relations`` they are not followed, and ``hidden_relations`` counts the
edges left out at the nodes the walk went through.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from . import labels
from .store.graph import HUB_DEGREE, CodeGraph

PER_RELATION = 8  # neighbours shown per relation (and direction) of a node
MAX_SHOWN = 60  # nodes shown in all, the matched entities aside
STRUCTURAL = frozenset({"contains", "defined_in"})
GROUP_PREFIX = "//more/"  # node ids are relative paths or "ext:" names: none starts with "/"

# (relation, direction) -> what the neighbours on that side are, as a person says it
PHRASES = {
    ("calls", "in"): "callers",
    ("calls", "out"): "calls",
    ("extends", "in"): "subclasses",
    ("extends", "out"): "bases",
    ("implements", "in"): "implementations",
    ("implements", "out"): "implements",
    ("imports", "in"): "imported by",
    ("imports", "out"): "imports",
    ("mentions", "in"): "mentioned in",
    ("mentions", "out"): "mentions",
    ("contains", "in"): "contained in",
    ("contains", "out"): "contains",
    ("defined_in", "in"): "defines",
    ("defined_in", "out"): "defined in",
}
_DIGITS = re.compile(r"(\d+)")
_ORDER = {key: i for i, key in enumerate(PHRASES)}


def phrase(relation: str, direction: str) -> str:
    return PHRASES.get((relation, direction)) or (relation if direction == "out" else f"{relation} (incoming)")


def group_label(hidden: int, words: str) -> str:
    """What a group is called: "+42 more callers", or just "callers" when it holds nothing back."""
    return f"+{hidden} more {words}" if hidden else words


def explore(graph: CodeGraph, seeds: list[str], depth: int, per_relation: int, all_relations: bool) -> dict[str, Any]:
    """``nodes`` shown (each with ``hop``), ``groups`` (every relation of every walked node, with
    what it shows and what it holds back), ``edges`` among the shown nodes (structure left out
    unless ``all_relations``) and ``hidden_relations``."""
    hops = {s: 0 for s in seeds if s in graph}
    frontier = list(hops)
    cap = per_relation or None
    budget = MAX_SHOWN if cap else None
    groups: list[dict[str, Any]] = []
    hidden: Counter[str] = Counter()
    for hop in range(1, depth + 1):
        buckets: list[tuple[str, tuple[str, str], Members]] = []
        for node in frontier:
            if hop > 1 and graph.degree(node) > HUB_DEGREE:
                continue  # a hub (a big file, a popular import) would make everything two hops apart
            found = _buckets(graph, node, hops, all_relations, hidden)
            buckets += [(node, key, found[key]) for key in sorted(found, key=lambda k: (_ORDER.get(k, 99), k))]
        fresh = _pick(buckets, hops, hop, cap, budget)
        if budget is not None:
            budget -= len(fresh)
        for parent, (relation, direction), members in buckets:
            groups.append(_group(graph, parent, relation, direction, members, hops, hop))
        frontier = fresh
    shown = set(hops)
    edges = [e for e in graph.edges_between(shown) if all_relations or e["relation"] not in STRUCTURAL]
    return {
        "nodes": [_node(graph, n, h) for n, h in hops.items()],
        "edges": edges,
        "groups": groups,
        "hidden_relations": dict(sorted(hidden.items())),
    }


def _pick(
    buckets: list[tuple[str, tuple[str, str], Members]],
    hops: dict[str, int],
    hop: int,
    cap: int | None,
    budget: int | None,
) -> list[str]:
    """Show each group's next neighbour in turn, until every group shows ``cap`` (counting those
    another group of this hop already shows) or ``budget`` nodes were added. Linear in the members."""
    fresh: list[str] = []
    queues = [[m for m, _ in members] for *_, members in buckets]
    holders: dict[str, list[int]] = {}
    for i, queue in enumerate(queues):
        for m in queue:
            holders.setdefault(m, []).append(i)
    shown = [0] * len(queues)
    at = [0] * len(queues)
    full = budget if budget is not None else len(holders)
    live = list(range(len(queues)))
    while live and len(fresh) < full:
        still = []
        for i in live:
            if len(fresh) >= full:
                break
            queue = queues[i]
            while at[i] < len(queue) and queue[at[i]] in hops:
                at[i] += 1
            if at[i] == len(queue) or (cap is not None and shown[i] >= cap):
                continue
            node = queue[at[i]]
            hops[node] = hop
            fresh.append(node)
            for j in holders[node]:
                shown[j] += 1
            still.append(i)
        live = still
    return fresh


Members = list[tuple[str, list[dict[str, Any]]]]  # (neighbour, its edges) of one group


def _buckets(
    graph: CodeGraph, node: str, hops: dict[str, int], all_relations: bool, hidden: Counter[str]
) -> dict[tuple[str, str], Members]:
    """(relation, direction) -> [(neighbour, edges)]: the neighbours not shown nearer, in ``_ordered``."""
    found: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    steps = [("out", e) for e in graph.out_edges(node)] + [("in", e) for e in graph.in_edges(node)]
    for direction, e in steps:
        if e.relation in STRUCTURAL and not all_relations:
            hidden[e.relation] += 1
            continue
        other = e.target if direction == "out" else e.source
        if other == node or other in hops:
            continue  # shown already, nearer or as a sibling of this hop
        edge = {"source": e.source, "target": e.target, "relation": e.relation, "chunk_ids": list(e.chunk_ids)}
        found.setdefault((e.relation, direction), {}).setdefault(other, []).append(edge)
    return {key: _ordered(graph, members) for key, members in found.items()}


def _ordered(graph: CodeGraph, members: dict[str, list[dict[str, Any]]]) -> Members:
    """The most referenced first (edges seen in more chunks), then one per file in turn (eight
    callers from eight files say more than eight from one), then by id, numbers compared as numbers."""
    turn: Counter[str] = Counter()
    ranked = []
    for node in sorted(members, key=_natural):
        source = str((graph.get(node) or {}).get("source") or node)
        ranked.append((-sum(len(e["chunk_ids"]) for e in members[node]), turn[source], _natural(node), node))
        turn[source] += 1
    return [(node, members[node]) for *_, node in sorted(ranked)]


def _natural(text: str) -> list[tuple[int, int, str]]:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in _DIGITS.split(text) if part]


def _node(graph: CodeGraph, node: str, hop: int) -> dict[str, Any]:
    """A node as a front door shows it: the graph's attributes, its ``hop`` from the matched entities
    and its ``location`` (``path:7-9``, the path alone for a file, None outside the workspace)."""
    data = graph.node(node)
    source = data.get("source")
    where = labels.location(source, data.get("start_line"), data.get("end_line")) if source else None
    return {**data, "hop": hop, "location": where}


def _group(
    graph: CodeGraph, parent: str, relation: str, direction: str, members: Members, hops: dict[str, int], hop: int
) -> dict[str, Any]:
    shown = [m for m, _ in members if m in hops]
    more = [(m, edges) for m, edges in members if m not in hops]
    words = phrase(relation, direction)
    return {
        "id": f"{GROUP_PREFIX}{direction}/{relation}/{parent}",
        "parent": parent,
        "relation": relation,
        "direction": direction,
        "phrase": words,
        "total": len(members),
        "shown": shown,
        "label": group_label(len(more), words),
        "more": [_node(graph, m, hop) for m, _ in more],
        "more_edges": [e for _, edges in more for e in edges],
    }
