"""The reference tree-walking interpreter: the plain reading of the language's semantics that
the closure compiler (`expressions.py`) is tested against, on the same IR and the same env.

It is slow on purpose (a dispatch on the node type at every step, no folding); it is never used
to serve evaluations. `ReferenceCompiler` plugs it into the ruleset program in place of the
closure compiler, so whole rulesets can be run both ways (see `compiler.compile_ir`).
"""

from __future__ import annotations

from collections.abc import Mapping

from insureops.engine import ir
from insureops.engine.evaluation.compiler import build_ruleset
from insureops.engine.evaluation.expressions import EVAL, TRACE, expression_depth, thaw
from insureops.engine.ir import operations as ops
from insureops.engine.ir.builtins import FUNCTIONS, call_builtin
from insureops.engine.ir.errors import EngineError, EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.operators import IMPLEMENTATIONS
from insureops.engine.ir.regex import search
from insureops.engine.ir.values import format_plain, kind_of

_MISSING = object()
_BINARY = IMPLEMENTATIONS


class Interpreter:
    """Evaluates expressions by walking the tree. `names` are the env keys (inputs, outputs,
    result names), `consts` the ruleset's constants."""

    def __init__(self, consts: Mapping[str, object], names: frozenset[str]) -> None:
        self.consts = consts
        self.names = names

    def evaluate(self, expr: object, env: dict, *, record: bool = True) -> object:
        """The value of `expr` in `env`; records `(node, value)` into env[TRACE] if present."""
        value = self._evaluate(expr, env, record)
        if record and TRACE in env and not isinstance(expr, ir.Literal) and type(value) is not dict:
            env[TRACE].append((expr, value))
        return value

    def _evaluate(self, expr: object, env: dict, record: bool) -> object:
        span = getattr(expr, "span", None)
        ev = env[EVAL]
        sub = self.evaluate
        if isinstance(expr, ir.Literal):
            return expr.value
        if isinstance(expr, ir.Name):
            if expr.name in env:
                return env[expr.name]
            if expr.name in self.consts:
                return thaw(self.consts[expr.name])
            raise EngineError(f"unknown name `{expr.name}`", code="invalid_ir", span=span)
        if isinstance(expr, ir.Member):
            return ops.member(sub(expr.obj, env, record=record), expr.field, span)
        if isinstance(expr, ir.Index):
            obj = sub(expr.obj, env, record=record)
            return ops.index(obj, sub(expr.index, env, record=record), span)
        if isinstance(expr, ir.Unary):
            operand = sub(expr.operand, env, record=record)
            if expr.op == "not":
                return ops.logical_not(operand, span)
            return ops.negate(operand, span)
        if isinstance(expr, ir.Binary):
            return self._binary(expr, env, record)
        if isinstance(expr, ir.Between):
            value = sub(expr.value, env, record=record)
            low = sub(expr.low, env, record=record)
            return ops.between(value, low, sub(expr.high, env, record=record), span)
        if isinstance(expr, ir.IsNull):
            return (sub(expr.value, env, record=record) is None) is not expr.negated
        if isinstance(expr, ir.Conditional):
            test = sub(expr.cond, env, record=record)
            if test is True:
                return sub(expr.then, env, record=record)
            ops.truth(test, span)
            return sub(expr.else_, env, record=record)
        if isinstance(expr, ir.Call):
            return self._call(expr, env, record)
        if isinstance(expr, ir.Comprehension):
            return self._comprehension(expr, env)
        return self._collection(expr, env, record, ev)

    def _binary(self, expr: ir.Binary, env: dict, record: bool) -> object:
        op, span = expr.op, expr.span
        left = self.evaluate(expr.left, env, record=record)
        if op == "and" or op == "or":
            stop = op == "or"  # `or` stops at true, `and` at false
            ops.truth(left, span)
            if left is stop:
                return stop
            right = ops.truth(self.evaluate(expr.right, env, record=record), span)
            if right is stop:
                return stop
            return None if left is None or right is None else not stop
        if op == "??":
            return self.evaluate(expr.right, env, record=record) if left is None else left
        right = self.evaluate(expr.right, env, record=record)
        if op == "+":
            return ops.add(left, right, span, env[EVAL])
        if op == "matches":
            return search(left, right, span, env[EVAL])
        if op not in _BINARY:
            raise EngineError(f"unknown operator `{op}`", code="invalid_ir", span=span)
        return _BINARY[op](left, right, span)

    def _call(self, expr: ir.Call, env: dict, record: bool) -> object:
        entry = FUNCTIONS.get(expr.func)
        if entry is None or len(expr.args) < entry.minimum or (
                entry.maximum is not None and len(expr.args) > entry.maximum):
            raise EngineError(f"bad call of `{expr.func}`", code="invalid_ir", span=expr.span)
        args = [self.evaluate(arg, env, record=record) for arg in expr.args]
        return call_builtin(expr.func, args, env[EVAL], expr.span)

    def _comprehension(self, expr: ir.Comprehension, env: dict) -> object:
        items = self.evaluate(expr.source, env)
        if items is None:
            return None
        if not isinstance(items, ops.COLLECTIONS):
            raise EvaluationError(f"{expr.kind}() needs a list or set, got {kind_of(items)}",
                                  code="type_mismatch", span=expr.span)
        env[EVAL].budget.charge(len(items), expr.span)
        saved = env.get(expr.var, _MISSING)
        try:
            return self._fold(expr, items, env)
        finally:
            if saved is _MISSING:
                env.pop(expr.var, None)
            else:
                env[expr.var] = saved

    def _fold(self, expr: ir.Comprehension, items, env: dict) -> object:
        kind, span = expr.kind, expr.span
        total = ops.ZERO if kind == "sum" else None
        count, unknown = 0, False
        for item in items:
            env[expr.var] = item
            if expr.where is not None:
                test = self.evaluate(expr.where, env, record=False)
            else:
                test = item if kind in ("any", "all") else True
            ops.truth(test, span)
            if kind == "any" or kind == "all":
                if test is (kind == "any"):  # `or` stops at true, `and` at false
                    return test
                unknown = unknown or test is None
                continue
            if test is not True:
                continue
            count += 1
            if kind == "count":
                continue
            value = item if expr.projection is None else self.evaluate(
                expr.projection, env, record=False)
            if value is None:
                continue
            if kind == "sum":
                total = ops.add(total, value, span, env[EVAL])
            elif total is None or (ops.less if kind == "min" else ops.greater)(
                    value, total, span):
                total = value
        if kind in ("any", "all"):
            return None if unknown else kind == "all"
        return ops.Decimal(count) if kind == "count" else total

    def _collection(self, expr: object, env: dict, record: bool, ev) -> object:
        span = getattr(expr, "span", None)
        if isinstance(expr, ir.ListExpr):
            return [self.evaluate(item, env, record=record) for item in expr.items]
        if isinstance(expr, ir.SetExpr):
            items = [self.evaluate(item, env, record=record) for item in expr.items]
            try:
                return frozenset(items)
            except TypeError:
                raise EvaluationError("a set can hold only numbers, strings, booleans, dates "
                                      "and null", code="type_mismatch", span=span) from None
        if isinstance(expr, ir.ObjectExpr):
            return {key: self.evaluate(value, env, record=record) for key, value in expr.entries}
        if isinstance(expr, ir.Interpolated):
            text = "".join(part if isinstance(part, str)
                           else format_plain(self.evaluate(part, env, record=record))
                           for part in expr.parts)
            if len(text) > ev.limits.max_string_length:
                raise LimitExceededError("an interpolated string grew beyond the limit",
                                         code="limit_string_length", span=span)
            return text
        raise EngineError(f"not an expression node: {type(expr).__name__}", code="invalid_ir",
                          span=span)


class ReferenceCompiler:
    """The `ExpressionCompiler` interface backed by the interpreter (for differential tests)."""

    def __init__(self, consts: Mapping[str, object], names: frozenset[str], limits: Limits):
        self.interpreter = Interpreter(consts, names)
        self.limits = limits

    def compile(self, expr: object, *, traced: bool = False, scope: frozenset[str] = frozenset()):
        if expression_depth(expr) > self.limits.max_expression_depth:
            raise LimitExceededError(
                f"expression nested deeper than {self.limits.max_expression_depth} levels",
                code="limit_expression_depth", span=getattr(expr, "span", None))
        evaluate = self.interpreter.evaluate
        if traced:
            return lambda env: evaluate(expr, env)
        return lambda env: evaluate(expr, env, record=False)


def compile_reference(ruleset: ir.Ruleset, *, input_schemas: Mapping[str, dict | None],
                      source: str | None = None):
    """The ruleset with every expression evaluated by the tree-walking interpreter instead of
    compiled closures (same rule loop, actions and tables): the differential tests' oracle."""
    return build_ruleset(ruleset, input_schemas=input_schemas, source=source,
                         compiler_class=ReferenceCompiler)
