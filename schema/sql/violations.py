"""Turning the database's refusals into ConstraintViolationError values that name the field.

PostgreSQL reports the constraint (or column) in its diagnostics; SQLite in its message. A few
refusals name neither (a too-long value on PostgreSQL, a foreign key on SQLite): the field is then
found from the statement's table and parameters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal

import sqlalchemy as sa

from insureops.schema.catalog import TABLES, TABLES_BY_NAME
from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import constraint_index
from insureops.schema.sql.triggers import APPEND_ONLY_MESSAGE

MESSAGES = {
    "too_long": "is too long",
    "invalid_enum": "is not one of the allowed values",
    "out_of_range": "is out of range",
    "required": "is required",
    "duplicate": "already exists",
    "invalid_reference": "references a row that does not exist",
    "referenced": "still references the row being deleted (RESTRICT)",
    "append_only": "rows are append-only",
    "read_only": "is computed by the database and cannot be written",
}
_STATEMENT_TABLE = re.compile(r"^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(\w+)",
                              re.IGNORECASE)


def _violation(table: str | None, fields: tuple[str, ...], code: str,
               detail: str = "") -> ConstraintViolationError:
    own = [name for name in fields if name != "tenant_id"] or list(fields)
    field = own[-1] if own else None
    where = f"{table}." if table else ""
    names = ", ".join(f"{where}{name}" for name in fields) or (table or "row")
    message = f"{names}: {MESSAGES.get(code, 'is invalid')}"
    if code == "invalid_enum" and table and field:
        message += f" ({', '.join(TABLES_BY_NAME[table].field(field).choices)})"
    if detail:
        message += f" ({detail})"
    return ConstraintViolationError(field, code, message, table=table)


def _statement_table(statement: str | None) -> str | None:
    match = _STATEMENT_TABLE.match(statement or "")
    return match.group(1) if match else None


def _rows(params: object) -> list[Mapping]:
    if isinstance(params, Mapping):
        return [params]
    if isinstance(params, (list, tuple)):
        return [row for row in params if isinstance(row, Mapping)]
    return []


def _find_param(table: str | None, params: object, test) -> str | None:
    """The first column of `table` whose bound value fails `test(field, value)`."""
    if table not in TABLES_BY_NAME:
        return None
    for row in _rows(params):
        for item in TABLES_BY_NAME[table].fields:
            value = row.get(item.name)
            if value is not None and test(item, value):
                return item.name
    return None


def _too_long(item, value) -> bool:
    return item.length is not None and isinstance(value, str) and len(value) > item.length


def _too_big(item, value) -> bool:
    if item.kind != "decimal":
        return False
    return abs(Decimal(str(value))) >= 10 ** (item.precision - item.scale)


def _restricting(table: str | None) -> tuple[str | None, tuple[str, ...]]:
    """For a DELETE from `table`: the RESTRICT foreign key(s) pointing at it."""
    found = [(t.name, f.name) for t in TABLES for f in t.fields
             if f.references and f.references.table == table
             and f.references.on_delete == "RESTRICT"]
    if len(found) == 1:
        return found[0][0], (found[0][1],)
    return (found[0][0] if found else None), tuple(f"{t}.{c}" for t, c in found)


def _from_postgresql(exc: sa.exc.DBAPIError) -> ConstraintViolationError | None:
    diag = getattr(exc.orig, "diag", None)
    state = getattr(exc.orig, "sqlstate", None)
    if diag is None or state is None:
        return None
    table = _statement_table(exc.statement)
    info = constraint_index().get(diag.constraint_name or "")
    if state == "23503" and info:
        if (exc.statement or "").lstrip().upper().startswith("DELETE"):
            return _violation(info.table, info.fields, "referenced")
        return _violation(info.table, info.fields, "invalid_reference")
    if info and state in ("23505", "23514"):
        return _violation(info.table, info.fields, info.code)
    if state == "23502":
        return _violation(diag.table_name or table, (diag.column_name,), "required")
    if state == "22001":
        return _violation(table, tuple(filter(None, [_find_param(table, exc.params, _too_long)])),
                          "too_long")
    if state == "22003":
        return _violation(table, tuple(filter(None, [_find_param(table, exc.params, _too_big)])),
                          "out_of_range")
    if state == "428C9":
        column = re.search(r'column "(\w+)"', diag.message_primary or "")
        return _violation(table, (column.group(1),) if column else (), "read_only")
    if APPEND_ONLY_MESSAGE in (diag.message_primary or ""):
        return _violation(diag.table_name or table, (), "append_only", diag.message_primary)
    return None


def _positional_values(statement: str, params: object) -> dict[str, object]:
    """Column -> raw value of a qmark INSERT (column list) or UPDATE (SET a=?, b=?)."""
    if not isinstance(params, (list, tuple)) or (params and isinstance(params[0], (list, tuple))):
        return {}
    insert = re.search(r"\(([^()]*)\)\s*VALUES", statement, re.IGNORECASE)
    if insert:
        names = [name.strip().strip('"') for name in insert.group(1).split(",")]
    else:
        assignments = re.search(r"\bSET\b(.*?)(?:\bWHERE\b|$)", statement,
                                re.IGNORECASE | re.DOTALL)
        names = re.findall(r"(\w+)\s*=\s*\?", assignments.group(1)) if assignments else []
    return dict(zip(names, params, strict=False))


def _dangling_references(exc: sa.exc.DBAPIError, table: str | None,
                         connection: sa.Connection | None) -> tuple[str, ...]:
    """The foreign-key columns of a refused SQLite write whose referenced row is missing."""
    if table not in TABLES_BY_NAME:
        return ()
    values = _positional_values(exc.statement or "", exc.params)
    found = []
    for item in TABLES_BY_NAME[table].fields:
        if item.references is None or values.get(item.name) is None:
            continue
        if connection is not None and connection.exec_driver_sql(
                f"SELECT 1 FROM {item.references.table} WHERE id = ?",
                (values[item.name],)).first() is not None:
            continue
        found.append(item.name)
    return tuple(found)


def _from_sqlite(exc: sa.exc.DBAPIError,
                 connection: sa.Connection | None) -> ConstraintViolationError | None:
    message = str(exc.orig)
    table = _statement_table(exc.statement)
    if message.startswith("CHECK constraint failed: "):
        info = constraint_index().get(message.removeprefix("CHECK constraint failed: ").strip())
        return _violation(info.table, info.fields, info.code) if info else None
    for prefix, code in (("UNIQUE constraint failed: ", "duplicate"),
                         ("NOT NULL constraint failed: ", "required")):
        if message.startswith(prefix):
            columns = [name.strip().split(".") for name in message.removeprefix(prefix).split(",")]
            return _violation(columns[0][0], tuple(part[-1] for part in columns), code)
    if message.startswith("FOREIGN KEY constraint failed"):
        if (exc.statement or "").lstrip().upper().startswith("DELETE"):
            child, fields = _restricting(table)
            return _violation(child, fields, "referenced")
        return _violation(table, _dangling_references(exc, table, connection), "invalid_reference")
    if message.startswith(APPEND_ONLY_MESSAGE):
        return _violation(table, (), "append_only", message)
    generated = re.match(r'cannot (?:INSERT into|UPDATE) generated column "(\w+)"', message)
    if generated:
        return _violation(table, (generated.group(1),), "read_only")
    return None


def to_violation(exc: sa.exc.DBAPIError,
                 connection: sa.Connection | None = None) -> ConstraintViolationError | None:
    """The field-naming error for a database refusal, or None when it is not a data-rule one.

    With `connection` (the one the write failed on), a refused SQLite foreign key is narrowed
    to the column whose referenced row is missing; without it every given reference is named.
    """
    if exc.orig is not None and type(exc.orig).__module__.startswith("psycopg"):
        return _from_postgresql(exc)
    if exc.orig is not None and type(exc.orig).__module__.startswith("sqlite3"):
        return _from_sqlite(exc, connection)
    return None


@contextmanager
def translated_violations(connection: sa.Connection | None = None) -> Iterator[None]:
    """Re-raise database refusals inside the block as ConstraintViolationError (others unchanged).

    Put it inside the savepoint or transaction of the write, so that `connection` is still usable.
    """
    try:
        yield
    except sa.exc.DBAPIError as exc:
        violation = to_violation(exc, connection)
        if violation is None:
            raise
        raise violation from exc
