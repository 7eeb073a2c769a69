"""Input data -> runtime values by JSON Schema (engine/inputs/conversion.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from engine_ir_builders import build, rule, ruleset

from insureops.engine.inputs.conversion import InputConverter, convert_input
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.limits import Limits
from insureops.schema.registry import default_registry

SCHEMA = {
    "type": "object",
    "properties": {
        "founded_on": {"type": ["string", "null"], "format": "date"},
        "seen_at": {"type": "string", "format": "date-time"},
        "name": {"type": "string"},
        "claims": {"type": "array", "items": {"$ref": "#/$defs/claim"}},
        "dates": {"type": "array", "items": {"type": "string", "format": "date"}},
        "either": {"anyOf": [{"type": "null"}, {"type": "string", "format": "date"}]},
        "extra": {"type": "object", "additionalProperties": {"type": "string",
                                                             "format": "date"}},
    },
    "$defs": {"claim": {"type": "object",
                        "properties": {"on": {"type": "string", "format": "date"}}}},
}


def convert(value, schema=SCHEMA, limits=Limits()):
    return convert_input("business", value, schema, limits)


def test_numbers_become_exact_decimals_when_converted():
    converted = convert({"i": 5, "f": 0.1, "d": Decimal("1.20"), "n": [1, 2.5], "b": True})
    assert converted == {"i": Decimal(5), "f": Decimal("0.1"), "d": Decimal("1.20"),
                         "n": [Decimal(1), Decimal("2.5")], "b": True}
    assert type(converted["f"]) is Decimal and str(converted["f"]) == "0.1"
    assert converted["b"] is True


def test_date_formatted_strings_become_dates_when_the_schema_says_so():
    converted = convert({
        "founded_on": "2020-02-29", "seen_at": "2025-01-31T10:00:00Z", "name": "2020-01-01",
        "claims": [{"on": "2024-05-01"}], "dates": ["2025-01-01"], "either": "2025-03-03",
        "extra": {"k": "2025-04-04"}})
    assert converted == {
        "founded_on": date(2020, 2, 29),
        "seen_at": datetime(2025, 1, 31, 10, tzinfo=timezone.utc), "name": "2020-01-01",
        "claims": [{"on": date(2024, 5, 1)}], "dates": [date(2025, 1, 1)],
        "either": date(2025, 3, 3), "extra": {"k": date(2025, 4, 4)}}


def test_datetime_keeps_its_offset_and_naive_means_utc_when_converted():
    converted = convert({"seen_at": "2025-01-31T10:00:00+02:00"})
    assert converted["seen_at"].utcoffset() == timedelta(hours=2)
    assert convert({"seen_at": "2025-01-31T10:00:00"})["seen_at"].tzinfo == timezone.utc


def test_strings_stay_strings_when_the_input_is_any():
    assert convert({"founded_on": "2020-02-29"}, schema=None) == {"founded_on": "2020-02-29"}


@pytest.mark.parametrize("value", [
    {"founded_on": "29/02/2020"}, {"seen_at": "yesterday"}, {"f": float("nan")},
    {"f": float("inf")}, {"x": object()}, {"big": Decimal("1E+5000")}, {1: 2},
])
def test_bad_input_is_an_invalid_input_error_when_converted(value):
    with pytest.raises(EvaluationError) as raised:
        convert(value)
    assert raised.value.code == "invalid_input"


def test_the_business_schema_converts_claim_dates_when_evaluated():
    schema = default_registry().get("Business")
    rs = ruleset(rule("r", True), inputs={"business": "Business"})
    result = build(rs, {"business": schema}).evaluate(
        {"business": {"founded_on": "2001-01-01", "prior_claims": [{"date": "2024-01-02",
                                                                     "amount": 10.5}]}})
    assert result.fired == ("r",)
    converted = InputConverter(schema).convert(
        "business", {"prior_claims": [{"date": "2024-01-02", "amount": 10.5}]}, Limits())
    assert converted["prior_claims"] == [{"date": date(2024, 1, 2), "amount": Decimal("10.5")}]


def test_sets_tuples_and_existing_dates_are_accepted_when_given_by_python_callers():
    converted = convert({"s": frozenset({1}), "t": (1, "a"), "d": date(2025, 1, 1),
                         "m": datetime(2025, 1, 1, 8)}, schema=None)
    assert converted == {"s": frozenset({Decimal(1)}), "t": [Decimal(1), "a"],
                         "d": date(2025, 1, 1),
                         "m": datetime(2025, 1, 1, 8, tzinfo=timezone.utc)}
