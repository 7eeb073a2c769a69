"""Comparisons of computed money decided in binary floating point when the answer is clear.

`premium * factor > 12_000` or `sum(p.amount for p in payments) > reserve / 2` on amounts
with cents would convert every float to an exact Decimal before the first comparison. Here the
generated code first computes both sides in floats, with a bound on their magnitudes: every
float operation is within one part in 2^53 of the exact decimal one (a JSON float is the
nearest float to its shortest text; a Decimal constant or value converts to the nearest float),
so when the two sides differ by more than `MARGIN` of their magnitudes, their exact decimal
values compare the same way. Anything else (a near tie, a null, a string, a non-finite or
huge or tiny number, a divisor that is not read directly, a division by zero) takes the exact
path, as if the filter were not there: it charges the same work (the filter's charges are
given back) and raises the same errors.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import NamedTuple

from insureops.engine import ir
from insureops.engine.ir.numbers import DIVISION_DIGITS, MAX_DIGITS
from insureops.engine.ir.operators import PYTHON
from insureops.engine.ir.tree import children, conjuncts

MARGIN = 1e-9  # far above the error of any expression the language can nest
_ARITHMETIC = {"+", "-", "*", "/"}
_TINY = 1e-290  # below this, floats lose relative precision (subnormals)
# A leaf (a float or int read, a constant by identity) is taken when its magnitude is in
# [LEAST, LARGEST): then its exact decimal has an adjusted exponent in [-9, 14] and, with at
# most 17 significant digits, an exponent of at least -25; the digits any computation of such
# leaves needs are bounded statically (`Term`), and an expression that could need more than
# exact arithmetic's digits (where the exact path raises `arithmetic_error`) is not filtered.
LEAST, LARGEST = 1e-9, 1e15
LARGEST_INT = 10**15
LEAF_HIGH, LEAF_LOW, LEAF_LEAST = 14, -25, -9
LARGE = 10**6
# decided in floats: the sides differ by more than the margin of their magnitudes `_m`, which
# are not tiny (no test of `_m < INF` is needed: an infinite or NaN `_m`, which an overflowing
# difference `_d` implies, fails the margin test)
DECIDED = f"(_d > {MARGIN!r} * _m or _d < -{MARGIN!r} * _m) and _m > {_TINY!r}"
QUOTIENT_DIGITS = DIVISION_DIGITS


class FloatFilter:
    """Generates the filtered form of one comparison, through the emitter making the rest."""

    def __init__(self, emitter) -> None:
        self.emitter = emitter
        self.src = emitter.src

    def compare(self, node: ir.Binary, scope):
        """The filtered comparison's code (a call of a function of its own), or None when the
        filter has nothing to win (no arithmetic or sum on either side) or cannot apply."""
        with self.emitter.nested():
            parts = self._parts(node, scope)
        if parts is None:
            return None
        left, right, exact, test, params = parts
        name = self.src.fresh("_c")
        self.src.functions.append([
            f"def {name}({', '.join(params)}):",
            "    _r = ev.remaining",
            "    try:",
            f"        _d = ({left.value}) - ({right.value})",
            f"        _m = ({left.size}) + ({right.size})",
            "    except FLOAT_BAIL: pass",
            "    else:",
            f"        if {DECIDED}:",
            f"            return {test}",
            "    ev.remaining = _r",
            f"    return {exact.text}"])
        return type(exact)(f"{name}({self.emitter.arguments(params)})")

    def statements(self, node: ir.Binary, scope, target: str):
        """The filtered comparison as statements setting `target` (a condition of the rule
        loop: no call), or None as for `compare`. `...` marks "not decided in floats"."""
        parts = self._parts(node, scope)
        if parts is None:
            return None
        left, right, exact, test, _ = parts
        lazy = self.emitter.ev != "ev"  # the evaluation may not be made yet (`LAZY`)
        return ["_r = ev.remaining if ev is not None else _st" if lazy else "_r = ev.remaining",
                "try:",
                f"    _d = ({left.value}) - ({right.value})",
                f"    _m = ({left.size}) + ({right.size})",
                f"    {target} = {test} if {DECIDED} else ...",
                f"except FLOAT_BAIL: {target} = ...",
                f"if {target} is ...:",
                "    if ev is not None: ev.remaining = _r" if lazy else "    ev.remaining = _r",
                f"    {target} = {exact.text}"]

    def _parts(self, node: ir.Binary, scope):
        """(left term, right term, exact code, the float test, the names the code reads)."""
        if not (_computed(node.left) or _computed(node.right)):
            return None
        emitter = self.emitter
        outer_used = emitter.used
        emitter.used = set()
        try:
            left = self.term(node.left, scope)
            right = self.term(node.right, scope) if left is not None else None
            if right is None:
                return None
            exact = emitter.binary_expr(node, scope, filtered=False)
            used = emitter.used
        finally:
            emitter.used = outer_used | emitter.used
        texts = exact.text + left.value + right.value
        params = emitter._params(scope, used) + [held for held in (emitter.hoisted or ())
                                                 if held in texts]
        test = {"<": "_d < 0.0", "<=": "_d < 0.0", ">": "_d > 0.0", ">=": "_d > 0.0",
                "==": "False", "!=": "True"}[node.op]
        return left, right, exact, test, params

    def term(self, node, scope) -> Term | None:
        """The float form of a numeric expression, or None when it has none (or when its
        exact value could need more digits than exact arithmetic gives: then the exact path
        would raise, and must)."""
        found = self._term(node, scope)
        if found is None or found.high - found.low + 1 > MAX_DIGITS:
            return None
        return found

    def _term(self, node, scope) -> Term | None:
        emitter = self.emitter
        if isinstance(node, ir.Literal):
            return _constant(node.value)
        if id(node) in emitter.folded:
            return _constant(emitter.folded[id(node)])
        if isinstance(node, ir.Name) and node.name in emitter.consts \
                and node.name not in scope:
            return _constant(emitter.consts[node.name])
        if isinstance(node, ir.Binary) and node.op in _ARITHMETIC:
            left = self.term(node.left, scope)
            right = self.term(node.right, scope) if left is not None else None
            if right is None or (node.op == "/" and not right.leaf):
                return None  # a computed divisor may be near zero: no relative bound
            op = node.op
            if op in ("*", "/"):
                value = f"({left.value}) {op} ({right.value})"
                size = f"({left.size}) {op} ({right.size})"
                absolute = left.absolute and right.absolute
                if absolute:  # |a * b| is |a| * |b| (rounding is symmetric): kept, not redone
                    p = self.src.fresh("_p")
                    value, size = f"({p} := {value})", f"({p} if {p} >= 0.0 else -{p})"
                if op == "*":
                    return Term(value, size, left.high + right.high + 1, left.low + right.low,
                                left.least, absolute=absolute)
                high = left.high + 1 - right.least
                return Term(value, size, high, high - QUOTIENT_DIGITS, left.least,
                            absolute=absolute)
            return Term(f"({left.value}) {op} ({right.value})", f"({left.size}) + ({right.size})",
                        max(left.high, right.high) + 1, min(left.low, right.low), -LARGE)
        if isinstance(node, ir.Unary) and node.op == "-":
            inner = self.term(node.operand, scope)
            return None if inner is None else inner._replace(value=f"-({inner.value})",
                                                             leaf=False)
        if isinstance(node, ir.Comprehension) and node.kind == "sum":
            return self._sum(node, scope)
        if isinstance(node, ir.Member) and isinstance(node.obj, ir.Name) \
                and node.field in emitter.shadows and node.obj.name == "outputs" \
                and scope.get("outputs") == ("o", None, "o"):  # the rule loop's outputs
            return self._shadowed(emitter.shadows[node.field])
        if isinstance(node, (ir.Member, ir.Name)):
            return self._leaf(emitter.expr(node, scope))
        return None

    def _shadowed(self, local: str) -> Term:
        """An output read through the float its writes keep in `local` (None when the value
        written has no float leaf: then the exact path, as for `_leaf`'s lookup)."""
        x = self.src.fresh("_f")
        return Term(f"({x} if ({x} := {local}) is not None else BAIL())",
                    f"({x} if {x} >= 0.0 else -{x})", LEAF_HIGH, LEAF_LOW, LEAF_LEAST, leaf=True,
                    absolute=True)

    def _leaf(self, code) -> Term | None:
        """A value read: an int or a float in the leaf range as it is (a raw field), a
        Decimal that is one of the ruleset's constants (a table's factor) as its float;
        anything else gives up (FLOAT_BAIL) for the exact path."""
        if code.slot is not None and code.slot.fmt is not None:
            return None
        x = self.src.fresh("_f")
        if code.slot is not None:
            value = (f"({x} if (_t{x} := type({x} := {code.text})) is FLOAT and "
                     f"({LEAST!r} <= {x} < {LARGEST!r} or {-LARGEST!r} < {x} <= {-LEAST!r} or "
                     f"{x} == 0.0) or _t{x} is INT and {-LARGEST_INT} < {x} < {LARGEST_INT} "
                     f"else BAIL())")
        else:  # one of this ruleset's constants, by identity (they live as long as its code)
            value = (f"({x} if ({x} := {self.src.const(self.src.floats)}.get(id({code.text}))) "
                     f"is not None else BAIL())")
        # the magnitude inline (a comparison, not a call of `abs`)
        return Term(value, f"({x} if {x} >= 0.0 else -{x})", LEAF_HIGH, LEAF_LOW, LEAF_LEAST,
                    leaf=True, absolute=True)

    def _sum(self, node: ir.Comprehension, scope) -> Term | None:
        """`sum(...)` as (float total, total of magnitudes), from a loop of its own."""
        found = []

        def fold(node, inner, item, span):
            if node.projection is None:
                return None
            term = self.term(node.projection, inner)
            if term is None:
                return None
            found.append(term)
            select = []
            if node.where is not None:
                where = self.emitter.expr(node.where, inner)
                wrong = self.emitter.converted(type(where)("_w", where.slot))
                select = [f"    _w = {where.text}", "    if _w is not True:",
                          f"        if _w is not False and _w is not None: TRUTH({wrong}, {span})",
                          "        continue"]
            return ["total = 0.0; size = 0.0", f"for {item} in _s:", *select,
                    f"    total += {term.value}", f"    size += {term.size}", "return total, size"]

        code = self.emitter._comprehension(node, scope, fold)
        if code is None:
            return None
        held = self.src.fresh("_s")
        # at most `max_steps` items: the total has at most 7 more digits before the point
        return Term(f"({held} := {code.text})[0]", f"{held}[1]", found[0].high + 7,
                    found[0].low, -LARGE)


class Term(NamedTuple):
    """The float form of a numeric expression: its value's and magnitude's texts, and bounds
    on the exact decimal value of anything it computes: the highest adjusted exponent, the
    lowest exponent, and the least adjusted exponent of its magnitude (for a divisor)."""

    value: str
    size: str
    high: int
    low: int
    least: int
    leaf: bool = False
    absolute: bool = False  # the magnitude's text computes exactly |value|


def constant_floats(names: dict) -> dict:
    """id -> float of every Decimal constant in the leaf range (`FloatFilter._leaf`)."""
    found = {}
    for value in names.values():
        number = leaf_float(value)
        if number is not None:
            found[id(value)] = number
    return found


def leaf_float(value: object) -> float | None:
    """The float of a constant the filter takes as a leaf (a Decimal in the leaf range), or
    None."""
    if type(value) is Decimal and value.is_finite() and (
            not value or (LEAF_LEAST <= value.adjusted() <= LEAF_HIGH
                          and value.as_tuple().exponent >= LEAF_LOW)):
        return float(value)
    return None


def shadowed_outputs(condition) -> set[str]:
    """The outputs a rule's condition reads (`outputs.x`) where the filter, in the rule
    loop, takes them as leaves: in its comparisons of computed numbers, outside any
    comprehension (whose body is a function of its own)."""
    found: set[str] = set()
    for part in conjuncts(condition):
        if isinstance(part, ir.Binary) and part.op in PYTHON and (
                _computed(part.left) or _computed(part.right)):
            stack = [part.left, part.right]
            while stack:
                node = stack.pop()
                if isinstance(node, ir.Member) and isinstance(node.obj, ir.Name) \
                        and node.obj.name == "outputs":
                    found.add(node.field)
                elif isinstance(node, (ir.Binary, ir.Unary)):
                    stack.extend(children(node))
    return found


def _constant(value: object) -> Term | None:
    if type(value) is not Decimal or not value.is_finite():
        return None
    number = float(value)
    if not math.isfinite(number) or (number and abs(number) < _TINY):
        return None
    if not value:
        return Term("0.0", "0.0", 0, 0, 0, leaf=True, absolute=True)
    exponent = value.as_tuple().exponent
    return Term(repr(number), repr(abs(number)), value.adjusted(), exponent, value.adjusted(),
                leaf=True, absolute=True)


def _computed(node) -> bool:
    return (isinstance(node, ir.Binary) and node.op in _ARITHMETIC) or (
        isinstance(node, ir.Comprehension) and node.kind == "sum") or (
        isinstance(node, ir.Unary) and node.op == "-")
