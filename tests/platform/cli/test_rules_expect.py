"""`insureops rules simulate` checks each case's `expect` (issue 14): mismatches are reported on
stderr and the exit status is 1; met expectations are counted in the summary. An expected error
that occurs is met: `simulate` and `diff` exit 0 on it (issue 33), on every shipped example."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from insureops.engine.ir.result import Result
from insureops.platform.batch.cases import CaseError
from insureops.platform.batch.runs import expectation_mismatches
from tests.platform.cli.test_rules import CASES, SAMPLE, _cases, _invoke, _write

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = sorted(ROOT.glob("examples/*_cases.jsonl"))
MISSING = {"id": "nothing", "inputs": {}}  # SAMPLE's input `business` is absent


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


@pytest.mark.parametrize("cases", SHIPPED, ids=lambda path: path.stem)
def test_shipped_example_simulates_and_diffs_with_exit_0_when_every_expectation_is_met_issue_33(
        cases):
    rules = str(cases).removesuffix("_cases.jsonl") + ".rules"
    simulated = _invoke("simulate", rules, "--cases", str(cases), "--out", "/dev/null")
    assert simulated.exit_code == 0, simulated.stderr
    assert "not met 0" in simulated.stdout
    diffed = _invoke("diff", rules, rules, "--cases", str(cases), "--json")
    assert diffed.exit_code == 0, diffed.stderr


def test_shipped_examples_include_a_case_that_expects_an_error():
    assert any('"expect": {"error"' in path.read_text() for path in SHIPPED)


def test_simulate_and_diff_exit_0_when_a_case_fails_with_the_error_it_expects(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = _cases(tmp_path, [CASES[0], with_expect(MISSING, error="missing_input")])
    simulated = _invoke("simulate", rules, "--cases", cases)
    assert simulated.exit_code == 0, simulated.stderr
    assert "checked 1, met 1, not met 0" in simulated.stderr
    assert _invoke("diff", rules, rules, "--cases", cases).exit_code == 0


def test_simulate_and_diff_exit_1_when_a_case_fails_with_another_error_than_expected(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = _cases(tmp_path, [with_expect(MISSING, error="type_error")])
    simulated = _invoke("simulate", rules, "--cases", cases)
    assert simulated.exit_code == 1
    assert 'error: expected "type_error", got "missing_input"' in simulated.stderr
    assert _invoke("diff", rules, rules, "--cases", cases).exit_code == 1


def test_simulate_and_diff_exit_1_when_a_case_without_expect_fails(tmp_path):
    rules = _write(tmp_path, "s.rules", SAMPLE)
    cases = _cases(tmp_path, [CASES[0], MISSING])
    assert _invoke("simulate", rules, "--cases", cases).exit_code == 1
    assert _invoke("diff", rules, rules, "--cases", cases).exit_code == 1


def test_diff_exits_1_when_the_new_version_fails_where_the_old_did_not(tmp_path):
    old = _write(tmp_path, "old.rules", SAMPLE)
    new = _write(tmp_path, "new.rules", SAMPLE.replace("input business: Business\n",
                                                      "input business: Business\ninput policy: Policy\n"))
    cases = _cases(tmp_path, [CASES[3]])
    assert _invoke("diff", old, new, "--cases", cases).exit_code == 1
