"""Specialised closures for the commonest expression shapes: reading `input.field`, and
comparing with a constant (a direct Python comparison when the operand has the constant's type,
the full operator otherwise)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from decimal import Decimal

from insureops.engine.ir import operations as ops
from insureops.engine.ir.errors import Invalid
from insureops.engine.ir.operators import IMPLEMENTATIONS, OPERATORS, REFLECTED

Fn = Callable[[dict], object]
_PLAIN = {name: fn for name, fn in IMPLEMENTATIONS.items() if OPERATORS[name].group != "arithmetic"}
_FAST_TYPES = (Decimal, str, date)


def field_reader(root: str, field: str, span) -> Fn:
    """`root.field` for a root read from the env, in one call (the common case)."""
    def run(env: dict) -> object:
        value = env[root]
        if type(value) is dict:
            found = value.get(field)
            return found if type(found) is not Invalid else found.fail()
        return ops.member(value, field, span)
    run.field_of = (root, field, span)
    return run


_REFLECTED = REFLECTED  # `operand < value` is `value.__gt__(operand)`


def _direct_test(op: str, value: object) -> tuple[type, Callable] | None:
    """For `operand op value`: the operand type that allows a direct Python test, and that
    test as a one-argument callable; None when the full operator is always needed."""
    if op in _REFLECTED and type(value) in _FAST_TYPES:
        return type(value), getattr(value, _REFLECTED[op])
    if op in ("in", "not in") and isinstance(value, frozenset) and value and all(
            type(item) is str for item in value):
        return str, (value.__contains__ if op == "in" else lambda text: text not in value)
    if op in ("starts_with", "ends_with") and type(value) is str:
        if op == "starts_with":
            return str, lambda text: text.startswith(value)
        return str, lambda text: text.endswith(value)
    return None


def against_constant(op: str, left: Fn, value: object, span) -> Fn | None:
    """A comparison with a constant right side: a direct Python test when the left operand
    has the constant's type (reading `root.field` inline when that is the left side), the
    full operator otherwise."""
    slow, direct = _PLAIN.get(op), _direct_test(op, value)
    if slow is None or direct is None:
        return None
    kind, test = direct
    field_of = getattr(left, "field_of", None)
    if field_of is not None:
        root, field, field_span = field_of

        def compare_field(env: dict) -> object:
            obj = env[root]
            operand = obj.get(field) if type(obj) is dict else ops.member(obj, field, field_span)
            if type(operand) is kind:
                return test(operand)
            if type(operand) is Invalid:
                operand.fail()
            return slow(operand, value, span)
        return compare_field

    def compare(env: dict) -> object:
        operand = left(env)
        if type(operand) is kind:
            return test(operand)
        return slow(operand, value, span)
    return compare


def between_values(value: Fn, low: Fn, high: Fn, span) -> Fn:
    if getattr(low, "is_constant", False) and getattr(high, "is_constant", False):
        lo, hi = low.value, high.value
        if type(lo) is Decimal and type(hi) is Decimal:
            def between_numbers(env: dict) -> object:
                operand = value(env)
                if type(operand) is Decimal:
                    return lo <= operand <= hi
                return ops.between(operand, lo, hi, span)
            return between_numbers
    return lambda env: ops.between(value(env), low(env), high(env), span)


def cell_against_constant(op: str, value: object, span) -> Callable | None:
    """A table cell `op constant` as a matcher `(column_value, env) -> bool | None` that
    tests directly when the column value has the constant's type."""
    slow, direct = _PLAIN.get(op), _direct_test(op, value)
    if slow is None or direct is None:
        return None
    kind, test = direct

    def match(operand: object, env: dict) -> object:
        if type(operand) is kind:
            return test(operand)
        return slow(operand, value, span)
    return match
