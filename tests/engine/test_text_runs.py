"""An `or` of `contains` tests of one field read once (engine/evaluation/text_runs.py): the
same answers, steps and limit errors as the reference interpreter's test by test."""

from __future__ import annotations

import pytest
from engine_ir_builders import binary, build, expr, name, rule, ruleset, set_output

from insureops.engine import ir
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits


def _contains(field: str, needle: str, line: int) -> ir.Binary:
    return ir.Binary("contains", name(field), expr(needle), ir.Span(line, 1, line, 20))


def _or(*operands) -> object:
    node = operands[0]
    for operand in operands[1:]:
        node = ir.Binary("or", node, operand, ir.Span(1, 1, 99, 1))
    return node


def _screen(count: int) -> object:
    """A run of `count` tests of `business.s`, then a test of another field and a run of two."""
    run = [_contains("business.s", f" word{n} ", n + 2) for n in range(count)]
    return _or(*run, binary(">", name("business.n"), 3), _contains("business.t", "a", 80),
               _contains("business.t", "b", 81))


def _outcome(compiled, business, limits=None):
    try:
        result = compiled.evaluate({"business": business}, limits=limits)
        return result.decision, result.outputs, result.fired
    except (LimitExceededError, EvaluationError) as error:
        return error.code, error.message, error.span


def _pair(count: int, *, first=None):
    rules = [rule("screen", _screen(count), set_output("v", True))]
    if first is not None:  # a rule before that makes the Evaluation (a list's scan)
        rules.insert(0, rule("first", first, set_output("w", True), priority=1))
    rs = ruleset(*rules)
    return build(rs), build(rs, reference=True)


TEXTS = ["", "x" * 63, "x" * 64, "x" * 200 + " word3 ", "x" * 1000, " word0 " + "x" * 130,
         "y" * 700 + " word11 "]


@pytest.mark.parametrize("count", [2, 8, 12, 20])
@pytest.mark.parametrize("text", TEXTS)
def test_a_run_charges_what_the_tests_charge_at_every_budget(count, text):
    compiled, reference = _pair(count)
    assert "SCANNED_RUN" in compiled.evaluate.__globals__["__source__"]
    business = {"s": text, "n": 1, "t": "zz"}
    enough = count * (len(text) // 64) + 3
    for steps in range(0, enough + 1):
        limits = Limits(max_steps=steps)
        assert _outcome(compiled, business, limits) == _outcome(reference, business, limits)
    assert _outcome(compiled, business) == _outcome(reference, business)


@pytest.mark.parametrize("value", [None, ["a", " word1 "], [], 5, 2.5, {"k": 1}, True])
def test_a_run_of_a_value_not_a_string_is_tested_as_each_test_would(value):
    for count in (2, 12):
        compiled, reference = _pair(count)
        business = {"s": value, "n": 5, "t": "b"}
        assert _outcome(compiled, business) == _outcome(reference, business)
        business = {"s": value, "n": None, "t": None}
        assert _outcome(compiled, business) == _outcome(reference, business)


def test_the_default_call_charges_a_run_with_and_without_an_evaluation():
    # a text of 999,999 characters costs 15,624 steps a scan: 20 scans per rule, so the
    # default budget (1,000,000) runs out in the fourth rule, at one test of its run
    huge = {"s": "x" * 999_999, "n": 1, "t": "zz", "items": ["q"]}
    for first in (None, binary("contains", name("business.items"), "z")):
        rules = [rule(f"r{n}", _screen(20), set_output(f"v{n}", True)) for n in range(5)]
        if first is not None:
            rules.insert(0, rule("first", first, set_output("w", True), priority=1))
        rs = ruleset(*rules)
        compiled, reference = build(rs), build(rs, reference=True)
        got = _outcome(compiled, huge)
        assert got == _outcome(reference, huge)
        assert got[0] == "limit_steps"
        found = dict(huge, s="x" * 999_999 + " word19 ")
        assert _outcome(compiled, found) == _outcome(reference, found)
