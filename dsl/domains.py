"""Sets of values a condition accepts: number intervals and finite/co-finite value sets, plus null.

The table checker (overlaps, gaps) and the reachability checker (contradictions, shadowing)
reason with these: a condition on literals becomes a Domain, and emptiness, intersection and
inclusion of Domains are decidable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.ir.numbers import negated
from insureops.engine.ir.printer import print_literal

Bound = Decimal | None  # None is -infinity as a low bound, +infinity as a high bound


@dataclass(frozen=True, slots=True)
class Interval:
    """A non-empty number interval; open or closed at each finite end."""

    low: Bound
    low_closed: bool
    high: Bound
    high_closed: bool

    def intersect(self, other: Interval) -> Interval | None:
        low, low_closed = _max_low((self.low, self.low_closed), (other.low, other.low_closed))
        high, high_closed = _min_high((self.high, self.high_closed),
                                      (other.high, other.high_closed))
        return _interval(low, low_closed, high, high_closed)

    def describe(self, subject: str) -> str:
        if self.low is not None and self.low == self.high:
            return f"{subject} == {print_literal(self.low)}"
        parts = []
        if self.low is not None:
            parts.append(f"{subject} {'>=' if self.low_closed else '>'} {print_literal(self.low)}")
        if self.high is not None:
            parts.append(f"{subject} {'<=' if self.high_closed else '<'} {print_literal(self.high)}")
        return " and ".join(parts) or f"{subject} is any number"


def _interval(low: Bound, low_closed: bool, high: Bound, high_closed: bool) -> Interval | None:
    if low is not None and high is not None and (
            low > high or (low == high and not (low_closed and high_closed))):
        return None
    return Interval(low, low_closed and low is not None, high, high_closed and high is not None)


def _max_low(a: tuple[Bound, bool], b: tuple[Bound, bool]) -> tuple[Bound, bool]:
    if a[0] is None:
        return b
    if b[0] is None or a[0] > b[0]:
        return a
    if a[0] < b[0]:
        return b
    return a[0], a[1] and b[1]


def _min_high(a: tuple[Bound, bool], b: tuple[Bound, bool]) -> tuple[Bound, bool]:
    if a[0] is None:
        return b
    if b[0] is None or a[0] < b[0]:
        return a
    if a[0] > b[0]:
        return b
    return a[0], a[1] and b[1]


@dataclass(frozen=True, slots=True)
class Domain:
    """Values a condition accepts. Numbers: `intervals`; other values (strings, booleans, dates):
    `values`, read as "all but these" when `cofinite`. `null` says whether null is accepted."""

    intervals: tuple[Interval, ...] | None = None
    values: frozenset = frozenset()
    cofinite: bool = False
    null: bool = False

    @property
    def numeric(self) -> bool:
        return self.intervals is not None

    def is_empty(self) -> bool:
        if self.null:
            return False
        if self.numeric:
            return not self.intervals
        return not self.cofinite and not self.values

    def intersect(self, other: Domain) -> Domain | None:
        """The common values, or None when the two are of different kinds (not comparable)."""
        null = self.null and other.null
        for a, b in ((self, other), (other, self)):
            if a.universal:
                return replace(b, null=null)
            if a.valueless:
                return Domain(values=frozenset(), null=null)
        if self.numeric != other.numeric:
            return None
        if self.numeric:
            pieces = [a.intersect(b) for a in self.intervals or () for b in other.intervals or ()]
            return Domain(intervals=tuple(p for p in pieces if p is not None), null=null)
        if self.cofinite and other.cofinite:
            return Domain(values=self.values | other.values, cofinite=True, null=null)
        if self.cofinite:
            return Domain(values=other.values - self.values, null=null)
        if other.cofinite:
            return Domain(values=self.values - other.values, null=null)
        return Domain(values=self.values & other.values, null=null)

    @property
    def universal(self) -> bool:
        """Every non-null value (and null when `null`)."""
        return self.intervals is None and self.cofinite and not self.values

    @property
    def valueless(self) -> bool:
        """No non-null value (only null when `null`)."""
        return self.intervals is None and not self.cofinite and not self.values

    def within(self, other: Domain) -> bool:
        """True when every value of self is also in other (self implies other)."""
        complement = other.complement()
        common = self.intersect(complement) if complement is not None else None
        return common is not None and common.is_empty()

    def complement(self) -> Domain | None:
        if self.numeric:
            return Domain(intervals=_complement(self.intervals or ()), null=not self.null)
        return Domain(values=self.values, cofinite=not self.cofinite, null=not self.null)


ANYTHING = Domain(cofinite=True, null=True)
NULL_ONLY = Domain(values=frozenset(), null=True)


def _complement(intervals: tuple[Interval, ...]) -> tuple[Interval, ...]:
    out: list[Interval] = []
    cursor: Bound = None  # where the next gap starts; None is -infinity
    cursor_closed = False
    ordered = sorted(intervals, key=lambda i: (i.low is not None, i.low or 0, not i.low_closed))
    for piece in ordered:
        if piece.low is not None:
            gap = _interval(cursor, cursor_closed, piece.low, not piece.low_closed)
            if gap is not None:
                out.append(gap)
        if piece.high is None:
            return tuple(out)
        candidate = (piece.high, not piece.high_closed)
        if cursor is None or candidate[0] > cursor:
            cursor, cursor_closed = candidate
        elif candidate[0] == cursor:
            cursor_closed = cursor_closed and candidate[1]
    out.append(Interval(cursor, cursor_closed and cursor is not None, None, False))
    return tuple(out)


def non_null(domain: Domain) -> Domain:
    return Domain(domain.intervals, domain.values, domain.cofinite, False)


def compare(op: str, value: object) -> Domain | None:
    """The values `x` with `x op value` true, for a literal value; None when not representable."""
    if isinstance(value, (frozenset, tuple, list)):
        if op not in ("in", "not in") or not value:
            return Domain(values=frozenset()) if op == "in" else None
        domains = [compare("==", item) for item in value]
        if any(d is None for d in domains) or len({d.numeric for d in domains}) > 1:
            return None
        union = _union(domains)  # type: ignore[arg-type]
        return union if op == "in" else non_null(union.complement())  # type: ignore[union-attr]
    if value is None or op in ("in", "not in"):
        return None
    if isinstance(value, Decimal) and not isinstance(value, bool):
        return _number(op, value)
    if op == "==":
        return Domain(values=frozenset([value]))
    if op == "!=":
        return Domain(values=frozenset([value]), cofinite=True)
    return None


def _number(op: str, value: Decimal) -> Domain | None:
    shapes = {
        "==": [(value, True, value, True)],
        "!=": [(None, False, value, False), (value, False, None, False)],
        "<": [(None, False, value, False)], "<=": [(None, False, value, True)],
        ">": [(value, False, None, False)], ">=": [(value, True, None, False)],
    }
    if op not in shapes:
        return None
    return Domain(intervals=tuple(Interval(*shape) for shape in shapes[op]))


def between(low: object, high: object) -> Domain | None:
    if isinstance(low, Decimal) and isinstance(high, Decimal):
        piece = _interval(low, True, high, True)
        return Domain(intervals=(piece,) if piece else ())
    return None


def _union(domains: list[Domain]) -> Domain:
    if domains[0].numeric:
        return Domain(intervals=tuple(i for d in domains for i in d.intervals or ()))
    return Domain(values=frozenset().union(*(d.values for d in domains)))


_UNKNOWN = object()


def literal_value(expr: ir.Expr, consts: dict[str, object]) -> object:
    """The value of a literal, a const, or a list/set of them; _UNKNOWN otherwise."""
    if isinstance(expr, ir.Literal):
        return expr.value
    if isinstance(expr, ir.Name):
        return consts.get(expr.name, _UNKNOWN)
    if isinstance(expr, ir.Unary) and expr.op == "-":
        inner = literal_value(expr.operand, consts)
        return negated(inner) if isinstance(inner, Decimal) else _UNKNOWN
    if isinstance(expr, (ir.ListExpr, ir.SetExpr)):
        items = [literal_value(item, consts) for item in expr.items]
        if any(item is _UNKNOWN or isinstance(item, (list, frozenset)) for item in items):
            return _UNKNOWN
        return frozenset(items) if isinstance(expr, ir.SetExpr) else tuple(items)
    return _UNKNOWN


def is_known(value: object) -> bool:
    """False for the marker literal_value returns when a value is not known statically."""
    return value is not _UNKNOWN


def show(value: object) -> str:
    """A value as the language writes it, for messages."""
    return print_literal(value)
