"""The built-in functions: name -> (arity, implementation). A null argument gives null, except
for `coalesce`; `min`, `max` and `sum` over a list skip null elements.

Numbers are computed under the engine's decimal contexts (`numbers.py`). `round(x, digits)`
rounds half up (away from zero on a tie: `round(2.5, 0) == 3`), the usual
convention for money; `digits` defaults to 0 and may be negative (`round(1234, -2) == 1200`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation, Rounded

from insureops.engine.ir import Span, numbers
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.numbers import ARITHMETIC_ERRORS, ROUNDING, arithmetic_error
from insureops.engine.ir.operations import COLLECTIONS, ZERO, greater, less
from insureops.engine.ir.values import kind_of

Builtin = Callable[[list, Evaluation, Span | None], object]
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _expect(name: str, value: object, kinds: tuple[type, ...], what: str, span) -> None:
    if type(value) not in kinds:
        raise EvaluationError(f"{name}() expects {what}, got {kind_of(value)}",
                              code="type_mismatch", span=span)


def _len(args, ev, span):
    (value,) = args
    _expect("len", value, (str, list, tuple, frozenset, set, dict), "a string, list, set or object",
            span)
    return Decimal(len(value))


def _lower(args, ev, span):
    _expect("lower", args[0], (str,), "a string", span)
    return args[0].lower()


def _upper(args, ev, span):
    _expect("upper", args[0], (str,), "a string", span)
    return args[0].upper()


def _trim(args, ev, span):
    _expect("trim", args[0], (str,), "a string", span)
    return args[0].strip()


def _round(args, ev, span):
    value = args[0]
    digits = args[1] if len(args) > 1 else ZERO
    _expect("round", value, (Decimal,), "a number", span)
    _expect("round", digits, (Decimal,), "a whole number of digits", span)
    if not -100 <= digits <= 100 or digits != digits.to_integral_value(context=ROUNDING):
        raise EvaluationError(f"round() digits must be a whole number from -100 to 100, got "
                              f"{digits}", code="invalid_argument", span=span)
    try:
        return value.quantize(_SCALES[int(digits)], rounding=ROUND_HALF_UP, context=ROUNDING)
    except ARITHMETIC_ERRORS as error:
        if isinstance(error, InvalidOperation):  # quantize's way to say: too many digits
            error = Rounded()
        raise arithmetic_error("round", span, error) from None


_SCALES = {digits: Decimal(1).scaleb(-digits, context=ROUNDING) for digits in range(-100, 101)}


def _abs(args, ev, span):
    _expect("abs", args[0], (Decimal,), "a number", span)
    return numbers.absolute(args[0])


def _integral(name: str, rounding: str) -> Builtin:
    def implementation(args, ev, span):
        _expect(name, args[0], (Decimal,), "a number", span)
        try:
            return args[0].to_integral_value(rounding=rounding, context=ROUNDING)
        except ARITHMETIC_ERRORS as error:
            raise arithmetic_error(name, span, error) from None
    return implementation


def _items(name: str, args: list, span) -> list:
    if len(args) == 1:
        if not isinstance(args[0], COLLECTIONS):
            raise EvaluationError(f"{name}() of one argument expects a list, got "
                                  f"{kind_of(args[0])}", code="type_mismatch", span=span)
        return [item for item in args[0] if item is not None]
    return list(args)


def _extreme(name: str, better: Callable) -> Builtin:
    def implementation(args, ev, span):
        best = None
        for item in _items(name, args, span):
            if best is None or better(item, best, span):
                best = item
        return best
    return implementation


def _sum(args, ev, span):
    total = ZERO
    for item in _items("sum", args, span):
        _expect("sum", item, (Decimal,), "numbers", span)
        total = numbers.add(total, item, span, "sum")
    return total


def _today(args, ev, span):
    return ev.today(span)


def _now(args, ev, span):
    return ev.now(span)


def _date(args, ev, span):
    (value,) = args
    if type(value) is date:
        return value
    if type(value) is datetime:
        return value.date()
    _expect("date", value, (str,), "a string", span)
    if _ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    shown = value if len(value) <= 60 else value[:57] + "..."
    raise EvaluationError(f"date(): {shown!r} is not an ISO date (YYYY-MM-DD)",
                          code="invalid_date", span=span)


def _calendar_dates(name: str, args: list, span) -> tuple[date, date]:
    a, b = args
    _expect(name, a, (date, datetime), "dates", span)
    _expect(name, b, (date, datetime), "dates", span)
    return (a.date() if type(a) is datetime else a), (b.date() if type(b) is datetime else b)


def _days_between(args, ev, span):
    a, b = _calendar_dates("days_between", args, span)
    return Decimal((b - a).days)


def _years_between(args, ev, span):
    a, b = _calendar_dates("years_between", args, span)
    if b < a:
        return Decimal(-_whole_years(b, a))
    return Decimal(_whole_years(a, b))


def _whole_years(start: date, end: date) -> int:
    return end.year - start.year - ((end.month, end.day) < (start.month, start.day))


def _coalesce(args, ev, span):
    for value in args:
        if value is not None:
            return value
    return None


#: name -> (minimum arguments, maximum arguments or None for any number, implementation)
BUILTINS: dict[str, tuple[int, int | None, Builtin]] = {
    "len": (1, 1, _len),
    "lower": (1, 1, _lower),
    "upper": (1, 1, _upper),
    "trim": (1, 1, _trim),
    "round": (1, 2, _round),
    "abs": (1, 1, _abs),
    "floor": (1, 1, _integral("floor", ROUND_FLOOR)),
    "ceil": (1, 1, _integral("ceil", ROUND_CEILING)),
    "min": (1, None, _extreme("min", less)),
    "max": (1, None, _extreme("max", greater)),
    "sum": (1, None, _sum),
    "today": (0, 0, _today),
    "now": (0, 0, _now),
    "date": (1, 1, _date),
    "days_between": (2, 2, _days_between),
    "years_between": (2, 2, _years_between),
    "coalesce": (1, None, _coalesce),
}
NULL_TOLERANT = frozenset({"coalesce"})


def call_builtin(name: str, args: list, ev: Evaluation, span: Span | None) -> object:
    """Apply built-in `name` (arity already checked at compile time) with null propagation."""
    if name not in NULL_TOLERANT:
        for value in args:
            if value is None:
                return None
    return BUILTINS[name][2](args, ev, span)
