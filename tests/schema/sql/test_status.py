"""Status changes through the product's code path: checked, recorded, all-or-nothing."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from insureops.schema.errors import InvalidTransitionError, MissingFieldError, RecordNotFoundError
from insureops.schema.sql.status import change_claim_status, update_status
from insureops.schema.sql.tables import sa_table


def _history(rows, claim_id) -> list[tuple]:
    history = sa_table("claim_status_history")
    return [tuple(row) for row in rows.connection.execute(
        sa.select(history.c.old_status, history.c.new_status, history.c.changed_by, history.c.note)
        .where(history.c.claim_id == claim_id).order_by(history.c.id))]


def test_claim_status_change_writes_one_history_row_when_allowed(rows, tenant_id):
    claim_id, actor = rows.make("claims"), uuid.uuid4()
    changed = change_claim_status(rows.connection, claim_id, "under_review", tenant_id=tenant_id,
                                  changed_by=actor, note="docs received")
    assert changed == {"status": "under_review"}
    assert _history(rows, claim_id)[1:] == [("open", "under_review", actor, "docs received")]
    assert rows.get("claims", claim_id).updated_by == actor


def test_claim_status_change_is_refused_and_nothing_written_when_not_a_move(rows, tenant_id):
    claim_id = rows.make("claims")
    change_claim_status(rows.connection, claim_id, "pending_info", tenant_id=tenant_id)
    with pytest.raises(InvalidTransitionError) as caught:
        change_claim_status(rows.connection, claim_id, "approved", tenant_id=tenant_id)
    assert (caught.value.field, caught.value.code) == ("status", "invalid_transition")
    assert caught.value.allowed == ("under_review", "closed")
    assert rows.get("claims", claim_id).status == "pending_info"
    assert len(_history(rows, claim_id)) == 2


def test_closing_a_claim_is_refused_when_no_closure_reason_is_given(rows, tenant_id):
    claim_id = rows.make("claims")
    with pytest.raises(MissingFieldError) as caught:
        change_claim_status(rows.connection, claim_id, "closed", tenant_id=tenant_id)
    assert caught.value.field == "closure_reason"
    assert rows.get("claims", claim_id).status == "open"
    assert len(_history(rows, claim_id)) == 1


def test_reopen_counts_and_timestamps_when_a_closed_claim_goes_to_open(rows, tenant_id):
    claim_id = rows.make("claims")
    change_claim_status(rows.connection, claim_id, "closed", tenant_id=tenant_id,
                        closure_reason="settled")
    assert rows.get("claims", claim_id).closure_reason == "settled"
    changed = change_claim_status(rows.connection, claim_id, "open", tenant_id=tenant_id)
    claim = rows.get("claims", claim_id)
    assert (claim.status, claim.reopen_count, claim.closure_reason) == ("open", 1, None)
    assert claim.reopened_last_at is not None
    assert changed["reopened_last_at"] == claim.reopened_last_at
    change_claim_status(rows.connection, claim_id, "closed", tenant_id=tenant_id,
                        closure_reason="again")
    change_claim_status(rows.connection, claim_id, "open", tenant_id=tenant_id)
    assert rows.get("claims", claim_id).reopen_count == 2
    assert [new for _, new, _, _ in _history(rows, claim_id)] == [
        "open", "closed", "open", "closed", "open"]


def test_claim_status_change_is_refused_when_the_claim_is_in_another_tenant(rows):
    claim_id = rows.make("claims")
    with pytest.raises(RecordNotFoundError):
        change_claim_status(rows.connection, claim_id, "closed", tenant_id="01JD" + "9" * 22,
                            closure_reason="x")


def test_claim_status_change_records_nothing_when_the_status_is_unchanged(rows, tenant_id):
    claim_id = rows.make("claims")
    assert change_claim_status(rows.connection, claim_id, "open", tenant_id=tenant_id) == {}
    assert len(_history(rows, claim_id)) == 1


@pytest.mark.parametrize(("table_name", "path"), [
    ("policies", ["pending", "bound", "active", "cancelled", "active", "completed"]),
    ("invoices", ["invoiced", "part_paid", "paid", "refunded"]),
    ("tasks", ["in_progress", "done", "open"])])
def test_status_follows_its_machine_when_every_move_is_allowed(rows, tenant_id, table_name, path):
    row_id = rows.make(table_name)
    for state in path:
        assert update_status(rows.connection, table_name, row_id, state, tenant_id=tenant_id) == {
            "status": state}
    assert rows.get(table_name, row_id).status == path[-1]


@pytest.mark.parametrize(("table_name", "path", "refused"), [
    ("policies", ["declined"], "active"), ("policies", ["bound", "active", "expired"], "active"),
    ("policies", [], "active"), ("invoices", ["void"], "paid"), ("invoices", [], "paid")])
def test_status_change_is_refused_and_row_unchanged_when_not_a_move(rows, tenant_id, table_name,
                                                                    path, refused):
    row_id = rows.make(table_name)
    for state in path:
        update_status(rows.connection, table_name, row_id, state, tenant_id=tenant_id)
    before = rows.get(table_name, row_id).status
    with pytest.raises(InvalidTransitionError) as caught:
        update_status(rows.connection, table_name, row_id, refused, tenant_id=tenant_id)
    assert caught.value.to_state == refused and caught.value.from_state == before
    assert rows.get(table_name, row_id).status == before
