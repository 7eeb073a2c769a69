"""Status changes through the product's code path: validated, bookkept, recorded, all-or-nothing.

Every function takes an open Connection and works inside a SAVEPOINT: when a check or a write
fails, nothing of the change remains and the caller's transaction goes on.
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa

from insureops.schema.errors import RecordNotFoundError, SchemaError
from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.types import utc_now
from insureops.schema.sql.violations import translated_violations
from insureops.schema.state_machines import MACHINES, plan_claim_status_change, validate_transition


def _current(connection: sa.Connection, table: sa.Table, record_id: uuid.UUID, tenant_id: str,
             columns: list[str]) -> sa.Row:
    query = (sa.select(*[table.c[name] for name in columns])
             .where(table.c.id == record_id, table.c.tenant_id == tenant_id))
    if connection.dialect.name == "postgresql":
        query = query.with_for_update()
    row = connection.execute(query).first()
    if row is None:
        raise RecordNotFoundError(f"{table.name}: no row {record_id} in tenant {tenant_id}",
                                  field="id")
    return row


def change_claim_status(connection: sa.Connection, claim_id: uuid.UUID, new_status: str, *,
                        tenant_id: str, changed_by: uuid.UUID | None = None,
                        note: str | None = None, closure_reason: str | None = None) -> dict:
    """Move a claim to `new_status`; returns the columns that changed ({} when it already was).

    Checks the claim state machine; closing needs `closure_reason`; a reopen (closed -> open)
    counts up reopen_count and sets reopened_last_at; appends claim_status_history (with actor
    and note) and updates the claim (updated_by = changed_by) in one savepoint.
    """
    claims, history = sa_table("claims"), sa_table("claim_status_history")
    with connection.begin_nested(), translated_violations(connection):
        row = _current(connection, claims, claim_id, tenant_id, ["status", "reopen_count"])
        values = plan_claim_status_change(row._mapping, new_status, at=utc_now(),
                                          closure_reason=closure_reason)
        if row.status == new_status:
            return {}
        connection.execute(sa.insert(history).values(
            claim_id=claim_id, old_status=row.status, new_status=new_status,
            changed_by=changed_by, note=note))
        connection.execute(sa.update(claims).where(claims.c.id == claim_id)
                           .values(**values, updated_by=changed_by))
        changed = connection.execute(sa.select(*[claims.c[name] for name in values])
                                     .where(claims.c.id == claim_id)).one()
    return dict(changed._mapping)


def update_status(connection: sa.Connection, table_name: str, record_id: uuid.UUID,
                  new_status: str, *, tenant_id: str) -> dict:
    """Move a policy, invoice or task to `new_status` after checking its state machine."""
    if table_name == "claims":
        raise SchemaError("claims change status through change_claim_status (history, reopen)",
                          field="status")
    if table_name not in MACHINES:
        raise SchemaError(f"{table_name} has no state machine", field="status")
    table = sa_table(table_name)
    with connection.begin_nested(), translated_violations(connection):
        row = _current(connection, table, record_id, tenant_id, ["status"])
        validate_transition(MACHINES[table_name], row.status, new_status)
        if row.status == new_status:
            return {}
        connection.execute(sa.update(table).where(table.c.id == record_id)
                           .values(status=new_status))
    return {"status": new_status}
