"""Every examples/*.rules: checks clean, its own `test` blocks pass, and every line of its
NAME_cases.jsonl gives the decision and score the line's `expect` names."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest

from insureops.dsl.api import check_source, compile_ruleset
from insureops.platform.batch.cases import CaseError, CaseEvaluator, CaseReader

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.rules"))
TEST_BLOCK_PREFIX = "test "


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@cache
def _compiled(path: Path):
    return compile_ruleset(path.read_text(encoding="utf-8"), filename=_relative(path))


def _cases_file(path: Path) -> Path:
    return path.with_name(f"{path.stem}_cases.jsonl")


def _test_blocks() -> list:
    params = []
    for path in EXAMPLES:
        lines = path.read_text(encoding="utf-8").splitlines()
        count = sum(1 for line in lines if line.startswith(TEST_BLOCK_PREFIX))
        params += [pytest.param(path, index, id=f"{path.stem}#{index}") for index in range(count)]
    return params


def _case_lines() -> list:
    params = []
    for path in EXAMPLES:
        cases = _cases_file(path)
        for number, line in enumerate(cases.read_text(encoding="utf-8").splitlines(), start=1):
            case_id = json.loads(line).get("id", number)
            params.append(pytest.param(path, number, line, id=f"{cases.stem}:{case_id}"))
    return params


def test_there_are_at_least_three_examples_each_with_tests_and_cases():
    assert len(EXAMPLES) >= 3
    for path in EXAMPLES:
        assert _cases_file(path).is_file(), f"{path.name} has no cases file"
        assert len(_compiled(path).ir.tests) >= 3, f"{path.name} has fewer than three tests"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_checks_without_errors_or_warnings(path: Path):
    report = check_source(path.read_text(encoding="utf-8"), filename=_relative(path))
    assert [d.message for d in report.diagnostics] == []


@pytest.mark.parametrize(("path", "index"), _test_blocks())
def test_example_test_block_passes(path: Path, index: int):
    compiled = _compiled(path)
    assert len(compiled.ir.tests) > index, "a line starting with `test ` is not a test block"
    outcome = compiled.run_tests()[index]
    assert outcome.passed, f"{outcome.description}: {outcome.message}"


@pytest.mark.parametrize(("path", "number", "line"), _case_lines())
def test_example_case_gives_expected_result(path: Path, number: int, line: str):
    expect = json.loads(line)["expect"]
    compiled = _compiled(path)
    reader = CaseReader(io.BytesIO(line.encode()), default_as_of=None)
    (case,) = list(reader)
    outcome = CaseEvaluator(compiled, filename=_relative(path)).evaluate(case)
    if "error" in expect:
        assert isinstance(outcome, CaseError)
        assert outcome.code == expect["error"]
        return
    assert not isinstance(outcome, CaseError), outcome
    assert outcome.decision == expect["decision"]
    assert outcome.score == Decimal(str(expect["score"]))
