"""The one registry of the language's binary operators: what every path and the docs derive.

One `Operator` per operator of `ir.BinaryOp`: its group (for the checker), the implementation
on runtime values (`operations.py`), the Python operator the generated code may use on operands
of one plain type, and the negated wording of explanations. Adding an operator:
docs/architecture.md "Adding an operator".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

from insureops.engine.ir import operations as ops
from insureops.engine.ir.nodes import BinaryOp


@dataclass(frozen=True, slots=True)
class Operator:
    """One binary operator. `implementation` is None where the paths handle it themselves
    (`and`, `or`, `??` short-circuit; `+` needs the evaluation's budget; `matches` the regex
    cache)."""

    name: str
    group: str  # "arithmetic", "comparison", "ordering", "string", "membership", "logic"
    implementation: Callable[..., object] | None
    python: str | None = None  # infix Python operator, valid on two operands of one plain type
    negated: str | None = None  # "is not equal to": why `a op b` did not hold
    arity: int = 2


_ENTRIES = [
    Operator("+", "arithmetic", None),
    Operator("-", "arithmetic", ops.subtract),
    Operator("*", "arithmetic", ops.multiply),
    Operator("/", "arithmetic", ops.divide),
    Operator("%", "arithmetic", ops.remainder),
    Operator("==", "comparison", ops.equal, "==", "is not equal to"),
    Operator("!=", "comparison", ops.not_equal, "!=", "is equal to"),
    Operator("<", "ordering", ops.less, "<"),
    Operator("<=", "ordering", ops.less_equal, "<="),
    Operator(">", "ordering", ops.greater, ">"),
    Operator(">=", "ordering", ops.greater_equal, ">="),
    Operator("and", "logic", None),
    Operator("or", "logic", None),
    Operator("??", "logic", None),
    Operator("in", "membership", ops.member_of, negated="is not in"),
    Operator("not in", "membership", ops.not_member_of, negated="is in"),
    Operator("starts_with", "string", ops.starts_with, negated="does not start with"),
    Operator("ends_with", "string", ops.ends_with, negated="does not end with"),
    Operator("contains", "membership", ops.contains, negated="does not contain"),
    Operator("matches", "string", None, negated="does not match"),
]

OPERATORS: dict[str, Operator] = {entry.name: entry for entry in _ENTRIES}
assert set(OPERATORS) == set(get_args(BinaryOp)), "every ir.BinaryOp needs one registry entry"

# The tables the paths read, derived once.
IMPLEMENTATIONS = {o.name: o.implementation for o in _ENTRIES if o.implementation is not None}
PYTHON = {o.name: o.python for o in _ENTRIES if o.python is not None}
NEGATED = {o.name: o.negated for o in _ENTRIES if o.negated is not None}
ORDERING = frozenset(o.name for o in _ENTRIES if o.group == "ordering")
# the operators an explanation words as "`left` is <value>, not ...": every test of two values
EXPLAINED = frozenset(o.name for o in _ENTRIES
                      if o.group in ("comparison", "ordering", "membership", "string"))


def docs_table() -> str:
    """The operator table of docs/architecture.md "Adding an operator" (a test compares them)."""
    rows = [
        "| operator | group | generated code | explanation when it does not hold |",
        "|---|---|---|---|",
    ]
    for o in _ENTRIES:
        python = f"`{o.python}`" if o.python else "its own code"
        rows.append(f"| `{o.name}` | {o.group} | {python} | {o.negated or ''} |")
    return "\n".join(rows)
