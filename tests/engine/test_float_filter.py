"""Arithmetic compared in floats first (engine/evaluation/float_filter.py) gives exactly what
the exact decimals give: on near ties, nulls, strings, huge, tiny and non-finite numbers,
division by zero, Decimal and int inputs, and under a tight work budget."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from insureops.dsl.api import parse_ruleset
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.evaluation.interpreter import compile_reference
from insureops.engine.inputs.jsonio import dumps
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.limits import Limits

SOURCE = """ruleset t.filter "Computed money"
input r: Any
default decision accept

rule product "A product above a constant"
when r.premium * r.factor > 12_000.5
then
    tag "product"
end

rule quotient "A quotient at most a constant"
when r.premium / r.divisor <= 1_000
then
    tag "quotient"
end

rule paid "Payments against half the reserve"
when sum(p.amount for p in r.payments where p.kind != "fee") > r.reserve / 2
then
    tag "paid"
end

rule balance "A difference equal to a constant"
when r.premium - r.reserve == 0.1
then
    tag "balance"
end

rule negative "A negated sum below another"
when -r.premium + 3 * r.factor < r.reserve - 0.001
then
    tag "negative"
end
"""
RULESET = parse_ruleset(SOURCE)
SCHEMAS = {"r": None}
COMPILED = compile_ir(RULESET, input_schemas=SCHEMAS, source=SOURCE)
REFERENCE = compile_reference(RULESET, input_schemas=SCHEMAS, source=SOURCE)
AS_OF = date(2026, 1, 1)


def outcome(ruleset, record: dict, limits: Limits | None = None) -> tuple:
    try:
        result = ruleset.evaluate({"r": record}, as_of=AS_OF, limits=limits)
    except EvaluationError as error:
        return ("error", error.code, error.message)
    return (result.tags, dumps(dict(result.outputs)))


def agree(record: dict, limits: Limits | None = None) -> tuple:
    found = outcome(COMPILED, record, limits)
    assert found == outcome(REFERENCE, record, limits), record
    return found


def test_the_filter_is_generated_when_a_comparison_computes_money():
    assert "FLOAT_BAIL" in COMPILED.generated_source


@pytest.mark.parametrize("record", [
    # exact ties and near ties, where floats alone would misjudge
    {"premium": 0.3, "reserve": 0.2, "factor": 1, "divisor": 1, "payments": []},
    {"premium": 8000.5, "factor": 1.5000625, "divisor": 8.0005, "reserve": 7999.4,
     "payments": [{"amount": 0.1}, {"amount": 0.2}, {"amount": 3999.4}]},
    {"premium": Decimal("12000.5"), "factor": 1, "divisor": Decimal("12.0005"),
     "reserve": Decimal("12000.4"), "payments": [{"amount": Decimal("6000.2")}]},
    {"premium": 10**17 + 1, "factor": 10**17, "divisor": 3, "reserve": 2 * 10**17 + 2,
     "payments": [{"amount": 10**17 + 1}]},
    # nulls, strings, booleans, non-finite and out-of-range numbers
    {"premium": None, "factor": 2, "divisor": 0, "reserve": None, "payments": None},
    {"premium": "12000", "factor": 2, "divisor": 1, "reserve": 1, "payments": [{}]},
    {"premium": True, "factor": 2, "divisor": 1, "reserve": 1,
     "payments": [{"amount": "x"}]},
    {"premium": float("nan"), "factor": 2, "divisor": 1, "reserve": 1, "payments": []},
    {"premium": 1.0, "factor": float("inf"), "divisor": 1, "reserve": 1, "payments": []},
    {"premium": 1e308, "factor": 1e308, "divisor": 1e-308, "reserve": 1e300,
     "payments": [{"amount": 1e308}, {"amount": 1e308}]},
    {"premium": 5e-324, "factor": 1, "divisor": 5e-324, "reserve": 0.0, "payments": []},
    {"premium": Decimal("1E+900"), "factor": Decimal("1E+900"), "divisor": 1,
     "reserve": Decimal("1E-900"), "payments": []},
    # division by zero is null; a fee is not summed; a list that is not one
    {"premium": 1, "factor": 1, "divisor": 0, "reserve": 0,
     "payments": [{"amount": 5, "kind": "fee"}, {"amount": 0.01}]},
    {"premium": 1, "factor": 1, "divisor": 1, "reserve": 1, "payments": "many"},
])
def test_compiled_and_exact_agree_when_values_sit_on_the_edges(record):
    agree(record)


def test_a_near_tie_is_decided_exactly_when_floats_would_round_it():
    # 0.1 + 0.2 > 0.3 in floats; the language's decimals say they are equal
    record = {"premium": 1, "factor": 1, "divisor": 1, "reserve": 0.6,
              "payments": [{"amount": 0.1}, {"amount": 0.2}]}
    assert "paid" not in agree(record)[0]
    assert "balance" in agree({**record, "premium": 0.7})[0]


def test_the_filter_gives_back_its_work_when_it_cannot_decide():
    record = {"premium": 1, "factor": 1, "divisor": 1, "reserve": 0.6,
              "payments": [{"amount": 0.1}, {"amount": 0.2}] * 30}
    for steps in (5, 60, 64, 70, 130, 200):
        agree(record, Limits(max_steps=steps))


MONEY = st.one_of(st.none(), st.integers(-10**20, 10**20),
                  st.floats(allow_nan=True, allow_infinity=True),
                  st.decimals(allow_nan=False, allow_infinity=False, places=3),
                  st.sampled_from([0.1, 0.2, 0.3, 1e-3, 12000.5, 6000.25, 0.0, -0.0]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.fixed_dictionaries({"premium": MONEY, "factor": MONEY, "divisor": MONEY,
                              "reserve": MONEY,
                              "payments": st.lists(st.fixed_dictionaries(
                                  {"amount": MONEY},
                                  optional={"kind": st.sampled_from(["fee", "loss"])}),
                                  max_size=5)}))
def test_compiled_and_exact_agree_when_given_random_money(record):
    agree(record)


OUTPUTS_SOURCE = """ruleset t.outputs "Outputs read by the filter"
input r: Any
default decision accept

table rate "A factor by kind" hit first priority 30
    | r.kind  | => factor                   | => bonus |
    | "a"     | 1.45                        | 2        |
    | "b"     | 100_000_000_000_000_000_000 | 0.5      |
    | "c"     | 0                           | 1        |
    | "d"     | -                           | 1        |
    | "e"     | 0.000_000_000_1             | 1        |
    | -       | 1.00                        | 0.001    |
end

rule text "A factor that is text" priority 25
when r.kind == "t"
then
    set factor = "x"
end

rule override "A factor read from the record" priority 20
when r.own is not null
then
    set factor = r.own
end

rule flat "A flat factor" priority 15
when r.flat == true
then
    set factor = 0.95
end

table extra "Every bonus" hit collect priority 12
    | r.kind | => bonus |
    | "a"    | 3        |
    | -      | 4        |
end

rule above "A premium times its factor above a constant" priority 10
when r.premium * outputs.factor > 12_000.5
then
    tag "above"
end

rule below "A bonus beside the factor" priority 5
when outputs.factor * 3 - r.premium <= 1
then
    tag "below"
end
"""


def test_outputs_read_by_the_filter_agree_with_the_exact_path():
    """The float a write of `outputs.factor` keeps for the filter: a table's constant, one out
    of the filter's range, zero, null, a string, a value read from the record, a later rule's
    constant; a collected list is never read as a number."""
    ruleset = parse_ruleset(OUTPUTS_SOURCE)
    compiled = compile_ir(ruleset, input_schemas=SCHEMAS, source=OUTPUTS_SOURCE)
    reference = compile_reference(ruleset, input_schemas=SCHEMAS, source=OUTPUTS_SOURCE)
    assert "_fo0 = 1.45" in compiled.generated_source
    seen = set()
    for kind in "abcdetz":
        for own in (None, 2, 0.75, "y", Decimal("1.5")):
            for flat in (False, True):
                for premium in (0.5, 8276.2, 8276.21, 12000.5, 1e14, None):
                    record = {"kind": kind, "own": own, "flat": flat, "premium": premium}
                    found = outcome(compiled, record)
                    assert found == outcome(reference, record), record
                    seen.add(found[0])
    assert {("above",), ("below",), ()} <= seen
