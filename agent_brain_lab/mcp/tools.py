"""The MCP tools: typed async methods over a backend that runs the engine.

An MCP SDK turns a tool's name, docstring and signature into its name, description and input
schema, so the docstrings below are written for the model that calls them. Queries go through
:meth:`QueryRequest.build`, the validator every front door shares; a :class:`BrainError` leaves
as the SDK's tool error carrying the message REST gives, never as a crash.

No ``from __future__ import annotations`` here: the SDKs evaluate these annotations at run time.
"""

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from .. import render
from ..engine.types import BrainError, QueryRequest, QueryResponse, QueryResult

TOOL_NAMES = ("search_workspace", "workspace_status", "explore_entity", "index_workspace")
READ_ONLY_TOOLS = ("search_workspace", "workspace_status", "explore_entity")
SNIPPET_CHARS = 600  # per result: enough to see what a chunk does, small enough for ten in a prompt
MAX_GRAPH_NODES = 60  # a hub at depth 3 reaches hundreds; the nearest hops matter most
MAX_SKIPPED_SHOWN = 10
INDEX_WAIT_S = 60.0  # an index call waits this long for its run, then reports it as still running


class Backend(Protocol):
    """Where the engine work runs: the Jupyter server's service, or a Brain of this process."""

    async def query(self, request: QueryRequest) -> QueryResponse: ...

    async def status(self) -> dict[str, Any]:
        """``Brain.status()`` plus ``job``: the current or last index run (a job dict) or None."""
        ...

    async def graph(self, name: str, depth: int) -> dict[str, Any]: ...

    async def index(self, path: str) -> dict[str, Any]:
        """Start an index run of ``path``, or join the one running; wait up to INDEX_WAIT_S.
        Returns the run as a job dict plus ``joined``; raises the BrainError a failed run ended with."""
        ...


class BrainTools:
    """The four tools over ``backend()`` (looked up at each call); ``error`` is the SDK's tool-error class."""

    def __init__(self, backend: Callable[[], Backend], error: type[Exception]):
        self._backend = backend
        self._error = error

    @contextlib.contextmanager
    def _reported(self) -> Iterator[None]:
        try:
            yield
        except BrainError as err:
            raise self._error(str(err)) from None

    async def search_workspace(
        self,
        query: str,
        mode: str = "multi",
        top_k: int = 5,
        source_types: list[str] | None = None,
        languages: list[str] | None = None,
        file_paths: list[str] | None = None,
    ) -> dict[str, Any]:
        """Search the indexed workspace (code, docs, notebooks) and return the best passages.

        Use it before reading files: each result gives `location` (`path:start-end`, plus the
        notebook cell) to open, the `symbol` or doc `section` it belongs to, a `score`, `why` it
        matched (each retrieval leg's score and rank, and for graph hits the relationship path) and
        a trimmed `snippet`. The answer also says which index `generation` it read and what share
        of the workspace the vector legs can see (`coverage`, left out when no vector leg answered).

        Args:
            query: a natural-language question, an identifier or a phrase (at most 1000 characters).
            mode: "multi" (default: all legs fused, best for most questions), "hybrid" (meaning +
                keywords), "vector" (meaning only), "bm25" (exact words and identifiers), or
                "graph" (relationships of a named symbol: who calls, imports or extends it).
            top_k: how many results, 1 to 100.
            source_types: keep only these kinds: any of "code", "test", "doc", "notebook".
            languages: keep only these languages, e.g. ["python", "markdown"].
            file_paths: keep only files matching these globs relative to the workspace root,
                e.g. ["src/**/*.py"].
        """
        with self._reported():
            request = QueryRequest.build(
                {
                    "query": query,
                    "mode": mode,
                    "top_k": top_k,
                    "source_types": source_types,
                    "languages": languages,
                    "file_paths": file_paths,
                }
            )
            response = await self._backend().query(request)
        return compact_response(response)

    async def workspace_status(self) -> dict[str, Any]:
        """Describe the workspace index: its state ("empty", "ready" or "indexing"), root folder,
        generation, files and chunks by kind and language, knowledge-graph size, embedding model,
        when it was last indexed, how many files were skipped, and the current or last index run.
        Call it first to know whether search_workspace can answer or index_workspace is needed."""
        with self._reported():
            status = await self._backend().status()
        return compact_status(status)

    async def explore_entity(self, name: str, depth: int = 1) -> dict[str, Any]:
        """Show a code or doc entity's neighbourhood in the knowledge graph: what it calls, what
        calls it, what it imports or extends, and which docs mention it.

        Returns the matched node ids, the nodes reached (kind, qualified name, `location` as
        `path:start-end`, `hop` count from the entity) and the edges among them, written
        "source -relation-> target". A few neighbours are shown per relation; `held_back` counts
        the rest ("+116 more callers of X"); file/class membership (contains, defined_in) is
        counted in `structure_hidden`, not listed. Open a location to read the code.

        Args:
            name: a class, function, method, file or section name, e.g. "Cart", "Cart.add_item",
                "compute_total" or "shop/pricing.py".
            depth: how many hops to follow, 0 to 3 (default 1).
        """
        with self._reported():
            graph = await self._backend().graph(name, depth)
        return compact_graph(graph)

    async def index_workspace(self, path: str = "") -> dict[str, Any]:
        """Bring the search index up to date with the files on disk (incremental: only changed
        files are re-read), for the whole workspace or one folder.

        If an index run is already going on, this joins it instead of starting another. Waits up
        to a minute for the run: the answer is its report (files and chunks indexed, skipped
        files) or, for a long run, status "running" with its progress; call index_workspace again
        to keep waiting, or workspace_status to watch it.

        Args:
            path: a folder relative to the workspace root; "" (default) is the whole workspace.
        """
        with self._reported():
            run = await self._backend().index(path)
        return compact_job(run)


# --------------------------------------------------------------------------- compact answers


def compact_response(resp: QueryResponse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "query": resp.query,
        "mode": resp.mode,
        "generation": resp.generation,
        "results": [compact_result(r) for r in resp.results],
    }
    optional = {"intent": resp.intent, "fallback": resp.fallback, "query_entities": resp.query_entities}
    out.update({key: value for key, value in optional.items() if value})
    if resp.coverage is not None:  # None: no vector leg answered (bm25, graph that found its entities)
        out["coverage"] = resp.coverage
    if resp.coverage is not None and resp.coverage < 1:
        out["note"] = f"only {resp.coverage:.0%} of the chunks are embedded yet: vector legs see part of the workspace"
    return out


def compact_result(r: QueryResult) -> dict[str, Any]:
    out: dict[str, Any] = {"location": render.location(r), "kind": f"{r.source_type}/{r.language}"}
    anchor = render.anchor(r)
    if anchor:
        out["symbol" if r.symbol_name else "section"] = anchor
    out["score"] = round(r.score, 4)
    why: dict[str, Any] = {"legs": render.legs(r)}
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
    out["skipped_files"] = len(status["skipped"])
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
            out["report"]["skipped_files"] = [f"{s['path']}: {s['reason']}" for s in skipped[:MAX_SKIPPED_SHOWN]]
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
        "edges": [
            f"{e['source']} -{e['relation']}-> {e['target']}"
            for e in graph["edges"]
            if e["source"] in kept and e["target"] in kept
        ],
    }
    if len(graph["nodes"]) > len(nodes):
        out["note"] = f"showing the nearest {len(nodes)} of {len(graph['nodes'])} nodes; lower depth to see fewer"
    held = [f"{g['label']} of {g['parent']}" for g in graph.get("groups", []) if g.get("more")]
    if held:
        out["held_back"] = held  # the engine shows a few neighbours per relation: "+116 more callers of X"
    if graph.get("hidden_relations"):
        out["structure_hidden"] = graph["hidden_relations"]  # contains/defined_in edges, counted not listed
    if not graph["matches"]:
        out["note"] = "no entity by that name: try a qualified name (Class.method), or search_workspace to find it"
    return out


def _node(node: dict[str, Any]) -> dict[str, Any]:
    out = {"id": node["id"], "kind": node.get("kind"), "name": node.get("qualname") or node.get("name")}
    source = node.get("source")
    if source:
        out["location"] = f"{source}:{node['start_line']}-{node['end_line']}" if node.get("start_line") else source
    out["hop"] = node["hop"]
    return out
