"""Every ruleset in examples/ (the carrier market's appetites included) runs on the one compiled
form, and gives what the reference interpreter gives, plain and explained, on its own cases or
on businesses of many shapes (money with cents, dates as strings, lists, missing fields)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from insureops.dsl.api import check_for_compile
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.evaluation.interpreter import compile_reference
from insureops.engine.inputs.jsonio import dumps
from insureops.engine.ir.errors import EvaluationError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RULESETS = sorted(EXAMPLES.rglob("*.rules"))
AS_OF = date(2026, 6, 1)
BUSINESSES = [
    json.loads((EXAMPLES / "business.json").read_text()),
    {"name": "Harbor Bistro", "naics": "722511", "state": "CA", "annual_revenue": 1850000.75,
     "payroll": 640000.5, "employee_count": 22, "years_in_business": 6,
     "description": "Full-service restaurant with a bar; liquor about 30% of sales.",
     "prior_claims": [{"amount": 12500.4, "date": "2025-11-03", "type": "slip_and_fall"}]},
    {"name": "Northside Plumbing", "naics": "238220", "state": "TX", "annual_revenue": 950000,
     "employee_count": 9, "years_in_business": 2, "requested_limit": 2000000,
     "prior_claims": []},
    {"name": "Ledger Labs", "naics": "541511", "state": "NY", "annual_revenue": 4200000.1,
     "employee_count": 35, "years_in_business": 11, "description": "SaaS for accountants",
     "prior_claims": [{"amount": 48000, "date": "2023-02-01"},
                      {"amount": 150000.99, "date": "2025-12-24"}]},
    {"naics": "484121", "state": "OH"},  # most fields missing: nulls all the way
    {"name": "Roofers", "naics": "238160", "state": "FL", "annual_revenue": "a lot",
     "employee_count": 3.5, "prior_claims": "none"},  # wrong kinds: errors, alike
]


def _cases(path: Path, ruleset) -> list[dict]:
    """The ruleset's own cases file, else businesses for a one-business ruleset."""
    cases = path.with_name(path.stem + "_cases.jsonl")
    if cases.is_file():
        return [json.loads(line)["inputs"] for line in cases.read_text().splitlines()
                if line.strip()]
    names = [decl.name for decl in ruleset.inputs]
    if names == ["business"]:
        return [{"business": business} for business in BUSINESSES]
    return []


def _outcome(compiled, inputs: dict, explain: bool) -> tuple:
    try:
        result = compiled.evaluate(inputs, as_of=AS_OF, explain=explain)
    except EvaluationError as error:
        return ("error", error.code)
    return (result.decision, dumps(result.score), result.fired, result.tags,
            dumps(dict(result.outputs)), result.reasons)


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_example_runs_on_the_compiled_form_as_the_interpreter_reads_it(path):
    source = path.read_text(encoding="utf-8")
    checked = check_for_compile(source, filename=path.name)
    compiled = compile_ir(checked.ruleset, input_schemas=checked.schemas, source=source)
    # the entry every default call takes is generated code, and so is the rest
    assert compiled.evaluate.__code__.co_filename == "<ruleset>"
    assert "def run(inputs, ev):" in compiled.generated_source
    reference = compile_reference(checked.ruleset, input_schemas=checked.schemas,
                                  source=source)
    cases = _cases(path, checked.ruleset)
    assert cases or path.parent == EXAMPLES, f"{path.name}: nothing to run it on"
    for inputs in cases:
        expected = _outcome(reference, inputs, explain=False)
        assert _outcome(compiled, inputs, explain=False) == expected, inputs
        assert _outcome(compiled, inputs, explain=True) == expected, inputs
