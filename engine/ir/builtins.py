"""The one registry of built-in functions (`FUNCTIONS`): signature, implementation, docs.

The checker (`dsl/functions.py`), the closures, the reference interpreter, the generated code
and the docs' table derive from it: a new built-in is a grammar-free addition here (see
docs/architecture.md "Adding an operator or a built-in"). A null argument gives null, except
for `coalesce`; `min`, `max` and `sum` over a list skip null elements.

Numbers are computed under the engine's decimal contexts (`numbers.py`). `round(x, digits)`
rounds half up (away from zero on a tie: `round(2.5, 0) == 3`), the usual
convention for money; `digits` defaults to 0 and may be negative (`round(1234, -2) == 1200`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation, Rounded

from insureops.engine.ir import Span, costs, numbers
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.numbers import ARITHMETIC_ERRORS, ROUNDING, arithmetic_error
from insureops.engine.ir.operations import COLLECTIONS, ZERO, greater, less
from insureops.engine.ir.values import iso_date, kind_of

Builtin = Callable[[list, Evaluation, Span | None], object]


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
    day = iso_date(value)
    if day is not None:
        return day
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


@dataclass(frozen=True, slots=True)
class Function:
    """One built-in function: what the checker, every evaluation path and the docs read.

    `accepts` lists, per argument, the kinds the checker allows (None: any); `result` is the
    kind of the result, or "items": an item of its one list or set, or else the common type of
    its arguments. `items`, when set, lets the function take one list or set instead of
    several arguments, whose items must be of that kind ("any": any). A null argument gives
    null without calling the implementation unless `null_tolerant`; `clock` marks what reads
    the evaluation's as-of moment (never cached across as-of dates); `scans` what the cost model
    charges (`engine/ir/costs.py`): "text" its first argument's characters, "items" the
    items of its one list argument."""

    name: str
    implementation: Builtin
    minimum: int
    maximum: int | None  # None: any number of arguments
    accepts: tuple[tuple[str, ...], ...] | None
    result: str
    summary: str
    items: str | None = None
    null_tolerant: bool = False
    clock: bool = False
    scans: str | None = None


_TEXT, _NUMBER, _MOMENT = ("string",), ("number",), ("date", "datetime")

_ENTRIES = [
    Function("len", _len, 1, 1, (("string", "list", "set", "object"),), "number",
             "characters of a string, items of a list or set, keys of an object"),
    Function("lower", _lower, 1, 1, (_TEXT,), "string", "the string in lower case",
             scans="text"),
    Function("upper", _upper, 1, 1, (_TEXT,), "string", "the string in upper case",
             scans="text"),
    Function("trim", _trim, 1, 1, (_TEXT,), "string", "the string without surrounding spaces",
             scans="text"),
    Function("round", _round, 1, 2, (_NUMBER, _NUMBER), "number",
             "rounded half up to `digits` (default 0, may be negative)"),
    Function("abs", _abs, 1, 1, (_NUMBER,), "number", "the absolute value"),
    Function("floor", _integral("floor", ROUND_FLOOR), 1, 1, (_NUMBER,), "number",
             "the largest whole number not above"),
    Function("ceil", _integral("ceil", ROUND_CEILING), 1, 1, (_NUMBER,), "number",
             "the smallest whole number not below"),
    Function("min", _extreme("min", less), 1, None, None, "items",
             "the smallest of its arguments, or of one list's non-null items", items="any",
             scans="items"),
    Function("max", _extreme("max", greater), 1, None, None, "items",
             "the largest of its arguments, or of one list's non-null items", items="any",
             scans="items"),
    Function("sum", _sum, 1, None, None, "number",
             "the total of its arguments, or of one list's non-null items", items="number",
             scans="items"),
    Function("today", _today, 0, 0, (), "date", "the as-of date", clock=True),
    Function("now", _now, 0, 0, (), "datetime", "the as-of moment", clock=True),
    Function("date", _date, 1, 1, (("string", "date", "datetime"),), "date",
             "a date from an ISO `YYYY-MM-DD` string, or the date of a date-time"),
    Function("days_between", _days_between, 2, 2, (_MOMENT, _MOMENT), "number",
             "calendar days from the first to the second"),
    Function("years_between", _years_between, 2, 2, (_MOMENT, _MOMENT), "number",
             "whole years from the first to the second (an age)"),
    Function("coalesce", _coalesce, 1, None, None, "items", "the first non-null argument",
             null_tolerant=True),
]

#: the one registry of built-in functions, by name
FUNCTIONS: dict[str, Function] = {entry.name: entry for entry in _ENTRIES}
CLOCK = frozenset(entry.name for entry in _ENTRIES if entry.clock)


def arity_text(function: Function) -> str:
    """How many arguments `function` takes, in words: "1", "1 to 2", "1 or more"."""
    low, high = function.minimum, function.maximum
    return str(low) if high == low else (f"{low} or more" if high is None else f"{low} to {high}")


def docs_table() -> str:
    """The built-in table of docs/rules-language.md (a test compares them)."""
    rows = ["| function | arguments | result | what it gives |", "|---|---|---|---|"]
    for f in _ENTRIES:
        rows.append(f"| `{f.name}` | {arity_text(f)} | {f.result} | {f.summary} |")
    return "\n".join(rows)


def call_builtin(name: str, args: list, ev: Evaluation, span: Span | None) -> object:
    """Apply built-in `name` (arity already checked at compile time) with null propagation."""
    function = FUNCTIONS[name]
    if not function.null_tolerant:
        for value in args:
            if value is None:
                return None
    if function.scans is not None:
        _charge(function.scans, args, ev, span)
    return function.implementation(args, ev, span)


def _charge(scans: str, args: list, ev: Evaluation, span: Span | None) -> None:
    first = args[0]
    if scans == "text" and type(first) is str:
        costs.charge(ev, len(first) // costs.CHARS_PER_STEP, span)
    elif scans == "items" and len(args) == 1 and isinstance(first, COLLECTIONS):
        costs.charge(ev, len(first), span)
