"""Reading a recommendations ruleset's result: one entry per line, reasons kept in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from insureops.carrier_matching.recommendations import (
    RecommendationsError,
    read_recommendations,
    recommend,
)
from insureops.dsl import compile_ruleset

RULESET = Path(__file__).resolve().parents[2] / "examples" / "coverage_recommendations.rules"


@pytest.fixture(scope="module")
def ruleset():
    return compile_ruleset(RULESET.read_text(), filename="examples/coverage_recommendations.rules")


def test_each_line_appears_once_with_its_reasons_when_rows_repeat_it():
    outputs = {"line": ["CGL", "WORK", "CGL", "CGL"], "why": ["guests", "staff", "liquor", "guests"]}
    recommended = read_recommendations(outputs)
    assert [(r.line, r.reasons) for r in recommended] == [("CGL", ("guests", "liquor")),
                                                           ("WORK", ("staff",))]
    assert recommended[0].name == "Commercial General Liability"


def test_nothing_is_recommended_when_no_row_matched():
    assert read_recommendations({"line": [], "why": []}) == []
    assert read_recommendations({}) == []


@pytest.mark.parametrize("outputs", [
    {"line": ["CGL"], "why": []},
    {"line": "CGL", "why": "x"},
    {"line": ["LIQUOR"], "why": ["not a line code"]},
    {"line": ["CRIME"], "why": ["the old spelling of CRIM"]},
])
def test_result_is_refused_when_it_is_not_a_recommendations_result(outputs):
    with pytest.raises(RecommendationsError):
        read_recommendations(outputs)


def test_restaurant_gets_package_comp_and_liquor_liability_when_the_shipped_rules_run(ruleset):
    recommended = recommend(ruleset, {"naics": "722511", "employee_count": 12,
                                      "description": "Trattoria with wine list and cocktails"})
    lines = {r.line: r.reasons for r in recommended}
    assert list(lines) == ["BOP", "WORK", "LIQUR"]
    assert len(lines["LIQUR"]) == 1 and "liquor liability" in lines["LIQUR"][0]
    assert len(lines["WORK"]) == 2


def test_software_firm_gets_errors_and_omissions_and_cyber_when_the_shipped_rules_run(ruleset):
    assert [r.line for r in recommend(ruleset, {"naics": "513210"})] == ["EO", "CYBER"]
