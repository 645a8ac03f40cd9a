"""The engine's data model, request validation and typed errors.

Every front door (Python, CLI, REST, magics) builds a :class:`QueryRequest` through
:meth:`QueryRequest.build`, which is the one place a request is validated, and maps the
:class:`BrainError` subclasses below to its own error shape.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

SOURCE_TYPES = ("doc", "code", "test", "notebook")
MODES = ("vector", "bm25", "hybrid", "graph", "multi")
MAX_QUERY_CHARS = 1000
MAX_TOP_K = 100


# --------------------------------------------------------------------------- errors


class BrainError(Exception):
    """Base of every error the engine raises on purpose; ``str(err)`` is user-facing."""

    code = "error"

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": str(self)}


class InvalidRequest(BrainError, ValueError):
    code = "invalid_request"

    def __init__(self, field_name: str, message: str):
        super().__init__(f"{field_name}: {message}")
        self.field = field_name

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "field": self.field}


class NotIndexed(BrainError):
    code = "not_indexed"


class WorkspaceBusy(BrainError):
    code = "workspace_busy"


class ModelMismatch(BrainError):
    code = "model_mismatch"


class ModelUnavailable(BrainError):
    code = "model_unavailable"


class IndexCancelled(BrainError):
    code = "cancelled"


# --------------------------------------------------------------------------- chunks


@dataclass
class Chunk:
    """One retrievable passage. Lines are 1-based and inclusive."""

    source: str
    source_type: str
    language: str
    start_line: int
    end_line: int
    text: str
    symbol_name: str | None = None
    symbol_type: str | None = None
    parent_symbol: str | None = None
    section_path: str | None = None
    cell_index: int | None = None
    chunk_id: str = ""

    def __post_init__(self) -> None:
        if not self.chunk_id:
            self.chunk_id = self.stable_id()

    @property
    def qualified_symbol(self) -> str | None:
        if self.symbol_name and self.parent_symbol:
            return f"{self.parent_symbol}.{self.symbol_name}"
        return self.symbol_name

    def stable_id(self) -> str:
        """Same file, same place in its structure, same text: same id, wherever the lines moved."""
        anchor = self.qualified_symbol or self.section_path or ""
        cell = "" if self.cell_index is None else str(self.cell_index)
        key = "\x1f".join((self.source, anchor, cell, self.text))
        return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=10).hexdigest()

    def header(self) -> str:
        """The short contextual header embedded and keyword-indexed with the text."""
        where = self.qualified_symbol or self.section_path
        if self.cell_index is not None:
            where = f"cell {self.cell_index}" + (f" {where}" if where else "")
        return f"{self.source}: {where}" if where else self.source

    def indexed_text(self) -> str:
        return f"{self.header()}\n{self.text}"


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class QueryRequest:
    query: str
    mode: str = "hybrid"
    top_k: int = 5
    similarity_threshold: float = 0.0
    alpha: float = 0.6  # measured: 0.6-0.7 best on docstring->code search, 0.5 close behind
    rrf_k: int = 60
    traversal_depth: int = 2
    source_types: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    file_paths: tuple[str, ...] = ()

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def build(cls, data: dict[str, Any]) -> QueryRequest:
        """Validate raw input (JSON body, CLI flags, keyword arguments) into a request.

        ``None`` values mean "use the default". Unknown fields are an error, never ignored.
        """
        if not isinstance(data, dict):
            raise InvalidRequest("body", "expected a JSON object")
        unknown = sorted(set(data) - set(cls.field_names()))
        if unknown:
            raise InvalidRequest(unknown[0], "unknown field")
        given = {k: v for k, v in data.items() if v is not None}
        if "query" not in given:
            raise InvalidRequest("query", "is required")
        query = given["query"]
        if not isinstance(query, str) or not query.strip():
            raise InvalidRequest("query", "must be a non-blank string")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidRequest("query", f"must be at most {MAX_QUERY_CHARS} characters")
        mode = given.get("mode", cls.mode)
        if mode not in MODES:
            raise InvalidRequest("mode", f"must be one of {', '.join(MODES)}")
        return cls(
            query=query.strip(),
            mode=mode,
            top_k=_int_in(given, "top_k", cls.top_k, 1, MAX_TOP_K),
            similarity_threshold=_float_in(given, "similarity_threshold", cls.similarity_threshold, -1.0, 1.0),
            alpha=_float_in(given, "alpha", cls.alpha, 0.0, 1.0),
            rrf_k=_int_in(given, "rrf_k", cls.rrf_k, 1, 10_000),
            traversal_depth=_int_in(given, "traversal_depth", cls.traversal_depth, 0, 5),
            source_types=_choices(given, "source_types", SOURCE_TYPES),
            languages=_strings(given, "languages"),
            file_paths=_globs(given, "file_paths"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def _int_in(data: dict, name: str, default: int, low: int, high: int) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        else:
            raise InvalidRequest(name, "must be an integer")
    if not low <= value <= high:
        raise InvalidRequest(name, f"must be between {low} and {high}")
    return value


def _float_in(data: dict, name: str, default: float, low: float, high: float) -> float:
    value = data.get(name, default)
    if isinstance(value, bool):
        raise InvalidRequest(name, "must be a number")
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InvalidRequest(name, "must be a number") from None
    if not low <= value <= high:  # also rejects NaN
        raise InvalidRequest(name, f"must be between {low:g} and {high:g}")
    return value


def _strings(data: dict, name: str) -> tuple[str, ...]:
    value = data.get(name, ())
    if isinstance(value, str):
        value = [v for v in value.split(",")]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidRequest(name, "must be a list of strings")
    return tuple(dict.fromkeys(v.strip().lower() for v in value if v.strip()))


def _choices(data: dict, name: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = _strings(data, name)
    for v in values:
        if v not in allowed:
            raise InvalidRequest(name, f"unknown value {v!r}; expected any of {', '.join(allowed)}")
    return values


def _globs(data: dict, name: str) -> tuple[str, ...]:
    value = data.get(name, ())
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidRequest(name, "must be a list of glob strings")
    globs = []
    for glob in (v.strip() for v in value):
        if not glob:
            continue
        if glob.startswith("/") or ".." in glob.replace("\\", "/").split("/"):
            raise InvalidRequest(name, f"{glob!r} must be relative to the workspace root")
        globs.append(glob.replace("\\", "/").removeprefix("./"))
    return tuple(globs)


# --------------------------------------------------------------------------- results


@dataclass(kw_only=True)
class QueryResult(Chunk):
    """A chunk as one search ranked it: the chunk's own fields, plus its scores and what to mark.

    ``highlights`` are ``[start, end)`` code-point ranges of ``text`` that match the query's keyword
    tokens (engine/highlight.py); ``to_dict`` adds the chunk's ``qualified_symbol``, so that every
    front door shows the engine's answer instead of working it out again.
    """

    score: float
    vector_score: float | None = None
    bm25_score: float | None = None
    graph_score: float | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    related_entities: list[str] = field(default_factory=list)
    relationship_path: list[str] = field(default_factory=list)
    highlights: list[list[int]] = field(default_factory=list)

    @classmethod
    def of(cls, chunk: Chunk, hit: Any, highlights: list[list[int]] | None = None) -> QueryResult:
        """``chunk`` with the scores of ``hit`` (a retrieval ``Hit``) and the ranges to mark."""
        return cls(
            **{f.name: getattr(chunk, f.name) for f in fields(Chunk)},
            score=round(hit.score, 6),
            vector_score=hit.vector_score,
            bm25_score=hit.bm25_score,
            graph_score=hit.graph_score,
            ranks=hit.ranks,
            related_entities=hit.related_entities,
            relationship_path=hit.relationship_path,
            highlights=highlights or [],
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "qualified_symbol": self.qualified_symbol}


@dataclass
class QueryResponse:
    query: str
    mode: str
    results: list[QueryResult]
    total_results: int  # len(results): how many were returned (no count of matches past top_k)
    query_time_ms: float
    query_entities: list[str] = field(default_factory=list)
    fallback: str | None = None  # e.g. "vector: no known entity in the query"
    generation: int = 0
    intent: str | None = None  # multi: the kind of question the query analysis saw
    weights: dict[str, float] = field(default_factory=dict)  # multi: each leg's weight in the fusion
    coverage: float = 1.0  # share of the generation's chunks that are embedded (what vector legs can see)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "results": [r.to_dict() for r in self.results],
            "total_results": self.total_results,
            "query_time_ms": self.query_time_ms,
            "query_entities": self.query_entities,
            "fallback": self.fallback,
            "generation": self.generation,
            "intent": self.intent,
            "weights": self.weights,
            "coverage": self.coverage,
        }


# --------------------------------------------------------------------------- indexing


@dataclass
class SkippedFile:
    path: str
    reason: str


@dataclass
class IndexProgress:
    phase: str  # scanning | chunking | embedding | writing | done
    files_done: int = 0
    files_total: int = 0
    chunks: int = 0
    current_file: str | None = None

    @property
    def percent(self) -> float:
        return 100.0 * self.files_done / self.files_total if self.files_total else 0.0


ProgressCallback = Callable[[IndexProgress], None]


@dataclass
class IndexReport:
    generation: int
    files_total: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_deleted: int = 0
    chunks_total: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_embedded: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
