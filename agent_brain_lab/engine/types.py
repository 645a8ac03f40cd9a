"""The engine's data model, request validation and typed errors.

Every front door (Python, CLI, REST, magics) builds a :class:`QueryRequest` through
:meth:`QueryRequest.build`, which is the one place a request is validated, and maps the
:class:`BrainError` subclasses below to its own error shape.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import InitVar, asdict, dataclass, field, fields
from typing import Annotated, Any, ClassVar, Literal, TypedDict, get_type_hints

from . import labels, languages
from .described import OMITTED_WHEN_NONE, Doc, OneOf, Shape
from .globs import GlobError, compile_glob, regex_stars
from .labels import Leg

SOURCE_TYPES = ("doc", "code", "test", "notebook")
MODES = ("vector", "bm25", "hybrid", "graph", "multi")
MAX_QUERY_CHARS = 1000
MAX_TOP_K = 100


# --------------------------------------------------------------------------- the REST contract


@dataclass(frozen=True)
class Param:
    """One field a request validator takes: what it means and the JSON schema of what it accepts.
    ``low``/``high``: the range of a number, the validator's own bounds (``build`` reads them here)."""

    doc: str
    schema: dict[str, Any]
    low: Any = None
    high: Any = None


_INT_PATTERN = r"^\s*[+-]?[0-9]{1,18}\s*$"  # what _int_in can take in range, as JSON schema sees it


def _int_param(doc: str, low: int, high: int) -> Param:
    number = {"type": "integer", "minimum": low, "maximum": high}
    return Param(doc, {"oneOf": [number, {"type": "string", "pattern": _INT_PATTERN}]}, low, high)


def _number_param(doc: str, low: float, high: float) -> Param:
    return Param(doc, {"type": "number", "minimum": low, "maximum": high}, low, high)


def _flag_param(doc: str, words: bool = False) -> Param:
    """true/false; ``words``: also the strings true/false/1/0 (query strings)."""
    if not words:
        return Param(doc, {"type": "boolean"})
    return Param(doc, {"oneOf": [{"type": "boolean"}, {"type": "string", "enum": ["true", "false", "1", "0"]}]})


def _list_param(doc: str, items: dict[str, Any], count: int, split: str = "") -> Param:
    """A list of strings, or one string (``split``: comma-separated)."""
    one = {"type": "string", "description": "comma-separated"} if split else items
    return Param(doc, {"oneOf": [{"type": "array", "maxItems": count, "items": items}, one]})


def omitted_when_none(cls: type) -> frozenset[str]:
    """The fields of ``cls`` marked ``OMITTED_WHEN_NONE``: its ``to_dict`` leaves them out when None."""
    if cls not in _OMITTED:
        hints = get_type_hints(cls, include_extras=True)
        marked = (name for name, hint in hints.items() if OMITTED_WHEN_NONE in getattr(hint, "__metadata__", ()))
        _OMITTED[cls] = frozenset(marked)
    return _OMITTED[cls]


_OMITTED: dict[type, frozenset[str]] = {}


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
    """No generation is published yet. ``building``: a writer is making the first one (every door then
    says so, instead of asking for the index that is already running)."""

    code = "not_indexed"

    def __init__(self, *, building: bool = False):
        super().__init__(
            "this workspace has no index yet: the first index is being built (search answers when it publishes;"
            " a large workspace's keyword and graph search as soon as its files are analysed, its semantic"
            " search as they are embedded)"
            if building
            else "this workspace has no index yet: index it first"
        )
        self.building = building


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

    source: Annotated[str, Doc("the file, as a POSIX path relative to the workspace root")]
    source_type: Annotated[str, Doc("what kind of file the chunk comes from"), OneOf(SOURCE_TYPES)]
    language: Annotated[str, Doc("the file's language (python, markdown, ...)")]
    start_line: Annotated[int, Doc("the chunk's first line, 1-based (notebooks: within its cell)")]
    end_line: Annotated[int, Doc("the chunk's last line, 1-based and inclusive")]
    text: Annotated[str, Doc("the chunk's text")]
    symbol_name: Annotated[str | None, Doc("code: the function, class or method the chunk holds")] = None
    symbol_type: Annotated[str | None, Doc("code: what kind of symbol (function, class, method, ...)")] = None
    parent_symbol: Annotated[str | None, Doc("code: the class a method belongs to")] = None
    section_path: Annotated[str | None, Doc("docs: the chunk's headings, outermost first, joined by ' > '")] = None
    cell_index: Annotated[int | None, Doc("notebooks: the cell's index, 0-based")] = None
    chunk_id: Annotated[str, Doc("stable across re-index while the chunk's file, place and text stay")] = ""

    def __post_init__(self) -> None:
        if not self.chunk_id:
            self.chunk_id = self.stable_id()

    @property
    def qualified_symbol(self) -> str | None:
        """`parent.symbol`, or the symbol alone: how the engine names the chunk's symbol."""
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


_CHUNK_NAMES = tuple(f.name for f in fields(Chunk))  # read once: dataclasses.fields() per result costs
_CHUNK_VALUES = operator.attrgetter(*_CHUNK_NAMES)  # a chunk's fields in order, as one tuple (one C call)
CHUNK_TEXT = _CHUNK_NAMES.index("text")  # where the text is among a chunk's values (QueryResult.from_values)


# --------------------------------------------------------------------------- requests

# Limits every front door shares (README "REST" documents them).
MAX_LIST_ITEMS = 32  # source_types, languages
MAX_NAME_CHARS = 256  # a language, a source type, an entity name
MAX_GLOBS = 32
MAX_GLOB_CHARS = 256
MAX_INDEX_GLOB_STARS = 3  # include/exclude and .gitignore patterns go to pathspec's regexes: globs.regex_stars
MAX_REQUEST_PATHS = 256
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255  # one file or folder name, as the file system allows
MAX_GRAPH_DEPTH = 3
MAX_PER_RELATION = 1000


def index_scope(paths: Sequence[str]) -> list[str] | str:
    """What one run over ``paths`` (changed files the watcher or saves collected) indexes. More than a
    request may name (a branch switch, a pull, a folder of generated files) become the folders holding
    them, cut back one level at a time until they fit: a run over them costs what changed plus a walk
    of those folders, and a run that is embedding can take it as a request (engine/merges.py). Only
    when even the top-level entries do not fit is it the whole workspace (``""``)."""
    if len(paths) <= MAX_REQUEST_PATHS:
        return list(paths)
    scope, depth = set(paths), max(p.count("/") for p in paths)
    while len(scope) > MAX_REQUEST_PATHS:
        if depth == 0:
            return ""
        scope = _folders_of(scope, depth)
        depth -= 1
    return sorted(scope)


def _folders_of(paths: set[str], depth: int) -> set[str]:
    """``paths`` cut to their first ``depth`` parts, without those inside another one."""
    cut = {"/".join(p.split("/")[:depth]) for p in paths}
    return {p for p in cut if not any(folder in cut for folder in folders_above(p))}


def folders_above(path: str) -> Iterator[str]:
    """The folders a root-relative POSIX ``path`` lies in, outermost first ("a/b/c.py": "a", "a/b")."""
    return (path[:i] for i, c in enumerate(path) if c == "/")


# Only ASCII digits are numbers: str.isdigit() and int() also take "²", "٣" and "1_0".
_ASCII_INT = re.compile(r"\s*[+-]?[0-9]+\s*", re.ASCII)
_INT_DIGITS = 18  # more significant digits than this: out of every range, refused without int() on them
# Of any length, as a JSON number: float() reads one in linear time, to the nearest double (past the
# doubles, inf: out of range). Capping the digits would call "0.000…1" with 40 digits no number.
_ASCII_FLOAT = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*", re.ASCII)
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")
# The one text for NUL, a lone surrogate (a JSON "\\ud800"), bytes that are not UTF-8 (a query string's %E9,
# a command-line argument Python decoded with surrogateescape): the same error at every door.
NOT_TEXT = "must be valid UTF-8 text without NUL characters"
# The one text for a blank value of a list filter ("", " ", "python,"): every door says the same.
BLANK_FILTER = "a blank value names nothing: leave it out to apply no filter (an empty list is no filter too)"


_GLOB = {"type": "string", "maxLength": MAX_GLOB_CHARS}
_NAME = {"type": "string", "maxLength": MAX_NAME_CHARS}
_PATH = {"type": "string", "maxLength": MAX_PATH_CHARS}


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

    PARAMS: ClassVar[dict[str, Param]] = {
        "query": Param("what to search for", {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}),
        "mode": Param(
            "vector, bm25, hybrid (alpha blend), graph or multi (RRF over the other three)",
            {"type": "string", "enum": list(MODES)},
        ),
        "top_k": _int_param("results to return", 1, MAX_TOP_K),
        "similarity_threshold": _number_param("vector and hybrid: the lowest cosine similarity kept", -1.0, 1.0),
        "alpha": _number_param("hybrid: the weight of the vector score (1 - alpha: bm25)", 0.0, 1.0),
        "rrf_k": _int_param("the RRF constant of multi", 1, 10_000),
        "traversal_depth": _int_param("graph: hops from the query's entities", 0, 5),
        "source_types": _list_param(
            "only chunks of these source types", {"type": "string", "enum": list(SOURCE_TYPES)}, MAX_LIST_ITEMS, ","
        ),
        "languages": _list_param("only chunks in these languages", _NAME, MAX_LIST_ITEMS, ","),
        "file_paths": _list_param("only files matching one of these root-relative globs", _GLOB, MAX_GLOBS),
    }

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(cls.PARAMS)

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
        mode = mode.strip().lower() if isinstance(mode, str) else mode  # as languages and source types: BM25 is bm25
        if not isinstance(mode, str) or mode not in MODES:
            hint = _did_you_mean(mode, MODES) if isinstance(mode, str) else ""
            raise InvalidRequest("mode", f"must be one of {', '.join(MODES)}{hint}")
        number = functools.partial(_param_in, given, cls)
        return cls(
            query=query,
            mode=mode,
            top_k=number("top_k", _int_in),
            similarity_threshold=number("similarity_threshold", _float_in),
            alpha=number("alpha", _float_in),
            rrf_k=number("rrf_k", _int_in),
            traversal_depth=number("traversal_depth", _int_in),
            source_types=_choices(given, "source_types", SOURCE_TYPES),
            languages=tuple(dict.fromkeys(map(languages.canonical, _strings(given, "languages")))),
            file_paths=_globs(given, "file_paths"),
        )

    def check_languages(self, indexed: Iterable[str]) -> None:
        """InvalidRequest("languages") for a language no file is ever indexed as and no chunk of this
        index (``indexed``: its languages) carries: such a filter can only match nothing. Called by the
        engine where it knows the index; :meth:`build` already mapped aliases (``py``) to their names."""
        held = set(indexed)
        known = set(languages.KNOWN_LANGUAGES) | held
        for name in self.languages:
            if name not in known:
                raise InvalidRequest("languages", unknown_language(name, sorted(known), sorted(held)))

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

    PARAMS: ClassVar[dict[str, Param]] = {
        "path": Param(
            "what to index, relative to the root ('' is everything; REST: a folder), or a list of them",
            {"oneOf": [_PATH, {"type": "array", "maxItems": MAX_REQUEST_PATHS, "items": _PATH}]},
        ),
        "paths": Param("more of them (adds to path)", {"type": "array", "maxItems": MAX_REQUEST_PATHS, "items": _PATH}),
        "force": _flag_param("re-index every file, not only the changed ones (needed after a model change)"),
        "include": _list_param("only files matching one of these gitignore-style globs", _GLOB, MAX_GLOBS),
        "exclude": _list_param(
            "leave out files matching these globs (on top of the workspace rules)", _GLOB, MAX_GLOBS
        ),
        "chunk_size": _int_param("characters per chunk", 100, 100_000),
        "chunk_overlap": _int_param("characters of overlap between chunks, below chunk_size", 0, 99_999),
    }

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> IndexRequest:
        """Validate raw input; ``path`` (one path, or a list) and ``paths`` add up."""
        given = _given(data, tuple(cls.PARAMS))
        paths = _paths(given, "path") + _paths(given, "paths")
        if any(not p.strip() for p in paths):  # "" is the root: the whole workspace
            paths = []
        force = given.get("force", False)
        if not isinstance(force, bool):
            raise InvalidRequest("force", "must be true or false")
        chunk_size = _param_in(given, cls, "chunk_size", _int_in)
        overlap_high = (chunk_size or cls.PARAMS["chunk_size"].high) - 1
        return cls(
            paths=tuple(dict.fromkeys(paths)),
            force=force,
            include=_globs(given, "include", stars=MAX_INDEX_GLOB_STARS) or None,
            exclude=_globs(given, "exclude", stars=MAX_INDEX_GLOB_STARS) or None,
            chunk_size=chunk_size,
            chunk_overlap=_int_in(given, "chunk_overlap", None, cls.PARAMS["chunk_overlap"].low, overlap_high),
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

    PARAMS: ClassVar[dict[str, Param]] = {
        "name": Param("an entity name or node id", {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS}),
        "depth": _int_param("hops from the matches", 0, MAX_GRAPH_DEPTH),
        "per_relation": _int_param(
            "neighbours shown per relation of a node; 0: all (no grouping)", 0, MAX_PER_RELATION
        ),
        "all_relations": _flag_param("also follow contains/defined_in (true/false, 1/0)", words=True),
    }

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> GraphRequest:
        given = _given(data, tuple(cls.PARAMS))
        name = _text(given, "name", MAX_NAME_CHARS, required=True).strip()
        if not name:
            raise InvalidRequest("name", "must be a non-blank entity name")
        return cls(
            name=name,
            depth=_param_in(given, cls, "depth", _int_in),
            per_relation=_param_in(given, cls, "per_relation", _int_in),
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

    PARAMS: ClassVar[dict[str, Param]] = {
        "drop_cache": _flag_param("also delete the embedding cache (re-indexing then embeds every chunk again)"),
    }

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> ResetRequest:
        given = _given(data, tuple(cls.PARAMS))
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
        raise InvalidRequest(name, NOT_TEXT)
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
        if len(value.strip().lstrip("+-").lstrip("0")) > _INT_DIGITS:  # the error a JSON integer that size gets
            raise InvalidRequest(name, f"must be between {low} and {high}")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(name, "must be an integer (ASCII digits)")
    if not low <= value <= high:
        raise InvalidRequest(name, f"must be between {low} and {high}")
    return value


def _param_in(data: dict, cls: Any, name: str, reader: Callable[..., Any]) -> Any:
    """``reader`` (:func:`_int_in`, :func:`_float_in`) within the range ``cls.PARAMS`` declares for
    ``name``; absent: the class's default."""
    param = cls.PARAMS[name]
    return reader(data, name, getattr(cls, name, None), param.low, param.high)


def _float_in(data: dict, name: str, default: float, low: float, high: float) -> float:
    """A number in [low, high]: an int, a float, or ASCII decimal text of any length (read as a JSON
    number is: to the nearest double); absent: ``default``."""
    value = data.get(name, default)
    if isinstance(value, str) and _ASCII_FLOAT.fullmatch(value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRequest(name, "must be a number (ASCII digits)")
    if not low <= value <= high:  # NaN fails too; an int is compared as it is (float() of one past 1e308 raises)
        raise InvalidRequest(name, f"must be between {low:g} and {high:g}")
    return float(value)


def _string_list(data: dict, name: str, split: str | None, count: int, limit: int) -> list[str]:
    """A list of strings (a string is split on ``split``, or is one item), each checked."""
    value = data.get(name)
    if value is None:  # not given (most requests: nothing to check)
        return []
    if isinstance(value, str):
        value = value.split(split) if split else [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise InvalidRequest(name, "must be a list of strings")
    if len(value) > count:
        raise InvalidRequest(name, f"must hold at most {count} items")
    return [_check_text(name, v, limit) for v in value]


def _strings(data: dict, name: str) -> tuple[str, ...]:
    """Names, trimmed and lowercased. An empty list (or none) is no filter; a blank name is refused: a
    filter given as "" (an unset shell variable, a form field left empty) would otherwise widen the
    search to everything without a word."""
    values = _string_list(data, name, ",", MAX_LIST_ITEMS, MAX_NAME_CHARS)
    if any(not v.strip() for v in values):
        raise InvalidRequest(name, BLANK_FILTER)
    return tuple(dict.fromkeys(v.strip().lower() for v in values))


def _choices(data: dict, name: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Names from ``allowed``; a plural of one is that one (``docs``, ``tests``, ``notebooks``)."""
    values = tuple(dict.fromkeys(_singular(v, allowed) for v in _strings(data, name)))
    for v in values:
        if v not in allowed:
            raise InvalidRequest(
                name, f"unknown value {_safe(v)!r}{_did_you_mean(v, allowed)}; expected any of {', '.join(allowed)}"
            )
    return values


def _singular(value: str, allowed: tuple[str, ...]) -> str:
    """``value``, or the allowed name it is the plural of (``docs``: ``doc``)."""
    return value[:-1] if value not in allowed and value.endswith("s") and value[:-1] in allowed else value


def unknown_language(name: str, known: Sequence[str], held: Sequence[str]) -> str:
    """What a filter naming a language nothing is indexed as reads: the name, the nearest known one,
    every known one, and those this index holds."""
    there = f" (this index holds: {', '.join(held)})" if held else ""
    return f"unknown language {_safe(name)!r}{_did_you_mean(name, known)}; known languages: {', '.join(known)}{there}"


def _did_you_mean(value: str, allowed: Sequence[str]) -> str:
    close = difflib.get_close_matches(value, allowed, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


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
            raise InvalidRequest(name, BLANK_FILTER)
        posix = glob.replace("\\", "/")  # a Windows separator: checked as the glob that is matched
        if posix.startswith("/") or ".." in posix.split("/"):
            raise InvalidRequest(name, f"{glob!r} must be relative to the workspace root")
        glob = posix.removeprefix("./")
        try:
            compile_glob(glob)
        except GlobError as err:
            raise InvalidRequest(name, f"{glob!r}: {err}") from None
        if stars is not None and regex_stars(glob) > stars:
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

    score: Annotated[float, Doc("the score the mode ranked by (multi: the fused RRF score)")]
    vector_score: Annotated[float | None, Doc("cosine similarity to the query; null when no vector leg saw it")] = None
    bm25_score: Annotated[float | None, Doc("BM25 score; null when no keyword leg saw it")] = None
    graph_score: Annotated[float | None, Doc("graph score; null when no graph leg saw it")] = None
    ranks: Annotated[dict[str, int], Doc("its rank, 1-based, in each leg that found it (multi, hybrid)")] = field(
        default_factory=dict
    )
    related_entities: Annotated[list[str], Doc("graph: the query's entities this chunk is linked to")] = field(
        default_factory=list
    )
    relationship_path: Annotated[list[str], Doc("graph: the path of entities and relations that led here")] = field(
        default_factory=list
    )
    highlights: Annotated[
        list[list[int]], Doc("[start, end) code-point ranges of text that match the query's keyword tokens")
    ] = field(default_factory=list)
    mode: InitVar[str | None] = None
    location: Annotated[
        str, Doc("where it is, as people read it: 'path:7', 'path:7-9', 'nb.ipynb:1-4 [cell 9]' (cells from 1)")
    ] = field(init=False, default="")
    anchor: Annotated[
        str | None, Doc("the symbol as kind and qualified name ('method Cart.total') or the doc section")
    ] = field(init=False, default=None)
    focus_line: Annotated[
        int, Doc("the line that matters: the first marked one (a relation's line), else the first")
    ] = field(init=False, default=0)
    legs: Annotated[list[Leg], Doc("each leg that scored or ranked it, with the label people read")] = field(
        init=False, default_factory=list
    )

    JSON_EXTRAS: ClassVar[tuple[str, ...]] = ("qualified_symbol",)  # properties to_dict adds

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
        return cls.from_values(_CHUNK_VALUES(chunk), hit, highlights, mode)

    @classmethod
    def from_values(
        cls, values: Sequence[Any], hit: Any, highlights: list[list[int]] | None = None, mode: str | None = None
    ) -> QueryResult:
        """:meth:`of` a chunk given as its fields' values in its order (a catalog row), none built first."""
        return cls(
            *values,  # a chunk's fields come first, in its order
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
        return {**asdict(self), **{name: getattr(self, name) for name in self.JSON_EXTRAS}}


@dataclass
class QueryResponse:
    query: Annotated[str, Doc("the query, as searched (trimmed)")]
    mode: Annotated[str, Doc("the mode that answered"), OneOf(MODES)]
    results: Annotated[list[QueryResult], Doc("best first")]
    total_results: Annotated[int, Doc("len(results): how many were returned (no count of matches past top_k)")]
    query_time_ms: Annotated[float, Doc("time the engine spent answering, in milliseconds")]
    query_entities: Annotated[list[str], Doc("graph, multi: the known entities the query names")] = field(
        default_factory=list
    )
    fallback: Annotated[
        str | None, Doc("why another mode answered instead, e.g. 'vector: no known entity in the query'")
    ] = None
    generation: Annotated[int, Doc("the index generation that answered")] = 0
    intent: Annotated[str | None, Doc("multi: the kind of question the query analysis saw")] = None
    weights: Annotated[dict[str, float], Doc("multi: each leg's weight in the fusion")] = field(default_factory=dict)
    coverage: Annotated[
        float | None,
        Doc(
            "share (0..1) of the generation's chunks that are embedded (what the vector leg saw);"
            " left out when no vector leg answered (bm25, graph that found its entities)"
        ),
        OMITTED_WHEN_NONE,
    ] = 1.0

    filter_note: Annotated[
        str | None,
        Doc(
            "when the filters leave no chunk of the index: which filter value matches nothing and what the index"
            " holds ('no chunk of this index passes the filters: languages rust (this index holds: python)')"
        ),
    ] = None

    fusion_note: Annotated[
        str | None, Doc("multi: its reading of the query and the legs' weights in words ('Read as: ...')")
    ] = field(init=False, default=None)
    coverage_note: Annotated[
        str | None, Doc("when not every chunk is embedded: what semantic search saw, in words")
    ] = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.fusion_note = labels.fusion_note(self.intent, self.weights)
        self.coverage_note = labels.coverage_note(self.coverage)

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)} | {"results": [r.to_dict() for r in self.results]}
        left_out = omitted_when_none(type(self))
        return {k: v for k, v in data.items() if v is not None or k not in left_out}


# --------------------------------------------------------------------------- indexing


@dataclass
class SkippedFile:
    path: Annotated[str, Doc("the file, relative to the root")]
    reason: Annotated[str, Doc("why it is not indexed, e.g. 'larger than 1.0 MB limit (3.2 MB)'")]


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

    PARAMS: ClassVar[dict[str, Param]] = {
        "skipped": Param(
            f"which skipped files to list: the first {MAX_SKIPPED_LISTED} (default) or all;"
            " skipped_total and skipped_by_reason count every one",
            {"type": "string", "enum": ["first", "all"], "default": "first"},
        ),
        "all_skipped": _flag_param("the same as skipped=all (Python and the CLI)"),
    }

    @classmethod
    def build(cls, data: Mapping[str, Any]) -> StatusRequest:
        given = _given(data, tuple(cls.PARAMS))
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
    phase: Phase  # the REST job's fields are described in server/jobs.py (JobView)
    files_done: int = 0
    files_total: int = 0
    chunks: int = 0
    current_file: str | None = None
    embedded: int = 0  # "embedding": how many of ``chunks`` have a vector
    # keyword and graph search already answer over every file of the run (it published them before
    # embedding: a large run); False while a small run embeds before it publishes anything
    searchable: bool = False

    @property
    def percent(self) -> float:
        if self.phase == "embedding" and self.chunks:
            return 100.0 * self.embedded / self.chunks
        return 100.0 * self.files_done / self.files_total if self.files_total else 0.0


ProgressCallback = Callable[[IndexProgress], None]


@dataclass
class IndexReport:
    generation: Annotated[int, Doc("the generation the run published")]
    files_total: Annotated[int, Doc("files the run looked at")] = 0
    files_indexed: Annotated[int, Doc("files (re)chunked: new or changed")] = 0
    files_unchanged: Annotated[int, Doc("files left as they were")] = 0
    files_deleted: Annotated[int, Doc("files gone from disk, removed from the index")] = 0
    chunks_total: Annotated[int, Doc("chunks in the published generation")] = 0
    chunks_added: Annotated[int, Doc("chunks the run added")] = 0
    chunks_removed: Annotated[int, Doc("chunks the run removed")] = 0
    chunks_embedded: Annotated[int, Doc("chunks the run embedded (the rest came from the cache)")] = 0
    skipped: Annotated[list[SkippedFile], Doc("files the run left out, with why")] = field(default_factory=list)
    duration_s: Annotated[float, Doc("the run's wall time, in seconds")] = 0.0
    warnings: Annotated[
        list[str],
        Doc(
            "what went wrong after the run published (a full disk during clean-up, while embedding the"
            " rest): the generation reported answers; each warning says what to do"
        ),
    ] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class WatchState:
    """How the disk is followed: ``events`` (inotify & co), ``polling`` (a walk every few seconds) or ``off``."""

    mode: Annotated[Literal["events", "polling", "off"], Doc("events (inotify & co), polling or off")]
    reason: Annotated[str | None, Doc("why this mode: why not events, or why off")] = None

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


class IndexNewer(IndexProblem):
    """Written by a newer version of Agent Brain Lab (a later index format): nothing is damaged, that
    version reads it as it is; ``fix`` (the command) rebuilds it in this version's format instead."""

    code = "index_newer"
    state = "newer_format"
    fix_text = staticmethod(IndexCorrupt.fix_text)  # the fix is a command, as for damage


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


class NotTheIndexFolder(IndexProblem):
    """Something other than a folder sits where the index folder belongs (a file, a symlink, a pipe):
    no index is damaged, and nothing there is the engine's to delete (a file may be the user's own);
    moving it aside repairs it. Every door says what it is, never ``corrupt``."""

    code = "not_a_folder"
    state = "not_a_folder"


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
    "newer_format": "a newer version of Agent Brain Lab wrote the index: nothing is damaged; upgrade to use it"
    " as it is, or `fix` (the command) rebuilds it in this version's format, the embedding cache kept",
    "disk_full": "the disk holding the index is full: searches answer from the last generation (if one was"
    " published: `fix` says); free space, then index",
    "read_only": "the index cannot be written here (read-only medium or no write permission): searches answer",
    "no_access": "this user may not read the index (it is private to the user who wrote it)",
    "io_error": "the disk returned I/O errors reading the index: `problem` and `fix` say more",
    "not_a_folder": "something that is not the index folder (a file, a symlink) sits at .agent-brain: nothing is"
    " damaged or deleted; `problem` says what it is, `fix` how to move it aside",
}


class Counts(TypedDict):
    total: Annotated[int, Doc("how many")]
    by_source_type: Annotated[dict[str, int], Doc("counted by source type")]
    by_language: Annotated[dict[str, int], Doc("counted by language")]


class GraphStats(TypedDict):
    entities: Annotated[int, Doc("nodes of the knowledge graph")]
    relations: Annotated[int, Doc("edges of the knowledge graph")]
    by_relation: Annotated[dict[str, int], Doc("edges counted by relation")]


class ModelInfo(TypedDict):
    name: Annotated[str, Doc("the fastembed model name")]
    path: Annotated[str | None, Doc("the local model folder, or null for a model fetched by name")]
    identity: Annotated[str, Doc("the model as configured: name and variant (or model folder)")]
    sha256: Annotated[str | None, Doc("the sha256 of the model's ONNX file")]
    key: Annotated[str, Doc("what the index records and keys its embedding cache by: identity and file hash")]
    dim: Annotated[int | None, Doc("the vectors' dimension")]


class ResetReport(TypedDict):
    status: Annotated[Literal["reset"], Doc("the index is deleted")]
    cache: Annotated[Literal["kept", "dropped", "none"], Doc("what became of the embedding cache")]
    note: Annotated[str | None, Doc("why the cache could not be kept, or null")]


@dataclass
class IndexStatus:
    """What ``Brain.status()`` reports. ``state`` is one of ``INDEX_STATES`` (see :class:`IndexProblem`);
    in every state but ready, indexing and empty, ``problem`` says what is wrong and ``fix`` what repairs
    it. ``writable``: whether this process can write the index (a read-only index still answers
    queries). ``skipped`` lists the first ``MAX_SKIPPED_LISTED`` skipped files (all of them when asked:
    :class:`StatusRequest`); ``skipped_total`` and ``skipped_by_reason`` count every one."""

    state: Annotated[
        str,
        Doc(
            "ready, indexing or empty; read_only and disk_full still answer queries; corrupt, newer_format,"
            " no_access, io_error and not_a_folder cannot be read. Every state but ready, indexing and empty"
            " carries problem and fix"
        ),
        OneOf(tuple(INDEX_STATES)),
    ]
    root: Annotated[str, Doc("the workspace folder indexed")]
    generation: Annotated[int, Doc("the generation queries answer from (0: none yet)")]
    files: Annotated[dict[str, Any], Doc("indexed files, counted"), Shape(Counts)]
    chunks: Annotated[dict[str, Any], Doc("chunks, counted"), Shape(Counts)]
    skipped: Annotated[
        list[dict[str, str]],
        Doc(f"the first {MAX_SKIPPED_LISTED} skipped files by path; all of them when asked"),
        Shape(SkippedFile),
    ]
    graph: Annotated[dict[str, Any], Doc("the knowledge graph's size"), Shape(GraphStats)]
    model: Annotated[dict[str, Any], Doc("the embedding model the index was built with"), Shape(ModelInfo)]
    index_bytes: Annotated[int, Doc("size of .agent-brain/ on disk")]
    last_indexed: Annotated[str | None, Doc("when the generation was published (ISO 8601, UTC)")]
    format_version: Annotated[int, Doc("the on-disk format this engine writes")]
    index_id: Annotated[str | None, Doc("the index's identity: changes when it is reset and built again")] = None
    problem: Annotated[str | None, Doc("what is wrong (states other than ready, indexing, empty)")] = None
    fix: Annotated[str | None, Doc("what repairs it (corrupt: the command)")] = None
    coverage: Annotated[
        float, Doc("share (0..1) of the chunks that are embedded (below 1 while a large run embeds)")
    ] = 1.0
    skipped_total: Annotated[int, Doc("how many files are skipped")] = 0
    skipped_by_reason: Annotated[
        dict[str, int], Doc("skipped files counted by reason (without its particulars in parentheses), largest first")
    ] = field(default_factory=dict)
    writable: Annotated[
        bool, Doc("whether this process can write the index (a read-only index still answers queries)")
    ] = True

    def to_dict(self) -> dict[str, Any]:
        if self.state not in INDEX_STATES:
            raise ValueError(f"index state {self.state!r} is not described in INDEX_STATES")
        return asdict(self)


class GraphNode(TypedDict):
    """A node of the knowledge graph as ``graph/entity`` shows it; the other keys are the node's own
    attributes (its kind, name, source file, lines, ...), which vary by kind."""

    id: Annotated[str, Doc("the node id")]
    hop: Annotated[int, Doc("hops from the matches (0: a match)")]


class GraphEdge(TypedDict):
    source: Annotated[str, Doc("the node id the edge leaves")]
    target: Annotated[str, Doc("the node id it reaches")]
    relation: Annotated[str, Doc("calls, imports, inherits, mentions, contains, defined_in, ...")]
    chunk_ids: Annotated[list[str], Doc("the chunks the edge was seen in")]


class GraphGroup(TypedDict):
    id: Annotated[str, Doc("starts with //more/, never a node id")]
    parent: Annotated[str, Doc("the node whose neighbours these are")]
    relation: Annotated[str, Doc("the relation")]
    direction: Annotated[Literal["in", "out"], Doc("out: parent -relation-> neighbour")]
    phrase: Annotated[str, Doc("e.g. callers, calls, subclasses, mentioned in")]
    total: Annotated[int, Doc("len(shown) + len(more)")]
    shown: Annotated[list[str], Doc("ids of the neighbours among nodes")]
    label: Annotated[str, Doc("e.g. '+42 more callers', or the phrase when nothing is held back")]
    more: Annotated[list[GraphNode], Doc("the neighbours held back, as nodes")]
    more_edges: Annotated[list[GraphEdge], Doc("their edges to parent")]


def no_entity_note(name: str, near: Sequence[str]) -> str:
    """What every door shows for a graph look-up that matched nothing (GraphNeighbourhood.note)."""
    hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
    return (
        f"no entity named {_safe(name)!r} in the graph{hint}: try a qualified name (Class.method),"
        " or a search to find it"
    )


@dataclass
class GraphNeighbourhood:
    """What ``Brain.graph_entity()`` returns: the entities matching ``query`` and their neighbourhood
    up to the asked depth, grouped by relation and capped (``engine/explore.py``): the nodes shown
    (each with its ``hop``, the matches at 0, and its ``location`` label), the edges among them, the
    chunks behind them (results with their labels), one group per relation of each node walked
    (``total``, the ids ``shown``, the rest in ``more`` with ``more_edges``, a ``label`` such as
    "+42 more callers"), the structural edges left out by relation, and the options used."""

    query: Annotated[str, Doc("the name asked for")]
    matches: Annotated[list[str], Doc("ids of the nodes the name matched (hop 0)")]
    nodes: Annotated[list[dict[str, Any]], Doc("the nodes shown, each with its hop"), Shape(GraphNode)]
    edges: Annotated[list[dict[str, Any]], Doc("the edges among the nodes shown"), Shape(GraphEdge)]
    chunks: Annotated[list[dict[str, Any]], Doc("the chunks behind the nodes and edges"), Shape(QueryResult)]
    groups: Annotated[
        list[dict[str, Any]], Doc("one per relation and direction of each node walked"), Shape(GraphGroup)
    ] = field(default_factory=list)
    hidden_relations: Annotated[dict[str, int], Doc("structural edges not followed, by relation")] = field(
        default_factory=dict
    )
    per_relation: Annotated[int, Doc("neighbours shown per relation of a node (0: all)")] = 8
    all_relations: Annotated[bool, Doc("whether contains/defined_in were followed")] = False
    note: Annotated[
        str | None,
        Doc("when nothing matched: that, the nearest names the graph holds, and what else to try"),
    ] = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
