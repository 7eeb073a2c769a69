"""An `or` of several `contains` tests of one field against constant texts, read once.

Appetites screen a description with chains like `business.activities contains " crane " or
business.activities contains " cranes " or ...`. Generated operand by operand, each test reads
the field again, and a chain of more than `_CHUNK` operands becomes functions of their own
(which need an Evaluation). A run of such tests on the same input path is generated here as
one expression: the field read once; a text too short to cost a step tested by Python's `or`
of `in`s; a longer text by the index of the first constant found, then each test run charged
its scan, as if charged one by one (the same steps, and `limit_steps` at the test that ran
over); any other value (null, a list) by the tests as the emitter makes them.
"""

from __future__ import annotations

from insureops.engine import ir
from insureops.engine.ir.costs import CHARS_PER_STEP
from insureops.engine.ir.limits import DEFAULT_LIMITS, steps_exceeded

SHORTEST = 2  # tests in a run worth reading the field once for


def runs(operands: list, scope, emitter) -> list:
    """`operands` of an `or` with each run of `contains` tests of one input path against
    constant strings (at least SHORTEST long) gathered in a tuple, in their order."""
    found: list = []
    key = None
    for operand in operands:
        this = _tested(operand, scope, emitter)
        if this is not None and this == key:
            found[-1].append(operand)
            continue
        found.append([operand])
        key = this
    return [group[0] if len(group) < SHORTEST else tuple(group) for group in found]


def _tested(node, scope, emitter) -> tuple | None:
    """The input path `node` tests (`path contains "text"`), or None."""
    if type(node) is not ir.Binary or node.op != "contains":
        return None
    if type(_constant(node.right, scope, emitter)) is not str:
        return None
    path = []
    obj = node.left
    while type(obj) is ir.Member:
        path.append(obj.field)
        obj = obj.obj
    if type(obj) is not ir.Name or not path:
        return None
    found = scope.get(obj.name)
    if found is None or found.slot is None:  # an input's data (read as it is given)
        return None
    return (obj.name, *reversed(path))


def _constant(node, scope, emitter) -> object:
    """`node`'s value when it is a constant (a literal, a const, folded), else None."""
    if type(node) is ir.Literal:
        return node.value
    if type(node) is ir.Name and node.name not in scope:
        return emitter.consts.get(node.name)
    return emitter.folded.get(id(node))


def run_code(run: tuple, scope, emitter, fallback) -> str:
    """The expression of one run (a boolean, or what the tests give for a value not a
    string): `fallback()` is the code of the tests made one by one."""
    src = emitter.src
    x, h = src.fresh("_x"), src.fresh("_h")
    read = emitter.expr(run[0].left, scope).text
    needles = [src.const(_constant(node.right, scope, emitter)) for node in run]
    spans = src.const(tuple(node.span for node in run))
    short = " or ".join(f"{k} in {x}" for k in needles)
    hits = " or ".join(f"{k} in {x} and {n}" for n, k in enumerate(needles, 1))
    each, count = f"len({x}) // {CHARS_PER_STEP}", f"({h} or {len(run)})"
    if emitter.ev == "ev":
        charged = f"SCANNED_RUN(ev, {each}, {count}, {spans})"
    else:  # the default call's steps left, while it has made no Evaluation
        charged = (f"(((_st := _st - {count} * ({each})) >= 0 or STEPS_RUN_OVER("
                   f"{DEFAULT_LIMITS.max_steps}, _st, {each}, {count}, {spans})) if ev is None "
                   f"else SCANNED_RUN(ev, {each}, {count}, {spans}))")
    return (f"(({short}) if type({x} := {read}) is STR and len({x}) < {CHARS_PER_STEP} else "
            f"({h} != 0) if type({x}) is STR and ({h} := ({hits} or 0)) is not None and "
            f"{charged} else {fallback()})")


def scanned_run(ev, each: int, count: int, spans: tuple) -> bool:
    """Charge `count` scans of `each` steps, the tests of a run that ran (`costs.charge`'s
    arithmetic): over the budget, the evaluation is left as the test that ran over left it,
    and that test's span is the error's. True, so the code can test it."""
    before = ev.remaining
    ev.remaining = before - each * count
    if ev.remaining < 0:
        over = before // each  # the test after which nothing was left
        ev.remaining = before - each * (over + 1)
        ev.charge(0, spans[over])
    return True


def steps_run_over(limit: int, left: int, each: int, count: int, spans: tuple) -> None:
    """`limit_steps` at the test of a run that ran over, `left` the steps left after all
    `count` tests were charged."""
    steps_exceeded(limit, spans[(left + each * count) // each])


HELPERS = {"SCANNED_RUN": scanned_run, "STEPS_RUN_OVER": steps_run_over}
