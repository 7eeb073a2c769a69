"""Expressions -> Python closures `fn(env) -> value`, compiled once and called per evaluation.

`env` is a dict: input names, comprehension variables and `outputs` map to values, `EVAL` to the
call's `Evaluation`, and (traced variant only) `TRACE` to the list that records
`(node, value)` pairs in evaluation order. The untraced closures never look at `TRACE`.
Pure sub-expressions are folded to constants at compile time, and comparisons against a
constant take a fast path when the operand has the constant's type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from insureops.engine import ir
from insureops.engine.evaluation.comprehensions import compile_comprehension
from insureops.engine.evaluation.fastpaths import against_constant, between_values, field_reader
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import CLOCK, FUNCTIONS, arity_text, call_builtin
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError, EvaluationError, Invalid, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.operators import IMPLEMENTATIONS
from insureops.engine.ir.regex import search
from insureops.engine.ir.tree import children
from insureops.engine.ir.values import format_plain

Fn = Callable[[dict], object]
EVAL = "$"
TRACE = "$trace"

_PLAIN = IMPLEMENTATIONS

def freeze(value: object) -> object:
    """A folded constant made immutable (lists become tuples), since it is shared by every
    evaluation and may end up in a result the caller owns."""
    if type(value) is list:
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: object) -> object:
    """A fresh list for a frozen one, so a result never holds a shared constant."""
    if type(value) is tuple:
        return [thaw(item) for item in value]
    return value


def constant(value: object) -> Fn:
    """A closure that always returns `value`, marked so callers can specialise on it.
    Frozen lists are handed out as fresh lists."""
    if type(value) is tuple:
        def fresh(env: dict) -> object:
            return thaw(value)
        fresh.is_constant = True
        fresh.value = value
        return fresh

    def run(env: dict) -> object:
        return value
    run.is_constant = True
    run.value = value
    return run


def expression_depth(expr: object) -> int:
    """The nesting depth of an expression tree, computed without recursion."""
    deepest, level = 0, [expr]
    while level:
        deepest += 1
        level = [child for node in level for child in children(node)]
    return deepest


class ExpressionCompiler:
    """Compiles expressions of one ruleset; `names` are the env keys known globally (inputs,
    `outputs`, result names in tests) and `consts` the folded constants."""

    def __init__(self, consts: Mapping[str, object], names: frozenset[str], limits: Limits):
        self.consts = consts
        self.names = names
        self.limits = limits
        self._fold_env = {EVAL: Evaluation(None, limits, {})}
        self._compiled: dict[tuple, tuple[object, Fn]] = {}  # id(expr), traced, scope
        self._statics: dict[tuple, bool] = {}

    def compile(self, expr: object, *, traced: bool = False,
                scope: frozenset[str] = frozenset()) -> Fn:
        """The closure computing `expr` (the same one when asked again for the same node);
        EngineError `invalid_ir` for malformed trees."""
        key = (id(expr), traced, scope)
        found = self._compiled.get(key)
        if found is not None and found[0] is expr:
            return found[1]
        if expression_depth(expr) > self.limits.max_expression_depth:
            raise LimitExceededError(
                f"expression nested deeper than {self.limits.max_expression_depth} levels",
                code="limit_expression_depth", span=getattr(expr, "span", None))
        fn = self.sub(expr, scope, traced)
        self._compiled[key] = (expr, fn)  # the node is kept, so its id stays its own
        return fn

    def sub(self, expr: object, scope: frozenset[str], traced: bool) -> Fn:
        fn = self._node(expr, scope, traced)
        if traced:
            return fn if isinstance(expr, ir.Literal) else _recording(fn, expr)
        if getattr(fn, "is_constant", False) or not self._static(expr, scope):
            return fn
        try:
            return constant(freeze(fn(self._fold_env)))
        except (EngineError, RecursionError):
            return fn  # the error belongs to evaluation time, with its span

    def _static(self, expr: object, scope: frozenset[str]) -> bool:
        """True when `expr` reads no input, variable or clock: it can be folded."""
        key = (id(expr), scope)
        found = self._statics.get(key)
        if found is None:
            found = self._statics[key] = self._static_uncached(expr, scope)
        return found

    def _static_uncached(self, expr: object, scope: frozenset[str]) -> bool:
        if isinstance(expr, ir.Literal):
            return True
        if isinstance(expr, ir.Name):
            return (expr.name not in scope and expr.name not in self.names
                    and expr.name in self.consts)
        if isinstance(expr, (ir.Comprehension, ir.ObjectExpr)):
            return False
        if isinstance(expr, ir.Call) and expr.func in CLOCK:
            return False
        return all(self._static(child, scope) for child in children(expr))

    def _node(self, expr: object, scope: frozenset[str], traced: bool) -> Fn:
        span = getattr(expr, "span", None)
        if isinstance(expr, ir.Literal):
            return constant(expr.value)
        if isinstance(expr, ir.Name):
            return self._name(expr, scope)
        if isinstance(expr, ir.Member):
            if not traced and isinstance(expr.obj, ir.Name) and (
                    expr.obj.name in scope or expr.obj.name in self.names):
                return field_reader(expr.obj.name, expr.field, span)
            return _member(self.sub(expr.obj, scope, traced), expr.field, span)
        if isinstance(expr, ir.Binary):
            return self._binary(expr, scope, traced)
        if isinstance(expr, ir.Comprehension):
            return compile_comprehension(expr, self, scope, traced)
        parts = [self.sub(child, scope, traced) for child in children(expr)]
        return _compound(expr, parts, span)

    def _name(self, expr: ir.Name, scope: frozenset[str]) -> Fn:
        name = expr.name
        if name in scope or name in self.names:
            def read(env: dict) -> object:
                return env[name]
            return read
        if name in self.consts:
            return constant(self.consts[name])
        raise EngineError(f"unknown name `{name}`", code="invalid_ir", span=expr.span)

    def _binary(self, expr: ir.Binary, scope: frozenset[str], traced: bool) -> Fn:
        op, span = expr.op, expr.span
        if op in ("and", "or"):
            operands = [self.sub(e, scope, traced) for e in _chain(expr, op)]
            if op == "or":
                return _any_of(operands, span)
            return _all_of_explained(operands, span) if traced else _all_of(operands, span)
        left = self.sub(expr.left, scope, traced)
        right = self.sub(expr.right, scope, traced)
        if op == "??":
            def coalesce(env: dict) -> object:
                value = left(env)
                return right(env) if value is None else value
            return coalesce
        if op == "+":
            return lambda env: ops.add(left(env), right(env), span, env[EVAL])
        if op == "matches":
            return lambda env: search(left(env), right(env), span, env[EVAL])
        if op not in _PLAIN:
            raise EngineError(f"unknown operator `{op}`", code="invalid_ir", span=span)
        if getattr(right, "is_constant", False):
            fast = against_constant(op, left, right.value, span)
            if fast is not None:
                return fast
        slow = _PLAIN[op]
        if getattr(right, "is_constant", False) and type(right.value) is not tuple:
            value = right.value
            return lambda env: slow(left(env), value, span)
        return lambda env: slow(left(env), right(env), span)


def _recording(fn: Fn, node: object) -> Fn:
    def run(env: dict) -> object:
        value = fn(env)
        if type(value) is not dict:  # whole objects (an input) would drown the trace
            env[TRACE].append((node, value))
        return value
    return run


def _chain(expr: object, op: str) -> list:
    if isinstance(expr, ir.Binary) and expr.op == op:
        return _chain(expr.left, op) + _chain(expr.right, op)
    return [expr]


def _all_of(operands: list[Fn], span) -> Fn:
    def run(env: dict) -> object:
        unknown = False
        for operand in operands:
            value = operand(env)
            if value is False:
                return False
            if value is None:
                unknown = True
            elif value is not True:
                ops.truth(value, span)
        return None if unknown else True
    return run


def _all_of_explained(operands: list[Fn], span) -> Fn:
    """`and` for the trace: once false, the remaining operands are still evaluated (errors
    ignored, the result unchanged) so the explanation names every failed condition."""
    def run(env: dict) -> object:
        unknown = False
        for position, operand in enumerate(operands):
            value = operand(env)
            if value is False:
                for rest in operands[position + 1:]:
                    try:
                        rest(env)
                    except EngineError:
                        continue
                return False
            if value is None:
                unknown = True
            elif value is not True:
                ops.truth(value, span)
        return None if unknown else True
    return run


def _any_of(operands: list[Fn], span) -> Fn:
    def run(env: dict) -> object:
        unknown = False
        for operand in operands:
            value = operand(env)
            if value is True:
                return True
            if value is None:
                unknown = True
            elif value is not False:
                ops.truth(value, span)
        return None if unknown else False
    return run


def _member(obj: Fn, field: str, span) -> Fn:
    def run(env: dict) -> object:
        value = obj(env)
        if type(value) is dict:
            found = value.get(field)
            return found if type(found) is not Invalid else found.fail()
        return ops.member(value, field, span)
    return run


def _compound(expr: object, parts: list[Fn], span) -> Fn:
    if isinstance(expr, ir.Index):
        obj, key = parts
        return lambda env: ops.index(obj(env), key(env), span)
    if isinstance(expr, ir.Unary):
        (operand,) = parts
        if expr.op == "not":
            return lambda env: ops.logical_not(operand(env), span)
        return lambda env: ops.negate(operand(env), span)
    if isinstance(expr, ir.Between):
        return between_values(*parts, span)
    if isinstance(expr, ir.IsNull):
        (value,) = parts
        if expr.negated:
            return lambda env: value(env) is not None
        return lambda env: value(env) is None
    if isinstance(expr, ir.Conditional):
        return _conditional(*parts, span)
    if isinstance(expr, ir.Call):
        return _call(expr, parts, span)
    if isinstance(expr, ir.ListExpr):
        return lambda env: [part(env) for part in parts]
    if isinstance(expr, ir.SetExpr):
        return lambda env: _make_set([part(env) for part in parts], span)
    if isinstance(expr, ir.ObjectExpr):
        keys = [key for key, _ in expr.entries]
        return lambda env: {key: part(env) for key, part in zip(keys, parts)}
    if isinstance(expr, ir.Interpolated):
        return _interpolated(expr, parts, span)
    raise EngineError(f"not an expression node: {type(expr).__name__}", code="invalid_ir",
                      span=span)


def _conditional(cond: Fn, then: Fn, else_: Fn, span) -> Fn:
    def run(env: dict) -> object:
        test = cond(env)
        if test is True:
            return then(env)
        ops.truth(test, span)
        return else_(env)
    return run


def _call(expr: ir.Call, args: list[Fn], span) -> Fn:
    entry = FUNCTIONS.get(expr.func)
    if entry is None:
        raise EngineError(f"unknown function `{expr.func}`", code="invalid_ir", span=span)
    if len(args) < entry.minimum or (entry.maximum is not None and len(args) > entry.maximum):
        raise EngineError(f"{expr.func}() takes {arity_text(entry)} arguments, not {len(args)}",
                          code="invalid_ir", span=span)
    name, implementation = expr.func, entry.implementation
    if not args:  # today(), now(): nothing to read or check for null
        return lambda env: implementation((), env[EVAL], span)
    return lambda env: call_builtin(name, [arg(env) for arg in args], env[EVAL], span)


def _make_set(items: list, span) -> frozenset:
    try:
        return frozenset(items)
    except TypeError:
        raise EvaluationError("a set can hold only numbers, strings, booleans, dates and null",
                              code="type_mismatch", span=span) from None


def _interpolated(expr: ir.Interpolated, parts: list[Fn], span) -> Fn:
    pieces: list = []
    dynamic = iter(parts)
    for part in expr.parts:
        pieces.append(part if isinstance(part, str) else next(dynamic))

    def run(env: dict) -> str:
        text = "".join(piece if type(piece) is str else format_plain(piece(env))
                       for piece in pieces)
        if len(text) > env[EVAL].limits.max_string_length:
            raise LimitExceededError("an interpolated string grew beyond the limit",
                                     code="limit_string_length", span=span)
        return text
    return run
