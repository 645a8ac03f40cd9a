"""The REST contract, generated from one source: ``server/openapi.json`` and ``src/contract.ts``.

Response shapes come from the engine's result dataclasses and ``TypedDict``s (each field described by
its ``Annotated[..., Doc("...")]``), request shapes from the validator's ``PARAMS`` (engine/types.py);
this module adds only the routes, their status codes and the error shape. Regenerate both files with::

    python -m agent_brain_lab.server.contract --write

(``--check`` exits 1 when a committed file differs from what it would write; tests/test_contract.py
runs the same check.)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

from ..engine.types import (
    INDEX_STATES,
    MODES,
    OMITTED_WHEN_NONE,
    SOURCE_TYPES,
    Doc,
    GraphNeighbourhood,
    GraphNode,
    GraphRequest,
    IndexRequest,
    IndexStatus,
    JobStatus,
    OneOf,
    Param,
    Phase,
    QueryRequest,
    QueryResponse,
    ResetReport,
    ResetRequest,
    Shape,
    StatusRequest,
)
from .handlers import GRAPH_QUERY, MAX_BODY_BYTES, MAX_BODY_DEPTH, OPENAPI_FILE, STATUS_QUERY
from .jobs import JobView, StartedJob
from .service import ServerStatus

REPO = Path(__file__).resolve().parents[2]
TS_FILE = REPO / "src" / "contract.ts"
REGENERATE = "python -m agent_brain_lab.server.contract --write"

# Enumerations named in the document (and as TypeScript unions): a field whose values are one of these
# refers to it by name.
ENUMS: dict[str, tuple[str, ...]] = {
    "Mode": MODES,
    "SourceType": SOURCE_TYPES,
    "JobStatus": get_args(JobStatus),
    "Phase": get_args(Phase),
    "IndexState": tuple(INDEX_STATES),
}
# Component names other than the class's own.
NAMES: dict[Any, str] = {JobView: "Job", GraphNeighbourhood: "GraphEntity", ResetReport: "Reset"}
# Shapes whose dicts carry more keys than the ones described (a graph node's own attributes vary by kind).
OPEN_SHAPES = (GraphNode,)


class ContractError(Exception):
    """The source cannot be turned into a contract (a field without a description, a type not mapped)."""


# --------------------------------------------------------------------------- schemas


class _Schemas:
    """Component schemas, collected as the types that refer to them are converted."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {
            name: {"type": "string", "enum": list(values)} for name, values in ENUMS.items()
        }

    def ref(self, shape: Any) -> dict[str, Any]:
        name = NAMES.get(shape, shape.__name__)
        if name not in self.components:
            self.components[name] = {}  # placeholder: a shape may refer to itself
            self.components[name] = self.object(shape)
        return {"$ref": f"#/components/schemas/{name}"}

    def object(self, shape: Any, extra: tuple[Any, ...] = ()) -> dict[str, Any]:
        """The schema of a dataclass's ``to_dict`` or of a ``TypedDict`` (plus ``extra`` ones' keys)."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        for part in (shape, *extra):
            for name, hint, is_required in _fields(part):
                properties[name] = self.field(part, name, hint)
                if is_required:
                    required.append(name)
        schema: dict[str, Any] = {"type": "object"}
        doc = shape.__doc__ or ""
        if doc and not doc.startswith(f"{shape.__name__}("):  # not the signature dataclass writes
            schema["description"] = _first_paragraph(doc)
        schema |= {"required": required, "properties": properties}
        schema["additionalProperties"] = shape in OPEN_SHAPES
        return schema

    def field(self, owner: Any, name: str, hint: Any) -> dict[str, Any]:
        meta = getattr(hint, "__metadata__", ())
        docs = [m.text for m in meta if isinstance(m, Doc)]
        if not docs:
            raise ContractError(
                f"{owner.__name__}.{name} has no description: annotate it as Annotated[<type>, Doc('what it means')]"
                f" (engine/types.py), then run {REGENERATE}"
            )
        base = hint.__origin__ if meta else hint
        if OMITTED_WHEN_NONE in meta:  # never null: left out instead
            base = next(a for a in get_args(base) if a is not type(None))
        shape = next((m.of for m in meta if isinstance(m, Shape)), None)
        values = next((m.values for m in meta if isinstance(m, OneOf)), None)
        return self.described(self.type(base, shape, values), docs[0])

    def type(self, hint: Any, shape: Any = None, values: tuple[str, ...] | None = None) -> dict[str, Any]:
        origin, args = get_origin(hint), get_args(hint)
        if origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            if len(rest) != 1:
                raise ContractError(f"cannot describe the union {hint}")
            return self.nullable(self.type(rest[0], shape, values))
        if origin is typing.Annotated:
            return self.type(args[0], shape, values)
        if origin is list or origin is tuple:
            return {"type": "array", "items": self.type(args[0], shape, values)}
        if shape is not None:
            return self.ref(shape)
        if origin is dict:
            return {"type": "object", "additionalProperties": self.type(args[1])}
        if origin is Literal:
            return self.enum(tuple(args))
        if values is not None:
            return self.enum(values)
        if hint is Any:
            return {}
        if hint in _SCALARS:
            return {"type": _SCALARS[hint]}
        if dataclasses.is_dataclass(hint) or typing.is_typeddict(hint):
            return self.ref(hint)
        raise ContractError(f"cannot describe the type {hint!r}")

    def enum(self, values: tuple[str, ...]) -> dict[str, Any]:
        named = next((name for name, known in ENUMS.items() if tuple(known) == tuple(values)), None)
        if named is not None:
            return {"$ref": f"#/components/schemas/{named}"}
        return {"type": "string", "enum": list(values)}

    @staticmethod
    def nullable(schema: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in schema:  # OpenAPI 3.0.3: nullable applies to a type beside it, never through a $ref
            return {"anyOf": [schema, NULL]}
        return {**schema, "nullable": True}

    @staticmethod
    def described(schema: dict[str, Any], text: str) -> dict[str, Any]:
        if "$ref" in schema:  # OpenAPI 3.0 ignores a $ref's siblings
            return {"allOf": [schema], "description": text}
        return {**schema, "description": text}


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}
NULL = {"type": "object", "nullable": True, "enum": [None]}  # null alone, as OpenAPI 3.0.3 spells it


def _fields(shape: Any) -> list[tuple[str, Any, bool]]:
    """(name, annotated type, always present) of each key of ``shape``'s JSON, in order."""
    hints = get_type_hints(shape, include_extras=True)
    if typing.is_typeddict(shape):
        return [(name, hint, name in shape.__required_keys__) for name, hint in hints.items()]
    if not dataclasses.is_dataclass(shape):
        raise ContractError(f"{shape!r} is neither a dataclass nor a TypedDict")
    left_out = {n for n, h in hints.items() if OMITTED_WHEN_NONE in getattr(h, "__metadata__", ())}
    found = [(f.name, hints[f.name], f.name not in left_out) for f in dataclasses.fields(shape)]
    for name in getattr(shape, "JSON_EXTRAS", ()):  # properties to_dict adds
        prop = getattr(shape, name)
        returns = get_type_hints(prop.fget)["return"]
        found.append((name, typing.Annotated[returns, Doc(_first_paragraph(prop.__doc__ or ""))], True))
    return found


def _first_paragraph(doc: str) -> str:
    return " ".join(doc.strip().split("\n\n")[0].split())


def request_schema(cls: Any) -> dict[str, Any]:
    """A JSON body the validator ``cls.build`` takes: its ``PARAMS``, nothing else."""
    properties = {name: _param(cls, name, param) for name, param in cls.PARAMS.items()}
    required = [name for name in cls.PARAMS if _default(cls, name) is dataclasses.MISSING]
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": properties}
    return {**schema, "required": required} if required else schema


def query_parameters(cls: Any, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """The query-string fields a GET route passes to the validator ``cls.build``."""
    found = []
    for name in names:
        required = _default(cls, name) is dataclasses.MISSING
        schema = _param(cls, name, cls.PARAMS[name])
        description = schema.pop("description")
        found.append({"name": name, "in": "query", "required": required, "description": description, "schema": schema})
    return found


def _param(cls: Any, name: str, param: Param) -> dict[str, Any]:
    schema = {**param.schema, "description": param.doc}
    default = _default(cls, name)
    if isinstance(default, (str, int, float, bool)):
        schema["default"] = default
    return schema


def _default(cls: Any, name: str) -> Any:
    """The dataclass default of ``name`` (MISSING: required; None: a field that is not one of cls's)."""
    field = next((f for f in dataclasses.fields(cls) if f.name == name), None)
    if field is None:
        return None
    if field.default_factory is not dataclasses.MISSING:
        return None
    return field.default


# --------------------------------------------------------------------------- routes

AUTH = {
    "401": "not authenticated",
    "403": "authenticated but not authorized (read or write on agent_brain)",
}
NOT_READABLE = (
    "not indexed, or the index cannot be read: index_corrupt, index_newer, no_access, io_error, not_a_folder"
    " (read_only and disk_full indexes still answer)"
)


def _operation(
    op_id: str,
    summary: str,
    answers: dict[str, tuple[str, str]],
    *,
    body: tuple[str, bool] | None = None,
    query: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``answers``: status -> (description, component); ``body``: (component, required)."""
    operation: dict[str, Any] = {"operationId": op_id, "summary": summary}
    if query:
        operation["parameters"] = query
    if body is not None:
        schema = {"$ref": f"#/components/schemas/{body[0]}"}
        operation["requestBody"] = {"required": body[1], "content": {"application/json": {"schema": schema}}}
    every = {**answers, **{code: (text, "Error") for code, text in AUTH.items()}}
    operation["responses"] = {
        code: {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}},
        }
        for code, (text, component) in sorted(every.items())
    }
    return operation


def paths() -> dict[str, Any]:
    bad_body = ("a bad field (field names it) or body", "Error")
    return {
        "/agent-brain/query": {
            "post": _operation(
                "query",
                "Search the index in one of five modes",
                {"200": ("results", "QueryResponse"), "400": bad_body, "503": (NOT_READABLE, "Error")},
                body=("QueryRequest", True),
            )
        },
        "/agent-brain/index": {
            "post": _operation(
                "startIndex",
                "Start an index job (incremental unless force)",
                {
                    "202": ("the job, queued", "StartedJob"),
                    "400": bad_body,
                    "409": ("a job or another process is writing, or the model changed (use force)", "Error"),
                    "503": (
                        "the brain cannot open; the index is damaged (index_corrupt), written by a newer version"
                        " (index_newer), read-only (read_only), not readable by this user (no_access), on a"
                        " failing disk (io_error), or something else sits where its folder belongs (not_a_folder)",
                        "Error",
                    ),
                    "507": ("disk_full: the disk holding .agent-brain/ is full", "Error"),
                },
                body=("IndexRequest", False),
            ),
            "delete": _operation(
                "resetIndex",
                "Delete the index",
                {
                    "200": ("deleted", "Reset"),
                    "400": bad_body,
                    "409": ("a job or another process is writing", "Error"),
                    "503": ("the brain cannot open, or the index folder is read-only (read_only)", "Error"),
                    "507": ("disk_full", "Error"),
                },
                body=("ResetRequest", False),
            ),
        },
        "/agent-brain/jobs": {
            "get": _operation("listJobs", "Index jobs of this server, newest first", {"200": ("jobs", "JobList")})
        },
        "/agent-brain/jobs/{job_id}": {
            "parameters": [
                {
                    "name": "job_id",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "maxLength": 64},
                }
            ],
            "get": _operation(
                "getJob",
                "One job's progress and report",
                {"200": ("the job", "Job"), "404": ("no such job", "Error")},
            ),
            "delete": _operation(
                "cancelJob",
                "Cancel a job (finished jobs stay as they are)",
                {"200": ("the job, cancelling", "Job"), "404": ("no such job", "Error")},
            ),
        },
        "/agent-brain/status": {
            "get": _operation(
                "status",
                "What is indexed, and the active job",
                {
                    "200": ("status", "Status"),
                    "400": ("invalid skipped value", "Error"),
                    "503": ("the brain cannot open", "Error"),
                },
                query=query_parameters(StatusRequest, STATUS_QUERY),
            )
        },
        "/agent-brain/graph/entity": {
            "get": _operation(
                "graphEntity",
                "An entity's neighbourhood in the knowledge graph",
                {
                    "200": ("the neighbourhood", "GraphEntity"),
                    "400": ("a bad name, depth, per_relation or all_relations", "Error"),
                    "503": (NOT_READABLE, "Error"),
                },
                query=query_parameters(GraphRequest, GRAPH_QUERY),
            )
        },
        "/agent-brain/openapi.json": {
            "get": _operation("openapi", "This description", {"200": ("OpenAPI 3 document", "OpenAPI")})
        },
    }


ERROR = {
    "type": "object",
    "description": "Every error of these routes (BrainError.to_dict, or an HTTP error of the server).",
    "required": ["error", "message"],
    "additionalProperties": False,
    "properties": {
        "error": {"type": "string", "description": "a code: invalid_request, not_indexed, workspace_busy, ..."},
        "message": {"type": "string", "description": "what went wrong, for a person"},
        "field": {"type": "string", "description": "invalid_request: the field at fault (or body)"},
        "job_id": {"type": "string", "description": "workspace_busy: the job in the way"},
        "problem": {
            "type": "string",
            "description": "index_corrupt, index_newer, disk_full, read_only, no_access, io_error, not_a_folder:"
            " what is wrong",
        },
        "fix": {"type": "string", "description": "what repairs it (index_corrupt: the command)"},
    },
}


def document() -> dict[str, Any]:
    """The OpenAPI 3 description of every route, as ``openapi.json`` holds it."""
    schemas = _Schemas()
    for shape in (QueryResponse, JobView, StartedJob, GraphNeighbourhood, ResetReport):
        schemas.ref(shape)
    schemas.components["Status"] = schemas.object(IndexStatus, (ServerStatus,))
    job_list = {"type": "object", "required": ["jobs"], "additionalProperties": False}
    job_list["properties"] = {
        "jobs": schemas.described({"type": "array", "items": schemas.ref(JobView)}, "newest first")
    }
    components = {
        "Error": ERROR,
        "QueryRequest": request_schema(QueryRequest),
        "IndexRequest": request_schema(IndexRequest),
        "ResetRequest": request_schema(ResetRequest),
        "JobList": job_list,
        "OpenAPI": {
            "type": "object",
            "description": "this document, with this server's base URL in servers",
            "required": ["openapi", "info", "servers", "paths", "components"],
            "properties": {
                "openapi": {"type": "string", "description": "the OpenAPI version (3.0.3)"},
                "info": {"type": "object", "description": "title, version and what the routes share"},
                "servers": {"type": "array", "items": {"type": "object"}, "description": "this server's base URL"},
                "paths": {"type": "object", "description": "every route"},
                "components": {"type": "object", "description": "the shapes of requests, answers and errors"},
            },
        },
        **schemas.components,
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Agent Brain Lab REST API",
            "version": "1",
            "description": (
                "Routes of the agent-brain Jupyter server extension, under {base_url}agent-brain/. Every route"
                " needs an authenticated user; reads need the 'read' action and writes the 'write' action on"
                " the 'agent_brain' resource. Every error is a JSON object with 'error' and 'message' (and"
                " 'field' for a bad field, 'job_id' when a job is in the way). Bodies: at most"
                f" {MAX_BODY_BYTES} bytes, nesting at most {MAX_BODY_DEPTH} levels. Generated by"
                f" `{REGENERATE}` from the engine's types: do not edit."
            ),
        },
        "servers": [{"url": "/"}],
        "security": [{"token": []}],
        "paths": paths(),
        "components": {
            "securitySchemes": {
                "token": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "'token <JUPYTER TOKEN>'",
                }
            },
            "schemas": dict(sorted(components.items())),
        },
    }


# --------------------------------------------------------------------------- TypeScript


def typescript(doc: dict[str, Any]) -> str:
    """``src/contract.ts``: one TypeScript type per component schema (interfaces are named ``I<name>``)."""
    lines = [
        "/**",
        " * Shapes of the REST API under `{base_url}agent-brain/`, generated from",
        " * `agent_brain_lab/server/openapi.json` (itself generated from the engine's types):",
        f" * do not edit; run `{REGENERATE}`.",
        " */",
    ]
    schemas = doc["components"]["schemas"]
    for name, schema in schemas.items():
        lines.append("")
        if "description" in schema:
            lines.append(f"/** {schema['description']} */")
        if "enum" in schema:
            values = [_ts_str(v) for v in schema["enum"]]
            line = f"export const {_const(name)} = [{', '.join(values)}] as const;"
            if len(line) > 80:  # as prettier writes it
                line = f"export const {_const(name)} = [\n  {',{}  '.join(values)}\n] as const;".replace("{}", "\n")
            lines.append(line)
            lines.append(f"export type {name} = (typeof {_const(name)})[number];")
            continue
        base = _base(name, schema, doc["components"]["schemas"])
        properties = schema.get("properties", {})
        if base:
            lines.append(f"export interface I{name} extends I{base} {{")
            properties = {k: v for k, v in properties.items() if k not in schemas[base]["properties"]}
        else:
            lines.append(f"export interface I{name} {{")
        required = set(schema.get("required", ()))
        for key, prop in properties.items():
            if "description" in prop:
                lines.append(f"  /** {prop['description']} */")
            optional = "" if key in required else "?"
            lines.append(f"  {key}{optional}: {_ts(prop)};")
        if schema.get("additionalProperties") is True:
            lines.append("  [key: string]: unknown;")
        lines.append("}")
    return "\n".join(lines) + "\n"


def _base(name: str, schema: dict[str, Any], schemas: dict[str, Any]) -> str | None:
    """The largest other object schema whose every property (and requiredness) ``schema`` repeats:
    the TypeScript interface extends it instead of writing its fields twice."""
    properties, required = schema.get("properties", {}), set(schema.get("required", ()))
    bases = [
        other
        for other, candidate in schemas.items()
        if other != name
        and candidate.get("properties")
        and len(candidate["properties"]) < len(properties)
        and all(properties.get(k) == v for k, v in candidate["properties"].items())
        and set(candidate.get("required", ())) == required & set(candidate["properties"])
    ]
    return max(bases, key=lambda other: len(schemas[other]["properties"]), default=None)


def _const(name: str) -> str:
    """``JobStatus`` -> ``JOB_STATUSES``: the array of an enumeration's values."""
    snake = "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(name)).upper()
    return snake + ("ES" if snake.endswith("S") else "S")


def _ts_str(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ts(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        text = name if name in ENUMS else f"I{name}"
    elif "allOf" in schema:
        text = _ts(schema["allOf"][0])
    elif "oneOf" in schema or "anyOf" in schema:
        parts = schema.get("oneOf") or schema["anyOf"]
        text = " | ".join(dict.fromkeys("null" if s == NULL else _ts(s) for s in parts))
    elif "enum" in schema:
        text = " | ".join(_ts_str(v) for v in schema["enum"])
    elif schema.get("type") == "array":
        item = _ts(schema["items"])
        text = f"({item})[]" if "|" in item else f"{item}[]"
    elif schema.get("type") == "object":
        text = f"Record<string, {_ts(schema.get('additionalProperties') or {})}>"
    else:
        text = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}.get(
            schema.get("type", ""), "unknown"
        )
    return f"{text} | null" if schema.get("nullable") else text


# --------------------------------------------------------------------------- files


def rendered() -> dict[Path, str]:
    """What ``--write`` writes: the document, and the TypeScript types where the sources are."""
    doc = document()
    files = {OPENAPI_FILE: json.dumps(doc, indent=2, ensure_ascii=False) + "\n"}
    if TS_FILE.parent.is_dir():  # a source checkout
        files[TS_FILE] = typescript(doc)
    return files


def stale() -> list[Path]:
    """The generated files whose content differs from what the source says now."""
    return [path for path, text in rendered().items() if not path.is_file() or path.read_text() != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent_brain_lab.server.contract", description=__doc__)
    parser.add_argument("--write", action="store_true", help="write openapi.json and src/contract.ts")
    parser.add_argument("--check", action="store_true", help="exit 1 when a generated file is out of date")
    args = parser.parse_args(argv)
    if args.write:
        for path, text in rendered().items():
            path.write_text(text)
            print(f"wrote {path}")
        return 0
    if args.check:
        out_of_date = stale()
        for path in out_of_date:
            print(f"{path} is out of date: run {REGENERATE}", file=sys.stderr)
        return 1 if out_of_date else 0
    print(json.dumps(document(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
