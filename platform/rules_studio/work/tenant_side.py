"""Rules at work's statements on a tenant database (sync SQLAlchemy Core on a connection the
caller opened, run in a thread): the outbox switches, draining the outbox, reading records
in id order with a server-side cursor, and writing effects once under the ledger's key."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Iterator
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


def record_version(values: dict[str, Any]) -> str:
    """A digest of the record as read (JSON values, `modified`/`updated_at` included where the
    table has them): equal for an unchanged record however it is read, new after any write."""
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _insert(connection: sa.Connection):
    return postgresql.insert if connection.dialect.name == "postgresql" else sqlite.insert


def set_switches(connection: sa.Connection, wanted: set[tuple[str, str]]) -> None:
    """Make the outbox switches exactly `wanted` ((record type, event) pairs)."""
    present = {tuple(row) for row in connection.execute(sa.select(ledger.switches))}
    for record_type, event in present - wanted:
        connection.execute(sa.delete(ledger.switches).where(
            ledger.switches.c.record_type == record_type, ledger.switches.c.event == event))
    if wanted - present:
        connection.execute(sa.insert(ledger.switches), [
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


def records_by_id(connection: sa.Connection, record_type: str, tenant_id: str,
                  ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """The tenant's records of that type with those ids, as JSON values."""
    table = sa_table(TABLES[record_type])
    rows = connection.execute(sa.select(table).where(table.c.id.in_(list(ids)),
                                                     table.c.tenant_id == tenant_id))
    return {row.id: to_json(row._mapping) for row in rows}


def count_records(connection: sa.Connection, record_type: str, tenant_id: str) -> int:
    table = sa_table(TABLES[record_type])
    return connection.execute(sa.select(sa.func.count()).select_from(table).where(
        table.c.tenant_id == tenant_id)).scalar_one()


def stream_records(connection: sa.Connection, record_type: str, tenant_id: str,
                   after: str | None, batch: int) -> Iterator[list[tuple[uuid.UUID, dict]]]:
    """The tenant's records of that type after the id `after`, in id order, `batch` at a
    time, through a server-side cursor (PostgreSQL: a named cursor; SQLite reads lazily):
    (id, JSON values) pairs."""
    table = sa_table(TABLES[record_type])
    query = sa.select(table).where(table.c.tenant_id == tenant_id).order_by(table.c.id)
    if after is not None:
        query = query.where(table.c.id > uuid.UUID(after))
    result = connection.execution_options(stream_results=True, yield_per=batch).execute(query)
    for rows in result.partitions(batch):
        yield [(row.id, to_json(row._mapping)) for row in rows]


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
