"""Triggers hold for plain SQL: auto-updated timestamps, append-only tables, claim history."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa

from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.violations import translated_violations

LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(("table_name", "column"), [
    ("clients", "modified"), ("policies", "modified"), ("claims", "updated_at"),
    ("client_health_profiles", "updated_at")])
def test_timestamp_is_reset_when_the_row_is_updated_by_plain_sql(rows, table_name, column):
    row_id = rows.make(table_name)
    table = sa_table(table_name)
    rows.connection.execute(sa.update(table).where(table.c.id == row_id)
                            .values({column: LONG_AGO}))
    rows.connection.execute(sa.text(f"UPDATE {table_name} SET tenant_id = tenant_id"))
    assert getattr(rows.get(table_name, row_id), column) > LONG_AGO


def test_created_timestamp_is_kept_when_the_row_is_updated(rows):
    client_id = rows.make("clients", created=LONG_AGO)
    rows.connection.execute(sa.text("UPDATE clients SET name = 'renamed'"))
    row = rows.get("clients", client_id)
    assert (row.created, row.name) == (LONG_AGO, "renamed")


def _append_only_refusal(rows, statement: str) -> ConstraintViolationError:
    with pytest.raises(ConstraintViolationError) as caught:
        with rows.connection.begin_nested(), translated_violations(rows.connection):
            rows.connection.execute(sa.text(statement))
    return caught.value


@pytest.mark.parametrize("statement", ["UPDATE audit_logs SET action = 'delete'",
                                       "DELETE FROM audit_logs"])
def test_audit_log_change_is_refused_when_made_by_plain_sql(rows, statement):
    rows.make("audit_logs", action="create")
    error = _append_only_refusal(rows, statement)
    assert (error.code, error.table) == ("append_only", "audit_logs")
    action = rows.connection.execute(sa.text("SELECT action FROM audit_logs")).scalar_one()
    assert action == "create"


@pytest.mark.parametrize("statement", ["UPDATE claim_status_history SET note = 'edited'",
                                       "DELETE FROM claim_status_history"])
def test_claim_status_history_change_is_refused_when_made_by_plain_sql(rows, statement):
    rows.make("claims")
    error = _append_only_refusal(rows, statement)
    assert (error.code, error.table) == ("append_only", "claim_status_history")
    assert rows.count("claim_status_history") == 1


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)  # SQLite has no TRUNCATE
def test_audit_logs_truncate_is_refused_when_on_postgresql(rows):
    rows.make("audit_logs")
    error = _append_only_refusal(rows, "TRUNCATE audit_logs")
    assert error.code == "append_only"


def test_claim_status_history_goes_with_its_claim_when_the_claim_is_deleted(rows):
    claim_id = rows.make("claims")
    rows.connection.execute(sa.text("UPDATE claims SET status = 'under_review'"))
    assert rows.count("claim_status_history") == 2
    claims = sa_table("claims")
    rows.connection.execute(sa.delete(claims).where(claims.c.id == claim_id))
    assert rows.count("claim_status_history") == 0


def _history(rows) -> list[tuple]:
    history = sa_table("claim_status_history")
    return [tuple(row) for row in rows.connection.execute(
        sa.select(history.c.old_status, history.c.new_status, history.c.changed_by, history.c.note)
        .order_by(history.c.id))]


def test_history_records_the_initial_status_when_a_claim_is_inserted(rows):
    import uuid

    actor = uuid.uuid4()
    rows.make("claims", created_by=actor)
    assert _history(rows) == [(None, "open", actor, None)]


def test_history_records_the_change_when_status_is_changed_by_plain_sql(rows):
    rows.make("claims")
    rows.connection.execute(sa.text("UPDATE claims SET status = 'pending_info'"))
    rows.connection.execute(sa.text("UPDATE claims SET priority = 'high'"))
    old, new, _, note = _history(rows)[-1]
    assert (old, new) == ("open", "pending_info")
    assert "outside the application" in note
    assert len(_history(rows)) == 2
