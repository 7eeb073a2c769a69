"""The fast path: the untraced rule loop of a ruleset generated as one Python function.

Each rule becomes a block of straight-line Python: its `when` (an `and` chain of conditions)
is checked condition by condition, and common conditions on an input field compared with a
constant (`business.state in {...}`, `business.revenue between 1 and 5`, `x.n < 3`) are
inlined with a type-checked fast path; everything else calls the closure the expression
compiler made for it. Constant actions (score, decision, reason, tag) are inlined too.

Safety: the generated text contains no user text at all. Every literal, field name, span and
closure is reached through a constants table (`K0`, `K1`, ...); identifiers are generated
(`r0` for an input, `g0` for its field reader, `_a` for a temporary). Only the inputs and
the env are ever touched. An error is reported in the rule or table that raised it (`_i`).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from insureops.engine import ir
from insureops.engine import operations as ops
from insureops.engine.errors import EngineError
from insureops.engine.program import in_window, located

_COMPARE = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_SLOW = {"==": ops.equal, "!=": ops.not_equal, "<": ops.less, "<=": ops.less_equal,
         ">": ops.greater, ">=": ops.greater_equal}


class _Source:
    """Generated lines and the constants table they refer to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.names: dict[str, object] = {}
        self._ids: dict[int, str] = {}

    def const(self, value: object) -> str:
        key = id(value)
        if key not in self._ids:
            self._ids[key] = f"K{len(self.names)}"
            self.names[self._ids[key]] = value
        return self._ids[key]

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)


def generate(items: tuple, compiler, roots: list[str]):
    """A function `run(env, ev, state)` equivalent to `program.run_items` for `items`."""

    src = _Source()
    helpers = {"MEMBER": ops.member, "TRUTH": ops.truth, "IN_WINDOW": in_window,
               "LOCATED": located, "ENGINE_ERROR": EngineError, "DECIMAL": Decimal,
               "MEMBER_OF": ops.member_of, "NOT_MEMBER_OF": ops.not_member_of,
               "BETWEEN": ops.between, "STARTS": ops.starts_with, "ENDS": ops.ends_with,
               "NULLISH": _nullish, "GETTER": _getter}
    local = {name: f"r{i}" for i, name in enumerate(roots)}
    src.emit(0, "def run(env, ev, st):")
    src.emit(1, f"ev.remaining -= {len(items)}")  # the evaluation is its own step budget
    src.emit(1, "if ev.remaining < 0: ev.charge(0, None)")
    src.emit(1, "fired = st.fired")
    src.emit(1, "reasons = st.reasons")
    src.emit(1, "tags = st.tags")
    for position, (name, variable) in enumerate(local.items()):
        src.emit(1, f"{variable} = env[{src.const(name)}]")
        # g0(field) reads input 0's field: dict.get, or null/an error for a non-object input
        src.emit(1, f"g{position} = {variable}.get if type({variable}) is dict "
                    f"else GETTER({variable})")
    src.emit(1, "_i = None")
    src.emit(1, "try:")
    for item in items:
        _item(src, item, compiler, local)
    src.emit(1, "except ENGINE_ERROR as _e:")
    src.emit(2, "raise LOCATED(_e, _i) from None")
    namespace = {**helpers, **src.names}
    text = "\n".join(src.lines)
    exec(compile(text, "<ruleset>", "exec"), namespace)  # noqa: S102
    run = namespace["run"]
    run.source = text  # for tests and debugging: the generated text
    return run


def _item(src: _Source, item, compiler, local: dict) -> None:
    handle = src.const(item)
    src.emit(2, f"_i = {handle}")  # the item an error is reported in
    if item.kind == "table":
        src.emit(2, f"{handle}.run(env, st)")
    else:
        _rule(src, item, handle, compiler, local)


def _nullish(value: object, span) -> bool:
    """After a condition that is not true and not false: true for null, else the error."""
    if value is not None:
        ops.truth(value, span)
    return True


def _getter(value: object):
    """`field -> value.field` for an input that is not an object: null for a null input,
    the type error for anything else."""
    return lambda field: ops.member(value, field, None)


def _rule(src: _Source, item, handle: str, compiler, local: dict) -> None:
    node: ir.Rule = item.node
    src.emit(2, "while True:")
    if node.effective is not None:
        src.emit(3, f"if not IN_WINDOW({src.const(node.effective)}, ev, "
                    f"{src.const(node.span)}): break")
    src.emit(3, "_n = False")
    span = src.const(node.condition.span)
    for condition in _conjuncts(node.condition):
        src.emit(3, f"_c = {_atom(src, condition, compiler, local)}")
        src.emit(3, "if _c is not True:")
        src.emit(4, "if _c is False: break")
        src.emit(4, f"_n = NULLISH(_c, {span})")
    src.emit(3, "else:")
    src.emit(4, "if _n: break")
    src.emit(4, f"fired.append({src.const(node.name)})")
    stops = False
    for action, compiled in zip(node.actions, item.actions):
        stops = _action(src, action, compiled, compiler) or stops
    if stops:
        src.emit(4, "return")
    src.emit(3, "break")


def _conjuncts(expr: object) -> list:
    if isinstance(expr, ir.Binary) and expr.op == "and":
        return _conjuncts(expr.left) + _conjuncts(expr.right)
    return [expr]


def _action(src: _Source, action: object, compiled, compiler) -> bool:
    """Emit one action; True for `stop`."""
    if isinstance(action, ir.StopAction):
        src.emit(4, "st.stopped = True")
        return True
    fixed = _constant(action, compiler)
    if isinstance(action, ir.ScoreAction) and type(fixed) is Decimal:
        amount = fixed if action.op == "+=" else -fixed
        src.emit(4, f"st.score += {src.const(amount)}")
    elif isinstance(action, ir.DecisionAction) and type(fixed) is str:
        rank = {"accept": 1, "refer": 2, "decline": 3}[action.decision]
        src.emit(4, f"reasons.append({src.const(fixed)})")
        src.emit(4, f"if st.rank < {rank}:")
        src.emit(5, f"st.rank = {rank}; st.decision = {src.const(action.decision)}")
    elif isinstance(action, ir.ReasonAction) and type(fixed) is str:
        src.emit(4, f"reasons.append({src.const(fixed)})")
    elif isinstance(action, ir.TagAction) and type(fixed) is str:
        src.emit(4, f"tags.add({src.const(fixed)})")
    else:
        src.emit(4, f"{src.const(compiled)}(env, st)")
    return False


def _constant(action: object, compiler) -> object:
    for attribute in ("value", "message", "tag"):
        expr = getattr(action, attribute, None)
        if expr is not None:
            value = _literal(expr, compiler)
            return None if value is _NOT_CONSTANT else value
    return None


def _atom(src: _Source, expr: object, compiler, local: dict) -> str:
    """A Python expression computing one condition (inline when the shape allows it)."""
    span = getattr(expr, "span", None)
    if isinstance(expr, ir.IsNull):
        left = _operand(src, expr.value, compiler, local)
        return f"({left} is {'not ' if expr.negated else ''}None)"
    if isinstance(expr, ir.Between):
        low, high = _literal(expr.low, compiler), _literal(expr.high, compiler)
        if type(low) is Decimal and type(high) is Decimal:
            left = _operand(src, expr.value, compiler, local)
            lo, hi, where = src.const(low), src.const(high), src.const(span)
            return (f"(({lo} <= _a <= {hi}) if type(_a := {left}) is DECIMAL "
                    f"else BETWEEN(_a, {lo}, {hi}, {where}))")
    if isinstance(expr, ir.Binary):
        inline = _binary(src, expr, compiler, local)
        if inline is not None:
            return inline
    return f"{src.const(compiler.compile(expr))}(env)"


def _binary(src: _Source, expr: ir.Binary, compiler, local: dict) -> str | None:
    value = _literal(expr.right, compiler)
    if value is _NOT_CONSTANT:
        return None
    where, op = src.const(expr.span), expr.op
    if op in _COMPARE and type(value) in (Decimal, str, date):
        left = _operand(src, expr.left, compiler, local)
        k, kind, slow = src.const(value), src.const(type(value)), src.const(_SLOW[op])
        return (f"((_a {_COMPARE[op]} {k}) if type(_a := {left}) is {kind} "
                f"else {slow}(_a, {k}, {where}))")
    if op in ("in", "not in") and isinstance(value, frozenset) and value and all(
            type(item) is str for item in value):
        left = _operand(src, expr.left, compiler, local)
        k = src.const(value)
        slow = "MEMBER_OF" if op == "in" else "NOT_MEMBER_OF"
        return f"((_a {op} {k}) if type(_a := {left}) is str else {slow}(_a, {k}, {where}))"
    if op in ("starts_with", "ends_with") and type(value) is str:
        left = _operand(src, expr.left, compiler, local)
        k = src.const(value)
        method, slow = ("startswith", "STARTS") if op == "starts_with" else ("endswith", "ENDS")
        return f"(_a.{method}({k}) if type(_a := {left}) is str else {slow}(_a, {k}, {where}))"
    return None


_NOT_CONSTANT = object()


def _literal(expr: object, compiler) -> object:
    """The value of a constant expression (a literal, a const, a folded sub-tree), or
    _NOT_CONSTANT."""
    fn = compiler.compile(expr)
    if getattr(fn, "is_constant", False):
        return fn.value
    return _NOT_CONSTANT


def _operand(src: _Source, expr: object, compiler, local: dict) -> str:
    """`input.field` read inline, anything else through its closure."""
    if isinstance(expr, ir.Member) and isinstance(expr.obj, ir.Name) \
            and expr.obj.name in local:
        return f"g{local[expr.obj.name][1:]}({src.const(expr.field)})"
    return f"{src.const(compiler.compile(expr))}(env)"

