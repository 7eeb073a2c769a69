"""SQLAlchemy Core metadata of data model 2.2.0, rendered from the catalog, with named constraints.

Lengths, enumerations and ranges are CHECK constraints on both engines (SQLite ignores VARCHAR
lengths; CHECKs migrate more simply than PostgreSQL enum types). Every constraint has a stable
name, so a refused write can be traced back to its field (schema/sql/violations.py).
"""

from __future__ import annotations

import uuid as uuid_module
from dataclasses import dataclass
from functools import cache

import sqlalchemy as sa

from insureops.schema.catalog import TABLES
from insureops.schema.model import DATA_MODEL_VERSION, NOW, Field, Table
from insureops.schema.sql.types import (
    IpAddress,
    Money,
    UtcTimestamp,
    json_type,
    new_uuid,
    text_array_type,
    utc_now,
)

VERSION_TABLE = "insureops_data_model"


@dataclass(frozen=True)
class ConstraintInfo:
    """What a named constraint guards: its table, the field(s) and the violation code."""

    table: str
    fields: tuple[str, ...]
    code: str


def column_type(item: Field) -> sa.types.TypeEngine:
    """The SQLAlchemy type of a catalog field."""
    if item.kind == "string":
        return sa.String(item.length)
    if item.kind == "decimal":
        return Money(item.precision, item.scale)  # type: ignore[arg-type]
    return {
        "uuid": sa.Uuid, "text": sa.Text, "enum": sa.Text, "date": sa.Date,
        "timestamp": UtcTimestamp, "integer": sa.Integer, "boolean": sa.Boolean,
        "double": sa.Double, "ip_address": IpAddress, "json": json_type,
        "text_array": text_array_type,
    }[item.kind]()


def _literal_default(value: object) -> sa.sql.ClauseElement:
    if isinstance(value, bool):
        return sa.true() if value else sa.false()
    if isinstance(value, str):
        return sa.text("'" + value.replace("'", "''") + "'")
    return sa.text(str(value))


def build_column(item: Field) -> sa.Column:
    """The Column of one field: type, nullability, defaults, identity, generated expression."""
    args: list = []
    kwargs: dict = {"nullable": not item.not_null, "primary_key": item.primary_key}
    if item.autoincrement:
        args.append(sa.Identity())
    if item.generated:
        kwargs.update(default=uuid_module.uuid4, server_default=new_uuid())
    elif item.default == NOW:
        kwargs["server_default"] = utc_now()
    elif item.default is not None:
        kwargs.update(default=item.default, server_default=_literal_default(item.default))
    if item.computed:
        args.append(sa.Computed(item.computed, persisted=True))
    return sa.Column(item.name, column_type(item), *args, **kwargs)


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join("'" + value.replace("'", "''") + "'" for value in values)


def field_checks(table: Table, item: Field) -> list[tuple[str, str, str]]:
    """(constraint name, SQL condition, violation code) of a field's CHECK constraints."""
    prefix = f"ck_{table.name}_{item.name}"
    checks = []
    if item.kind == "string" and item.length:
        low = f"length({item.name}) >= {item.min_length} AND " if item.min_length else ""
        checks.append((f"{prefix}_length", f"{low}length({item.name}) <= {item.length}",
                       "too_long"))
    if item.choices:
        checks.append((f"{prefix}_enum", f"{item.name} IN ({_quoted(item.choices)})",
                       "invalid_enum"))
    if item.kind == "decimal" and not item.computed:
        bound = 10 ** (item.precision - item.scale)  # type: ignore[operator]
        checks.append((f"{prefix}_precision", f"abs({item.name}) < {bound}", "out_of_range"))
    if item.minimum is not None or item.maximum is not None:
        checks.append((f"{prefix}_range",
                       f"{item.name} BETWEEN {item.minimum} AND {item.maximum}", "out_of_range"))
    return checks


def build_table(metadata: sa.MetaData, table: Table) -> sa.Table:
    """The sa.Table of one catalog table with its keys, uniques, foreign keys, checks, indexes."""
    columns = [build_column(item) for item in table.fields]
    constraints: list = [sa.PrimaryKeyConstraint(
        *[f.name for f in table.fields if f.primary_key], name=f"pk_{table.name}")]
    for item in table.fields:
        if item.unique:
            constraints.append(sa.UniqueConstraint(item.name, name=f"uq_{table.name}_{item.name}"))
        if item.references:
            constraints.append(sa.ForeignKeyConstraint(
                [item.name], [f"{item.references.table}.id"], name=f"fk_{table.name}_{item.name}",
                ondelete=item.references.on_delete))
        constraints += [sa.CheckConstraint(condition, name=name)
                        for name, condition, _ in field_checks(table, item)]
    for group in table.unique_together:
        constraints.append(sa.UniqueConstraint(*group, name=f"uq_{table.name}_{'_'.join(group)}"))
    result = sa.Table(table.name, metadata, *columns, *constraints,
                      comment=table.description)
    indexed = [f.name for f in table.fields if f.name == "tenant_id" or f.references]
    for name in indexed:
        sa.Index(f"ix_{table.name}_{name}", result.c[name])
    return result


def build_version_table(metadata: sa.MetaData) -> sa.Table:
    """The one-row table recording the data-model version a tenant database holds."""
    return sa.Table(
        VERSION_TABLE, metadata,
        sa.Column("version", sa.String(20), primary_key=True),
        sa.Column("applied_at", UtcTimestamp(), nullable=False, server_default=utc_now()),
        comment=f"Data-model version of this tenant database (this code: {DATA_MODEL_VERSION}).",
    )


@cache
def build_metadata() -> sa.MetaData:
    """The MetaData of every data-model table plus the version table (built once)."""
    metadata = sa.MetaData()
    for table in TABLES:
        build_table(metadata, table)
    build_version_table(metadata)
    return metadata


def sa_table(name: str) -> sa.Table:
    """The sa.Table called `name`."""
    return build_metadata().tables[name]


@cache
def constraint_index() -> dict[str, ConstraintInfo]:
    """Constraint name -> what it guards, for turning database errors into field errors."""
    index: dict[str, ConstraintInfo] = {}
    for table in TABLES:
        for item in table.fields:
            if item.unique:
                index[f"uq_{table.name}_{item.name}"] = ConstraintInfo(
                    table.name, (item.name,), "duplicate")
            if item.references:
                index[f"fk_{table.name}_{item.name}"] = ConstraintInfo(
                    table.name, (item.name,), "invalid_reference")
            for name, _, code in field_checks(table, item):
                index[name] = ConstraintInfo(table.name, (item.name,), code)
        for group in table.unique_together:
            index[f"uq_{table.name}_{'_'.join(group)}"] = ConstraintInfo(
                table.name, group, "duplicate")
    return index
