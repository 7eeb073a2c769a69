"""Exact decimal arithmetic under the engine's own decimal contexts (issue 12): `+ - *` never
round silently (they gave 28 digits, and followed the caller's `decimal.getcontext()`), a result
beyond 100 digits or the exponent range is `arithmetic_error` naming the limit, `/` gives 34
digits, and a hostile host context changes nothing on any path."""

from __future__ import annotations

import decimal
from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    binary,
    build,
    call,
    comp,
    lit,
    name,
    neg,
    rule,
    ruleset,
    score,
    set_output,
    text,
)
from engine_paths import every_path, same_everywhere

from insureops.engine import ir
from insureops.engine.evaluation.simulation import ScoreHistogram, SummaryAccumulator
from insureops.engine.inputs.jsonio import dumps, loads
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.numbers import DIVISION_DIGITS, MAX_DIGITS, MAX_EXPONENT
from insureops.engine.ir.result import Result

BIG = Decimal(12345678901234567890123456789)


def _value(expression, **inputs) -> str:
    declared = {key: "Any" for key in inputs} or {"x": "Any"}
    rs = ruleset(rule("r", True, set_output("v", expression)), inputs=declared)
    found = same_everywhere(rs, inputs or {"x": {}})
    assert found[0] == "value", found
    return loads(found[1])["v"]


def _error(expression, **inputs) -> EvaluationError:
    declared = {key: "Any" for key in inputs}
    rs = ruleset(rule("r", True, set_output("v", expression)), inputs=declared)
    assert set(every_path(rs, inputs).values()) == {("error", "arithmetic_error")}
    with pytest.raises(EvaluationError) as raised:
        build(rs).evaluate(inputs)
    return raised.value


@pytest.fixture
def hostile_context():
    """The caller's decimal context at its worst: 3 digits, rounding down, a tiny exponent
    range, and every signal trapped (any arithmetic the engine left to it would fail)."""
    hostile = decimal.Context(prec=3, rounding=decimal.ROUND_DOWN, Emax=5, Emin=-5,
                              traps=[decimal.Inexact, decimal.Rounded, decimal.Overflow,
                                     decimal.Underflow, decimal.Subnormal, decimal.Clamped,
                                     decimal.InvalidOperation, decimal.DivisionByZero,
                                     decimal.FloatOperation])
    with decimal.localcontext(hostile):
        yield hostile


def test_addition_is_exact_when_operands_exceed_28_digits():
    # issue 12: `12345678901234567890123456789 + 2 - 12345678901234567890123456789` gave 1
    assert _value(binary("-", binary("+", lit(BIG), 2), lit(BIG))) == 2


def test_equality_sees_the_last_digit_when_inputs_are_10_to_the_30():
    # issue 12: with a = b = 10^30, `a == b + 1` was true
    ten_30 = 10**30
    assert _value(binary("==", name("x.a"), binary("+", name("x.b"), 1)),
                  x={"a": ten_30, "b": ten_30}) is False
    assert _value(binary("+", name("x.b"), 1), x={"b": ten_30}) == ten_30 + 1


def test_host_precision_is_ignored_when_set_to_3_digits(hostile_context):
    # issue 12: after `getcontext().prec = 3`, `1.23456 + 1` gave 2.23
    assert decimal.getcontext().prec == 3
    assert str(_value(binary("+", lit(Decimal("1.23456")), 1))) == "2.23456"


def test_cube_of_a_huge_input_is_an_arithmetic_error_when_beyond_the_exponent_limit():
    # issue 12: `x.n * x.n * x.n` with n = 10^900 gave 1E+2700
    n = name("x.n")
    error = _error(binary("*", binary("*", n, n), n), x={"n": 10**900})
    assert f"+-{MAX_EXPONENT}" in error.message and "`*`" in error.message


def test_tiny_product_is_an_arithmetic_error_when_below_the_exponent_limit():
    n = name("x.n")
    assert "exponent" in _error(binary("*", n, n), x={"n": Decimal("1E-600")}).message
    assert "exponent" in _error(binary("*", n, n), x={"n": Decimal("0E-600")}).message


def test_product_is_an_arithmetic_error_when_it_needs_more_than_100_digits():
    n = name("x.n")
    sixty_digits = int("7" * 60)
    error = _error(binary("*", n, n), x={"n": sixty_digits})
    assert f"{MAX_DIGITS} significant digits" in error.message
    assert _value(binary("*", n, n), x={"n": int("7" * 50)}) == int("7" * 50) ** 2


def test_sum_is_an_arithmetic_error_when_it_needs_more_than_100_digits():
    xs = name("x.xs")
    values = [10**99, Decimal("0.5")]
    for expression in (call("sum", xs), comp("sum", "c", xs, projection=name("c"))):
        assert f"{MAX_DIGITS} significant digits" in _error(expression, x={"xs": values}).message


def test_score_is_an_arithmetic_error_when_it_needs_more_than_100_digits():
    rs = ruleset(rule("big", True, score("+=", name("x.n"))),
                 rule("small", True, score("+=", lit(Decimal("0.5")))), inputs={"x": "Any"})
    outcomes = every_path(rs, {"x": {"n": 10**99}})
    assert set(outcomes.values()) == {("error", "arithmetic_error")}, outcomes
    assert same_everywhere(rs, {"x": {"n": 10**40}})[3] == str(10**40) + ".5"


def test_division_gives_34_digits_rounded_half_even_when_inexact():
    assert str(_value(binary("/", 10, 3))) == "3." + "3" * (DIVISION_DIGITS - 1)
    assert str(_value(binary("/", 2, 3))) == "0." + "6" * (DIVISION_DIGITS - 1) + "7"
    assert str(_value(binary("/", 1, 4))) == "0.25"
    assert str(_value(binary("/", lit(Decimal("1.20")), 1))) == "1.20"


def test_remainder_is_exact_when_the_quotient_has_more_digits_than_the_precision():
    assert _value(binary("%", name("x.n"), 7), x={"n": 10**500}) == 10**500 % 7
    assert _value(binary("%", lit(Decimal(-7)), 3)) == -1


EXPRESSIONS = {
    "sum": binary("+", name("x.a"), lit(Decimal("1.23456"))),
    "difference": binary("-", name("x.a"), lit(Decimal("0.000001"))),
    "product": binary("*", name("x.a"), name("x.b")),
    "quotient": binary("/", name("x.a"), lit(Decimal(7))),
    "remainder": binary("%", name("x.big"), lit(Decimal(97))),
    "negation": neg(name("x.a")),
    "abs": call("abs", neg(name("x.a"))),
    "round": call("round", name("x.a"), lit(Decimal(4))),
    "floor": call("floor", name("x.big")),
    "ceil": call("ceil", name("x.a")),
    "sum_list": call("sum", name("x.xs")),
    "sum_for": comp("sum", "c", name("x.xs"), projection=binary("*", name("c"), name("c"))),
    "min": call("min", name("x.xs")),
    "max": comp("max", "c", name("x.xs"), projection=neg(name("c"))),
    "years": call("years_between", lit(date(2025, 1, 1)), lit(date(1801, 1, 1))),
    "equal": binary("==", binary("+", name("x.a"), lit(Decimal(1))), lit(Decimal("123457.7891"))),
    "index": ir.Index(name("x.xs"), lit(Decimal("1.000"))),
    "text": text("a = ", binary("*", name("x.a"), lit(Decimal("1.000")))),
    "float": binary("+", name("x.f"), lit(Decimal(0))),
}
INPUTS = {"x": {"a": Decimal("123456.7891"), "b": 987654321, "big": 10**40 + 12345,
                "xs": [Decimal("1.11111"), 222222, None, Decimal("-33333.3")], "f": 0.1}}
EXPECTED = {
    "sum": "123458.02366", "difference": "123456.789099", "product": "121932631211400.7011",
    "quotient": "17636.68415714285714285714285714286", "remainder": str((10**40 + 12345) % 97),
    "negation": "-123456.7891", "abs": "123456.7891", "round": "123456.7891",
    "floor": str(10**40 + 12345), "ceil": "123457", "sum_list": "188889.81111",
    "sum_for": "50493726174.1245654321", "min": "-33333.3", "max": "33333.3", "years": "-224",
    "equal": "true", "index": "222222", "text": "\"a = 123456.7891000\"", "float": "0.1",
}


def _all_outputs_ruleset():
    actions = [set_output(key, expression) for key, expression in EXPRESSIONS.items()]
    return ruleset(rule("r", True, *actions, score("+=", name("x.a")),
                        score("-=", lit(Decimal("0.0001")))),
                   rule("near", binary("<", name("x.a"), lit(Decimal("0.5"))),
                        score("+=", lit(Decimal(1)))),
                   inputs={"x": "Any"})


def test_every_path_gives_exact_results_when_the_host_context_is_hostile(hostile_context):
    found = same_everywhere(_all_outputs_ruleset(), INPUTS)
    assert found[0] == "value", found
    outputs = loads(found[1])
    assert {key: dumps(value) for key, value in outputs.items()} == EXPECTED
    assert found[3] == "123456.7890"  # the score: 123456.7891 - 0.0001


def test_explanation_measures_near_misses_exactly_when_the_host_context_is_hostile(
        hostile_context):
    compiled = build(_all_outputs_ruleset())
    trace = compiled.evaluate(INPUTS, explain=True).trace
    assert trace[1]["failed"] == ["x.a 123,456.7891 is not < 0.5 (by 123,456.2891)"]


def test_results_do_not_depend_on_the_host_context_when_compared_with_the_default():
    normal = same_everywhere(_all_outputs_ruleset(), INPUTS)
    with decimal.localcontext(decimal.Context(prec=1, rounding=decimal.ROUND_UP)):
        assert same_everywhere(_all_outputs_ruleset(), INPUTS) == normal


def test_score_statistics_ignore_the_host_context_when_it_is_hostile(hostile_context):
    histogram = ScoreHistogram(max_bins=2)
    for value in ("1.23456", "1000000.5", "-7.25"):
        histogram.add(Decimal(value))
    stats = histogram.stats()
    assert str(stats.mean) == "333331.4948533333333333333333333333"
    assert (stats.minimum, stats.maximum) == (Decimal("-7.25"), Decimal("1000000.5"))


def test_zero_input_is_refused_when_its_exponent_is_beyond_the_limit():
    rs = ruleset(rule("r", True, set_output("v", name("x.z"))), inputs={"x": "Any"})
    for zero in (Decimal("0E-5000"), Decimal("0E+1001")):
        assert set(every_path(rs, {"x": {"z": zero}}).values()) == {("error", "invalid_input")}
    assert same_everywhere(rs, {"x": {"z": Decimal("0E-1000")}})[0] == "value"


def test_simulation_summary_is_exact_when_the_host_context_is_hostile(hostile_context):
    accumulator = SummaryAccumulator()
    for value in ("1.23456", "1000000.5", "-7.25"):
        accumulator.add(Result("t", None, Decimal(value), {}, [], [], []))
    scores = accumulator.summary().scores
    assert str(scores.mean) == "333331.4948533333333333333333333333"
