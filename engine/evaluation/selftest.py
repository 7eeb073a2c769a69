"""The embedded `test` blocks of a ruleset: build the givens, evaluate, check `expect`."""

from __future__ import annotations

from datetime import date

from insureops.engine import ir
from insureops.engine.evaluation.explain import text_of
from insureops.engine.evaluation.generator import expression_function
from insureops.engine.ir.context import Evaluation
from insureops.engine.ir.errors import EngineError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.result import TestOutcome
from insureops.engine.ir.tree import children
from insureops.engine.ir.values import format_literal


def run_tests(compiled, names: tuple, as_of: date | None) -> list[TestOutcome]:
    """One outcome per test, in file order; an evaluation error fails the test with its
    message instead of escaping. `names` are the result names an expectation reads."""
    outcomes = []
    for test in compiled.ir.tests:
        day = next((given.as_of for given in test.givens if given.as_of is not None), as_of)
        try:
            expect = expression_function(test.expect, compiled.consts, names)
            outcomes.append(_run_one(compiled, test, expect, day))
        except EngineError as error:
            outcomes.append(TestOutcome(test.description, False,
                                        f"error[{error.code}]: {error.message}", test.span))
    return outcomes


def _run_one(compiled, test: ir.TestCase, expect, day: date | None) -> TestOutcome:
    limits = Limits()
    inputs = {given.name: expression_function(given.value, compiled.consts)(
        Evaluation.start(day, limits, {})) for given in test.givens}
    result = compiled.evaluate(inputs, as_of=day)
    # the result's values as the language's own (its tuples are lists)
    env = {"decision": result.decision, "score": result.score, "outputs": dict(result.outputs),
           "reasons": list(result.reasons), "tags": list(result.tags),
           "fired": list(result.fired)}
    verdict = expect(Evaluation.start(day, limits, {}), *env.values())
    if verdict is True:
        return TestOutcome(test.description, True, None, test.span)
    shown = ", ".join(f"{label} = {format_literal(value)}"
                      for label, value in _read_names(test.expect, env))
    outcome = "was null" if verdict is None else "failed"
    message = f"`{text_of(test.expect, compiled.source)}` {outcome}"
    return TestOutcome(test.description, False, f"{message}: {shown}" if shown else message,
                       test.span)


def _read_names(expr: object, env: dict) -> list[tuple[str, object]]:
    """The result names (and `outputs.X` entries) the condition reads, in reading order."""
    found: list[tuple[str, object]] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ir.Member) and isinstance(node.obj, ir.Name) \
                and node.obj.name == "outputs":
            found.append((f"outputs.{node.field}", env["outputs"].get(node.field)))
            continue
        if isinstance(node, ir.Name) and node.name in env:
            found.append((node.name, env[node.name]))
            continue
        stack.extend(reversed(children(node)))
    unique = []
    for entry in found:
        if entry[0] not in (label for label, _ in unique):
            unique.append(entry)
    return unique
