"""Operator semantics: exact decimals, Kleene null logic, comparisons, word operators."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    and_,
    between,
    binary,
    if_,
    is_null,
    list_,
    lit,
    name,
    neg,
    not_,
    or_,
    set_,
    value_of,
)

from insureops.engine.ir.errors import EvaluationError

N = None


def test_decimal_arithmetic_is_exact_when_adding_tenths():
    assert value_of(binary("==", binary("+", 0.1, 0.2), 0.3)) is True
    assert value_of(binary("+", Decimal("1.10"), Decimal("0.10"))) == Decimal("1.20")
    assert str(value_of(binary("*", Decimal("1.20"), 2))) == "2.40"


def test_division_gives_a_decimal_when_not_whole():
    assert value_of(binary("/", 1, 4)) == Decimal("0.25")
    assert value_of(binary("/", 10, 3)) == Decimal("3." + "3" * 33)  # 34 digits


def test_division_by_zero_is_null_when_dividing_or_taking_remainder():
    assert value_of(binary("/", 1, 0)) is None
    assert value_of(binary("%", 1, 0)) is None


def test_remainder_keeps_the_sign_of_the_dividend_when_negative():
    assert value_of(binary("%", 7, 3)) == 1
    assert value_of(binary("%", neg(7), 3)) == -1


def test_unary_minus_negates_numbers_when_applied():
    assert value_of(neg(lit(Decimal("2.5")))) == Decimal("-2.5")


@pytest.mark.parametrize(("left", "right", "expected_and", "expected_or"), [
    (True, True, True, True),
    (True, False, False, True),
    (True, N, N, True),
    (False, True, False, True),
    (False, False, False, False),
    (False, N, False, N),
    (N, True, N, True),
    (N, False, False, N),
    (N, N, N, N),
])
def test_and_or_follow_kleene_logic_when_operands_are_null(left, right, expected_and,
                                                          expected_or):
    assert value_of(and_(lit(left), lit(right))) is expected_and
    assert value_of(or_(lit(left), lit(right))) is expected_or


def test_not_of_null_is_null_when_negated():
    assert value_of(not_(lit(None))) is None
    assert value_of(not_(lit(False))) is True


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"])
def test_comparison_and_arithmetic_with_null_is_null_when_either_side_is_null(op):
    assert value_of(binary(op, lit(None), 1)) is None
    assert value_of(binary(op, 1, lit(None))) is None


def test_comparisons_order_numbers_strings_and_dates_when_types_match():
    assert value_of(binary("<", 2, 10)) is True
    assert value_of(binary("<", "apple", "banana")) is True
    assert value_of(binary(">=", lit(date(2025, 1, 2)), lit(date(2025, 1, 1)))) is True
    assert value_of(binary("==", Decimal("1.0"), Decimal("1.00"))) is True
    assert value_of(binary("!=", "a", "b")) is True


@pytest.mark.parametrize(("op", "left", "right"), [
    (">", "CA", 5), ("==", True, 1), ("+", "a", 1), ("<", lit(date(2025, 1, 1)), 3),
    ("-", "a", "b"), ("*", True, 2), ("<", True, False), ("starts_with", 23, "2"),
])
def test_mixed_types_are_an_evaluation_error_when_compared_at_run_time(op, left, right):
    with pytest.raises(EvaluationError) as raised:
        value_of(binary(op, left, right))
    assert raised.value.code == "type_mismatch"


def test_type_mismatch_carries_the_span_when_the_node_has_one():
    from insureops.engine import ir

    span = ir.Span(3, 5, 3, 17, 40, 52)
    with pytest.raises(EvaluationError) as raised:
        value_of(ir.Binary(">", name("business.state"), lit(5), span=span), business={
            "state": "CA"})
    assert raised.value.span == span
    assert "string and number" in raised.value.message


def test_strings_and_lists_concatenate_when_added():
    assert value_of(binary("+", "ab", "cd")) == "abcd"
    assert value_of(binary("+", list_(1), list_(2))) == [1, 2]


def test_membership_works_on_lists_sets_and_strings_when_tested():
    assert value_of(binary("in", "CA", set_("CA", "TX"))) is True
    assert value_of(binary("not in", "NV", set_("CA", "TX"))) is True
    assert value_of(binary("in", 2, list_(1, 2))) is True
    assert value_of(binary("in", "ell", "hello")) is True
    assert value_of(binary("in", lit(None), set_("CA"))) is None
    assert value_of(binary("in", 1, list_(lit(True)))) is False
    assert value_of(binary("in", lit(True), list_(1))) is False
    assert value_of(binary("in", 3, list_(1, lit(None)))) is False


def test_word_operators_test_strings_when_applied():
    assert value_of(binary("starts_with", "238210", "2382")) is True
    assert value_of(binary("ends_with", "acme.com", ".com")) is True
    assert value_of(binary("contains", "hello", "ell")) is True
    assert value_of(binary("contains", list_("a", "b"), "b")) is True
    assert value_of(binary("starts_with", lit(None), "x")) is None


def test_between_is_inclusive_at_both_ends_when_on_the_bounds():
    assert value_of(between(100, 100, 200)) is True
    assert value_of(between(200, 100, 200)) is True
    assert value_of(between(201, 100, 200)) is False
    assert value_of(between(lit(None), 100, 200)) is None


def test_is_null_and_coalescing_handle_missing_data_when_fields_are_absent():
    assert value_of(is_null(name("business.missing")), business={}) is True
    assert value_of(is_null(name("business.x"), negated=True), business={"x": 1}) is True
    assert value_of(binary("??", name("business.missing"), "none"), business={}) == "none"
    assert value_of(binary("??", name("business.x"), "none"), business={"x": "a"}) == "a"


def test_member_and_index_of_missing_or_null_are_null_when_read():
    assert value_of(name("business.a.b.c"), business={"a": None}) is None
    assert value_of(binary("==", name("business.a.b"), 1), business={}) is None
    from insureops.engine import ir

    items = name("business.items")
    assert value_of(ir.Index(items, lit(0)), business={"items": ["x", "y"]}) == "x"
    assert value_of(ir.Index(items, lit(-1)), business={"items": ["x", "y"]}) == "y"
    assert value_of(ir.Index(items, lit(5)), business={"items": ["x"]}) is None
    assert value_of(ir.Index(name("business"), lit("k")), business={"k": "v"}) == "v"
    with pytest.raises(EvaluationError):
        value_of(ir.Index(items, lit(Decimal("0.5"))), business={"items": ["x"]})


def test_member_of_a_non_object_is_a_type_mismatch_when_read():
    with pytest.raises(EvaluationError) as raised:
        value_of(name("business.state.code"), business={"state": "CA"})
    assert raised.value.code == "type_mismatch"


def test_conditional_picks_a_branch_and_null_takes_else_when_evaluated():
    assert value_of(if_(True, "a", "b")) == "a"
    assert value_of(if_(False, "a", "b")) == "b"
    assert value_of(if_(lit(None), "a", "b")) == "b"
    with pytest.raises(EvaluationError):
        value_of(if_(1, "a", "b"))


def test_a_non_boolean_operand_of_and_is_an_error_when_evaluated():
    with pytest.raises(EvaluationError) as raised:
        value_of(and_(True, 1))
    assert raised.value.code == "type_mismatch"
