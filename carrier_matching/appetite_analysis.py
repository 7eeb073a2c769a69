"""The static analysis behind pruning: from an appetite's IR, the NAICS codes and states for
which some evaluation could end in accept or refer (an over-approximation: when unsure, any).

Conditions are read in three-valued logic: for each `when` the analysis computes boxes (a NAICS
set times a state set) holding every business for which it is true, false or null; anything
it does not understand is "any business" for all three, which only ever keeps an appetite.
It runs once per presence pattern (NAICS given or not, state given or not): with a field
absent every comparison on it is null, so `missing_information` rules are read exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from insureops.carrier_matching.prefix_sets import ALL, NONE, StringSet
from insureops.engine import ir

DIMENSIONS = ("naics", "state")  # the Business fields the analysis reads (indexes 0 and 1)


@dataclass(frozen=True, slots=True)
class Box:
    """Businesses whose NAICS is in `naics` and state in `state` (for a field that is absent
    in the pattern its set is irrelevant and stays ALL)."""

    naics: StringSet
    state: StringSet

    @property
    def is_empty(self) -> bool:
        return self.naics.is_empty or self.state.is_empty

    def __and__(self, other: Box) -> Box:
        if self is FULL:
            return other
        if other is FULL:
            return self
        box = Box(self.naics & other.naics, self.state & other.state)
        return EMPTY if box.is_empty else box

    def __or__(self, other: Box) -> Box:
        """The smallest box holding both (a hull: a union across fields widens)."""
        if self.is_empty:
            return other
        if other.is_empty:
            return self
        if self is FULL or other is FULL:
            return FULL
        return Box(self.naics | other.naics, self.state | other.state)


FULL = Box(ALL, ALL)
EMPTY = Box(NONE, NONE)


@dataclass(frozen=True, slots=True)
class Tri:
    """Boxes holding every business for which a condition is true, false, and null."""

    true: Box
    false: Box
    null: Box

    @property
    def not_true(self) -> Box:
        return self.false | self.null


UNKNOWN = Tri(FULL, FULL, FULL)
_CONSTANT = {True: Tri(FULL, EMPTY, EMPTY), False: Tri(EMPTY, FULL, EMPTY),
             None: Tri(EMPTY, EMPTY, FULL)}


class _Unknown:
    """A value the analysis cannot tell."""


UNKNOWN_VALUE = _Unknown()


@dataclass(frozen=True, slots=True)
class Const:
    value: object


@dataclass(frozen=True, slots=True)
class Field:
    dimension: int  # index into DIMENSIONS


@dataclass(frozen=True, slots=True)
class Output:
    name: str


def _field_box(dimension: int, values: StringSet) -> Box:
    return Box(values, ALL) if dimension == 0 else Box(ALL, values)


_NULL_ON_NULL = ("==", "!=", "<", "<=", ">", ">=", "in", "not in", "starts_with", "ends_with",
                 "contains")


def _field_atom(dimension: int, op: str, value: object, present: bool) -> Tri:
    """`field op value` for a string field: exact when present, null when absent."""
    if op not in _NULL_ON_NULL:
        return UNKNOWN
    if not present or value is None:
        return _CONSTANT[None]
    if op in ("==", "!=") and isinstance(value, str):
        members = StringSet.exact([value])
    elif op in ("in", "not in") and isinstance(value, (frozenset, tuple)) and all(
            item is None or isinstance(item, str) for item in value):
        members = StringSet.exact(item for item in value if item is not None)
    elif op == "starts_with" and isinstance(value, str):
        members = StringSet.prefixes([value])
    else:
        return UNKNOWN
    if op in ("!=", "not in"):
        members = ~members
    return Tri(_field_box(dimension, members), _field_box(dimension, ~members), EMPTY)


def concrete(op: str, left: object, right: object) -> object:
    """`left op right` on constants as the engine computes it, or UNKNOWN_VALUE."""
    if op in ("is null", "is not null"):
        return (left is None) is (op == "is null")
    if left is None or right is None:
        return None if op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in",
                              "starts_with") else UNKNOWN_VALUE
    if op in ("in", "not in") and isinstance(right, (frozenset, tuple)):
        if all(item is None or type(item) is type(left) for item in right):
            return (left in right) is (op == "in")
        return UNKNOWN_VALUE
    if type(left) is not type(right) or type(left) not in (str, Decimal, bool):
        return UNKNOWN_VALUE
    if op in ("==", "!="):
        return (left == right) is (op == "==")
    if op == "starts_with" and type(left) is str:
        return left.startswith(right)
    if type(left) is bool or op not in ("<", "<=", ">", ">="):
        return UNKNOWN_VALUE
    return {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]


def _and(a: Tri, b: Tri) -> Tri:
    return Tri(a.true & b.true, a.false | b.false, (a.null & (b.true | b.null))
               | (a.true & b.null))


def _or(a: Tri, b: Tri) -> Tri:
    return Tri(a.true | b.true, a.false & b.false, (a.null & (b.false | b.null))
               | (a.false & b.null))


class Analyzer:
    """Reads one ruleset under one presence pattern (which of DIMENSIONS are given)."""

    def __init__(self, ruleset: ir.Ruleset, present: tuple[bool, bool]) -> None:
        self.ruleset, self.present = ruleset, present
        self.consts: dict[str, object] = {}
        for const in ruleset.consts:
            self.consts[const.name] = self.value(const.value, {})
        self.items = [item for item in sorted(enumerate(ruleset.items),
                                              key=lambda pair: (-pair[1].priority, pair[0]))
                      if not (isinstance(item[1], ir.Rule) and not item[1].enabled)]
        self.items = [item for _, item in self.items]
        self.set_by_rules = {action.name for item in self.items if isinstance(item, ir.Rule)
                             for action in item.actions if isinstance(action, ir.SetAction)}
        self.tables_by_output: dict[str, list[int]] = {}
        for position, item in enumerate(self.items):
            if isinstance(item, ir.Table):
                for name in item.outputs:
                    self.tables_by_output.setdefault(name, []).append(position)
        self.position = 0  # the item being read, for outputs of the tables before it
        self.outcomes: dict[str, list[tuple[object, Box]] | None] = {}

    # --- values -----------------------------------------------------------------------------

    def value(self, expr: object, scope: Mapping[str, object]) -> object:
        """A Const, Field, Output or UNKNOWN_VALUE for `expr`."""
        if isinstance(expr, ir.Literal):
            return Const(expr.value)
        if isinstance(expr, ir.Name):
            if expr.name in scope:
                return Const(scope[expr.name])
            return self.consts.get(expr.name, UNKNOWN_VALUE)
        if isinstance(expr, ir.Member) and isinstance(expr.obj, ir.Name) \
                and expr.obj.name not in scope:
            if expr.obj.name == "business" and expr.field in DIMENSIONS:
                return Field(DIMENSIONS.index(expr.field))
            if expr.obj.name == "outputs":
                return Output(expr.field)
            return UNKNOWN_VALUE
        if isinstance(expr, (ir.SetExpr, ir.ListExpr)):
            items = [self.value(item, scope) for item in expr.items]
            if not all(isinstance(item, Const) for item in items):
                return UNKNOWN_VALUE
            values = [item.value for item in items]
            if isinstance(expr, ir.ListExpr):
                return Const(tuple(values))
            try:
                return Const(frozenset(values))
            except TypeError:
                return UNKNOWN_VALUE
        return UNKNOWN_VALUE

    # --- conditions -------------------------------------------------------------------------

    def condition(self, expr: object, scope: Mapping[str, object]) -> Tri:
        """The boxes where `expr` is true, false and null."""
        if isinstance(expr, ir.Unary) and expr.op == "not":
            inner = self.condition(expr.operand, scope)
            return Tri(inner.false, inner.true, inner.null)
        if isinstance(expr, ir.Binary):
            if expr.op in ("and", "or"):
                left, right = self.condition(expr.left, scope), self.condition(expr.right, scope)
                return _and(left, right) if expr.op == "and" else _or(left, right)
            return self.comparison(expr.op, self.value(expr.left, scope),
                                   self.value(expr.right, scope))
        if isinstance(expr, ir.IsNull):
            op = "is not null" if expr.negated else "is null"
            return self.comparison(op, self.value(expr.value, scope), Const(None))
        if isinstance(expr, ir.Comprehension) and expr.kind in ("any", "all"):
            return self.quantifier(expr, scope)
        if isinstance(expr, ir.Conditional):
            test = self.condition(expr.cond, scope)
            then, else_ = self.condition(expr.then, scope), self.condition(expr.else_, scope)
            return Tri(*((test.true & a) | (test.not_true & b) for a, b in (
                (then.true, else_.true), (then.false, else_.false), (then.null, else_.null))))
        value = self.value(expr, scope)
        if isinstance(value, Const) and (value.value is True or value.value is False
                                         or value.value is None):
            return _CONSTANT[value.value]
        return UNKNOWN

    def quantifier(self, expr: ir.Comprehension, scope: Mapping[str, object]) -> Tri:
        source = self.value(expr.source, scope)
        if not isinstance(source, Const) or not isinstance(source.value, (tuple, frozenset)):
            return UNKNOWN
        combine, result = (_or, _CONSTANT[False]) if expr.kind == "any" \
            else (_and, _CONSTANT[True])
        for item in source.value:
            inner = {**scope, expr.var: item}
            test = self.condition(expr.where, inner) if expr.where is not None \
                else self.condition(ir.Literal(item), inner)
            result = combine(result, test)
        return result

    def comparison(self, op: str, left: object, right: object) -> Tri:
        if op in ("contains",) and isinstance(right, Field):  # `C contains field`
            op, left, right = "in", right, left
        elif op in ("==", "!=") and isinstance(right, Field):  # `"TX" == business.state`
            left, right = right, left
        if isinstance(left, Field) and isinstance(right, Const):
            if op in ("is null", "is not null"):
                is_null = not self.present[left.dimension]
                return _CONSTANT[is_null is (op == "is null")]
            return _field_atom(left.dimension, op, right.value, self.present[left.dimension])
        if isinstance(left, Output) and isinstance(right, Const):
            return self.output_atom(left.name, op, right.value)
        if isinstance(left, Const) and isinstance(right, Const):
            result = concrete(op, left.value, right.value)
            return UNKNOWN if result is UNKNOWN_VALUE else _CONSTANT[result]
        return UNKNOWN

    # --- tables -----------------------------------------------------------------------------

    def output_atom(self, name: str, op: str, operand: object) -> Tri:
        """`outputs.name op operand`, read from the outcomes of the one table that sets it."""
        outcomes = self.output_outcomes(name)
        if outcomes is None:
            return UNKNOWN
        true = false = null = EMPTY
        for value, box in outcomes:
            result = UNKNOWN_VALUE if value is UNKNOWN_VALUE else concrete(op, value, operand)
            if result is True or result is UNKNOWN_VALUE:
                true = true | box
            if result is False or result is UNKNOWN_VALUE:
                false = false | box
            if result is None or result is UNKNOWN_VALUE:
                null = null | box
        return Tri(true, false, null)

    def output_outcomes(self, name: str) -> list[tuple[object, Box]] | None:
        """(value, box) pairs covering every value `outputs.name` may hold when the current
        item runs, or None when the output cannot be followed."""
        tables = self.tables_by_output.get(name, [])
        if name in self.set_by_rules or len(tables) > 1:
            return None
        if not tables or tables[0] > self.position:
            return [(None, FULL)]  # nothing has set it yet
        if name not in self.outcomes:
            self.outcomes[name] = self.table_outcomes(self.items[tables[0]], name)
        return self.outcomes[name]

    def table_outcomes(self, table: ir.Table, name: str) -> list[tuple[object, Box]] | None:
        if table.hit == "collect":
            return None
        column = table.outputs.index(name)
        outcomes, earlier_miss = [], FULL
        for row in table.rows:
            match, miss = self.row(table, row)
            found = self.value(row.values[column], {})
            outcomes.append((found.value if isinstance(found, Const) else UNKNOWN_VALUE,
                             match & earlier_miss if table.hit == "first" else match))
            earlier_miss = earlier_miss & miss
        outcomes.append((None, earlier_miss))
        return outcomes

    def row(self, table: ir.Table, row: ir.TableRow) -> tuple[Box, Box]:
        """Boxes holding every business for which the row matches, and does not match."""
        match, miss = FULL, EMPTY
        for source, cell in zip(table.inputs, row.cells):
            test = self.cell(self.value(source, {}), cell)
            match, miss = match & test.true, miss | test.not_true
        return match, miss

    def cell(self, value: object, cell: object) -> Tri:
        if isinstance(cell, ir.AnyCell):
            return _CONSTANT[True]
        if isinstance(cell, ir.NullCell):
            return self.comparison("is null", value, Const(None))
        if isinstance(cell, ir.CompareCell) and not isinstance(value, Output):
            return self.comparison(cell.op, value, self.value(cell.operand, {}))
        return UNKNOWN

    # --- the run ----------------------------------------------------------------------------

    def accepting_box(self) -> Box:
        """A box holding every business for which the run may end in accept or refer.

        Relied on (docs/rules-language.md): items run by descending priority, ties in file
        order; the most severe decision fired wins, so a fired decline makes the result
        decline; `stop` ends the run after its rule; with no decision fired the default applies.
        So an accept or refer needs a first stop point t (a firing stop rule that does not
        decline, or the end) such that no enabled, unwindowed rule before t that declines or
        stops fired, and some accepting or referring rule at or before t fired (unless the
        default decision is accept or refer)."""
        ruleset = self.ruleset
        default_decides = ruleset.default_decision in ("accept", "refer")
        result, path, deciders = EMPTY, FULL, []
        for position, item in enumerate(self.items):
            if not isinstance(item, ir.Rule):
                continue
            self.position = position
            decisions = {a.decision for a in item.actions if isinstance(a, ir.DecisionAction)}
            stops = any(isinstance(a, ir.StopAction) for a in item.actions)
            declines = "decline" in decisions
            deciding = bool(decisions) and not declines
            if not (declines or stops or deciding):
                continue
            test = self.condition(item.condition, {})
            fires = path & test.true
            if deciding:
                deciders.append(fires)
            if stops and not declines:  # the run may stop here
                result = result | (fires if default_decides or deciding
                                   else _hull(fires & box for box in deciders))
            if (declines or stops) and item.effective is None:
                path = path & test.not_true
            if path.is_empty:
                return result
        end = path if default_decides else _hull(path & box for box in deciders)
        return result | end


def _hull(boxes) -> Box:
    result = EMPTY
    for box in boxes:
        result = result | box
    return result


def accepting_boxes(ruleset: ir.Ruleset) -> dict[tuple[bool, bool], Box]:
    """The accepting box of `ruleset` under each presence pattern of (NAICS, state)."""
    return {present: Analyzer(ruleset, present).accepting_box()
            for present in ((True, True), (True, False), (False, True), (False, False))}
