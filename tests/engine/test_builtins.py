"""Built-in functions, each with a null argument too (engine/ir/builtins.py)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from engine_ir_builders import (
    binary,
    build,
    call,
    comp,
    list_,
    lit,
    name,
    rule,
    ruleset,
    set_output,
    value_of,
)

from insureops.engine.ir.errors import EvaluationError

D = Decimal


@pytest.mark.parametrize(("func", "args", "expected"), [
    ("len", ["abc"], D(3)),
    ("len", [list_(1, 2)], D(2)),
    ("lower", ["ABC"], "abc"),
    ("upper", ["abc"], "ABC"),
    ("trim", ["  a b  "], "a b"),
    ("round", [D("2.345"), 2], D("2.35")),
    ("round", [D("2.5")], D("3")),
    ("round", [D("-2.5"), 0], D("-3")),
    ("round", [D("1234"), -2], D("1.2E+3")),
    ("abs", [D("-4.5")], D("4.5")),
    ("floor", [D("-1.5")], D("-2")),
    ("ceil", [D("1.1")], D("2")),
    ("min", [3, 1, 2], D(1)),
    ("max", [list_(3, 1, lit(None), 2)], D(3)),
    ("min", [list_()], None),
    ("sum", [list_(1, D("2.5"), lit(None))], D("3.5")),
    ("sum", [1, 2], D(3)),
    ("date", ["2025-02-28"], date(2025, 2, 28)),
    ("days_between", [lit(date(2025, 1, 1)), lit(date(2025, 3, 1))], D(59)),
    ("days_between", [lit(date(2025, 3, 1)), lit(date(2025, 1, 1))], D(-59)),
    ("years_between", [lit(date(1990, 6, 15)), lit(date(2025, 6, 14))], D(34)),
    ("years_between", [lit(date(1990, 6, 15)), lit(date(2025, 6, 15))], D(35)),
    ("years_between", [lit(date(2025, 6, 15)), lit(date(1990, 6, 15))], D(-35)),
    ("years_between", [lit(date(2024, 2, 29)), lit(date(2025, 2, 28))], D(0)),
    ("coalesce", [lit(None), lit(None), "x"], "x"),
    ("coalesce", [lit(None)], None),
])
def test_builtin_computes_its_value_when_called(func, args, expected):
    assert value_of(call(func, *args)) == expected


@pytest.mark.parametrize(("func", "arity"), [
    ("len", 1), ("lower", 1), ("upper", 1), ("trim", 1), ("round", 2), ("abs", 1),
    ("floor", 1), ("ceil", 1), ("min", 2), ("max", 2), ("sum", 1), ("date", 1),
    ("days_between", 2), ("years_between", 2),
])
def test_builtin_returns_null_when_an_argument_is_null(func, arity):
    args = [lit(None)] + [lit(Decimal(1))] * (arity - 1)
    assert value_of(call(func, *args)) is None


def test_round_rounds_half_up_and_keeps_the_scale_when_rounding_money():
    assert str(value_of(call("round", D("1.005"), 2))) == "1.01"
    assert str(value_of(call("round", D("1.2"), 2))) == "1.20"


def test_today_and_now_read_the_as_of_date_when_evaluated():
    rs = ruleset(rule("r", True, set_output("d", call("today")), set_output("t", call("now"))))
    outputs = build(rs).evaluate({"business": {}}, as_of=date(2024, 2, 29)).outputs
    assert outputs == {"d": date(2024, 2, 29),
                       "t": datetime(2024, 2, 29, tzinfo=timezone.utc)}


def test_now_is_the_given_moment_when_as_of_is_a_datetime():
    moment = datetime(2025, 5, 1, 13, 45, tzinfo=timezone.utc)
    rs = ruleset(rule("r", True, set_output("t", call("now")), set_output("d", call("today"))))
    outputs = build(rs).evaluate({"business": {}}, as_of=moment).outputs
    assert outputs == {"t": moment, "d": date(2025, 5, 1)}


def test_today_without_as_of_is_an_error_when_it_is_needed():
    rs = ruleset(rule("r", True, set_output("d", call("today"))))
    with pytest.raises(EvaluationError) as raised:
        build(rs).evaluate({"business": {}})
    assert raised.value.code == "as_of_required"


def test_evaluation_without_as_of_succeeds_when_nothing_needs_it():
    rs = ruleset(rule("r", True, set_output("d", 1)))
    assert build(rs).evaluate({"business": {}}).outputs == {"d": 1}


def test_date_of_a_non_iso_string_is_an_error_naming_the_value_when_converted():
    with pytest.raises(EvaluationError) as raised:
        value_of(call("date", name("business.when")), business={"when": "31/01/2025"})
    assert raised.value.code == "invalid_date"
    assert "31/01/2025" in raised.value.message
    for other in ("2025-02-30", "2025-W05-1", "20250131"):  # ISO week and basic forms too
        with pytest.raises(EvaluationError):
            value_of(call("date", other))


def test_builtin_of_a_wrong_type_is_a_type_mismatch_when_called():
    for expression in (call("lower", 1), call("len", 5), call("abs", "x"), call("sum", "ab"),
                       call("days_between", "2025-01-01", "2025-01-02")):
        with pytest.raises(EvaluationError) as raised:
            value_of(expression)
        assert raised.value.code == "type_mismatch"


def test_round_with_fractional_digits_is_an_invalid_argument_when_called():
    with pytest.raises(EvaluationError) as raised:
        value_of(call("round", 1, D("0.5")))
    assert raised.value.code == "invalid_argument"


def test_comprehensions_count_sum_min_max_any_all_when_iterating_claims():
    claims = [{"amount": 5000}, {"amount": 20000}, {"amount": None}, {"amount": 12000}]
    source = name("business.claims")
    cases = [
        (comp("count", "c", source), D(4)),
        (comp("count", "c", source, where=_gt("c.amount", 10000)), D(2)),
        (comp("sum", "c", source, projection=name("c.amount")), D(37000)),
        (comp("sum", "c", source, projection=name("c.amount"), where=_gt("c.amount", 10000)),
         D(32000)),
        (comp("min", "c", source, projection=name("c.amount")), D(5000)),
        (comp("max", "c", source, projection=name("c.amount")), D(20000)),
        (comp("any", "c", source, where=_gt("c.amount", 15000)), True),
        (comp("all", "c", source, where=_gt("c.amount", 1000)), None),  # a null amount
        (comp("all", "c", source, where=_gt("c.amount", 100000)), False),
    ]
    for expression, expected in cases:
        assert value_of(expression, business={"claims": claims}) == expected, expression


def test_comprehensions_on_empty_and_null_sources_when_nothing_to_iterate():
    empty = name("business.claims")
    assert value_of(comp("all", "c", empty, where=_gt("c.amount", 1)),
                    business={"claims": []}) is True
    assert value_of(comp("any", "c", empty, where=_gt("c.amount", 1)),
                    business={"claims": []}) is False
    assert value_of(comp("sum", "c", empty, projection=name("c.amount")),
                    business={"claims": []}) == 0
    assert value_of(comp("max", "c", empty, projection=name("c.amount")),
                    business={"claims": []}) is None
    assert value_of(comp("count", "c", empty), business={}) is None


def test_comprehension_variable_does_not_leak_when_the_loop_ends():
    rs = ruleset(rule("r", True,
                      set_output("n", comp("count", "business", name("business.items"))),
                      set_output("after", name("business.items"))))
    outputs = build(rs).evaluate({"business": {"items": [{"items": 1}]}}).outputs
    assert outputs == {"n": 1, "after": [{"items": 1}]}


def _gt(path: str, bound: int):
    return binary(">", name(path), bound)
