"""The engine's data model, request validation and typed errors.

Every front door (Python, CLI, REST, magics) builds a :class:`QueryRequest` through
:meth:`QueryRequest.build`, which is the one place a request is validated, and maps the
:class:`BrainError` subclasses below to its own error shape.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import InitVar, asdict, dataclass, field, fields
from typing import Any, Literal

from . import labels
from .globs import GlobError, compile_glob
from .labels import Leg

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

# Limits every front door shares (README "REST" documents them).
MAX_LIST_ITEMS = 32  # source_types, languages
MAX_NAME_CHARS = 256  # a language, a source type, an entity name
MAX_GLOBS = 32
MAX_GLOB_CHARS = 256
MAX_INDEX_GLOB_STARS = 3  # include/exclude go to pathspec's regexes, polynomial in the number of stars
MAX_REQUEST_PATHS = 256
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255  # one file or folder name, as the file system allows
MAX_GRAPH_DEPTH = 3
MAX_PER_RELATION = 1000


def index_scope(paths: Sequence[str]) -> list[str] | str:
    """What one run over ``paths`` (changed files the watcher or saves collected) indexes: more than a
    request may name — a branch switch, a pull — is one incremental run of the whole workspace (``""``),
    which costs what changed plus a walk of the tree."""
    return list(paths) if len(paths) <= MAX_REQUEST_PATHS else ""


# Only ASCII digits are numbers: str.isdigit() and int() also take "²", "٣" and "1_0".
_ASCII_INT = re.compile(r"\s*[+-]?[0-9]{1,18}\s*", re.ASCII)
_ASCII_FLOAT = re.compile(
    r"\s*[+-]?(?:[0-9]{1,30}(?:\.[0-9]{0,30})?|\.[0-9]{1,30})(?:[eE][+-]?[0-9]{1,3})?\s*", re.ASCII
)
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True)
class QueryRequest:
    query: str
    mode: str = "multi"
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
    def build(cls, data: Mapping[str, Any]) -> QueryRequest:
        """Validate raw input (JSON body, CLI flags, keyword arguments) into a request.

        ``None`` values mean "use the default". Unknown fields are an error, never ignored.
        """
        given = _given(data, cls.field_names())
        query = _text(given, "query", MAX_QUERY_CHARS, required=True).strip()
        if not query:
            raise InvalidRequest("query", "must be a non-blank string")
        mode = given.get("mode", cls.mode)
        if not isinstance(mode, str) or mode not in MODES:
            raise InvalidRequest("mode", f"must be one of {', '.join(MODES)}")
        return cls(
            query=query,
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


@dataclass(frozen=True)
class IndexRequest:
    """What to (re)index: ``paths`` relative to the root (empty: everything) and per-run settings."""

    paths: tuple[str, ...] = ()  # empty: the whole workspace
    force: bool = False
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    chunk_size: int | None = None
    chunk_overlap: int | None = None

    FIELDS = ("path", "paths", "force", "include", "exclude", "chunk_size", "chunk_overlap")

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> IndexRequest:
        """Validate raw input; ``path`` (one path, or a list) and ``paths`` add up."""
        given = _given(data, cls.FIELDS)
        paths = _paths(given, "path") + _paths(given, "paths")
        if any(not p.strip() for p in paths):  # "" is the root: the whole workspace
            paths = []
        force = given.get("force", False)
        if not isinstance(force, bool):
            raise InvalidRequest("force", "must be true or false")
        chunk_size = _int_in(given, "chunk_size", None, 100, 100_000)
        overlap_high = (chunk_size or 100_000) - 1
        return cls(
            paths=tuple(dict.fromkeys(paths)),
            force=force,
            include=_globs(given, "include", stars=MAX_INDEX_GLOB_STARS) or None,
            exclude=_globs(given, "exclude", stars=MAX_INDEX_GLOB_STARS) or None,
            chunk_size=chunk_size,
            chunk_overlap=_int_in(given, "chunk_overlap", None, 0, overlap_high),
        )

    def settings(self) -> dict[str, Any]:
        """The BrainConfig overrides this run asks for (None: keep the configured value)."""
        names = ("include", "exclude", "chunk_size", "chunk_overlap")
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}


@dataclass(frozen=True)
class GraphRequest:
    """An entity's neighbourhood: a name (or node id), the hops to follow, at most ``per_relation``
    neighbours shown per relation of a node (0: every one; the rest are grouped, see
    ``engine/explore.py``), and whether ``contains``/``defined_in`` structure is followed."""

    name: str
    depth: int = 1
    per_relation: int = 8  # explore.PER_RELATION
    all_relations: bool = False

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> GraphRequest:
        given = _given(data, ("name", "depth", "per_relation", "all_relations"))
        name = _text(given, "name", MAX_NAME_CHARS, required=True).strip()
        if not name:
            raise InvalidRequest("name", "must be a non-blank entity name")
        return cls(
            name=name,
            depth=_int_in(given, "depth", cls.depth, 0, MAX_GRAPH_DEPTH),
            per_relation=_int_in(given, "per_relation", cls.per_relation, 0, MAX_PER_RELATION),
            all_relations=_flag(given, "all_relations", cls.all_relations),
        )


def _flag(data: dict, name: str, default: bool) -> bool:
    """true or false: a JSON boolean, or (from a query string or a command line) the words
    true/false, 1/0; absent: ``default``."""
    if name not in data:
        return default
    value = data[name]
    if isinstance(value, str) and value.strip().lower() in _FLAG_WORDS:
        return _FLAG_WORDS[value.strip().lower()]
    if not isinstance(value, bool):
        raise InvalidRequest(name, "must be true or false")
    return value


_FLAG_WORDS = {"true": True, "1": True, "false": False, "0": False}


@dataclass(frozen=True)
class ResetRequest:
    """What ``reset`` deletes: the index, and the embedding cache only when ``drop_cache``."""

    drop_cache: bool = False

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> ResetRequest:
        given = _given(data, ("drop_cache",))
        drop_cache = given.get("drop_cache", False)
        if not isinstance(drop_cache, bool):
            raise InvalidRequest("drop_cache", "must be true or false")
        return cls(drop_cache=drop_cache)


DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
_DASK_ADDRESS = re.compile(
    r"(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))(?::(?P<port>[0-9]{1,5}))?",
    re.ASCII,
)


def dask_address(value: Any, name: str = "dask_scheduler") -> str:
    """A Dask scheduler address (``tcp://host:8786``, ``tls://[::1]:8786``, ``host:8786``) checked at
    once; "" means none (embed locally). Anything else is ``InvalidRequest(name)``."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidRequest(name, "must be a string such as tcp://host:8786")
    address = _check_text(name, value, MAX_NAME_CHARS).strip()
    if not address:
        return ""
    match = _DASK_ADDRESS.fullmatch(address)
    scheme = match and match.group("scheme")
    port = match and match.group("port")
    if not match or (scheme and scheme not in DASK_SCHEMES) or (port is not None and not 0 < int(port) < 65536):
        schemes = ", ".join(DASK_SCHEMES)
        raise InvalidRequest(
            name, f"{_safe(address[:80])!r} is not a Dask scheduler address (e.g. tcp://host:8786; schemes: {schemes})"
        )
    if port is None:
        raise InvalidRequest(name, f"{_safe(address[:80])!r} lacks a port (e.g. tcp://host:8786)")
    return address


def _given(data: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The fields that were given (None: use the default); an unknown field is an error."""
    if not isinstance(data, Mapping):
        raise InvalidRequest("body", "expected a JSON object")
    for key in data:
        if key not in names:
            shown = key[:100] if isinstance(key, str) else repr(key)[:100]
            raise InvalidRequest(_safe(shown), "unknown field")
    return {k: v for k, v in data.items() if v is not None}


def _safe(text: str) -> str:
    """Text that can be shown and encoded whatever it held (lone surrogates, NUL)."""
    return _BAD_TEXT.sub("\ufffd", text)


def _check_text(name: str, value: str, limit: int) -> str:
    if len(value) > limit:
        raise InvalidRequest(name, f"must be at most {limit} characters")
    if _BAD_TEXT.search(value):
        raise InvalidRequest(name, "must not contain NUL or unpaired surrogate characters")
    return value


def _text(data: dict, name: str, limit: int, *, required: bool = False) -> str:
    if name not in data:
        if required:
            raise InvalidRequest(name, "is required")
        return ""
    value = data[name]
    if not isinstance(value, str):
        raise InvalidRequest(name, "must be a string")
    return _check_text(name, value, limit)


def _int_in(data: dict, name: str, default: Any, low: int, high: int) -> Any:
    """An integer in [low, high]: an int, or a string of ASCII digits; absent: ``default``."""
    if name not in data:
        return default
    value = data[name]
    if isinstance(value, str) and _ASCII_INT.fullmatch(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(name, "must be an integer (ASCII digits)")
    if not low <= value <= high:
        raise InvalidRequest(name, f"must be between {low} and {high}")
    return value


def _float_in(data: dict, name: str, default: float, low: float, high: float) -> float:
    value = data.get(name, default)
    if isinstance(value, str) and _ASCII_FLOAT.fullmatch(value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRequest(name, "must be a number (ASCII digits)")
    value = float(value)
    if not low <= value <= high:  # also rejects NaN
        raise InvalidRequest(name, f"must be between {low:g} and {high:g}")
    return value


def _string_list(data: dict, name: str, split: str | None, count: int, limit: int) -> list[str]:
    """A list of strings (a string is split on ``split``, or is one item), each checked."""
    value = data.get(name, ())
    if isinstance(value, str):
        value = value.split(split) if split else [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidRequest(name, "must be a list of strings")
    if len(value) > count:
        raise InvalidRequest(name, f"must hold at most {count} items")
    return [_check_text(name, v, limit) for v in value]


def _strings(data: dict, name: str) -> tuple[str, ...]:
    values = _string_list(data, name, ",", MAX_LIST_ITEMS, MAX_NAME_CHARS)
    return tuple(dict.fromkeys(v.strip().lower() for v in values if v.strip()))


def _choices(data: dict, name: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = _strings(data, name)
    for v in values:
        if v not in allowed:
            raise InvalidRequest(name, f"unknown value {v!r}; expected any of {', '.join(allowed)}")
    return values


def _paths(data: dict, name: str) -> list[str]:
    paths = _string_list(data, name, None, MAX_REQUEST_PATHS, MAX_PATH_CHARS)
    for path in paths:
        if any(len(part.encode()) > MAX_NAME_BYTES for part in path.replace("\\", "/").split("/")):
            raise InvalidRequest(name, f"a file or folder name is at most {MAX_NAME_BYTES} bytes")
    return paths


def _globs(data: dict, name: str, stars: int | None = None) -> tuple[str, ...]:
    """Root-relative globs, parsed now so a malformed one is a 400, never a failure later."""
    globs = []
    for glob in (v.strip() for v in _string_list(data, name, None, MAX_GLOBS, MAX_GLOB_CHARS)):
        if not glob:
            continue
        if glob.startswith("/") or ".." in glob.replace("\\", "/").split("/"):
            raise InvalidRequest(name, f"{glob!r} must be relative to the workspace root")
        glob = glob.replace("\\", "/").removeprefix("./")
        try:
            compile_glob(glob)
        except GlobError as err:
            raise InvalidRequest(name, f"{glob!r}: {err}") from None
        if stars is not None and sum(seg.count("*") for seg in glob.split("/") if seg != "**") > stars:
            raise InvalidRequest(name, f"{glob!r}: at most {stars} '*' wildcards besides whole '**' folders")
        globs.append(glob)
    return tuple(globs)


# --------------------------------------------------------------------------- results


@dataclass(kw_only=True)
class QueryResult(Chunk):
    """A chunk as one search ranked it: the chunk's own fields, plus its scores and what to mark.

    ``highlights`` are ``[start, end)`` code-point ranges of ``text`` that match the query's keyword
    tokens (engine/highlight.py). What a person reads about the result (``location``, ``anchor``,
    ``focus_line``, ``legs``) is worked out here from those fields (engine/labels.py), so that every
    front door shows the engine's strings instead of building its own; ``mode`` (the search's) says
    which legs its scores belong to.
    """

    score: float
    vector_score: float | None = None
    bm25_score: float | None = None
    graph_score: float | None = None
    ranks: dict[str, int] = field(default_factory=dict)
    related_entities: list[str] = field(default_factory=list)
    relationship_path: list[str] = field(default_factory=list)
    highlights: list[list[int]] = field(default_factory=list)
    mode: InitVar[str | None] = None
    location: str = field(init=False, default="")  # "path:7", "path:7-9", "nb.ipynb:1-4 [cell 9]" (cells from 1)
    anchor: str | None = field(init=False, default=None)  # "method Cart.total" (kind, qualified name) or the section
    focus_line: int = field(init=False, default=0)  # the line that matters: the first marked one (a relation's line)
    legs: list[Leg] = field(init=False, default_factory=list)  # each leg that scored or ranked it, with its label

    def __post_init__(self, mode: str | None) -> None:
        super().__post_init__()
        self.location = labels.location(self.source, self.start_line, self.end_line, self.cell_index)
        self.anchor = labels.anchor(self.qualified_symbol, self.symbol_type, self.section_path)
        self.focus_line = labels.focus_line(self.text, self.start_line, self.end_line, self.highlights)
        self.legs = labels.legs(mode, self.vector_score, self.bm25_score, self.graph_score, self.ranks)

    @classmethod
    def of(
        cls, chunk: Chunk, hit: Any, highlights: list[list[int]] | None = None, mode: str | None = None
    ) -> QueryResult:
        """``chunk`` with the scores of ``hit`` (a retrieval ``Hit`` of a ``mode`` search) and the ranges to mark."""
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
            mode=mode,
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
    # Share of the generation's chunks that are embedded (what the vector leg saw); None when no vector
    # leg answered (bm25, graph that found its entities): then the field is left out of the dict.
    coverage: float | None = 1.0
    fusion_note: str | None = field(init=False, default=None)  # multi's intent and weights in words ("Read as: …")
    coverage_note: str | None = field(init=False, default=None)  # "semantic search: 43% of the workspace" below 1

    def __post_init__(self) -> None:
        self.fusion_note = labels.fusion_note(self.intent, self.weights)
        self.coverage_note = labels.coverage_note(self.coverage)

    def to_dict(self) -> dict[str, Any]:
        data = {
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
            "fusion_note": self.fusion_note,
            "coverage_note": self.coverage_note,
        }
        return data if self.coverage is None else {**data, "coverage": self.coverage}


# --------------------------------------------------------------------------- indexing


@dataclass
class SkippedFile:
    path: str
    reason: str


MAX_SKIPPED_LISTED = 50  # skipped paths ``status`` lists (all of them counted by reason); the rest on request


def skip_kind(reason: str) -> str:
    """What a skip reason counts under: the reason without its particulars in parentheses
    ("larger than 1.0 MB limit (3.2 MB)" -> "larger than 1.0 MB limit")."""
    return reason.split(" (", 1)[0]


@dataclass(frozen=True)
class StatusRequest:
    """What ``status`` lists of the skipped files: the first ``MAX_SKIPPED_LISTED`` (default) or all.

    ``skipped`` is "first" or "all" (REST ``?skipped=all``); ``all_skipped`` (true/false, the
    Python keyword and the CLI's ``--all-skipped``) is the same choice."""

    all_skipped: bool = False

    FIELDS = ("skipped", "all_skipped")

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> StatusRequest:
        given = _given(data, cls.FIELDS)
        listing = given.get("skipped", "first")
        if listing not in ("first", "all"):
            raise InvalidRequest("skipped", "must be 'first' or 'all'")
        all_skipped = given.get("all_skipped", False)
        if not isinstance(all_skipped, bool):
            raise InvalidRequest("all_skipped", "must be true or false")
        return cls(all_skipped=all_skipped or listing == "all")

    def listed(self, skipped: Sequence[Mapping[str, str]]) -> dict[str, Any]:
        """The status fields of ``skipped`` (every skip of the index): the listed ones, the total and
        the count by :func:`skip_kind`, largest first."""
        counts: dict[str, int] = {}
        for s in skipped:
            kind = skip_kind(s["reason"])
            counts[kind] = counts.get(kind, 0) + 1
        shown = skipped if self.all_skipped else skipped[:MAX_SKIPPED_LISTED]
        return {
            "skipped": [dict(s) for s in shown],
            "skipped_total": len(skipped),
            "skipped_by_reason": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        }


JobStatus = Literal["pending", "running", "done", "failed", "cancelled"]
Phase = Literal["pending", "scanning", "indexing", "embedding", "writing", "done"]


@dataclass
class IndexProgress:
    phase: Phase
    files_done: int = 0
    files_total: int = 0
    chunks: int = 0
    current_file: str | None = None
    embedded: int = 0  # "embedding": how many of ``chunks`` have a vector

    @property
    def percent(self) -> float:
        if self.phase == "embedding" and self.chunks:
            return 100.0 * self.embedded / self.chunks
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
    # what went wrong after the run published (a full disk during clean-up, while embedding the rest):
    # the generation reported was published and answers; each warning says what to do
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --------------------------------------------------------------------------- index state


class IndexProblem(BrainError):
    """The index on disk cannot be used as it is: ``problem`` says what is wrong, ``fix`` what repairs
    it; ``state`` is what ``status()`` reports. Only :class:`IndexCorrupt` means damage: a full disk, a
    read-only medium, a folder this user may not read or an I/O error leave the index as it was."""

    code = "index_problem"
    state = "corrupt"

    def __init__(self, problem: str, fix: str):
        super().__init__(f"{problem} — fix: {self.fix_text(fix)}")
        self.problem = problem
        self.fix = fix

    @staticmethod
    def fix_text(fix: str) -> str:
        return fix

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "problem": self.problem, "fix": self.fix}


class IndexCorrupt(IndexProblem):
    """Real damage: ``fix`` is the command that repairs it."""

    code = "index_corrupt"
    state = "corrupt"

    @staticmethod
    def fix_text(fix: str) -> str:
        return f"`{fix}`"


class DiskFull(IndexProblem):
    """The file system holding the index has no room (SQLITE_FULL, ENOSPC, EDQUOT): nothing is damaged,
    the last generation keeps answering; freeing space and indexing again repairs it."""

    code = "disk_full"
    state = "disk_full"


class IndexReadOnly(IndexProblem):
    """The index cannot be written (a read-only mount, no write permission): queries answer from it,
    indexing needs write access."""

    code = "read_only"
    state = "read_only"


class IndexNoAccess(IndexProblem):
    """This user may not read the index (it is private to the user who wrote it)."""

    code = "no_access"
    state = "no_access"


class StorageIOError(IndexProblem):
    """The disk returned I/O errors (SQLITE_IOERR, EIO): not a problem of the index's contents."""

    code = "io_error"
    state = "io_error"


# Every state ``Brain.status()`` can report, with what it means to a user or an agent (the MCP status
# tool lists them): a state missing here fails ``IndexStatus.to_dict``.
INDEX_STATES = {
    "empty": "nothing indexed yet: index the workspace first",
    "ready": "searchable",
    "indexing": "an index run is writing; searches answer from the last published generation",
    "corrupt": "the index is damaged: `problem` says what is wrong, `fix` is the command that repairs it",
    "disk_full": "the disk holding the index is full: searches answer from the last generation; free space, then index",
    "read_only": "the index cannot be written here (read-only medium or no write permission): searches answer",
    "no_access": "this user may not read the index (it is private to the user who wrote it)",
    "io_error": "the disk returned I/O errors reading the index: `problem` and `fix` say more",
}


@dataclass
class IndexStatus:
    """What ``Brain.status()`` reports. ``state`` is one of ``INDEX_STATES`` (see :class:`IndexProblem`);
    in every state but ready, indexing and empty, ``problem`` says what is wrong and ``fix`` what repairs
    it. ``writable``: whether this process can write the index (a read-only index still answers
    queries). ``skipped`` lists the first ``MAX_SKIPPED_LISTED`` skipped files (all of them when asked:
    :class:`StatusRequest`); ``skipped_total`` and ``skipped_by_reason`` count every one."""

    state: str
    root: str
    generation: int
    files: dict[str, Any]
    chunks: dict[str, Any]
    skipped: list[dict[str, str]]
    graph: dict[str, Any]
    model: dict[str, Any]
    index_bytes: int
    last_indexed: str | None
    format_version: int
    index_id: str | None = None
    problem: str | None = None
    fix: str | None = None
    coverage: float = 1.0  # share of the chunks that are embedded (below 1 while a large run embeds)
    skipped_total: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    writable: bool = True

    def to_dict(self) -> dict[str, Any]:
        if self.state not in INDEX_STATES:
            raise ValueError(f"index state {self.state!r} is not described in INDEX_STATES")
        return asdict(self)


@dataclass
class GraphNeighbourhood:
    """What ``Brain.graph_entity()`` returns: the entities matching ``query`` and their neighbourhood
    up to the asked depth, grouped by relation and capped (``engine/explore.py``): the nodes shown
    (each with its ``hop``, the matches at 0, and its ``location`` label), the edges among them, the
    chunks behind them (results with their labels), one group per relation of each node walked
    (``total``, the ids ``shown``, the rest in ``more`` with ``more_edges``, a ``label`` such as
    "+42 more callers"), the structural edges left out by relation, and the options used."""

    query: str
    matches: list[str]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    chunks: list[dict[str, Any]]
    groups: list[dict[str, Any]] = field(default_factory=list)
    hidden_relations: dict[str, int] = field(default_factory=dict)
    per_relation: int = 8
    all_relations: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
