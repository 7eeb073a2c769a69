"""A compiled ruleset frozen and thawed (engine.evaluation.frozen, what the market cache keeps)
answers as the compiled one without compiling anything for a plain evaluation, compiles from
the IR only for the traced form, and refuses bytes that are not a frozen ruleset."""

from __future__ import annotations

import os
import pickle
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from insureops.dsl import compile_ruleset
from insureops.engine.evaluation import frozen
from insureops.engine.inputs.slots import Slot

ROOT = Path(__file__).resolve().parents[2]
APPETITE = ROOT / "examples" / "appetite_acme_contractors.rules"
AS_OF = date(2026, 3, 1)
BUSINESSES = [
    {"naics": "238210", "state": "CA", "annual_revenue": Decimal(900000), "employee_count": 6,
     "years_in_business": 8, "prior_claims": []},
    {"naics": "238160", "state": "TX", "annual_revenue": Decimal("12500000.50"),
     "employee_count": 60, "years_in_business": 1,
     "prior_claims": [{"amount": 20000, "type": "property_damage"}, {"amount": None}]},
    {"naics": "722511", "state": "NY", "annual_revenue": Decimal(0), "prior_claims": None},
]


def compiled_appetite():
    return compile_ruleset(APPETITE.read_text(encoding="utf-8"), filename=str(APPETITE))


def refuse():
    raise AssertionError("a plain evaluation compiled the ruleset")


def test_a_thawed_ruleset_answers_as_the_compiled_one_without_compiling_anything():
    compiled = compiled_appetite()
    thawed = frozen.thaw(frozen.freeze(compiled), refuse)
    for business in BUSINESSES:
        expected = compiled.evaluate({"business": business}, as_of=AS_OF)
        assert thawed.evaluate({"business": business}, as_of=AS_OF) == expected
    assert thawed.name == compiled.name and thawed.consts == compiled.consts


def test_a_thawed_ruleset_compiles_from_the_ir_only_for_its_trace_and_its_tests():
    compiled = compiled_appetite()
    calls = []

    def full():
        calls.append(1)
        return compiled_appetite()

    thawed = frozen.thaw(frozen.freeze(compiled), full)
    explained = thawed.evaluate({"business": BUSINESSES[1]}, as_of=AS_OF, explain=True)
    assert explained == compiled.evaluate({"business": BUSINESSES[1]}, as_of=AS_OF,
                                          explain=True)
    assert [o.passed for o in thawed.run_tests()] == [o.passed for o in compiled.run_tests()]
    assert thawed.generated_source == compiled.generated_source
    assert calls == [1]  # once, kept


def test_bytes_that_are_not_a_frozen_ruleset_are_refused_and_never_run(tmp_path: Path):
    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "ran"),))

    for data in (pickle.dumps(Boom()), pickle.dumps((1, "x", {}, None, None)), b"",
                 frozen.freeze(compiled_appetite())[:-40]):
        with pytest.raises(ValueError):
            frozen.thaw(data, refuse)
    assert not (tmp_path / "ran").exists()


def test_a_thawed_ruleset_keeps_its_input_plans_keyed_by_its_own_schema_parts():
    compiled = compiled_appetite()
    compiled.evaluate({"business": BUSINESSES[1]}, as_of=AS_OF)  # the converter learns plans
    thawed = frozen.thaw(frozen.freeze(compiled), refuse)
    converters = {id(value.converter): value.converter
                  for value in thawed._run.__globals__.values() if isinstance(value, Slot)}
    assert converters
    for converter in converters.values():
        parts = frozen._schema_parts(converter.root)
        assert converter._plans and set(converter._plans) <= set(parts)
    for business in BUSINESSES:
        assert thawed.evaluate({"business": business}, as_of=AS_OF) == compiled.evaluate(
            {"business": business}, as_of=AS_OF)
