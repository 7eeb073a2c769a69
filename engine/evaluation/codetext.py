"""The text of generated code: lines and their constants table, and the helpers that the
generated functions (`codegen.py`) call (`HELPERS`) or that decide what can be inlined."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.evaluation.program import RunState, in_window, located
from insureops.engine.ir import numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import CLOCK, FUNCTIONS
from insureops.engine.ir.errors import EngineError, Invalid, LimitExceededError
from insureops.engine.ir.operators import IMPLEMENTATIONS, PYTHON
from insureops.engine.ir.result import Result
from insureops.engine.ir.tree import children
from insureops.engine.ir.values import Duration, format_plain

COMPARE = PYTHON
SLOW = {name: IMPLEMENTATIONS[name] for name in PYTHON}


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
    """`field -> value.field` for an input: a field whose conversion failed raises its error
    when read (`errors.Invalid`); null for a null input, the type error for a non-object."""
    if type(value) is dict:
        get = value.get

        def read(field: str) -> object:
            found = get(field)
            return found if type(found) is not Invalid else found.fail()
        return read
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


_PURE = (ir.Literal, ir.Call, ir.Unary, ir.Binary, ir.Between, ir.IsNull, ir.Conditional)
_IMMUTABLE = frozenset({Decimal, str, bool, type(None), date, datetime, Duration})


def as_of_only(expr: object, compiler, local: dict) -> bool:
    """Whether `expr` reads the as-of date (`today()`, `now()`) and otherwise only consts and
    literals, through operators and built-ins (no input, variable, list or object)."""
    clock = False
    for node in walk(expr):
        if not isinstance(node, _PURE + (ir.Name,)):
            return False
        if isinstance(node, ir.Name) and (node.name in local or node.name in compiler.names
                                          or node.name not in compiler.consts):
            return False
        if isinstance(node, ir.Call):
            if node.func not in FUNCTIONS:
                return False
            clock = clock or node.func in CLOCK
    return clock


def per_as_of(closure, env: dict, ev, memo: dict) -> object:
    """`closure(env)` for an expression that reads only the as-of date (`as_of_only`),
    remembered per as-of date and limits, instead of computed again for every case
    (docs/performance.md). Only plain dates are keys (equal datetimes may differ in zone) and
    only immutable values are kept; an error is raised every time, as it was."""
    as_of = ev.as_of
    if type(as_of) is date:
        found = memo.get(as_of)
        if found is not None and found[0] is ev.limits:
            return found[1]
    value = closure(env)
    if type(as_of) is date and type(value) in _IMMUTABLE and len(memo) < 256:
        memo[as_of] = (ev.limits, value)
    return value


# The names generated code calls (besides its constants table `K0`, `K1`, ...).
HELPERS = {"MEMBER": ops.member, "TRUTH": ops.truth, "IN_WINDOW": in_window, "DATE": date,
           "LOCATED": located, "ENGINE_ERROR": EngineError, "DECIMAL": Decimal,
           "MEMBER_OF": ops.member_of, "NOT_MEMBER_OF": ops.not_member_of,
           "BETWEEN": ops.between, "STARTS": ops.starts_with, "ENDS": ops.ends_with,
           "NULLISH": nullish, "GETTER": getter, "UNSET": UNSET,
           "FAST": frozenset({Decimal, str, date}), "PLAIN": format_plain,
           "TOO_LONG": too_long, "NOT": ops.logical_not, "ZERO": ops.ZERO, "STATE": RunState,
           "SORTED": sorted, "RESULT": Result, "PER_AS_OF": per_as_of,
           "ADD": numbers.EXACT.add, "ARITHMETIC": numbers.ARITHMETIC_ERRORS,
           "ARITH": numbers.arithmetic_error}
