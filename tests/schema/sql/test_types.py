"""Values round-trip exactly on both engines: decimals, timestamps, IP addresses, JSON, arrays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
import sqlalchemy as sa

AMOUNTS = [Decimal("9999999999.99"), Decimal("-9999999999.99"), Decimal("0.01"), Decimal("0.10"),
           Decimal("1234567.89"), Decimal("0")]


@pytest.mark.parametrize("amount", AMOUNTS)
def test_decimal_amount_round_trips_exactly_when_stored(rows, amount):
    policy_id = rows.make("policies", premium=amount)
    stored = rows.get("policies", policy_id).premium
    assert stored == amount and str(stored) == str(amount.quantize(Decimal("0.01")))


def test_decimal_is_rounded_half_up_to_its_scale_when_given_more_places(rows):
    policy_id = rows.make("policies", premium=Decimal("10.005"), commission_rate=Decimal("-2.345"))
    row = rows.get("policies", policy_id)
    assert (row.premium, row.commission_rate) == (Decimal("10.01"), Decimal("-2.35"))


def test_timestamp_comes_back_aware_in_utc_when_stored_with_another_offset(rows):
    moment = datetime(2026, 5, 1, 9, 15, 30, 123456, tzinfo=timezone(timedelta(hours=2)))
    claim_id = rows.make("claims", loss_occurred_at=moment)
    stored = rows.get("claims", claim_id).loss_occurred_at
    assert stored == moment and stored.tzinfo == UTC


def test_timestamp_is_refused_when_naive(rows):
    with pytest.raises(sa.exc.StatementError, match="has no time zone"):
        rows.make("claims", loss_occurred_at=datetime(2026, 5, 1, 9, 15))


@pytest.mark.parametrize("address", ["203.0.113.7", "2001:db8::1", "10.0.0.0/8"])
def test_ip_address_round_trips_as_text_when_stored(rows, address):
    log_id = rows.make("audit_logs", ip_address=address)
    assert rows.get("audit_logs", log_id).ip_address == address


def test_ip_address_is_refused_when_not_an_address(rows):
    with pytest.raises(sa.exc.StatementError, match="not an IP address"):
        rows.make("audit_logs", ip_address="example.org")


def test_json_and_text_array_round_trip_when_stored(rows):
    claim_id = rows.make("claims", fraud_flags=["late_report", "prior_claims"])
    log_id = rows.make("audit_logs", new_values={"name": "Ada", "limits": [1, 2.5, None]})
    assert rows.get("claims", claim_id).fraud_flags == ["late_report", "prior_claims"]
    assert rows.get("audit_logs", log_id).new_values == {"name": "Ada", "limits": [1, 2.5, None]}
    assert rows.get("audit_logs", log_id).old_values is None
