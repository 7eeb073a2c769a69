"""JSON with exact decimals (engine/inputs/jsonio.py)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from insureops.engine.inputs import jsonio
from insureops.engine.inputs.jsonio import dumps, loads
from insureops.engine.ir.values import Duration


def test_decimals_keep_their_scale_when_written():
    assert dumps({"factor": Decimal("1.20"), "big": Decimal("5E+6"), "tiny": Decimal("1E-7")}) \
        == '{"factor": 1.20, "big": 5000000, "tiny": 0.0000001}'


def test_dates_durations_sets_and_tuples_are_written_as_documented_when_dumped():
    value = {"d": date(2025, 1, 31), "t": datetime(2025, 1, 31, 10, tzinfo=timezone.utc),
             "p": Duration(6, 0), "s": frozenset({"TX", "AZ"}), "l": (1, None, True, "é")}
    assert dumps(value) == ('{"d": "2025-01-31", "t": "2025-01-31T10:00:00+00:00", '
                            '"p": "P6M", "s": ["AZ", "TX"], "l": [1, null, true, "é"]}')


def test_numbers_parse_as_decimals_when_loaded():
    data = loads('{"a": 1.20, "b": 3, "c": [0.1]}')
    assert data == {"a": Decimal("1.20"), "b": Decimal(3), "c": [Decimal("0.1")]}
    assert str(data["a"]) == "1.20"
    assert dumps(data) == '{"a": 1.20, "b": 3, "c": [0.1]}'


def test_indent_pretty_prints_when_asked():
    assert dumps({"a": [1]}, indent=2) == '{\n  "a": [\n    1\n  ]\n}'
    assert dumps({}, indent=2) == "{}"


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_nan_and_infinity_are_refused_when_loaded(text):
    with pytest.raises(ValueError):
        loads(text)


def test_unwritable_values_are_refused_when_dumped():
    with pytest.raises(ValueError):
        dumps(Decimal("NaN"))
    with pytest.raises(TypeError):
        dumps(object())


@pytest.mark.parametrize(("text", "message"), [
    ("[" * 200_000 + "]" * 200_000, "nested deeper than 64 levels"),
    ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
    ("9" * 5_000, "longer than 100 characters"),
    ("[1e999]", "out of range"),
    ("[" + ",".join(["1"] * 100_000) + "]", "more than 100000 values"),
])
def test_read_raises_json_limit_error_when_text_is_beyond_the_limits(text, message):
    with pytest.raises(jsonio.JsonLimitError, match=message):
        jsonio.read(text, exact=False)


def test_read_gives_python_numbers_when_not_exact_and_decimals_when_exact():
    assert jsonio.read("[1, 2.5]", exact=False) == [1, 2.5]
    assert jsonio.read("[1, 2.5]") == [Decimal(1), Decimal("2.5")]
    assert jsonio.read("[" * 64 + "]" * 64, exact=False) is not None
