"""The MCP tools, defined once: name, description, input schema, annotations, and what a call does.

Both transports serve exactly these definitions — :mod:`.stdio` on the ``mcp`` SDK's low-level
server, :mod:`.jupyter` through ``jupyter-server-mcp``'s FastMCP — so a client sees the same tools
wherever it connects. The schemas carry the validator's own limits (``engine/types.py``): enums for
``mode`` and ``source_types``, bounds for ``top_k`` and ``depth``, lengths and list sizes. Calls go
through that validator too (:meth:`QueryRequest.build` and its siblings), so a bad value is a tool
error carrying the REST message; an argument no schema declares is refused here, before any work.

No MCP SDK and no Jupyter imports: each transport maps :class:`BrainError` to its own tool error.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .. import render
from ..engine.languages import KNOWN_LANGUAGES
from ..engine.types import (
    INDEX_STATES,
    MAX_GLOB_CHARS,
    MAX_GLOBS,
    MAX_GRAPH_DEPTH,
    MAX_LIST_ITEMS,
    MAX_NAME_BYTES,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    MODES,
    SOURCE_TYPES,
    GraphRequest,
    IndexRequest,
    InvalidRequest,
    QueryRequest,
    QueryResponse,
    QueryResult,
)

SERVER_NAME = "agent-brain-lab"
INSTRUCTIONS = (
    "Long-term memory of one workspace (code, docs, notebooks): call workspace_status first, "
    "index_workspace if it is empty or stale, then search_workspace and explore_entity before reading files."
)
SNIPPET_CHARS = 600  # per result: enough to see what a chunk does, small enough for ten in a prompt
MAX_GRAPH_NODES = 60  # a hub at depth 3 reaches hundreds; the nearest hops matter most
MAX_SKIPPED_SHOWN = 10
INDEX_WAIT_S = 60.0  # an index call waits this long for its run, then reports it as still running
OUTPUT_SCHEMA: dict[str, Any] = {"type": "object"}  # every tool answers one JSON object


@dataclass(frozen=True)
class ToolSpec:
    """One tool as MCP lists it. ``properties`` maps each argument to its JSON schema (with its
    ``description`` and, when optional, its ``default``)."""

    name: str
    title: str
    description: str
    properties: Mapping[str, Mapping[str, Any]]
    required: tuple[str, ...] = ()
    read_only: bool = True

    @property
    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": copy.deepcopy(dict(self.properties))}
        if self.required:
            schema["required"] = list(self.required)
        schema["additionalProperties"] = False
        return schema

    @property
    def annotations(self) -> dict[str, Any]:
        """MCP tool annotations (camelCase, as on the wire): clients auto-approve read-only tools."""
        return {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": False,  # index_workspace adds a generation; it never deletes what it read
            "idempotentHint": True,  # calling again with the same arguments changes nothing more
            "openWorldHint": False,  # the workspace only: nothing outside this machine is reached
        }

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` carries it (camelCase keys)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": copy.deepcopy(OUTPUT_SCHEMA),
            "annotations": self.annotations,
        }

    def arguments(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """``given`` checked against the declared arguments: anything undeclared is an error, never ignored."""
        if given is None:
            return {}
        if not isinstance(given, Mapping):
            raise InvalidRequest("arguments", "expected a JSON object")
        for key in given:
            if key not in self.properties:
                shown = render.printable(str(key)[:100]).encode("utf-8", "backslashreplace").decode()
                takes = ", ".join(self.properties) or "no arguments"
                raise InvalidRequest(shown, f"unknown argument; {self.name} takes {takes}")
        return dict(given)


def _strings(description: str, items: int, chars: int, enum: tuple[str, ...] = ()) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "string", "maxLength": chars}
    if enum:
        item = {"type": "string", "enum": list(enum)}
    return {"type": "array", "items": item, "maxItems": items, "description": description}


_MODE_HELP = (
    '"multi" (default: all legs fused, best for most questions), "hybrid" (meaning + keywords), '
    '"vector" (meaning only), "bm25" (exact words and identifiers), or "graph" (relationships of a '
    "named symbol: who calls, imports or extends it)"
)

SEARCH = ToolSpec(
    name="search_workspace",
    title="Search the workspace",
    description=(
        "Search the indexed workspace (code, docs, notebooks) and return the best passages. Use it "
        "before reading files: each result gives `location` (`path:start-end`, `path:line` for one line, "
        "plus `[cell N]` counted from 1 in a notebook) to open, the `symbol` (kind and qualified name) or "
        "doc `section` it belongs to, its `kind`, a `score`, `why` it matched (each retrieval leg's score "
        "and rank, and for graph hits the relationship path) and a trimmed `snippet`. The answer also says "
        "which index `generation` it read, how multi read the query (`read_as`) and what share of the "
        "workspace the vector legs can see (`coverage`, left out when no vector leg answered)."
    ),
    properties={
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": "A natural-language question, an identifier or a phrase.",
        },
        "mode": {"type": "string", "enum": list(MODES), "default": QueryRequest.mode, "description": _MODE_HELP},
        "top_k": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_TOP_K,
            "default": QueryRequest.top_k,
            "description": "How many results to return.",
        },
        "source_types": _strings("Keep only these kinds of file.", MAX_LIST_ITEMS, MAX_NAME_CHARS, enum=SOURCE_TYPES),
        "languages": _strings(
            'Keep only these languages, e.g. ["python", "markdown"] (workspace_status lists those indexed, '
            f"under by_language; known: {', '.join(KNOWN_LANGUAGES)}).",
            MAX_LIST_ITEMS,
            MAX_NAME_CHARS,
        ),
        "file_paths": _strings(
            "Keep only files matching these globs relative to the workspace root (`**` spans folders), "
            'e.g. ["src/**/*.py"].',
            MAX_GLOBS,
            MAX_GLOB_CHARS,
        ),
    },
    required=("query",),
)

STATUS = ToolSpec(
    name="workspace_status",
    title="Workspace index status",
    description=(
        "Describe the workspace index: its `state`, root folder, generation, files and chunks by kind "
        "and language, knowledge-graph size, embedding model, when it was last indexed, how many files "
        "were skipped, and the current or last index run (`job`). Call it first to know whether "
        "search_workspace can answer or index_workspace is needed. States: "
        + "; ".join(f'"{state}": {meaning}' for state, meaning in INDEX_STATES.items())
        + "."
    ),
    properties={},
)

EXPLORE = ToolSpec(
    name="explore_entity",
    title="Explore an entity's neighbourhood",
    description=(
        "Show a code or doc entity's neighbourhood in the knowledge graph: what it calls, what calls it, "
        "what it imports or extends, and which docs mention it. Returns the matched node ids, the nodes "
        "reached (kind, qualified name, `location` as `path:start-end`, `hop` count from the entity) and "
        'the edges among them, written "source -relation-> target". A few neighbours are shown per '
        'relation; `held_back` counts the rest ("+116 more callers of X"); file/class membership '
        "(contains, defined_in) is counted in `structure_hidden`, not listed. Open a location to read "
        "the code."
    ),
    properties={
        "name": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_NAME_CHARS,
            "description": 'A class, function, method, file or section name, e.g. "Cart", "Cart.add_item", '
            '"compute_total" or "shop/pricing.py".',
        },
        "depth": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_GRAPH_DEPTH,
            "default": GraphRequest.depth,
            "description": "How many hops to follow from the entity.",
        },
    },
    required=("name",),
)

INDEX = ToolSpec(
    name="index_workspace",
    title="Update the search index",
    description=(
        "Bring the search index up to date with the files on disk (incremental: only changed files are "
        "re-read), for the whole workspace or one folder. If an index run is already going on, this joins "
        f"it instead of starting another. Waits up to {INDEX_WAIT_S:.0f} s for the run: the answer is its "
        'report (files and chunks indexed, skipped files) or, for a long run, status "running" with its '
        "progress; call index_workspace again to keep waiting, or workspace_status to watch it."
    ),
    properties={
        "path": {
            "type": "string",
            "maxLength": MAX_PATH_CHARS,
            "default": "",
            "description": 'A folder relative to the workspace root; "" is the whole workspace. '
            f"A folder name is at most {MAX_NAME_BYTES} bytes.",
        },
    },
    read_only=False,
)

TOOLS: tuple[ToolSpec, ...] = (SEARCH, STATUS, EXPLORE, INDEX)
TOOL_NAMES = tuple(spec.name for spec in TOOLS)
SPECS = {spec.name: spec for spec in TOOLS}


class Backend(Protocol):
    """Where the engine work runs: the Jupyter server's service, or a Brain of this process."""

    async def query(self, request: QueryRequest) -> QueryResponse: ...

    async def status(self) -> dict[str, Any]:
        """``Brain.status()`` plus ``job``: the current or last index run (a job dict) or None."""
        ...

    async def graph(self, request: GraphRequest) -> dict[str, Any]: ...

    async def index(self, path: str) -> dict[str, Any]:
        """Start an index run of ``path``, or join the one running; wait up to INDEX_WAIT_S.
        Returns the run as a job dict plus ``joined``; raises the BrainError a failed run ended with."""
        ...


class BrainTools:
    """The tools over ``backend()`` (looked up at each call). :meth:`call` raises :class:`BrainError`."""

    def __init__(self, backend: Callable[[], Backend]):
        self._backend = backend

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        spec = SPECS.get(name)
        if spec is None:
            raise InvalidRequest("name", f"unknown tool; the tools are {', '.join(TOOL_NAMES)}")
        given = spec.arguments(arguments)
        if spec is SEARCH:
            response = await self._backend().query(QueryRequest.build(given))
            return compact_response(response)
        if spec is STATUS:
            return compact_status(await self._backend().status())
        if spec is EXPLORE:
            return compact_graph(await self._backend().graph(GraphRequest.build(given)))
        path = given.get("path")
        if path is None:
            path = ""
        if not isinstance(path, str):
            raise InvalidRequest("path", "must be a string")
        IndexRequest.build({"path": path})  # the shared limits on a path
        return compact_job(await self._backend().index(path))


def to_json(answer: dict[str, Any]) -> str:
    """The compact JSON text of an answer (no indentation: every byte goes into the model's context)."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- compact answers


def compact_response(resp: QueryResponse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "query": resp.query,
        "mode": resp.mode,
        "generation": resp.generation,
        "results": [compact_result(r) for r in resp.results],
    }
    optional = {
        "intent": resp.intent,
        "read_as": resp.fusion_note,
        "fallback": resp.fallback,
        "query_entities": resp.query_entities,
        "filter_note": resp.filter_note,
    }
    out.update({key: value for key, value in optional.items() if value})
    if resp.coverage is not None:  # None: no vector leg answered (bm25, graph that found its entities)
        out["coverage"] = resp.coverage
        if resp.coverage_note:
            out["note"] = resp.coverage_note
    return out


def compact_result(r: QueryResult) -> dict[str, Any]:
    out: dict[str, Any] = {"location": r.location, "kind": render.kind(r)}
    if r.anchor:
        out["symbol" if r.symbol_name else "section"] = r.anchor
    out["score"] = round(r.score, 4)
    why: dict[str, Any] = {"legs": [leg.label for leg in r.legs]}
    if r.relationship_path:
        why["path"] = " ".join(r.relationship_path)
    if r.related_entities:
        why["related"] = r.related_entities
    out["why"] = why
    out["snippet"] = snippet(r.text)
    return out


def snippet(text: str, budget: int = SNIPPET_CHARS) -> str:
    """``text`` cut at a line end within ``budget`` characters, saying how many lines were left out."""
    if len(text) <= budget:
        return text
    lines = text.splitlines()
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    if not kept:  # one very long first line
        kept = [lines[0][: budget - 1] + "…"]
    left = len(lines) - len(kept)
    return "\n".join(kept) + (f"\n… ({left} more lines)" if left else "")


def compact_status(status: dict[str, Any]) -> dict[str, Any]:
    bulky = ("skipped", "model", "graph", "job")
    out = {key: value for key, value in status.items() if key not in bulky}
    out["graph"] = {key: status["graph"][key] for key in ("entities", "relations")}
    out["model"] = status["model"].get("name")
    # how many were skipped is ``skipped_total`` (by reason: ``skipped_by_reason``); ``skipped`` lists only
    # the first 50, so its length is no count
    out["job"] = compact_job(status["job"]) if status.get("job") else None
    return out


def compact_job(job: dict[str, Any]) -> dict[str, Any]:
    """An index run (a server job or a local run) without its per-file lists."""
    out = {key: value for key, value in job.items() if key not in ("skipped", "paths", "report") and value is not None}
    report = job.get("report")
    if report:
        out["report"] = {key: value for key, value in report.items() if key != "skipped"}
        skipped = report.get("skipped", [])
        out["report"]["skipped"] = len(skipped)
        if skipped:
            out["report"]["skipped_files"] = [
                f"{render.printable(s['path'])}: {s['reason']}" for s in skipped[:MAX_SKIPPED_SHOWN]
            ]
    if job.get("status") in ("pending", "running"):
        out["note"] = "still running: call index_workspace again to keep waiting, or workspace_status to watch it"
    return out


def compact_graph(graph: dict[str, Any]) -> dict[str, Any]:
    nodes = sorted(graph["nodes"], key=lambda n: n["hop"])[:MAX_GRAPH_NODES]  # stable: keeps the engine's order
    kept = {n["id"] for n in nodes}
    out: dict[str, Any] = {
        "query": graph["query"],
        "matches": graph["matches"],
        "nodes": [_node(n) for n in nodes],
        "edges": [render.edge_label(e) for e in graph["edges"] if e["source"] in kept and e["target"] in kept],
    }
    if len(graph["nodes"]) > len(nodes):
        out["note"] = f"showing the nearest {len(nodes)} of {len(graph['nodes'])} nodes; lower depth to see fewer"
    held = [f"{g['label']} of {g['parent']}" for g in graph.get("groups", []) if g.get("more")]
    if held:
        out["held_back"] = held  # the engine shows a few neighbours per relation: "+116 more callers of X"
    if graph.get("hidden_relations"):
        out["structure_hidden"] = graph["hidden_relations"]  # contains/defined_in edges, counted not listed
    if not graph["matches"]:
        out["note"] = graph["note"]  # the engine's words, the nearest names included
    return out


def _node(node: dict[str, Any]) -> dict[str, Any]:
    out = {"id": node["id"], "kind": node.get("kind"), "name": node.get("qualname") or node.get("name")}
    where = node.get("location")
    if where:
        out["location"] = where
    out["hop"] = node["hop"]
    return out
