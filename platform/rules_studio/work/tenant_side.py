"""Rules at work's statements on a tenant database, on a connection of its one store (the
`RecordsConnection` a `TenantStore.run_statements` work is given, PostgreSQL or SQLite): the
outbox switches, draining the outbox, reading the book in id order a page at a time (keyset:
bounded memory, no connection held between pages), and writing effects once under the ledger's
key. None opens a connection or commits."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable
from decimal import Decimal
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from insureops.platform.data.direct import Statement, with_python_defaults
from insureops.platform.rules_studio.work import ledger
from insureops.platform.rules_studio.work.effects import Effect, Execution, plain
from insureops.platform.tenancy.book.records import to_json
from insureops.platform.tenancy.book.repository import RecordsConnection
from insureops.schema.sql.tables import sa_table

TABLES = {"client": "clients", "policy": "policies", "claim": "claims",
          "uw_submission": "uw_submissions"}
EFFECT_TABLES = {"uw_score": "uw_scores", "task": "tasks"}


def _decimal(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


# A column value's JSON form by its Python type (as tenancy.book.records.to_json gives it);
# a type not here is already a JSON value. One dict look-up per value: a book run converts
# every column of millions of rows.
_CONVERT: dict[type, Any] = {uuid.UUID: str, datetime.date: datetime.date.isoformat,
                             datetime.datetime: datetime.datetime.isoformat,
                             Decimal: _decimal}


def row_json(row: Any) -> dict[str, Any]:
    """A row mapping as JSON values: `to_json`'s conversion, faster."""
    convert = _CONVERT.get
    found = {}
    for name, value in row.items():
        if value is not None:
            change = convert(type(value))
            if change is not None:
                value = change(value)
        found[name] = value
    return found


INSERT_ROWS = 500  # rows per multi-row INSERT (bounds its parameters on both backends)


def _insert(connection: RecordsConnection):
    return postgresql.insert if connection.dialect == "postgresql" else sqlite.insert


async def _insert_rows(connection: RecordsConnection, table: sa.Table, rows: list[dict],
                       build=None) -> list[dict]:
    """Insert `rows` (Python-side defaults filled in), INSERT_ROWS to a statement; `build`
    finishes each statement (ON CONFLICT, RETURNING); the rows returned, when it returns."""
    returned: list[dict] = []
    groups: dict[frozenset, list[dict]] = {}
    for row in rows:
        full = with_python_defaults(table, row)
        groups.setdefault(frozenset(full), []).append(full)
    for group in groups.values():
        for start in range(0, len(group), INSERT_ROWS):
            statement = _insert(connection)(table).values(group[start:start + INSERT_ROWS])
            if build is not None:
                statement = build(statement)
            if statement._returning:
                returned += await connection.all(statement, {})
            else:
                await connection.execute(statement, {})
    return returned


def _ids(column: sa.Column, values: Iterable) -> sa.ColumnElement[bool]:
    """`column IN (...)` with one bound parameter per value (compiled for this call)."""
    return column.in_([sa.bindparam(f"in_{i}", value, type_=column.type)
                       for i, value in enumerate(values)])


async def set_switches(connection: RecordsConnection, wanted: set[tuple[str, str]]) -> None:
    """Make the outbox switches exactly `wanted` ((record type, event) pairs). Idempotent and
    safe beside another writer doing the same (a request and the dispatcher)."""
    present = {(row["record_type"], row["event"])
               for row in await connection.all(sa.select(ledger.switches), {})}
    for record_type, event in present - wanted:
        await connection.execute(sa.delete(ledger.switches).where(
            ledger.switches.c.record_type == record_type, ledger.switches.c.event == event), {})
    if wanted - present:
        await _insert_rows(connection, ledger.switches,
                           [{"record_type": t, "event": e} for t, e in sorted(wanted - present)],
                           lambda statement: statement.on_conflict_do_nothing())


@cache
def _exists(table: sa.Table) -> Statement:
    return Statement(sa.select(sa.literal(1).label("found")).select_from(table).where(
        table.c.tenant_id == sa.bindparam("tenant_id")).limit(1))


async def has_pending(connection: RecordsConnection, tenant_id: str) -> bool:
    return await connection.first(_exists(ledger.outbox), {"tenant_id": tenant_id}) is not None


@cache
def _oldest(table: sa.Table) -> Statement:
    """The tenant's oldest rows of an outbox (PostgreSQL: locked, skipping those another
    transaction holds; SQLite has no row locks and takes its write lock at BEGIN)."""
    return Statement(sa.select(table).where(table.c.tenant_id == sa.bindparam("tenant_id"))
                     .order_by(table.c.id).limit(sa.bindparam("limit", type_=sa.Integer))
                     .with_for_update(skip_locked=True))


async def take_pending(connection: RecordsConnection, tenant_id: str,
                       limit: int) -> list[dict]:
    """The oldest outbox rows of the tenant (locked on PostgreSQL, skipping those another
    transaction holds), oldest first."""
    return await connection.all(_oldest(ledger.outbox), {"tenant_id": tenant_id,
                                                          "limit": limit})


async def forget(connection: RecordsConnection, outbox_ids: Iterable[int]) -> None:
    ids = list(outbox_ids)
    if ids:
        await connection.execute(sa.delete(ledger.outbox).where(
            _ids(ledger.outbox.c.id, ids)), {})


async def stage_events(connection: RecordsConnection, rows: list[dict[str, Any]]) -> None:
    """Write webhook events (tenant_id, event_key, event_type, payload text) into the event
    outbox in the caller's transaction (the effects'); a key already there is skipped."""
    if rows:
        await _insert_rows(connection, ledger.event_outbox, rows,
                           lambda statement: statement.on_conflict_do_nothing(
                               index_elements=["event_key"]))


async def has_events(connection: RecordsConnection, tenant_id: str) -> bool:
    return await connection.first(_exists(ledger.event_outbox),
                                  {"tenant_id": tenant_id}) is not None


@cache
def _staged_events() -> Statement:
    table = ledger.event_outbox
    return Statement(sa.select(table).where(table.c.tenant_id == sa.bindparam("tenant_id"))
                     .order_by(table.c.id).limit(sa.bindparam("limit", type_=sa.Integer)))


async def take_events(connection: RecordsConnection, tenant_id: str,
                      limit: int) -> list[dict]:
    """The tenant's oldest staged events, oldest first."""
    return await connection.all(_staged_events(), {"tenant_id": tenant_id, "limit": limit})


async def forget_events(connection: RecordsConnection, event_ids: Iterable[int]) -> None:
    ids = list(event_ids)
    if ids:
        await connection.execute(sa.delete(ledger.event_outbox).where(
            _ids(ledger.event_outbox.c.id, ids)), {})


async def records_by_id(connection: RecordsConnection, record_type: str, tenant_id: str,
                        ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """The tenant's records of that type with those ids, as JSON values."""
    table = sa_table(TABLES[record_type])
    rows = await connection.all(sa.select(table).where(
        _ids(table.c.id, list(ids)), table.c.tenant_id == tenant_id), {})
    return {row["id"]: row_json(row) for row in rows}


@cache
def _count(table_name: str) -> Statement:
    table = sa_table(table_name)
    return Statement(sa.select(sa.func.count().label("count")).select_from(table).where(
        table.c.tenant_id == sa.bindparam("tenant_id")))


async def count_records(connection: RecordsConnection, record_type: str,
                        tenant_id: str) -> int:
    return (await connection.one(_count(TABLES[record_type]), {"tenant_id": tenant_id}))["count"]


@cache
def _page(table_name: str, after: bool, limit: int) -> Statement:
    # the limit written in the SQL (a setting: one statement per process), so that PostgreSQL
    # plans the page as an index range scan of `limit` rows even once psycopg prepares it
    table = sa_table(table_name)
    query = sa.select(table).where(table.c.tenant_id == sa.bindparam("tenant_id"))
    if after:
        query = query.where(table.c.id > sa.bindparam("after", type_=table.c.id.type))
    return Statement(query.order_by(table.c.id).limit(sa.literal_column(str(int(limit)))))


async def page_records(connection: RecordsConnection, record_type: str, tenant_id: str,
                       after: str | None, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` of the tenant's records of that type after the id `after`, in id order
    (the driver's values: `row_json` makes them JSON values, off the loop). A run
    reads its book a page at a time from its checkpoint: memory bounded by the page, no
    connection or transaction held between pages (nor through a run of hours)."""
    values: dict[str, Any] = {"tenant_id": tenant_id}
    if after is not None:
        values["after"] = uuid.UUID(after)
    return await connection.all(_page(TABLES[record_type], after is not None, limit), values,
                                convert=False)


def _audit_row(effect: Effect, execution: Execution, tenant_id: str) -> dict[str, Any]:
    return {"tenant_id": tenant_id, "action": "create", "entity_type": effect.kind,
            "entity_id": effect.values["id"], "actor_id": None,
            "actor_email": f"rules:{execution.ruleset}@{execution.version}"[:255],
            "request_method": "RULES", "user_agent": "insureops rules at work",
            "request_path": f"/api/rules/{execution.source}s/{execution.source_id}/",
            "old_values": None, "new_values": plain(to_json(effect.values))}


async def write_effects(connection: RecordsConnection, execution: Execution, tenant_id: str,
                        effects: list[Effect]) -> list[Effect]:
    """Write each effect not yet in the ledger for its key (ruleset version, record, record
    version, kind): the ledger row, the uw_scores or tasks row and its audit row, in the
    caller's transaction. The database's unique key decides, so concurrent writers (two
    workers, a binding and a run) write each effect once. The effects written now."""
    if not effects:
        return []
    rows = [{"tenant_id": tenant_id, "rule_id": execution.rule_id,
             "rule_version": execution.version, "record_type": e.record_type,
             "record_id": e.record_id, "record_version": e.record_version, "effect": e.kind,
             "effect_id": e.values.get("id"), "source": execution.label, "error": e.error}
            for e in effects]
    returned = await _insert_rows(
        connection, ledger.effects, rows,
        lambda statement: statement.on_conflict_do_nothing(
            index_elements=list(ledger.EFFECT_KEY)).returning(
            ledger.effects.c.record_id, ledger.effects.c.record_version,
            ledger.effects.c.effect))
    new = {(row["record_id"], row["record_version"], row["effect"]) for row in returned}
    written = [e for e in effects if (e.record_id, e.record_version, e.kind) in new]
    for kind, table in EFFECT_TABLES.items():
        values = [e.values for e in written if e.kind == kind]
        if values:
            await _insert_rows(connection, sa_table(table), values)
    audits = [_audit_row(e, execution, tenant_id) for e in written if e.kind != "error"]
    if audits:
        await _insert_rows(connection, sa_table("audit_logs"), audits)
    return written


async def held_before(connection: RecordsConnection, execution: Execution, tenant_id: str,
                      effects: list[Effect]) -> list[Effect]:
    """Those of `effects` the ledger already holds from this same execution (`source`): a
    batch a run wrote and then redid after a crash before its checkpoint. They count as the
    run's effects without being written again."""
    if not effects:
        return []
    found = await connection.all(
        sa.select(ledger.effects.c.record_id, ledger.effects.c.record_version,
                  ledger.effects.c.effect)
        .where(ledger.effects.c.tenant_id == tenant_id,
               ledger.effects.c.rule_id == execution.rule_id,
               ledger.effects.c.rule_version == execution.version,
               ledger.effects.c.source == execution.label,
               _ids(ledger.effects.c.record_id, {e.record_id for e in effects})), {})
    held = {(row["record_id"], row["record_version"], row["effect"]) for row in found}
    return [e for e in effects if (e.record_id, e.record_version, e.kind) in held]
