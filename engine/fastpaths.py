"""Specialised closures for the commonest expression shapes: reading `input.field`, and
comparing with a constant (a direct Python comparison when the operand has the constant's type,
the full operator otherwise)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from datetime import date
from decimal import Decimal

from insureops.engine import operations as ops

Fn = Callable[[dict], object]
_PLAIN = {"==": ops.equal, "!=": ops.not_equal, "<": ops.less, "<=": ops.less_equal,
          ">": ops.greater, ">=": ops.greater_equal, "in": ops.member_of,
          "not in": ops.not_member_of, "starts_with": ops.starts_with,
          "ends_with": ops.ends_with, "contains": ops.contains}
_FAST = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
         ">": operator.gt, ">=": operator.ge}
_FAST_TYPES = (Decimal, str, date)


def field_reader(root: str, field: str, span) -> Fn:
    """`root.field` for a root read from the env, in one call (the common case)."""
    def run(env: dict) -> object:
        value = env[root]
        if type(value) is dict:
            return value.get(field)
        return ops.member(value, field, span)
    run.field_of = (root, field, span)
    return run


def against_constant(op: str, left: Fn, value: object, span) -> Fn | None:
    """A comparison with a constant right side: a direct Python comparison when the left
    operand has the constant's type; reading `root.field` inline when that is the left side."""
    slow = _PLAIN.get(op)
    if slow is None:
        return None
    field_of = getattr(left, "field_of", None)
    if op in _FAST and type(value) in _FAST_TYPES:
        fast, kind = _FAST[op], type(value)
        if field_of is not None:
            root, field, field_span = field_of

            def compare_field(env: dict) -> object:
                obj = env[root]
                operand = obj.get(field) if type(obj) is dict else ops.member(
                    obj, field, field_span)
                if type(operand) is kind:
                    return fast(operand, value)
                return slow(operand, value, span)
            return compare_field

        def compare(env: dict) -> object:
            operand = left(env)
            if type(operand) is kind:
                return fast(operand, value)
            return slow(operand, value, span)
        return compare
    if op in ("in", "not in") and isinstance(value, frozenset) and value and all(
            type(item) is str for item in value):
        present, negated = value.__contains__, op == "not in"
        if field_of is not None:
            root, field, field_span = field_of

            def membership_field(env: dict) -> object:
                obj = env[root]
                operand = obj.get(field) if type(obj) is dict else ops.member(
                    obj, field, field_span)
                if type(operand) is str:
                    return present(operand) is not negated
                return slow(operand, value, span)
            return membership_field

        def membership(env: dict) -> object:
            operand = left(env)
            if type(operand) is str:
                return present(operand) is not negated
            return slow(operand, value, span)
        return membership
    if op in ("starts_with", "ends_with") and type(value) is str:
        test = str.startswith if op == "starts_with" else str.endswith

        def affix(env: dict) -> object:
            operand = left(env)
            if type(operand) is str:
                return test(operand, value)
            return slow(operand, value, span)
        return affix
    return None


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
    compares directly when the column value has the constant's type."""
    slow = _PLAIN.get(op)
    if slow is None:
        return None
    if op in _FAST and type(value) in _FAST_TYPES:
        fast, kind = _FAST[op], type(value)

        def compare(operand: object, env: dict) -> object:
            if type(operand) is kind:
                return fast(operand, value)
            return slow(operand, value, span)
        return compare
    if op in ("in", "not in") and isinstance(value, frozenset) and value and all(
            type(item) is str for item in value):
        present, negated = value.__contains__, op == "not in"

        def membership(operand: object, env: dict) -> object:
            if type(operand) is str:
                return present(operand) is not negated
            return slow(operand, value, span)
        return membership
    return None
