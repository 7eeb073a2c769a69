"""The text of generated code: lines and their constants table, and the helpers that the
generated functions (`codegen.py`) call or that decide what can be inlined."""

from __future__ import annotations

from insureops.engine import ir
from insureops.engine import operations as ops
from insureops.engine.errors import LimitExceededError
from insureops.engine.expressions import children

COMPARE = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
SLOW = {"==": ops.equal, "!=": ops.not_equal, "<": ops.less, "<=": ops.less_equal,
        ">": ops.greater, ">=": ops.greater_equal}


class Source:
    """Generated lines and the constants table they refer to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, object] = {}
        self._ids: dict[int, str] = {}
        self.pending: list[str] = []  # statements the next condition needs first (loops)
        self.hoisted: list[str] = []  # per-loop values computed once, on first use
        self.serial = 0
        self.done = ""  # the statement that ends a run (returning its result)
        self.state = False  # whether some closure needs a RunState

    def const(self, value: object) -> str:
        key = id(value)
        if key not in self._ids:
            self._ids[key] = f"K{len(self.names)}"
            self.names[self._ids[key]] = value
        return self._ids[key]

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def fresh(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"


def nullish(value: object, span) -> bool:
    """After a condition that is not true and not false: true for null, else the error."""
    if value is not None:
        ops.truth(value, span)
    return True


def getter(value: object):
    """`field -> value.field` for an input that is not an object: null for a null input,
    the type error for anything else."""
    return lambda field: ops.member(value, field, None)


def too_long(span) -> None:
    """The error of an interpolated message longer than the limit."""
    raise LimitExceededError("an interpolated string grew beyond the limit",
                             code="limit_string_length", span=span)


class NotInline(Exception):
    """A loop body needs something only the closures can do: use the closure instead."""


UNSET = object()


def loop_names(local: dict) -> frozenset[str]:
    """The names bound to loop variables (`_v1`, ...) in `local`."""
    return frozenset(name for name, variable in local.items() if variable.startswith("_v"))


def mentions(expr: object, names: frozenset[str]) -> bool:
    """Whether `expr` reads any of `names` (or holds a comprehension, whose steps must be
    charged as often as the closures would)."""
    if not names:
        return False
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Comprehension) or (isinstance(node, ir.Name)
                                                   and node.name in names):
            return True
        stack.extend(children(node))
    return False


def walk(expr: object):
    """Every node of an expression tree, without recursion."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))
