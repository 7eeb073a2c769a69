"""Conversions between JSON payload values and column values of the client and policy tables."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from insureops.schema.catalog import TABLES_BY_NAME


def to_columns(table_name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Validated JSON values -> Python values the table's column types bind."""
    table = TABLES_BY_NAME[table_name]
    result: dict[str, Any] = {}
    for name, value in values.items():
        kind = table.field(name).kind
        if value is None:
            result[name] = None
        elif kind == "date":
            result[name] = datetime.date.fromisoformat(value)
        elif kind == "uuid":
            result[name] = uuid.UUID(value)
        elif kind == "timestamp":
            result[name] = datetime.datetime.fromisoformat(value)
        elif kind == "decimal":
            result[name] = Decimal(str(value))
        else:
            result[name] = value
    return result


def _json_value(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def to_json(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row as JSON-ready values: uuids and dates as strings, decimals as numbers."""
    return {name: _json_value(value) for name, value in row.items()}
