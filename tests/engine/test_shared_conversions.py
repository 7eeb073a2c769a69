"""Input values converted whole, shared by the evaluations of one batch (issue 29): a market
match converts a business's claims once, not once per appetite. Sharing changes no result:
each evaluation is still charged the values it reads whole, and an invalid value raises in
every evaluation that reads it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from insureops.dsl.api import compile_ruleset
from insureops.engine.inputs import slots
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits

AS_OF = date(2026, 3, 1)
READS_CLAIMS = """ruleset r{n}
input business: Business
rule has_claims when business.prior_claims is not null then
    set claims = business.prior_claims
    tag "claims"
end
"""
CLAIMS = [{"amount": 8200, "date": "2024-05-02"}, {"amount": 12.5, "date": "2025-01-09"}]


def _rulesets(count: int = 3):
    return [compile_ruleset(READS_CLAIMS.format(n=n)) for n in range(count)]


def _converted(monkeypatch) -> list:
    calls: list = []
    convert = slots.InputConverter.convert_value

    def counted(self, value, *args):
        if type(value) is list:  # a whole read (its items' numbers recurse too)
            calls.append(value)
        return convert(self, value, *args)
    monkeypatch.setattr(slots.InputConverter, "convert_value", counted)
    return calls


def test_a_value_is_converted_once_when_evaluations_share_conversions(monkeypatch):
    calls = _converted(monkeypatch)
    business = {"prior_claims": CLAIMS}
    shared: dict = {}
    results = [rs.evaluate({"business": business}, as_of=AS_OF, conversions=shared)
               for rs in _rulesets()]
    assert len(calls) == 1
    alone = [rs.evaluate({"business": business}, as_of=AS_OF) for rs in _rulesets()]
    assert len(calls) == 4
    assert [r.outputs["claims"] for r in results] == [r.outputs["claims"] for r in alone]
    assert results[0].outputs["claims"][1]["amount"] == Decimal("12.5")


def test_explained_and_limited_calls_share_conversions_when_given(monkeypatch):
    calls = _converted(monkeypatch)
    business = {"prior_claims": CLAIMS}
    shared: dict = {}
    first, second = _rulesets(2)
    first.evaluate({"business": business}, as_of=AS_OF, conversions=shared)
    traced = second.evaluate({"business": business}, as_of=AS_OF, explain=True,
                             conversions=shared)
    assert len(calls) == 1
    assert traced.tags == ("claims",)


def test_each_evaluation_is_charged_when_a_shared_value_is_taken():
    business = {"prior_claims": CLAIMS}  # 1 list + 2 objects of 2 values: 6 values
    shared: dict = {}
    first, second = _rulesets(2)
    first.evaluate({"business": business}, as_of=AS_OF, conversions=shared)
    with pytest.raises(LimitExceededError) as raised:
        second.evaluate({"business": business}, as_of=AS_OF, limits=Limits(max_input_nodes=5),
                        conversions=shared)
    assert raised.value.code == "limit_input_size"
    assert second.evaluate({"business": business}, as_of=AS_OF,
                           limits=Limits(max_input_nodes=6), conversions=shared).tags == (
        "claims",)


def test_an_invalid_value_raises_in_each_evaluation_when_conversions_are_shared():
    business = {"prior_claims": [{"amount": 1, "date": "2024-13-40"}]}
    shared: dict = {}
    for rs in _rulesets():
        with pytest.raises(EvaluationError) as raised:
            rs.evaluate({"business": business}, as_of=AS_OF, conversions=shared)
        assert raised.value.code == "invalid_input"
    assert shared == {}


def test_a_different_schema_is_not_shared_when_converting(monkeypatch):
    calls = _converted(monkeypatch)
    untyped = compile_ruleset(READS_CLAIMS.format(n=9).replace("Business", "Any"))
    business = {"prior_claims": CLAIMS}
    shared: dict = {}
    typed = _rulesets(1)[0].evaluate({"business": business}, as_of=AS_OF, conversions=shared)
    loose = untyped.evaluate({"business": business}, as_of=AS_OF, conversions=shared)
    assert len(calls) == 2
    assert typed.outputs["claims"][0]["date"] == date(2024, 5, 2)  # format: date
    assert loose.outputs["claims"][0]["date"] == "2024-05-02"
