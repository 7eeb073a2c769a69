"""Each data rule of the tenant database holds on both engines, and a refusal names its field."""

from __future__ import annotations

from decimal import Decimal

import pytest
import sqlalchemy as sa

from insureops.schema.errors import ConstraintViolationError
from insureops.schema.sql.tables import sa_table
from insureops.schema.sql.violations import translated_violations

TOO_LONG = [("clients", "name", 256), ("clients", "tax_id_last4", 5),
            ("policies", "policy_number", 51),
            ("audit_logs", "action", 51), ("clients", "tenant_id", 27)]
BAD_ENUM = [("policies", "status"), ("policies", "line_of_business"), ("claims", "claim_type"),
            ("claims", "loss_cause"), ("claims", "priority"), ("invoices", "status"),
            ("invoice_items", "item_type"), ("invoice_payments", "method"),
            ("policy_endorsements", "action"), ("claim_payments", "type"),
            ("claim_recoveries", "type"), ("uw_submissions", "lob"), ("tasks", "priority"),
            ("claim_notes", "visibility")]


def refused(rows, table_name: str, **values) -> ConstraintViolationError:
    """Insert a row that must be refused; check nothing of it was written; return the error."""
    before = rows.count(table_name)
    with pytest.raises(ConstraintViolationError) as caught:
        with rows.connection.begin_nested(), translated_violations(rows.connection):
            rows.make(table_name, **values)
    assert rows.count(table_name) == before
    return caught.value


@pytest.mark.parametrize(("table_name", "field", "length"), TOO_LONG)
def test_value_is_refused_naming_the_field_when_longer_than_its_length(rows, table_name, field,
                                                                       length):
    error = refused(rows, table_name, **{field: "x" * length})
    assert (error.field, error.code, error.table) == (field, "too_long", table_name)
    assert f"{table_name}.{field}" in error.message


def test_value_is_accepted_when_exactly_at_its_length(rows):
    client_id = rows.make("clients", name="n" * 255, tax_id_last4="1234")
    assert rows.get("clients", client_id).name == "n" * 255


@pytest.mark.parametrize(("table_name", "field"), BAD_ENUM)
def test_value_is_refused_naming_the_field_when_not_in_its_enumeration(rows, table_name, field):
    error = refused(rows, table_name, **{field: "bogus"})
    assert (error.field, error.code) == (field, "invalid_enum")


def test_currency_code_is_refused_when_not_three_characters(rows):
    error = refused(rows, "invoices", currency_code="EU")
    assert (error.field, error.code) == ("currency_code", "too_long")


def test_policy_number_is_refused_when_duplicated_in_one_tenant(rows):
    rows.make("policies", policy_number="P-1")
    error = refused(rows, "policies", policy_number="P-1")
    assert (error.field, error.code) == ("policy_number", "duplicate")
    assert "policies.tenant_id, policies.policy_number" in error.message


def test_policy_number_is_accepted_when_repeated_in_another_tenant(rows):
    rows.make("policies", policy_number="P-1")
    rows.make("policies", policy_number="P-1", tenant_id="01JD0000000000000000000001")
    assert rows.count("policies") == 2


def test_policy_number_may_be_absent_on_several_policies_of_one_tenant(rows):
    rows.make("policies")
    rows.make("policies")
    assert rows.count("policies") == 2


@pytest.mark.parametrize(("table_name", "field"), [
    ("clients", "uuid"), ("policies", "uuid"), ("claims", "uuid"), ("claims", "claim_number"),
    ("invoices", "invoice_number")])
def test_value_is_refused_when_duplicating_a_unique_field(rows, table_name, field):
    import uuid

    value = uuid.uuid4() if field == "uuid" else "N-1"
    rows.make(table_name, **{field: value})
    error = refused(rows, table_name, **{field: value})
    assert (error.field, error.code) == (field, "duplicate")


@pytest.mark.parametrize("share", [Decimal("100.01"), Decimal("-0.01"), Decimal(250)])
def test_share_percent_is_refused_when_outside_0_to_100(rows, share):
    error = refused(rows, "policy_beneficiaries", share_percent=share)
    assert (error.field, error.code) == ("share_percent", "out_of_range")


@pytest.mark.parametrize("share", [Decimal(0), Decimal(100), Decimal("33.33")])
def test_share_percent_is_accepted_when_within_0_to_100(rows, share):
    row_id = rows.make("policy_beneficiaries", share_percent=share)
    assert rows.get("policy_beneficiaries", row_id).share_percent == share


def test_amount_is_refused_when_exceeding_its_precision(rows):
    error = refused(rows, "policies", premium=Decimal("10000000000.00"))
    assert (error.field, error.code) == ("premium", "out_of_range")


@pytest.mark.parametrize(("table_name", "field"), [
    ("clients", "name"), ("claims", "loss_occurred_at"), ("invoice_items", "amount"),
    ("consents", "granted"), ("policy_endorsements", "effective_date")])
def test_row_is_refused_naming_the_field_when_a_required_field_is_null(rows, table_name, field):
    error = refused(rows, table_name, **{field: None})
    assert (error.field, error.code) == (field, "required")


def test_reference_is_refused_when_the_parent_does_not_exist(rows):
    import uuid

    error = refused(rows, "claims", policy_id=uuid.uuid4())
    assert (error.field, error.code) == ("policy_id", "invalid_reference")
    assert "claims.policy_id" in error.message


def test_net_amount_is_refused_when_written_directly(rows):
    error = refused(rows, "claim_payments", gross_amount=Decimal(10), net_amount=Decimal(9))
    assert (error.field, error.code) == ("net_amount", "read_only")


def test_net_amount_is_gross_minus_tax_when_a_payment_is_stored(rows):
    payment_id = rows.make("claim_payments", gross_amount=Decimal("100.10"),
                           tax_amount=Decimal("0.07"))
    assert rows.get("claim_payments", payment_id).net_amount == Decimal("100.03")
    payments = sa_table("claim_payments")
    rows.connection.execute(sa.update(payments).values(tax_amount=Decimal("10.10")))
    assert rows.get("claim_payments", payment_id).net_amount == Decimal("90.00")


@pytest.mark.parametrize(("table_name", "field", "expected"), [
    ("policies", "status", "quote"), ("claims", "status", "open"), ("claims", "priority", "normal"),
    ("claims", "currency_code", "USD"), ("claims", "reopen_count", 0),
    ("claims", "deductible_amount", Decimal("0.00")), ("invoices", "status", "draft"),
    ("tasks", "status", "open"), ("tasks", "priority", "normal"), ("producers", "active", True),
    ("clients", "marketing_opt_in", False), ("claim_notes", "visibility", "internal"),
    ("policy_endorsements", "premium_delta", Decimal("0.00"))])
def test_field_takes_its_default_when_a_row_is_inserted_by_plain_sql(rows, table_name, field,
                                                                     expected):
    row_id = rows.make_plain(table_name)
    assert getattr(rows.get(table_name, row_id), field) == expected


@pytest.mark.parametrize("table_name", ["clients", "policies", "claims", "audit_logs"])
def test_keys_and_timestamps_are_generated_when_a_row_is_inserted_by_plain_sql(rows, table_name):
    row_id = rows.make_plain(table_name)
    row = rows.get(table_name, row_id)._mapping
    for name in ("uuid", "created", "modified", "created_at", "updated_at"):
        if name in row:
            assert row[name] is not None, name


def test_earlier_writes_are_undone_when_a_later_write_of_the_same_change_is_refused(rows):
    with pytest.raises(ConstraintViolationError) as caught:
        with rows.connection.begin_nested(), translated_violations(rows.connection):
            policy_id = rows.make("policies", policy_number="P-9")
            rows.make("policy_beneficiaries", policy_id=policy_id, share_percent=Decimal("101"))
    assert caught.value.field == "share_percent"
    assert (rows.count("policies"), rows.count("policy_beneficiaries")) == (0, 0)


def test_database_error_passes_unchanged_when_it_is_not_a_data_rule(rows):
    with pytest.raises(sa.exc.DBAPIError) as caught:
        with rows.connection.begin_nested(), translated_violations(rows.connection):
            rows.connection.execute(sa.text("SELECT no_such_column FROM clients"))
    assert not isinstance(caught.value, ConstraintViolationError)


def test_reference_is_refused_naming_the_field_when_an_update_points_nowhere(rows):
    import uuid

    claim_id = rows.make("claims")
    claims = sa_table("claims")
    with pytest.raises(ConstraintViolationError) as caught:
        with rows.connection.begin_nested(), translated_violations(rows.connection):
            rows.connection.execute(sa.update(claims).where(claims.c.id == claim_id)
                                    .values(claimant_id=uuid.uuid4(), priority="high"))
    assert (caught.value.field, caught.value.code) == ("claimant_id", "invalid_reference")
    assert rows.get("claims", claim_id).priority == "normal"
