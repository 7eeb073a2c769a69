"""The rule model: frozen IR nodes for rulesets, rules, tables, tests and expressions.

This is the contract between `dsl/` (which builds it from text) and the rest of `engine/`
(which checks nothing and only gives it meaning). It can be built by hand without any text,
which is how engine tests and other producers use it. Every node carries an optional `Span`
that is ignored by equality, so two trees built from different text compare equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple, Union
from typing import Literal as TypingLiteral


class Span(NamedTuple):
    """A source range: 1-based lines and columns, 0-based character offsets (end exclusive).
    A named tuple rather than a frozen dataclass: a ruleset holds thousands of spans, and a
    tuple of ints is made several times faster and is not tracked by the garbage collector."""

    line: int
    column: int
    end_line: int
    end_column: int
    start: int = 0
    end: int = 0


def _span() -> Any:
    return field(default=None, compare=False, repr=False)


# --- expressions -------------------------------------------------------------------------------

BinaryOp = TypingLiteral[
    "+", "-", "*", "/", "%",
    "==", "!=", "<", "<=", ">", ">=",
    "and", "or", "??",
    "in", "not in", "starts_with", "ends_with", "contains", "matches",
]


@dataclass(frozen=True, slots=True)
class Literal:
    """A constant: Decimal, str, bool, None, date, datetime or engine.values.Duration."""

    value: object
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Name:
    """A bare identifier: an input, a const, a comprehension variable, or (in tests) a result
    name such as `decision`, `score`, `outputs`, `reasons`, `tags`, `fired`."""

    name: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Member:
    """`obj.field`: null when obj is null or has no such key."""

    obj: Expr
    field: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Index:
    """`obj[index]`: null when out of range or missing."""

    obj: Expr
    index: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Call:
    """A built-in function call `func(args...)`; user code cannot define functions."""

    func: str
    args: tuple[Expr, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Unary:
    """`-x` or `not x`."""

    op: TypingLiteral["-", "not"]
    operand: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Binary:
    """An infix operation, word operators included (`in`, `not in`, `starts_with`, ...)."""

    op: BinaryOp
    left: Expr
    right: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Between:
    """`value between low and high`, inclusive at both ends."""

    value: Expr
    low: Expr
    high: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class IsNull:
    """`value is null` (negated=False) or `value is not null` (negated=True)."""

    value: Expr
    negated: bool = False
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Conditional:
    """`if cond then then_ else else_`."""

    cond: Expr
    then: Expr
    else_: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ListExpr:
    items: tuple[Expr, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class SetExpr:
    items: tuple[Expr, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ObjectExpr:
    """`{"key": expr, ...}`: only in test blocks and as input data."""

    entries: tuple[tuple[str, Expr], ...]
    span: Span | None = _span()


ComprehensionKind = TypingLiteral["any", "all", "count", "sum", "min", "max"]


@dataclass(frozen=True, slots=True)
class Comprehension:
    """`any(x in xs where c)`, `count(...)`, `all(...)`, or `sum(p for x in xs where c)` and
    likewise `min`/`max`. `projection` is set only for sum/min/max; `where` is optional."""

    kind: ComprehensionKind
    var: str
    source: Expr
    projection: Expr | None = None
    where: Expr | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Interpolated:
    """A string with `{expr}` parts, as in reasons and messages: literal text and expressions."""

    parts: tuple[Union[str, Expr], ...]
    span: Span | None = _span()


Expr = Union[
    Literal, Name, Member, Index, Call, Unary, Binary, Between, IsNull, Conditional,
    ListExpr, SetExpr, ObjectExpr, Comprehension, Interpolated,
]

# --- actions -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoreAction:
    """`score += expr` or `score -= expr`."""

    op: TypingLiteral["+=", "-="]
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class SetAction:
    """`set NAME = expr`: an output, readable later as `outputs.NAME`."""

    name: str
    value: Expr
    span: Span | None = _span()


Decision = TypingLiteral["accept", "refer", "decline"]
#: how severe each decision is: the most severe of a run wins (a rank above 0 means decided)
DECISION_RANK: dict[str, int] = {"accept": 1, "refer": 2, "decline": 3}


@dataclass(frozen=True, slots=True)
class DecisionAction:
    """`accept|refer|decline "message"`; the most severe decision of a run wins."""

    decision: Decision
    message: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ReasonAction:
    """`reason "message"`: an explanation line without a decision."""

    message: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TagAction:
    """`tag "name"`."""

    tag: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class StopAction:
    """`stop`: end the evaluation after the current rule's actions."""

    span: Span | None = _span()


Action = Union[ScoreAction, SetAction, DecisionAction, ReasonAction, TagAction, StopAction]

# --- rules and tables --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effective:
    """`effective START to END`: the rule runs only when START <= as_of <= END."""

    start: date
    end: date
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    condition: Expr
    actions: tuple[Action, ...]
    title: str | None = None
    priority: int = 0
    effective: Effective | None = None
    enabled: bool = True
    span: Span | None = _span()
    name_span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class AnyCell:
    """`-`: matches any value, null included."""

    span: Span | None = _span()


CellOp = TypingLiteral[
    "==", "!=", "<", "<=", ">", ">=", "in", "not in", "starts_with", "ends_with", "contains",
    "matches",
]


@dataclass(frozen=True, slots=True)
class CompareCell:
    """A literal (op `==`), or an operator and operand: `< 10`, `in {"TX"}`, `starts_with "23"`."""

    op: CellOp
    operand: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class BetweenCell:
    """`between low and high`, inclusive."""

    low: Expr
    high: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class NullCell:
    """`is null`."""

    span: Span | None = _span()


Cell = Union[AnyCell, CompareCell, BetweenCell, NullCell]


@dataclass(frozen=True, slots=True)
class TableRow:
    cells: tuple[Cell, ...]
    values: tuple[Expr, ...]
    span: Span | None = _span()


HitPolicy = TypingLiteral["first", "unique", "collect"]


@dataclass(frozen=True, slots=True)
class Table:
    """A decision table: input expressions, output names (`=> factor`), rows of cells and values."""

    name: str
    hit: HitPolicy
    inputs: tuple[Expr, ...]
    outputs: tuple[str, ...]
    rows: tuple[TableRow, ...]
    title: str | None = None
    priority: int = 0
    span: Span | None = _span()
    name_span: Span | None = _span()


# --- header, tests, ruleset --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputDecl:
    """`input NAME: Type`; `Any` turns type checking off for that input."""

    name: str
    type_name: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Const:
    """`const NAME = literal-expression`."""

    name: str
    value: Expr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Given:
    """`given NAME = {...} [as of DATE]` inside a test."""

    name: str
    value: Expr
    as_of: date | None = None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TestCase:
    """`test "description" given ... expect CONDITION end`."""

    description: str
    givens: tuple[Given, ...]
    expect: Expr
    span: Span | None = _span()

    __test__ = False  # not a pytest test class


@dataclass(frozen=True, slots=True)
class Ruleset:
    """One `.rules` file. `items` holds rules and tables in file order."""

    name: str
    inputs: tuple[InputDecl, ...]
    items: tuple[Union[Rule, Table], ...]
    title: str | None = None
    version: int | None = None
    default_decision: Decision | None = None
    consts: tuple[Const, ...] = ()
    tests: tuple[TestCase, ...] = ()
    span: Span | None = _span()
