"""`insureops rules simulate` checks each case's `expect` (issue 14): mismatches are reported on
stderr and the exit status is 1; met expectations are counted in the summary."""

from __future__ import annotations

from decimal import Decimal

from insureops.engine.ir.result import Result
from insureops.platform.batch.cases import CaseError
from insureops.platform.batch.runs import expectation_mismatches
from tests.platform.cli.test_rules import CASES, SAMPLE, _cases, _invoke, _write


def with_expect(case: dict, **expect) -> dict:
    return {**case, "expect": expect}


def test_simulate_exits_0_and_counts_them_when_every_expectation_is_met(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = [with_expect(CASES[0], decision="accept", score=10.0),
             with_expect(CASES[1], decision="refer", tags=["big"]), CASES[2]]
    result = _invoke("simulate", rules, "--cases", _cases(tmp_path, cases))
    assert result.exit_code == 0, result.stderr
    assert "checked 2, met 2, not met 0" in result.stderr


def test_simulate_reports_the_mismatch_and_exits_1_when_an_expectation_is_not_met(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = [with_expect(CASES[0], decision="accept"),
             with_expect(CASES[1], decision="accept", score=5)]
    out = tmp_path / "out.jsonl"
    result = _invoke("simulate", rules, "--cases", _cases(tmp_path, cases), "--out", str(out))
    assert result.exit_code == 1
    assert ('expectation not met: case "tx-big": decision: expected "accept", got "refer"'
            in result.stderr)
    assert "checked 2, met 1, not met 1" in result.stdout


def test_an_expected_error_code_is_met_when_the_case_fails_with_it():
    failure = CaseError("missing_input", "missing input business", 3)
    assert expectation_mismatches({"error": "missing_input"}, failure) == []
    assert expectation_mismatches({"decision": "accept"}, failure) == [
        {"field": "decision", "expected": "accept",
         "actual": "error missing_input: missing input business"}]


def test_outputs_and_numbers_compare_by_value_when_checked():
    result = Result("x", "refer", Decimal("10.00"), {"factor": Decimal("1.50"), "tier": "B"},
                    [], [], ["x"])
    assert expectation_mismatches({"score": 10, "outputs": {"factor": 1.5}}, result) == []
    assert expectation_mismatches({"outputs": {"tier": "C"}, "colour": 1}, result) == [
        {"field": "outputs.tier", "expected": "C", "actual": "B"},
        {"field": "colour", "expected": 1, "actual": "not an expectation: use decision, "
         "score, reasons, tags, fired, outputs or error"}]
