"""Markers that describe the fields the engine returns: the REST contract's one source.

``Annotated[type, Doc("...")]`` on a field of a result dataclass or ``TypedDict`` (engine/types.py,
engine/labels.py) is the one place the field is explained; ``python -m agent_brain_lab.server.contract
--write`` copies it into ``server/openapi.json`` and ``src/contract.ts``. A module of its own so that
every engine module with returned records can use the markers without importing the data model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Doc:
    """What a returned field means: ``Annotated[type, Doc("...")]`` on a field of a result dataclass
    or ``TypedDict``. The one place a field is described: ``python -m agent_brain_lab.server.contract
    --write`` copies it into ``server/openapi.json`` and ``src/contract.ts``."""

    text: str


OMITTED_WHEN_NONE = "omitted when None"  # Annotated marker: ``to_dict`` leaves the key out instead of null


@dataclass(frozen=True)
class OneOf:
    """Annotated marker of a ``str`` field: the values it takes (a JSON schema enum, a TypeScript union)."""

    values: tuple[str, ...]


@dataclass(frozen=True)
class Shape:
    """Annotated marker of a ``dict`` field (or of each item of a ``list`` of dicts): the dict holds
    what ``of`` (a dataclass's ``to_dict`` or a ``TypedDict``) describes."""

    of: Any
