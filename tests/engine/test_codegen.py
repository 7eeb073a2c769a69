"""The generated fast path: no user text in the code, same results as the closures."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    accept,
    and_,
    between,
    binary,
    build,
    decline,
    is_null,
    name,
    reason,
    refer,
    rule,
    ruleset,
    score,
    set_,
    set_output,
    stop,
    table,
    tag,
)

from insureops.engine import ir
from insureops.engine.errors import EvaluationError

EVIL = '"); __import__("os").system("echo pwned"); ("'


def test_generated_code_contains_no_user_text_when_names_and_literals_are_hostile():
    condition = and_(binary("==", ir.Member(ir.Name("business"), EVIL), EVIL),
                     binary("in", name("business.state"), set_(EVIL)))
    rs = ruleset(rule(EVIL, condition, accept(EVIL), tag(EVIL), score("+=", 1)))
    compiled = build(rs)
    source = compiled._fast.source
    assert "pwned" not in source and "import" not in source and "business" not in source
    result = compiled.evaluate({"business": {EVIL: EVIL, "state": EVIL}})
    assert result.fired == [EVIL]
    assert result.reasons == [EVIL]
    assert result.tags == [EVIL]


RULES = ruleset(
    rule("halt", binary(">", name("business.losses"), 2), decline("losses"), stop(),
         priority=100),
    rule("core", and_(binary("starts_with", name("business.naics"), "2382"),
                      binary("in", name("business.state"), set_("CA", "TX")),
                      between(name("business.revenue"), 100, 5000)),
         score("+=", 40), accept("core")),
    rule("unknown", and_(is_null(name("business.state"), negated=True),
                         binary("<", name("business.years"), 3)),
         score("-=", Decimal("2.5")), refer("young"), tag("new")),
    rule("window", binary(">=", name("business.years"), 0), reason("in window"),
         effective=(date(2025, 1, 1), date(2025, 12, 31))),
    rule("off", True, accept(), enabled=False),
    table("t", "first", [name("business.state")], ["f"], [(["CA"], [Decimal("1.20")])]),
    rule("reads", binary("==", name("outputs.f"), Decimal("1.2")), set_output("g", 1),
         priority=-1),
    default="refer")
CASES = [
    {"losses": 3, "naics": "2382", "state": "CA", "revenue": 200, "years": 1},
    {"losses": 0, "naics": "2382", "state": "CA", "revenue": 200, "years": 1},
    {"losses": None, "naics": "2382", "state": "NV", "revenue": 200, "years": None},
    {"naics": "5412", "state": None, "revenue": 9000, "years": 10},
    {},
]


@pytest.mark.parametrize("business", CASES)
@pytest.mark.parametrize("as_of", [date(2024, 6, 1), date(2025, 6, 1)])
def test_generated_code_agrees_with_the_reference_when_rules_stop_skip_and_decide(business,
                                                                                   as_of):
    fast = build(RULES).evaluate({"business": business}, as_of=as_of)
    reference = build(RULES, reference=True).evaluate({"business": business}, as_of=as_of)
    explained = build(RULES).evaluate({"business": business}, as_of=as_of, explain=True)
    assert fast == reference
    assert explained.to_dict() | {"trace": None} == fast.to_dict() | {"trace": None}


def test_generated_code_reports_the_rule_when_a_condition_fails_at_run_time():
    with pytest.raises(EvaluationError) as raised:
        build(RULES).evaluate({"business": {"losses": "many"}}, as_of=date(2025, 1, 1))
    assert raised.value.code == "type_mismatch"
    assert raised.value.message.startswith("in rule `halt`")
