"""Explanations: the trace of every rule and table, with near-miss messages and spans."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from engine_ir_builders import (
    accept,
    and_,
    between,
    binary,
    build,
    comp,
    is_null,
    name,
    not_,
    or_,
    refer,
    rule,
    ruleset,
    score,
    set_,
    stop,
    table,
)

from insureops.engine import ir

CORE = rule("core_trades", and_(
    binary("starts_with", name("business.naics"), "2382"),
    binary("in", name("business.state"), name("CORE_STATES")),
    between(name("business.annual_revenue"), 100_000, name("MAX_REVENUE"))),
    score("+=", 40), accept("Trade contractor in a core state"), priority=100)
YOUNG = rule("young_business", binary("<", name("business.years_in_business"), 3),
             refer("Less than three years in business"),
             effective=(date(2025, 1, 1), date(2026, 12, 31)))
TERRITORY = table("territory_factor", "first",
                  [name("business.state"), name("business.employee_count")], ["factor"],
                  [(["CA", ("<", 10)], [Decimal("1.20")]),
                   ([("in", set_("TX", "AZ")), "-"], [Decimal("1.10")]),
                   (["-", ("between", 1, 5)], [Decimal("9")])])
APPETITE = ruleset(CORE, YOUNG, TERRITORY, rule("off", True, accept(), enabled=False),
                   consts={"CORE_STATES": set_("CA", "TX", "AZ"), "MAX_REVENUE": 5_000_000})
NEVADA = {"naics": "541110", "state": "NV", "annual_revenue": 5_200_000,
          "years_in_business": 4, "employee_count": 12}


def explain(rs=APPETITE, business=NEVADA, as_of=date(2025, 6, 1), **options):
    return build(rs, **options).evaluate({"business": business}, as_of=as_of, explain=True)


def entry(result, name_):
    return next(e for e in result.trace if e["name"] == name_)


def test_trace_is_none_when_explain_is_false():
    assert build(APPETITE).evaluate({"business": NEVADA}, as_of=date(2025, 6, 1)).trace is None


def test_trace_lists_every_rule_and_table_in_evaluation_order_when_explained():
    result = explain()
    assert [(e["name"], e["kind"]) for e in result.trace] == [
        ("core_trades", "rule"), ("young_business", "rule"), ("territory_factor", "table"),
        ("off", "rule")]
    assert entry(result, "off")["skipped"] == "disabled"


def test_near_miss_messages_say_by_how_much_when_a_rule_does_not_fire():
    result = explain()
    assert entry(result, "core_trades")["failed"] == [
        'business.naics "541110" does not start with "2382"',
        'business.state "NV" is not in {"AZ", "CA", "TX"}',
        "business.annual_revenue 5,200,000 is above the upper bound 5,000,000",
    ]
    assert entry(result, "young_business")["failed"] == [
        "business.years_in_business 4 is not < 3 (by 1)"]
    assert entry(result, "core_trades")["matched"] is False


def test_condition_values_are_recorded_when_explained():
    conditions = entry(explain(), "young_business")["condition"]
    assert [(c["expr"], c["kind"], c["value"]) for c in conditions] == [
        ("business.years_in_business", "Member", Decimal(4)),
        ("business.years_in_business < 3", "Binary", False)]


def test_table_rows_say_why_they_failed_when_explained():
    table_entry = entry(explain(), "territory_factor")
    assert table_entry["matched"] is False
    assert [row["why"] for row in table_entry["rows"]] == [
        'business.state "NV" is not equal to "CA"',
        'business.state "NV" is not in {"AZ", "TX"}',
        "business.employee_count 12 is above the upper bound 5",
    ]
    assert table_entry["inputs"] == [{"expr": "business.state", "value": "NV"},
                                     {"expr": "business.employee_count", "value": 12}]


def test_a_matching_table_reports_its_row_and_outputs_when_explained():
    table_entry = entry(explain(business={**NEVADA, "state": "TX"}), "territory_factor")
    assert table_entry["matched"] is True
    assert [row["matched"] for row in table_entry["rows"]] == [False, True]
    assert table_entry["outputs"] == {"factor": Decimal("1.10")}


def test_skipped_reasons_name_the_window_and_stop_when_explained():
    rs = ruleset(rule("halt", True, refer(), stop(), priority=200), YOUNG, CORE,
                 consts={"CORE_STATES": set_("CA"), "MAX_REVENUE": 1})
    result = explain(rs, as_of=date(2024, 6, 1))
    assert [(e["name"], e["skipped"]) for e in result.trace] == [
        ("halt", None), ("core_trades", "after_stop"), ("young_business", "after_stop")]
    result = explain(ruleset(YOUNG), as_of=date(2024, 6, 1))
    assert result.trace[0]["skipped"] == "outside_effective_window"


def test_trace_entries_carry_spans_when_the_ir_has_them():
    span = ir.Span(7, 6, 7, 20, 100, 114)
    condition = ir.Binary("<", name("business.years_in_business"), ir.Literal(Decimal(3)),
                          span=ir.Span(8, 6, 8, 37, 120, 151))
    rs = ruleset(ir.Rule("young", condition, (), name_span=span))
    result = explain(rs)
    assert result.trace[0]["span"] == {"line": 7, "column": 6, "end_line": 7, "end_column": 20}
    assert result.trace[0]["condition"][-1]["span"]["line"] == 8


def test_expression_text_comes_from_the_source_when_given():
    source = "when business.years_in_business   <   3"
    condition = ir.Binary("<", ir.Member(ir.Name("business", span=ir.Span(1, 6, 1, 14, 5, 13)),
                                         "years_in_business",
                                         span=ir.Span(1, 6, 1, 32, 5, 31)),
                          ir.Literal(Decimal(3)), span=ir.Span(1, 6, 1, 40, 5, 39))
    result = explain(ruleset(rule("young", condition)), source=source)
    assert result.trace[0]["failed"] == [
        "business.years_in_business 4 is not < 3 (by 1)"]
    assert result.trace[0]["condition"][-1]["expr"] == "business.years_in_business   <   3"


def test_other_failures_are_explained_when_or_not_and_nulls_fail():
    rs = ruleset(
        rule("either", or_(binary("==", name("business.state"), "CA"),
                           binary(">", name("business.employee_count"), 50))),
        rule("negated", not_(binary("==", name("business.state"), "NV"))),
        rule("nulls", binary(">", name("business.missing"), 1)),
        rule("present", is_null(name("business.state"))),
        rule("claims", binary(">", comp("count", "c", name("business.claims")), 2)))
    result = explain(rs, business={**NEVADA, "claims": []})
    assert entry(result, "either")["failed"] == [
        'business.state "NV" is not equal to "CA"',
        "business.employee_count 12 is not > 50 (by 38)"]
    assert entry(result, "negated")["failed"] == ['business.state == "NV" is true']
    assert entry(result, "nulls")["failed"] == ["business.missing is null"]
    assert entry(result, "present")["failed"] == ['business.state is "NV"']
    assert entry(result, "claims")["failed"] == [
        "count(c in business.claims) 0 is not > 2 (by 2)"]


def test_explained_and_plain_evaluations_agree_when_run_on_the_same_input():
    plain = build(APPETITE).evaluate({"business": NEVADA}, as_of=date(2025, 6, 1))
    explained = explain()
    assert explained.to_dict() | {"trace": None} == plain.to_dict() | {"trace": None}


def test_trace_snapshot_when_explaining_the_appetite(snapshot):
    assert explain().trace == snapshot
