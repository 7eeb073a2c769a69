"""Durations, month-end clamping and value formatting (engine/ir/values.py)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from engine_ir_builders import binary, days, lit, months, neg, value_of

from insureops.engine.ir.values import Duration, add_months, format_literal, format_plain, kind_of


@pytest.mark.parametrize(("start", "added", "expected"), [
    (date(2025, 1, 31), 1, date(2025, 2, 28)),
    (date(2024, 1, 31), 1, date(2024, 2, 29)),
    (date(2024, 2, 29), 12, date(2025, 2, 28)),
    (date(2024, 2, 29), 48, date(2028, 2, 29)),
    (date(2025, 3, 31), -1, date(2025, 2, 28)),
    (date(2025, 12, 15), 1, date(2026, 1, 15)),
    (date(2025, 1, 15), -13, date(2023, 12, 15)),
])
def test_months_clamp_to_month_end_when_the_day_does_not_exist(start, added, expected):
    assert add_months(start, added) == expected


def test_duration_units_are_kept_as_months_and_days_when_built_from_units():
    assert Duration.of(1, "year") == Duration(months=12)
    assert Duration.of(2, "week") == Duration(days=14)
    assert Duration.of(90, "day") == Duration(days=90)
    with pytest.raises(ValueError):
        Duration.of(1, "fortnight")


def test_date_plus_month_clamps_when_evaluated_in_a_rule():
    assert value_of(binary("+", lit(date(2024, 1, 31)), lit(months(1)))) == date(2024, 2, 29)
    assert value_of(binary("-", lit(date(2025, 3, 31)), lit(months(1)))) == date(2025, 2, 28)


def test_date_minus_date_gives_days_when_subtracted():
    assert value_of(binary("-", lit(date(2025, 3, 1)), lit(date(2025, 2, 1)))) == days(28)


def test_datetime_plus_duration_keeps_time_and_offset_when_shifted():
    moment = datetime(2025, 1, 31, 10, 30, tzinfo=timezone.utc)
    shifted = value_of(binary("+", lit(moment), lit(Duration(months=1, days=2))))
    assert shifted == datetime(2025, 3, 2, 10, 30, tzinfo=timezone.utc)


def test_durations_add_and_negate_when_combined():
    assert value_of(binary("+", lit(months(1)), lit(days(3)))) == Duration(1, 3)
    assert value_of(neg(lit(Duration(1, 3)))) == Duration(-1, -3)
    assert value_of(binary("-", lit(days(10)), lit(days(3)))) == days(7)


def test_duration_renders_iso_and_words_when_formatted():
    assert Duration(6, 0).iso() == "P6M"
    assert Duration(1, 3).iso() == "P1M3D"
    assert Duration().iso() == "P0D"
    assert str(Duration(1, 1)) == "1 month 1 day"
    assert str(Duration(0, 90)) == "90 days"


def test_values_format_as_the_language_writes_them_when_shown():
    assert format_plain(Decimal("1.20")) == "1.20"
    assert format_plain(Decimal("5E+6")) == "5000000"
    assert format_plain("CA") == "CA"
    assert format_plain(None) == "null"
    assert format_literal("CA") == '"CA"'
    assert format_literal(frozenset({"TX", "AZ"})) == '{"AZ", "TX"}'
    assert format_literal(Decimal("5200000"), grouping=True) == "5,200,000"
    assert format_literal([True, False, date(2025, 1, 2)]) == "[true, false, 2025-01-02]"


def test_kind_names_are_the_language_types_when_reported():
    assert [kind_of(v) for v in (None, True, Decimal(1), "a", date(2025, 1, 1), days(1), [],
                                  frozenset(), {})] == [
        "null", "boolean", "number", "string", "date", "duration", "list", "set", "object"]
    assert kind_of(datetime(2025, 1, 1, tzinfo=timezone.utc)) == "datetime"
