"""Rules at work's statements on a tenant database (sync SQLAlchemy Core on a connection the
caller opened, run in a thread): the outbox switches, draining the outbox, reading records
in id order with a server-side cursor, and writing effects once under the ledger's key."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from insureops.platform.rules_studio.work import ledger
from insureops.platform.rules_studio.work.effects import Effect, Execution, plain
from insureops.platform.tenancy.book.records import to_json
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


def _insert(connection: sa.Connection):
    return postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert


def set_switches(connection: sa.Connection, wanted: set[tuple[str, str]]) -> None:
    """Make the outbox switches exactly `wanted` ((record type, event) pairs). Idempotent and
    safe beside another writer doing the same (a request and the dispatcher)."""
    present = {tuple(row) for row in connection.execute(sa.select(ledger.switches))}
    for record_type, event in present - wanted:
        connection.execute(sa.delete(ledger.switches).where(
            ledger.switches.c.record_type == record_type, ledger.switches.c.event == event))
    if wanted - present:
        connection.execute(_insert(connection)(ledger.switches).on_conflict_do_nothing(), [
            {"record_type": t, "event": e} for t, e in sorted(wanted - present)])


def has_pending(connection: sa.Connection, tenant_id: str) -> bool:
    return connection.execute(sa.select(sa.literal(1)).select_from(ledger.outbox).where(
        ledger.outbox.c.tenant_id == tenant_id).limit(1)).first() is not None


def take_pending(connection: sa.Connection, tenant_id: str, limit: int) -> list[dict]:
    """The oldest outbox rows of the tenant (locked on PostgreSQL, skipping those another
    transaction holds), oldest first."""
    query = (sa.select(ledger.outbox).where(ledger.outbox.c.tenant_id == tenant_id)
             .order_by(ledger.outbox.c.id).limit(limit))
    if connection.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    return [dict(row._mapping) for row in connection.execute(query)]


def forget(connection: sa.Connection, outbox_ids: Iterable[int]) -> None:
    ids = list(outbox_ids)
    if ids:
        connection.execute(sa.delete(ledger.outbox).where(ledger.outbox.c.id.in_(ids)))


def stage_events(connection: sa.Connection, rows: list[dict[str, Any]]) -> None:
    """Write webhook events (tenant_id, event_key, event_type, payload text) into the event
    outbox in the caller's transaction (the effects'); a key already there is skipped."""
    if rows:
        connection.execute(_insert(connection)(ledger.event_outbox).on_conflict_do_nothing(
            index_elements=["event_key"]), rows)


def has_events(connection: sa.Connection, tenant_id: str) -> bool:
    return connection.execute(sa.select(sa.literal(1)).select_from(ledger.event_outbox).where(
        ledger.event_outbox.c.tenant_id == tenant_id).limit(1)).first() is not None


def take_events(connection: sa.Connection, tenant_id: str, limit: int,
                lock: bool = False) -> list[dict]:
    """The tenant's oldest staged events, oldest first (`lock`: FOR UPDATE SKIP LOCKED, on
    PostgreSQL: those another relay holds are left to it)."""
    query = (sa.select(ledger.event_outbox).where(ledger.event_outbox.c.tenant_id == tenant_id)
             .order_by(ledger.event_outbox.c.id).limit(limit))
    if lock:
        query = query.with_for_update(skip_locked=True)
    return [dict(row._mapping) for row in connection.execute(query)]


def forget_events(connection: sa.Connection, event_ids: Iterable[int]) -> None:
    ids = list(event_ids)
    if ids:
        connection.execute(sa.delete(ledger.event_outbox).where(
            ledger.event_outbox.c.id.in_(ids)))


def records_by_id(connection: sa.Connection, record_type: str, tenant_id: str,
                  ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """The tenant's records of that type with those ids, as JSON values."""
    table = sa_table(TABLES[record_type])
    rows = connection.execute(sa.select(table).where(table.c.id.in_(list(ids)),
                                                     table.c.tenant_id == tenant_id))
    return {row.id: row_json(row._mapping) for row in rows}


def count_records(connection: sa.Connection, record_type: str, tenant_id: str) -> int:
    table = sa_table(TABLES[record_type])
    return connection.execute(sa.select(sa.func.count()).select_from(table).where(
        table.c.tenant_id == tenant_id)).scalar_one()


def stream_records(connection: sa.Connection, record_type: str, tenant_id: str,
                   after: str | None, batch: int) -> Iterator[list[tuple[uuid.UUID, dict]]]:
    """The tenant's records of that type after the id `after`, in id order, `batch` at a
    time, through a server-side cursor: (id, JSON values) pairs. PostgreSQL: a named psycopg
    cursor on the connection's own transaction, rows as dicts (no ORM row machinery: a book
    is millions of rows); SQLite reads lazily through SQLAlchemy."""
    table = sa_table(TABLES[record_type])
    if connection.dialect.name == "postgresql":
        yield from _stream_postgresql(connection, TABLES[record_type], tenant_id, after, batch)
        return
    query = sa.select(table).where(table.c.tenant_id == tenant_id).order_by(table.c.id)
    if after is not None:
        query = query.where(table.c.id > uuid.UUID(after))
    result = connection.execution_options(stream_results=True, yield_per=batch).execute(query)
    for rows in result.partitions(batch):
        yield [(row.id, row_json(row._mapping)) for row in rows]


def _stream_postgresql(connection: sa.Connection, table: str, tenant_id: str,
                       after: str | None, batch: int) -> Iterator[list[tuple[uuid.UUID, dict]]]:
    from psycopg.rows import dict_row

    connection.exec_driver_sql("SELECT 1")  # begins the transaction the cursor lives in
    driver = connection.connection.driver_connection
    query = f"SELECT * FROM {table} WHERE tenant_id = %s"  # table: one of TABLES' names
    values: tuple = (tenant_id,)
    if after is not None:
        query, values = query + " AND id > %s", (tenant_id, uuid.UUID(after))
    with driver.cursor(name="insureops_book_run", row_factory=dict_row) as cursor:
        cursor.itersize = batch
        cursor.execute(query + " ORDER BY id", values)
        while rows := cursor.fetchmany(batch):
            yield [(row["id"], row_json(row)) for row in rows]


def _audit_row(effect: Effect, execution: Execution, tenant_id: str) -> dict[str, Any]:
    return {"tenant_id": tenant_id, "action": "create", "entity_type": effect.kind,
            "entity_id": effect.values["id"], "actor_id": None,
            "actor_email": f"rules:{execution.ruleset}@{execution.version}"[:255],
            "request_method": "RULES", "user_agent": "insureops rules at work",
            "request_path": f"/api/rules/{execution.source}s/{execution.source_id}/",
            "old_values": None, "new_values": plain(to_json(effect.values))}


def write_effects(connection: sa.Connection, execution: Execution, tenant_id: str,
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
    statement = (_insert(connection)(ledger.effects)
                 .on_conflict_do_nothing(index_elements=list(ledger.EFFECT_KEY))
                 .returning(ledger.effects.c.record_id, ledger.effects.c.record_version,
                            ledger.effects.c.effect))
    new = {tuple(row) for row in connection.execute(statement, rows)}
    written = [e for e in effects if (e.record_id, e.record_version, e.kind) in new]
    for kind, table in EFFECT_TABLES.items():
        values = [e.values for e in written if e.kind == kind]
        if values:
            connection.execute(sa.insert(sa_table(table)), values)
    audits = [_audit_row(e, execution, tenant_id) for e in written if e.kind != "error"]
    if audits:
        connection.execute(sa.insert(sa_table("audit_logs")), audits)
    return written


def held_before(connection: sa.Connection, execution: Execution, tenant_id: str,
                effects: list[Effect]) -> list[Effect]:
    """Those of `effects` the ledger already holds from this same execution (`source`): a
    batch a run wrote and then redid after a crash before its checkpoint. They count as the
    run's effects without being written again."""
    if not effects:
        return []
    found = connection.execute(
        sa.select(ledger.effects.c.record_id, ledger.effects.c.record_version,
                  ledger.effects.c.effect)
        .where(ledger.effects.c.tenant_id == tenant_id,
               ledger.effects.c.rule_id == execution.rule_id,
               ledger.effects.c.rule_version == execution.version,
               ledger.effects.c.source == execution.label,
               ledger.effects.c.record_id.in_({e.record_id for e in effects})))
    held = {tuple(row) for row in found}
    return [e for e in effects if (e.record_id, e.record_version, e.kind) in held]
