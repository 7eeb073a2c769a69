"""The engine's decimal arithmetic: its own contexts, never the caller's `decimal.getcontext()`.

Every operation on numbers that could round goes through a context of this module, passed
explicitly (`EXACT.add(a, b)`, never `a + b`), so a host that changes its thread's decimal
context cannot change a result. `+ - * %` are exact up to `MAX_DIGITS` significant digits, `/`
gives `DIVISION_DIGITS` rounded half to even, every result's exponent stays within
`MAX_EXPONENT`; beyond a bound is `arithmetic_error` (docs/rules-language.md, "Evaluation").
"""

from __future__ import annotations

from decimal import (
    MAX_EMAX,
    MAX_PREC,
    MIN_EMIN,
    ROUND_HALF_EVEN,
    Clamped,
    Context,
    Decimal,
    DecimalException,
    DivisionByZero,
    FloatOperation,
    Inexact,
    InvalidOperation,
    Overflow,
    Rounded,
    Subnormal,
    Underflow,
)

from insureops.engine.ir import Span
from insureops.engine.ir.errors import EvaluationError

MAX_DIGITS = 100  # significant digits of a result of + - * % and of round()
MAX_EXPONENT = 1000  # |adjusted exponent| of any number: inputs, literals' results, results
DIVISION_DIGITS = 34  # significant digits of a quotient (IEEE 754 decimal128's precision)
# The integer quotient behind `%` has at most 2 * MAX_EXPONENT + 1 digits.
_REMAINDER_DIGITS = 2 * MAX_EXPONENT + MAX_DIGITS

_RANGE = [Overflow, Underflow, Subnormal, Clamped]
_ALWAYS = [InvalidOperation, DivisionByZero, FloatOperation]


def _context(digits: int, traps: list) -> Context:
    return Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=MAX_EXPONENT, Emin=-MAX_EXPONENT,
                   capitals=1, clamp=0, flags=[], traps=traps)


#: `+ - *`: exact up to MAX_DIGITS digits (any rounding traps), exponents in range
EXACT = _context(MAX_DIGITS, [*_ALWAYS, *_RANGE, Inexact, Rounded])
#: `/`: DIVISION_DIGITS digits, rounded half to even
QUOTIENT = _context(DIVISION_DIGITS, [*_ALWAYS, *_RANGE])
#: round(), floor(), ceil(): rounding is their purpose; at most MAX_DIGITS digits
ROUNDING = _context(MAX_DIGITS, [*_ALWAYS, *_RANGE])
#: `%`: wide enough for any integer quotient of two numbers in range; the result is exact
_REMAINDER = _context(_REMAINDER_DIGITS, [*_ALWAYS, *_RANGE, Inexact, Rounded])
#: exact sums and differences outside evaluation (the checker's table analysis, simulation
#: statistics): any number of digits, any exponent; never used to divide
WIDE = Context(prec=MAX_PREC, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN,
               capitals=1, clamp=0, flags=[], traps=[*_ALWAYS, Overflow])
#: statistics of many results (means, histogram bins): 34 digits at any exponent
SUMMARY = Context(prec=DIVISION_DIGITS, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN,
                  capitals=1, clamp=0, flags=[], traps=_ALWAYS)

ARITHMETIC_ERRORS = (DecimalException, MemoryError)


def arithmetic_error(op: str, span: Span | None,
                     error: BaseException | None = None) -> EvaluationError:
    """The `arithmetic_error` for operator or built-in `op`, naming the limit `error` hit."""
    if isinstance(error, (Overflow, Subnormal, Clamped)):  # Underflow is a Subnormal
        why = (f"a number whose exponent is beyond the limit of +-{MAX_EXPONENT} "
               f"(numbers are at most about 10^{MAX_EXPONENT})")
    elif isinstance(error, (Inexact, Rounded, MemoryError)):
        why = (f"a number of more than {MAX_DIGITS} significant digits (the limit of exact "
               f"arithmetic)")
    else:
        why = "a number out of range"
    return EvaluationError(f"`{op}` gave {why}", code="arithmetic_error", span=span)


def add(a: Decimal, b: Decimal, span: Span | None, op: str = "+") -> Decimal:
    """`a + b`, exact."""
    try:
        return EXACT.add(a, b)
    except ARITHMETIC_ERRORS as error:
        raise arithmetic_error(op, span, error) from None


def subtract(a: Decimal, b: Decimal, span: Span | None, op: str = "-") -> Decimal:
    """`a - b`, exact."""
    try:
        return EXACT.subtract(a, b)
    except ARITHMETIC_ERRORS as error:
        raise arithmetic_error(op, span, error) from None


def multiply(a: Decimal, b: Decimal, span: Span | None) -> Decimal:
    """`a * b`, exact."""
    try:
        return EXACT.multiply(a, b)
    except ARITHMETIC_ERRORS as error:
        raise arithmetic_error("*", span, error) from None


def divide(a: Decimal, b: Decimal, span: Span | None) -> Decimal:
    """`a / b` for a non-zero `b`, to DIVISION_DIGITS digits."""
    try:
        return QUOTIENT.divide(a, b)
    except ARITHMETIC_ERRORS as error:
        raise arithmetic_error("/", span, error) from None


def remainder(a: Decimal, b: Decimal, span: Span | None) -> Decimal:
    """`a % b` for a non-zero `b`: exact, with the sign of `a`, at most MAX_DIGITS digits."""
    try:
        return EXACT.plus(_REMAINDER.remainder(a, b))
    except ARITHMETIC_ERRORS as error:
        raise arithmetic_error("%", span, error) from None


def negated(a: Decimal) -> Decimal:
    """`-a`, exact (a copy with the sign flipped; zero stays an unsigned zero)."""
    return a.copy_negate() if a else a.copy_abs()


def absolute(a: Decimal) -> Decimal:
    """`abs(a)`, exact."""
    return a.copy_abs()


def in_range(number: Decimal) -> bool:
    """Whether a finite number's adjusted exponent is within +-MAX_EXPONENT (zeros too)."""
    return -MAX_EXPONENT <= number.adjusted() <= MAX_EXPONENT
