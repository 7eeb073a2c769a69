"""Table and reachability analysis: what is reported, and what must not be (no false alarms)."""

from __future__ import annotations

import pytest

from insureops.dsl.api import check_source

HEADER = "ruleset a\ninput business: Business\n"


def codes(body: str) -> list[str]:
    return [d.code for d in check_source(HEADER + body).diagnostics]


def table(hit: str, *rows: str, inputs: str = "business.state | business.employee_count") -> str:
    lines = [f"    | {inputs} | => x |", *(f"    | {row} |" for row in rows)]
    return f"table t hit {hit}\n" + "\n".join(lines) + "\nend\n"


STOP_RULE = 'rule big priority 10 when business.annual_revenue > 100 then stop end\n'


@pytest.mark.parametrize("later", [
    'rule s when business.annual_revenue > 200 then refer "x" end\n',
    'rule s when business.annual_revenue > 100 and business.state == "CA" then refer "x" end\n',
    'rule s when business.annual_revenue between 150 and 300 then refer "x" end\n',
])
def test_shadowed_rule_is_reported_when_its_condition_implies_the_stop_rule(later):
    assert codes(STOP_RULE + later) == ["W201"]


@pytest.mark.parametrize("later", [
    'rule s when business.annual_revenue > 50 then refer "x" end\n',
    'rule s priority 20 when business.annual_revenue > 200 then refer "x" end\n',
    'rule s when business.annual_revenue >= 100 then refer "x" end\n',
    'rule s when business.state == "CA" then refer "x" end\n',
    'rule s when business.annual_revenue is null then refer "x" end\n',
])
def test_rule_is_not_shadowed_when_it_can_fire_without_the_stop_rule(later):
    assert codes(STOP_RULE + later) == []


def test_rule_is_not_shadowed_when_the_stop_rule_has_a_narrower_window():
    body = ('rule big priority 10 effective 2025-01-01 to 2025-12-31 when business.state == "CA" '
            'then stop end\nrule s when business.state == "CA" then refer "x" end\n')
    assert codes(body) == []


def test_rule_is_not_shadowed_when_the_stop_rule_reads_outputs():
    body = ('rule setter priority 20 when true then set flag = 1 end\n'
            'rule big priority 10 when outputs.flag == 1 then stop end\n'
            'rule s when outputs.flag == 1 then refer "x" end\n')
    assert codes(body) == []


def test_disabled_stop_rule_shadows_nothing_when_disabled():
    body = ('rule big priority 10 enabled false when business.state == "CA" then stop end\n'
            'rule s when business.state == "CA" then refer "x" end\n')
    assert codes(body) == []


@pytest.mark.parametrize("condition", [
    "business.employee_count > 10 and business.employee_count < 5",
    'business.state == "A" and business.state == "B"',
    'business.state in {"A", "B"} and business.state not in {"A", "B"}',
    "business.employee_count is null and business.employee_count > 1",
    "business.employee_count between 1 and 3 and business.employee_count >= 4",
    "false",
])
def test_unreachable_rule_is_reported_when_the_condition_contradicts_itself(condition):
    assert codes(f"rule r when {condition} then stop end\n") == ["W200"]


@pytest.mark.parametrize("condition", [
    "business.employee_count > 5 and business.employee_count < 10",
    'business.state != "A" and business.state != "B"',
    "business.employee_count is not null and business.employee_count > 1",
    "business.employee_count > 10 or business.employee_count < 5",
])
def test_rule_is_reachable_when_some_input_satisfies_it(condition):
    assert codes(f"rule r when {condition} then stop end\n") == []


def test_unique_table_is_clean_when_rows_are_disjoint():
    body = table("unique", '"CA" | < 10 | 1', '"CA" | >= 10 | 2', 'not in {"CA"} | - | 3')
    assert codes(body) == []


def test_unique_overlap_is_reported_when_a_dash_meets_any_cell():
    assert codes(table("unique", '"CA" | < 10 | 1', '- | - | 2')) == ["E301"]


def test_overlap_is_not_an_error_when_the_hit_policy_is_first_or_collect():
    assert codes(table("first", '"CA" | < 10 | 1', '- | - | 2')) == []
    assert codes(table("collect", '"CA" | < 10 | 1', '- | - | 2')) == []


def test_overlap_is_not_claimed_when_cells_are_undecidable():
    body = table("unique", 'starts_with "C" | - | 1', 'starts_with "T" | - | 2',
                 inputs="business.state")
    body = body.replace("| - | 1", "| 1").replace("| - | 2", "| 2")
    assert codes(body) == []


def test_gap_is_reported_with_the_uncovered_range_when_rows_leave_a_hole():
    report = check_source(HEADER + table("first", '- | < 10 | 1', '- | > 20 | 2'))
    assert [d.message for d in report.warnings] == [
        ("no row of table `t` covers business.employee_count >= 10 and "
        "business.employee_count <= 20")]


def test_gap_is_not_reported_when_integer_rows_meet():
    assert codes(table("first", '- | between 0 and 9 | 1', '- | >= 10 | 2')) == []


def test_gap_is_not_reported_when_a_catch_all_row_exists():
    assert codes(table("first", '"CA" | < 10 | 1', '- | - | 2')) == []


def test_gap_is_not_reported_when_booleans_are_both_covered():
    both = ("ruleset a\ninput x: Any\ntable t hit first\n    | x.flag == true | => y |\n"
            "    | true | 1 |\n    | false | 2 |\nend\n")
    assert check_source(both).diagnostics == ()
    one = both.replace("    | false | 2 |\n", "")
    assert [d.message for d in check_source(one).diagnostics] == [
        "no row of table `t` covers (x.flag == true) == false"]
