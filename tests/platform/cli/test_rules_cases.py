"""Reading and evaluating cases files (platform/cli/rules_cases.py)."""

from __future__ import annotations

import io
from datetime import date
from decimal import Decimal

import pytest

from insureops.dsl.api import compile_ruleset
from insureops.engine import jsonio
from insureops.platform.cli.rules_cases import (
    PROGRESS_EVERY,
    CaseError,
    CaseEvaluator,
    CaseReader,
    result_line,
)

RULESET = """\
ruleset cases.sample
input business: Business
input extra: Any
rule big
when business.annual_revenue > 1000 and date(extra.since) > date("2020-01-01")
then
    score += 5
    accept "big"
end
"""


def _read(text: str, **options) -> list:
    return list(CaseReader(io.BytesIO(text.encode()), default_as_of=date(2026, 1, 1), **options))


@pytest.fixture(scope="module")
def evaluator() -> CaseEvaluator:
    return CaseEvaluator(compile_ruleset(RULESET, filename="sample.rules"), filename="sample.rules")


def test_reader_parses_numbers_as_decimals_and_skips_blank_lines():
    (case,) = _read('\n{"id": 7, "inputs": {"business": {"annual_revenue": 1.20}}}\n\n')
    assert case.line == 2
    assert case.id == 7
    assert case.inputs == {"business": {"annual_revenue": Decimal("1.20")}}
    assert case.as_of == date(2026, 1, 1)
    assert case.error is None


def test_reader_uses_the_case_as_of_when_given():
    (case,) = _read('{"id": "a", "as_of": "2025-02-28", "inputs": {}}')
    assert case.as_of == date(2025, 2, 28)


@pytest.mark.parametrize(("line", "code"), [
    ("{not json", "invalid_json"),
    ('"just a string"', "invalid_case"),
    ('{"id": 1}', "invalid_case"),
    ('{"id": 1, "inputs": []}', "invalid_case"),
    ('{"id": 1, "as_of": "01/02/2025", "inputs": {}}', "invalid_as_of"),
    ('{"id": 1, "as_of": 20250102, "inputs": {}}', "invalid_as_of"),
    (b'{"id": 1, "inputs": {"x": "\xff"}}'.decode("latin-1"), "invalid_json"),
])
def test_reader_reports_an_error_when_the_line_is_not_a_case(line: str, code: str):
    reader = CaseReader(io.BytesIO(line.encode("latin-1")), default_as_of=None)
    (case,) = list(reader)
    assert case.error is not None
    assert (case.error.code, case.error.line) == (code, 1)
    assert case.inputs is None


def test_reader_reports_progress_in_bytes_read():
    text = '{"id": 1, "inputs": {}}\n' * (PROGRESS_EVERY + 5)
    seen: list[int] = []
    assert len(_read(text, on_progress=seen.append)) == PROGRESS_EVERY + 5
    assert seen == [len(text) // (PROGRESS_EVERY + 5) * PROGRESS_EVERY, len(text)]


def test_evaluator_returns_the_engine_result_when_inputs_are_complete(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {"annual_revenue": 5000}, '
                    '"extra": {"since": "2021-05-01"}}}')
    result = evaluator.evaluate(case)
    assert (result.decision, result.score, result.fired) == ("accept", 5, ["big"])


def test_evaluator_reports_missing_input_when_an_input_is_absent(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {}}}')
    error = evaluator.evaluate(case)
    assert isinstance(error, CaseError)
    assert (error.code, error.message) == ("missing_input", "missing input extra")


def test_evaluator_reports_the_engine_error_with_its_source_when_evaluation_fails(evaluator):
    (case,) = _read('{"id": 1, "inputs": {"business": {"annual_revenue": 5000}, '
                    '"extra": {"since": "yesterday"}}}')
    error = evaluator.evaluate(case)
    assert isinstance(error, CaseError)
    assert error.code != "internal_error"
    assert "yesterday" in error.message
    assert error.source is not None and error.source.startswith("sample.rules:5:")


def test_result_line_is_one_json_object_per_line(evaluator):
    (good, bad) = _read('{"id": "g", "inputs": {"business": {}, "extra": {}}}\n{oops\n')
    first = jsonio.loads(result_line(good, evaluator.evaluate(good)))
    second = result_line(bad, evaluator.evaluate(bad))
    assert first["id"] == "g" and first["result"]["ruleset"] == "cases.sample"
    assert second.endswith("\n") and second.count("\n") == 1
    assert jsonio.loads(second)["error"]["code"] == "invalid_json"
    assert jsonio.loads(second)["error"]["line"] == 2
