"""A compiled ruleset runs its first GENERATE_AFTER untraced evaluations on closures, then on the
generated fast path: the switch changes nothing a caller can see, only the speed."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import pytest

from insureops.dsl.api import compile_ruleset
from insureops.engine.evaluation import compiler as compiler_module
from insureops.engine.evaluation.compiler import GENERATE_AFTER, compile_ir
from insureops.engine.evaluation.interpreter import compile_reference
from insureops.engine.ir.errors import EvaluationError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from workload import APPETITE, generate_businesses  # noqa: E402

AS_OF = date(2026, 3, 1)


def _appetite(name: str):
    return compile_ruleset(APPETITE.read_text(encoding="utf-8"), filename=name)


def _outcome(compiled, business) -> tuple:
    try:
        result = compiled.evaluate({"business": business}, as_of=AS_OF)
    except EvaluationError as error:
        return ("error", error.code, error.message)
    return ("result", result.to_dict())


def test_code_is_generated_only_after_the_warm_up_evaluations():
    compiled = _appetite("tier-count.rules")
    cases = list(generate_businesses(GENERATE_AFTER + 2, seed=3))
    for business in cases[:GENERATE_AFTER]:
        compiled.evaluate({"business": business}, as_of=AS_OF)
    assert compiled._generated is compiler_module._PENDING
    compiled.evaluate({"business": cases[GENERATE_AFTER]}, as_of=AS_OF)
    assert callable(compiled._generated)


def test_results_are_the_same_before_and_after_the_code_is_generated():
    warming = _appetite("tier-warming.rules")
    reference = compile_reference(warming.ir, input_schemas={
        "business": warming._converters["business"].root})
    for business in generate_businesses(3 * GENERATE_AFTER, seed=11):
        assert _outcome(warming, business) == _outcome(reference, business)
    assert callable(warming._generated)


def test_explained_evaluations_neither_count_nor_generate():
    compiled = _appetite("tier-explain.rules")
    for business in generate_businesses(GENERATE_AFTER + 5, seed=5):
        compiled.evaluate({"business": business}, as_of=AS_OF, explain=True)
    assert compiled._generated is compiler_module._PENDING


@pytest.mark.parametrize("generate_after", [0, 10**9])
def test_unread_fields_are_treated_alike_by_both_tiers(generate_after):
    """The warm-up tier converts the same projected fields as the fast path: an invalid value
    in a field no rule reads is no error in either, and one in a read field is the same error."""
    compiled = _appetite("tier-fields.rules")
    closures = compile_ir(compiled.ir, input_schemas={
        "business": compiled._converters["business"].root}, generate_after=generate_after)
    business = generate_businesses(1, seed=1)[0]
    unread = {**business, "founded_on": "not a date"}  # not read by the appetite rules
    assert _outcome(closures, unread)[0] == "result"
    read = {**business, "annual_revenue": "lots"}
    assert _outcome(closures, read) == _outcome(_appetite("tier-fields-2.rules"), read)
