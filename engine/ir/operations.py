"""The meaning of the language's operators on runtime values, shared by compiler and interpreter.

Three-valued logic: an operand that is null makes comparisons and arithmetic null. Operands of
incompatible types raise `EvaluationError(code="type_mismatch")` with the operator's span.
Booleans are never numbers (`true == 1` is a type mismatch, not true). Arithmetic runs under
the engine's own decimal contexts (`numbers.py`), whatever the caller's decimal context is.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine.ir import Span, costs, numbers
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.values import Duration, kind_of

ORDERED = frozenset({Decimal, str, date, datetime})
SEQUENCES = (list, tuple)
COLLECTIONS = (list, tuple, frozenset, set)
ZERO = Decimal(0)


def mismatch(op: str, left: object, right: object, span: Span | None) -> EvaluationError:
    """The error for an operator applied to operands it does not accept."""
    return EvaluationError(f"cannot apply `{op}` to {kind_of(left)} and {kind_of(right)}",
                           code="type_mismatch", span=span)


def unary_mismatch(op: str, operand: object, span: Span | None) -> EvaluationError:
    return EvaluationError(f"cannot apply `{op}` to {kind_of(operand)}",
                           code="type_mismatch", span=span)


def truth(value: object, span: Span | None) -> bool | None:
    """`value` as a three-valued truth value; anything but a boolean or null is an error."""
    if value is True or value is False or value is None:
        return value
    raise EvaluationError(f"expected a boolean, got {kind_of(value)}", code="type_mismatch",
                          span=span)


def negate(value: object, span: Span | None) -> object:
    """Unary minus on a number or a duration."""
    if value is None:
        return None
    if type(value) is Decimal:
        return numbers.negated(value)
    if type(value) is Duration:
        return value.negated()
    raise unary_mismatch("-", value, span)


def logical_not(value: object, span: Span | None) -> bool | None:
    """`not`: null stays null."""
    if value is None:
        return None
    if value is True or value is False:
        return not value
    raise unary_mismatch("not", value, span)


def add(a: object, b: object, span: Span | None, ev: Evaluation) -> object:
    """`+` on numbers, strings, lists, date/datetime and duration, and durations."""
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is Decimal and tb is Decimal:
        return numbers.add(a, b, span)
    if ta is str and tb is str:
        if len(a) + len(b) > ev.limits.max_string_length:
            raise LimitExceededError(f"a string grew beyond the limit of "
                                     f"{ev.limits.max_string_length:,} characters",
                                     code="limit_string_length", span=span)
        costs.charge(ev, (len(a) + len(b)) // costs.CHARS_PER_STEP, span)
        return a + b
    if ta in SEQUENCES and tb in SEQUENCES:
        if len(a) + len(b) > ev.limits.max_list_size:
            raise LimitExceededError(f"a list grew beyond the limit of "
                                     f"{ev.limits.max_list_size:,} items", code="limit_list_size",
                                     span=span)
        costs.charge(ev, len(a) + len(b), span)
        return [*a, *b]
    if tb is Duration and ta in (date, datetime):
        return _shift(a, b, span)
    if ta is Duration and tb in (date, datetime):
        return _shift(b, a, span)
    if ta is Duration and tb is Duration:
        return a.plus(b)
    raise mismatch("+", a, b, span)


def subtract(a: object, b: object, span: Span | None) -> object:
    """`-` on numbers, date/datetime minus duration, date minus date (a duration in days),
    and durations."""
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is Decimal and tb is Decimal:
        return numbers.subtract(a, b, span)
    if tb is Duration and ta in (date, datetime):
        return _shift(a, b.negated(), span)
    if ta is date and tb is date:
        return Duration(days=(a - b).days)
    if ta is datetime and tb is datetime:
        return Duration(days=(a - b).days)
    if ta is Duration and tb is Duration:
        return a.plus(b.negated())
    raise mismatch("-", a, b, span)


def _shift(moment: date, duration: Duration, span: Span | None) -> date:
    try:
        return duration.add_to(moment)
    except (OverflowError, ValueError):
        raise EvaluationError(f"{moment.isoformat()} moved by {duration} is out of range",
                              code="date_out_of_range", span=span) from None


def multiply(a: object, b: object, span: Span | None) -> object:
    """`*` on numbers."""
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        return numbers.multiply(a, b, span)
    raise mismatch("*", a, b, span)


def divide(a: object, b: object, span: Span | None) -> object:
    """`/` on numbers: a decimal quotient (`numbers.DIVISION_DIGITS` significant digits);
    division by zero is null."""
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        if not b:
            return None
        return numbers.divide(a, b, span)
    raise mismatch("/", a, b, span)


def remainder(a: object, b: object, span: Span | None) -> object:
    """`%` on numbers: the remainder with the sign of the dividend (`-7 % 3 == -1`); `x % 0`
    is null."""
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        if not b:
            return None
        return numbers.remainder(a, b, span)
    raise mismatch("%", a, b, span)


def equal(a: object, b: object, span: Span | None, op: str = "==") -> bool | None:
    """`==`: null if either side is null; values of different kinds are a type mismatch."""
    if a is None or b is None:
        return None
    ta, tb = type(a), type(b)
    if ta is tb:
        return a == b
    if ta in SEQUENCES and tb in SEQUENCES:
        return list(a) == list(b)
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return a == b
    raise mismatch(op, a, b, span)


def not_equal(a: object, b: object, span: Span | None) -> bool | None:
    result = equal(a, b, span, "!=")
    return None if result is None else not result


def _ordered(op: str, a: object, b: object, span: Span | None) -> None:
    ta = type(a)
    if ta is not type(b) or ta not in ORDERED:
        raise mismatch(op, a, b, span)


def less(a: object, b: object, span: Span | None) -> bool | None:
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        return a < b
    _ordered("<", a, b, span)
    return a < b


def less_equal(a: object, b: object, span: Span | None) -> bool | None:
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        return a <= b
    _ordered("<=", a, b, span)
    return a <= b


def greater(a: object, b: object, span: Span | None) -> bool | None:
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        return a > b
    _ordered(">", a, b, span)
    return a > b


def greater_equal(a: object, b: object, span: Span | None) -> bool | None:
    if a is None or b is None:
        return None
    if type(a) is Decimal and type(b) is Decimal:
        return a >= b
    _ordered(">=", a, b, span)
    return a >= b


def between(value: object, low: object, high: object, span: Span | None) -> bool | None:
    """`value between low and high`, inclusive; null when any of the three is null."""
    if value is None or low is None or high is None:
        return None
    _ordered("between", value, low, span)
    _ordered("between", value, high, span)
    return low <= value <= high


def member_of(item: object, collection: object, span: Span | None, op: str = "in") -> bool | None:
    """`item in collection` for lists, sets and strings (substring). A null item or collection
    gives null; null elements of the collection never match."""
    if item is None or collection is None:
        return None
    tc = type(collection)
    if tc is str:
        if type(item) is not str:
            raise mismatch(op, item, collection, span)
        return item in collection
    if not isinstance(collection, COLLECTIONS):
        raise mismatch(op, item, collection, span)
    try:
        found = item in collection
    except TypeError:  # an unhashable item (a list) tested against a set
        found = any(type(element) is type(item) and element == item for element in collection)
    if found and (type(item) is bool or type(item) is Decimal):
        # Python says True == 1; the language does not: confirm with an element of the same kind.
        ti = type(item)
        return any(type(element) is ti and element == item for element in collection)
    return found


def not_member_of(item: object, collection: object, span: Span | None) -> bool | None:
    result = member_of(item, collection, span, "not in")
    return None if result is None else not result


def contains(container: object, item: object, span: Span | None) -> bool | None:
    """`container contains item`: a substring of a string, or an element of a list or set."""
    return member_of(item, container, span, "contains")


def starts_with(text: object, prefix: object, span: Span | None) -> bool | None:
    if text is None or prefix is None:
        return None
    if type(text) is str and type(prefix) is str:
        return text.startswith(prefix)
    raise mismatch("starts_with", text, prefix, span)


def ends_with(text: object, suffix: object, span: Span | None) -> bool | None:
    if text is None or suffix is None:
        return None
    if type(text) is str and type(suffix) is str:
        return text.endswith(suffix)
    raise mismatch("ends_with", text, suffix, span)


def member(obj: object, name: str, span: Span | None) -> object:
    """`obj.name`: null when obj is null or lacks the key; an error on a non-object."""
    if type(obj) is dict:
        return obj.get(name)
    if obj is None:
        return None
    raise EvaluationError(f"cannot read field `{name}` of {kind_of(obj)}", code="type_mismatch",
                          span=span)


def index(obj: object, key: object, span: Span | None) -> object:
    """`obj[key]`: a list or string by integer position (negative counts from the end), an
    object by string key; null when out of range, missing, or either side is null."""
    if obj is None or key is None:
        return None
    if type(obj) is dict:
        if type(key) is not str:
            raise mismatch("[]", obj, key, span)
        return obj.get(key)
    if isinstance(obj, (list, tuple, str)):
        if type(key) is not Decimal or key != key.to_integral_value(context=numbers.ROUNDING):
            raise EvaluationError(f"a position must be a whole number, got {kind_of(key)}",
                                  code="type_mismatch", span=span)
        if -len(obj) <= key < len(obj):
            return obj[int(key)]
        return None
    raise mismatch("[]", obj, key, span)
