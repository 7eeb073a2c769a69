"""Lines asked for that no product accepts or refers, with their declines grouped
(carrier_matching/unwritten.py; `market match` prints them after the carriers)."""

from __future__ import annotations

from insureops.carrier_matching.matching import match
from insureops.carrier_matching.unwritten import asked_lines, render_unwritten, unwritten_lines
from tests.carrier_matching.example_market import AS_OF, example_market

SHOP = {"name": "Buckeye Auto Care", "naics": "811111", "state": "OH",
        "annual_revenue": 1_200_000, "payroll": 400_000, "years_in_business": 12,
        "lines_of_business": ["garage", "WC", "EO"]}


def test_asked_lines_reads_the_spellings_brokers_type_when_the_business_lists_them():
    assert asked_lines(SHOP) == ["GARAG", "WORK", "EO"]
    assert asked_lines(SHOP, ["cgl"]) == ["CGL"]
    assert asked_lines({"requests": [{"line": "crime", "limit": 100000}]}) == ["CRIM"]
    assert asked_lines({}) == []


def test_unwritten_lines_group_the_declines_of_each_line_when_nothing_accepts_or_refers_it():
    market = example_market()
    listed = match(SHOP, market, as_of=AS_OF, limit=30)
    shown = {result.product.line for result in listed.results}
    assert "GARAG" in shown and not {"WORK", "EO"} & shown
    declines = match(SHOP, market, as_of=AS_OF, lines=["WORK", "EO"])
    found = {item.line: item for item in unwritten_lines(["WORK", "EO"], listed, declines)}
    comp = found["WORK"]
    assert comp.line_name == "Workers Compensation" and len(comp.reasons) == 1
    assert comp.reasons[0][0].startswith("Ohio is a monopolistic workers compensation state")
    assert comp.reasons[0][1] == comp.declined == sum(
        result.product.line == "WORK" for result in declines.results)
    # class lists in parentheses and product names are folded, so reasons group
    professional = found["EO"]
    assert sum(count for _, count in professional.reasons) <= professional.declined
    assert all("(" not in reason and "*" not in reason for reason, _ in professional.reasons)
    assert professional.reasons[0][1] > 1
    text = render_unwritten(found.values())
    assert "No product accepts or refers Workers Compensation (WORK): " in text
    assert f"  {comp.declined} x Ohio is a monopolistic" in text


def test_a_line_cut_only_by_the_limit_is_not_named_when_some_product_writes_it():
    market = example_market()
    listed = match(SHOP, market, as_of=AS_OF, lines=["CRIM"], limit=1)  # the best 1: crime
    assert {result.product.line for result in listed.results} == {"CRIM"}
    every = match(SHOP, market, as_of=AS_OF, lines=["GARAG", "EO"])
    assert [item.line for item in unwritten_lines(["GARAG", "EO"], listed, every)] == ["EO"]
