"""`any`/`all`/`count`/`sum`/`min`/`max` over a list or set, compiled to closures.

The loop variable is bound in the env for the body and restored afterwards. A `where` that is
null does not select the item (as a `when` that is null does not match); without `where` every
item is selected, and for `any`/`all` the items themselves are the truth values. `any` is `or`
over the items and `all` is `and` (Kleene): a null test makes them null unless another item
decides (true for `any`, false for `all`). Null
projections are skipped by `sum`, `min` and `max`; `min`/`max` of nothing are null, `sum` 0.
Every item costs one step of the evaluation's budget, charged before the loop starts.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.ir import numbers
from insureops.engine.ir import operations as ops
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.values import kind_of

_MISSING = object()


def compile_comprehension(expr: ir.Comprehension, compiler, scope: frozenset[str],
                          traced: bool) -> Callable[[dict], object]:
    """The closure for one comprehension; the body is compiled untraced (the trace records
    the comprehension's value, not every iteration)."""
    span, var, kind = expr.span, expr.var, expr.kind
    source = compiler.sub(expr.source, scope, traced)
    inner = scope | {var}
    where = compiler.sub(expr.where, inner, False) if expr.where is not None else None
    projection = (compiler.sub(expr.projection, inner, False)
                  if expr.projection is not None else None)
    fold = _FOLDS[kind]

    def run(env: dict) -> object:
        items = source(env)
        if items is None:
            return None
        if not isinstance(items, ops.COLLECTIONS):
            raise EvaluationError(f"{kind}() needs a list or set, got {kind_of(items)}",
                                  code="type_mismatch", span=span)
        ev = env["$"]
        ev.remaining -= len(items)  # the evaluation is its own step budget
        if ev.remaining < 0:
            ev.charge(0, span)
        saved = env.get(var, _MISSING)
        try:
            return fold(items, env, var, where, projection, span)
        finally:
            if saved is _MISSING:
                env.pop(var, None)
            else:
                env[var] = saved
    return run


def _selected(env: dict, item: object, where, span) -> bool:
    if where is None:
        return True
    test = where(env)
    if test is True:
        return True
    ops.truth(test, span)
    return False


def _any(items, env, var, where, projection, span):
    """`or` over the items (Kleene): true once one is true, else null if one was null."""
    found = False
    for item in items:
        env[var] = item
        test = where(env) if where is not None else item
        if test is True:
            return True
        if test is None:
            found = None
        elif test is not False:
            ops.truth(test, span)
    return found


def _all(items, env, var, where, projection, span):
    """`and` over the items (Kleene): false once one is false, else null if one was null."""
    found = True
    for item in items:
        env[var] = item
        test = where(env) if where is not None else item
        if test is False:
            return False
        if test is None:
            found = None
        elif test is not True:
            ops.truth(test, span)
    return found


def _count(items, env, var, where, projection, span):
    if where is None:
        return Decimal(len(items))
    total = 0
    for item in items:
        env[var] = item
        test = where(env)
        if test is True:
            total += 1
        elif test is not False:
            ops.truth(test, span)
    return Decimal(total)


def _projected(items, env, var, where, projection, span):
    for item in items:
        env[var] = item
        if _selected(env, item, where, span):
            value = projection(env) if projection is not None else item
            if value is not None:
                yield value


def _sum(items, env, var, where, projection, span):
    total = ops.ZERO
    for value in _projected(items, env, var, where, projection, span):
        total = ops.add(total, value, span, env["$"]) if type(value) is not Decimal \
            else numbers.add(total, value, span)
    return total


def _extreme(better):
    def fold(items, env, var, where, projection, span):
        best = None
        for value in _projected(items, env, var, where, projection, span):
            if best is None or better(value, best, span):
                best = value
        return best
    return fold


_FOLDS = {"any": _any, "all": _all, "count": _count, "sum": _sum,
          "min": _extreme(ops.less), "max": _extreme(ops.greater)}
