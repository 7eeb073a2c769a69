"""The direct path (engine/evaluation/direct.py): generated code over the raw input JSON, falling back to
the generated path for anything off its common path, with one answer on every path."""

from __future__ import annotations

import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from engine_paths import direct_outcome, every_path

from insureops.dsl import Limits, compile_ruleset
from insureops.dsl.api import parse_ruleset
from insureops.engine.evaluation.compiler import GENERATE_AFTER
from insureops.engine.ir.errors import EvaluationError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from workload import SINGLE_RULE, generate_businesses

AS_OF = date(2025, 6, 15)
RULES = """ruleset t
input r: Any
rule a when r.kind == "x" and r.n > 10 then accept "n {r.n}" end
rule b when r.s starts_with "23" and not (r.s ends_with "9") then tag "s" end
"""


def _warm(source: str):
    compiled = compile_ruleset(source)
    for _ in range(GENERATE_AFTER + 1):
        compiled.evaluate({"r": {}}, as_of=AS_OF)
    return compiled


def test_the_issue_rule_runs_on_the_direct_path_when_warm():
    compiled = _warm(SINGLE_RULE)
    assert compiled._direct is not None
    for record in generate_businesses(200):
        assert direct_outcome(compiled, {"r": record}) is not None  # decided, no fallback


@pytest.mark.parametrize("record", [
    {"kind": "x", "n": 11, "s": "238"},
    {"kind": "x", "n": Decimal("10.5"), "s": "2389"},
    {"kind": "x", "n": 10.5},                      # a float: falls back, same answer
    {"kind": "x", "n": float("nan")},              # NaN read: invalid_input everywhere
    {"kind": "y", "n": float("nan")},              # NaN never read (`and` stopped): no error
    {"kind": "x"},                                 # a missing key: the `.get` variant
    {"kind": "x", "n": 10**200},                   # beyond the plain int size: falls back
    {"kind": "x", "n": True},                      # a boolean compared with a number
    {"kind": None, "n": 11, "s": None},
    {"kind": "x", "n": "11", "s": 5},              # wrong types
])
def test_every_path_agrees_when_the_direct_path_decides_or_falls_back(record):
    found = every_path(parse_ruleset(RULES), {"r": record})
    assert len(set(found.values())) == 1, found


def test_a_value_is_checked_where_it_is_read_when_evaluated_plainly_or_explained():
    compiled = _warm(RULES)
    unread = {"kind": "y", "n": float("nan"), "s": "1"}
    assert compiled.evaluate({"r": unread}).fired == []
    assert compiled.evaluate({"r": unread}, explain=True).fired == []
    read = {"kind": "x", "n": float("nan"), "s": "1"}
    for explain in (False, True):
        with pytest.raises(EvaluationError) as raised:
            compiled.evaluate({"r": read}, explain=explain)
        assert raised.value.code == "invalid_input"


def test_own_limits_take_the_generated_path_when_given():
    compiled = _warm(RULES)
    assert compiled.evaluate({"r": {"kind": "x", "n": 11}}).fired == ["a"]
    with pytest.raises(EvaluationError) as raised:  # two rules are two steps
        compiled.evaluate({"r": {"kind": "x", "n": 11}}, limits=Limits(max_steps=1))
    assert raised.value.code == "limit_steps"


def test_evaluate_many_takes_the_direct_path_and_keeps_errors_as_values():
    compiled = _warm(RULES)
    outcomes = list(compiled.evaluate_many([{"r": {"kind": "x", "n": 11}},
                                            {"r": {"kind": "x", "n": float("nan")}},
                                            {"q": {}}]))
    assert outcomes[0].fired == ["a"]
    assert [getattr(o, "code", None) for o in outcomes[1:]] == ["invalid_input",
                                                                  "missing_input"]
