"""JSON Schemas (draft 2020-12) of every resource, generated from the catalog.

Three shapes per resource: "read" (a row as returned, and the rules language's type, so nothing
is required), "create" (no server-managed fields; only the initial status) and "update" (partial).
docs/data-model.md, "JSON Schemas", gives the rules.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Literal

from insureops.schema.catalog import TABLES, TABLES_BY_RESOURCE
from insureops.schema.model import Field, Table
from insureops.schema.state_machines import MACHINES

Mode = Literal["read", "create", "update"]
DRAFT = "https://json-schema.org/draft/2020-12/schema"
INT32 = 2**31 - 1


def _base_type(item: Field) -> dict:
    if item.kind in ("string", "text", "enum"):
        schema: dict = {"type": "string"}
        if item.length is not None:
            schema["maxLength"] = item.length
        if item.min_length is not None:
            schema["minLength"] = item.min_length
        if item.choices:
            schema["enum"] = list(item.choices)
        return schema
    if item.kind == "decimal":
        bound = 10 ** (item.precision - item.scale)  # type: ignore[operator]
        low = float(item.minimum) if item.minimum is not None else None
        high = float(item.maximum) if item.maximum is not None else None
        schema = {"type": "number", "exclusiveMaximum": bound, "exclusiveMinimum": -bound}
        if low is not None:
            schema.pop("exclusiveMinimum")
            schema["minimum"] = low
        if high is not None:
            schema.pop("exclusiveMaximum")
            schema["maximum"] = high
        return schema
    simple = {
        "uuid": {"type": "string", "format": "uuid"},
        "date": {"type": "string", "format": "date"},
        "timestamp": {"type": "string", "format": "date-time"},
        "integer": {"type": "integer", "minimum": -INT32 - 1, "maximum": INT32},
        "boolean": {"type": "boolean"},
        "double": {"type": "number"},
        "json": {},
        "ip_address": {"type": "string", "maxLength": 45,
                       "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
        "text_array": {"type": "array", "items": {"type": "string"}},
    }
    return copy.deepcopy(simple[item.kind])


def field_schema(item: Field, *, nullable: bool) -> dict:
    """The JSON Schema of one field's value; `nullable` adds null to the allowed types."""
    schema = _base_type(item)
    if item.kind == "integer" and item.autoincrement:
        schema["minimum"] = 1
    if nullable and "type" in schema:
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    schema["x-insureops-type"] = item.type_label
    if item.hints:
        schema["examples"] = list(item.hints)
    if item.note:
        schema["description"] = item.note
    return schema


def _payload_fields(table: Table) -> list[Field]:
    return [item for item in table.fields if not item.server_managed]


def _build(table: Table, mode: Mode) -> dict:
    properties: dict[str, dict] = {}
    required: list[str] = []
    fields = table.fields if mode == "read" else _payload_fields(table)
    for item in fields:
        schema = field_schema(item, nullable=not item.not_null)
        if mode == "create" and item.name == table.status_field and table.name in MACHINES:
            machine = MACHINES[table.name]
            schema["enum"] = [machine.initial]
            schema.pop("type", None)
        properties[item.name] = schema
        if mode == "create" and item.required and item.default is None and not item.generated:
            required.append(item.name)
    schema = {
        "$schema": DRAFT,
        "$id": f"urn:insureops:data-model:2.2.0:{table.resource}:{mode}",
        "title": table.resource if mode == "read" else f"{table.resource} ({mode})",
        "description": f"{table.description} Table `{table.name}`.",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    return schema


@cache
def _cached(resource: str, mode: Mode) -> dict:
    if resource not in TABLES_BY_RESOURCE:
        known = ", ".join(sorted(TABLES_BY_RESOURCE))
        raise KeyError(f"unknown resource {resource!r}; known: {known}")
    if mode not in ("read", "create", "update"):
        raise ValueError(f"mode must be read, create or update, not {mode!r}")
    return _build(TABLES_BY_RESOURCE[resource], mode)


def resource_schema(resource: str, mode: Mode = "read") -> dict:
    """The JSON Schema of `resource` ("Client", "Policy", "Claim", ...) in `mode`; a fresh copy."""
    return copy.deepcopy(_cached(resource, mode))


def resource_names() -> list[str]:
    """Every resource name, in catalog order."""
    return [table.resource for table in TABLES]
