"""Embedded `test` blocks: givens, as-of dates, expectations and failure messages."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    accept,
    and_,
    binary,
    build,
    call,
    name,
    obj,
    refer,
    rule,
    ruleset,
    set_output,
)

from insureops.engine import ir

RULES = (rule("small", binary("<", name("business.employees"), 10), accept("small"),
              set_output("factor", Decimal("1.20"))),
         rule("big", binary(">=", name("business.employees"), 10), refer("big")),
         rule("fresh", binary("==", name("business.founded"), call("today")), refer("new")))


SCHEMAS = {"business": {"type": "object",
                        "properties": {"founded": {"type": "string", "format": "date"}}}}


def check(*tests, as_of=date(2025, 1, 1)):
    return build(ruleset(*RULES, tests=tests), SCHEMAS).run_tests(as_of=as_of)


def case(description, expect, employees=3, given_as_of=None, **fields):
    given = ir.Given("business", obj(employees=employees, founded="2000-01-01", **fields),
                     as_of=given_as_of)
    return ir.TestCase(description, (given,), expect, span=ir.Span(4, 1, 6, 4, 30, 90))


def test_a_passing_test_has_no_message_when_the_expectation_holds():
    expect = and_(binary("==", name("decision"), "accept"),
                  binary("==", name("outputs.factor"), Decimal("1.20")),
                  binary("in", "small", name("fired")))
    (outcome,) = check(case("small is accepted", expect))
    assert outcome.passed is True
    assert outcome.message is None
    assert outcome.description == "small is accepted"
    assert outcome.span.line == 4


def test_a_failing_test_shows_the_values_it_read_when_the_expectation_fails():
    expect = and_(binary("==", name("decision"), "accept"),
                  binary("==", name("outputs.factor"), Decimal("1.20")))
    (outcome,) = check(case("big is accepted", expect, employees=50))
    assert outcome.passed is False
    assert outcome.message == (
        '`decision == "accept" and outputs.factor == 1.20` failed: decision = "refer", '
        "outputs.factor = null")


def test_a_null_expectation_fails_when_it_reads_a_missing_output():
    (outcome,) = check(case("null", binary("==", name("outputs.nothing"), 1)))
    assert outcome.passed is False
    assert outcome.message == "`outputs.nothing == 1` was null: outputs.nothing = null"


def test_the_given_as_of_date_wins_when_a_test_sets_one():
    expect = binary("==", name("decision"), "refer")
    fresh = case("founded today", expect, given_as_of=date(2000, 1, 1))
    (outcome,) = check(fresh, as_of=date(2025, 1, 1))
    assert outcome.passed is True


def test_an_evaluation_error_fails_the_test_with_its_message_when_raised():
    (outcome,) = check(case("bad data", binary("==", name("decision"), "accept"),
                            employees="many"))
    assert outcome.passed is False
    assert outcome.message.startswith("error[type_mismatch]: in rule `small`")


def test_a_missing_as_of_fails_only_the_tests_that_need_today_when_not_given():
    outcomes = build(ruleset(*RULES, tests=(case("t", binary("==", name("score"), 0)),)),
                     SCHEMAS).run_tests()
    assert outcomes[0].passed is False
    assert "as_of_required" in outcomes[0].message


def test_every_result_name_is_readable_when_expecting():
    expect = and_(binary("==", name("score"), 0), binary("==", name("tags"), ir.ListExpr(())),
                  binary("==", name("reasons"), ir.ListExpr((ir.Literal("small"),))))
    (outcome,) = check(case("names", expect))
    assert outcome.passed, outcome.message


def test_a_given_that_reads_a_name_fails_the_test_when_run():
    given = ir.Given("business", obj(employees=name("business.employees")))
    test = ir.TestCase("self reference", (given,), binary("==", name("score"), 0))
    (outcome,) = check(test)
    assert outcome.passed is False
    assert outcome.message.startswith("error[invalid_ir]")


def test_an_expectation_reading_an_input_is_invalid_ir_when_compiled():
    from insureops.engine.ir.errors import EngineError

    test = ir.TestCase("reads input", (), binary("==", name("business.employees"), 1))
    with pytest.raises(EngineError) as raised:
        build(ruleset(*RULES, tests=(test,)), SCHEMAS)
    assert raised.value.code == "invalid_ir"
