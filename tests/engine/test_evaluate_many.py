"""`CompiledRuleset.evaluate_many` (issue 12's batch entry point) gives, item by item, what
`evaluate` gives on the same input: typed and untyped, errors as values, per-item as-of dates,
lazily."""

from __future__ import annotations

from datetime import date

import pytest
from engine_paths import outcome as path_outcome
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_differential import APPETITE, RECORDS, WARM

from insureops.dsl import BatchItem, EngineError, Limits, Result, compile_ruleset
from insureops.dsl.api import parse_ruleset
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.inputs.jsonio import dumps
from insureops.schema.registry import default_registry

AS_OF = date(2025, 6, 15)


def _compiled(typed: bool):
    rs = parse_ruleset(APPETITE.read_text(encoding="utf-8"))
    schema = default_registry().get("Business") if typed else None
    return compile_ir(rs, input_schemas={"business": schema})


def _value(outcome) -> tuple:
    """A batch item's outcome in the form `engine_paths.outcome` gives a single call's."""
    if isinstance(outcome, EngineError):
        return ("error", outcome.code)
    return ("value", dumps(dict(outcome.outputs)), outcome.decision, dumps(outcome.score),
            tuple(outcome.fired), tuple(outcome.tags))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORDS, min_size=1, max_size=40), st.booleans())
def test_evaluate_many_agrees_with_evaluate_when_given_many_typed_and_untyped_inputs(
        records, typed):
    single, batch = _compiled(typed), _compiled(typed)
    expected = [path_outcome(single, {"business": r}, as_of=AS_OF) for r in records]
    found = [_value(o) for o in batch.evaluate_many(({"business": r} for r in records),
                                                    as_of=AS_OF)]
    assert found == expected


@pytest.mark.parametrize("typed", [True, False])
def test_evaluate_many_agrees_with_evaluate_when_run_over_many_records(typed):
    records = [{**WARM, "employee_count": n % 40, "annual_revenue": 50_000 * n,
                "prior_claims": [{"amount": 20_000, "date": "2025-01-01"}] * (n % 4)}
               for n in range(200)]
    records[100] = {**WARM, "employee_count": 2.5}  # an error value amid the batch
    single, batch = _compiled(typed), _compiled(typed)
    expected = [path_outcome(single, {"business": r}, as_of=AS_OF) for r in records]
    found = [_value(o) for o in batch.evaluate_many([{"business": r} for r in records],
                                                    as_of=AS_OF)]
    assert found == expected
    assert (("error", "invalid_input") in found) == typed  # 2.5 breaks the integer schema


def test_evaluate_many_yields_errors_as_values_when_an_item_fails():
    compiled = compile_ruleset(APPETITE.read_text(encoding="utf-8"))
    items = [{"business": WARM}, {}, {"business": WARM, "extra": 1}, {"business": WARM}]
    outcomes = list(compiled.evaluate_many(items, as_of=AS_OF))
    assert [type(o) is Result for o in outcomes] == [True, False, False, True]
    assert [o.code for o in outcomes[1:3]] == ["missing_input", "unknown_input"]


def test_evaluate_many_uses_each_items_as_of_when_given_batch_items():
    compiled = compile_ruleset(APPETITE.read_text(encoding="utf-8"))
    young = {**WARM, "years_in_business": 1}
    items = [BatchItem({"business": young}),                         # the batch's: 2026
             BatchItem({"business": young}, as_of=date(2027, 2, 1)),  # after the window
             {"business": young}]
    decisions = [o.decision for o in compiled.evaluate_many(items, as_of=date(2026, 3, 1))]
    assert decisions == ["refer", "accept", "refer"]
    dated = compiled.evaluate_many([BatchItem({"business": WARM}, AS_OF)])
    assert next(dated) == compiled.evaluate({"business": WARM}, as_of=AS_OF)


def test_evaluate_many_refuses_over_limit_input_when_the_batch_has_limits():
    compiled = compile_ruleset(APPETITE.read_text(encoding="utf-8"))
    big = {**WARM, "state": list(range(50))}  # read whole (interpolated): counted
    outcomes = list(compiled.evaluate_many([{"business": WARM}, {"business": big}],
                                           as_of=AS_OF, limits=Limits(max_input_nodes=20)))
    assert type(outcomes[0]) is Result
    assert outcomes[1].code == "limit_input_size"


def test_evaluate_many_reads_items_lazily_when_given_a_generator():
    compiled = compile_ruleset(APPETITE.read_text(encoding="utf-8"))
    read = []

    def items():
        for n in range(3):
            read.append(n)
            yield {"business": WARM}
    outcomes = compiled.evaluate_many(items(), as_of=AS_OF)
    assert read == []
    next(outcomes)
    assert read == [0]


def test_evaluate_many_gives_the_trace_when_explained():
    compiled = compile_ruleset(APPETITE.read_text(encoding="utf-8"))
    traced = next(compiled.evaluate_many([{"business": WARM}], as_of=AS_OF, explain=True))
    assert traced == compiled.evaluate({"business": WARM}, as_of=AS_OF, explain=True)
    assert traced.trace
