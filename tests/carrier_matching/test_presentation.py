"""Results a broker reads (issue 32): grouped by carrier, the deciding reason first, money as
money, strength and access shown, accepts saying why the risk fits, the best N never padded
with declines."""

from __future__ import annotations

import re

import pytest

from insureops.carrier_matching.matching import match
from insureops.carrier_matching.presentation import present, render
from tests.carrier_matching.example_market import AS_OF, example_market

BUSINESSES = {
    "electrician": {"name": "Bright Spark Electric", "naics": "238210", "state": "AZ",
                    "description": "Residential and light commercial electrical service.",
                    "annual_revenue": 1_750_000.0, "payroll": 620_000, "employee_count": 8,
                    "years_in_business": 15, "requested_limit": 1_000_000.0,
                    "prior_claims": [{"amount": 8200, "date": "2024-05-02",
                                      "type": "property_damage"}]},
    "restaurant": {"name": "Magnolia Kitchen", "naics": "722511", "state": "GA",
                   "description": "Full-service family restaurant with a small bar, no live music.",
                   "annual_revenue": 1_200_000, "employee_count": 22, "years_in_business": 8,
                   "operations": {"liquor_sales_percent": 18, "open_past_midnight": False},
                   "prior_claims": []},
    "saas": {"name": "Northwind Apps", "naics": "513210", "state": "NY",
             "description": "Scheduling software for clinics, sold as a subscription.",
             "annual_revenue": 3_000_000, "employee_count": 25, "years_in_business": 6,
             "cyber": {"records": 40_000, "mfa": True, "backups": True}, "prior_claims": [],
             "requests": [{"line": "EO", "limit": 2_000_000}, {"line": "CYBER", "limit": 1_000_000}]},
}


@pytest.mark.parametrize("name", sorted(BUSINESSES))
def test_render_reads_as_a_broker_expects_when_a_known_business_is_matched(name, snapshot):
    business = BUSINESSES[name]
    report = match(business, example_market(), as_of=AS_OF, limit=12)
    assert render(report, example_market(), business["state"]) == snapshot


def test_results_group_by_carrier_with_access_and_the_state_underwriter_when_presented():
    report = match(BUSINESSES["restaurant"], example_market(), as_of=AS_OF)
    answers = present(report, example_market(), "GA")
    assert len({a.id for a in answers}) == len(answers)
    harvest = next(a for a in answers if a.id == "harvest-table")
    assert harvest.decision == "accept" and "MGA" in harvest.access
    assert harvest.underwriter and "@harvesttable.example" in harvest.underwriter
    assert all(p.strength in {"preferred", "standard", "limited"} for p in harvest.products)
    ironbark = next(a for a in answers if a.id == "ironbark")
    assert "wholesaler" in ironbark.access and "surplus lines" in ironbark.kind


def test_a_decline_leads_with_the_reason_that_declined_when_other_reasons_fired_first():
    business = dict(BUSINESSES["electrician"], years_in_business=1, requested_limit=5_000_000)
    report = match(business, example_market(), as_of=AS_OF, lines=["CGL"])
    granite = next(r for r in report.results if r.product.id == "granite-trades/trades-gl")
    assert granite.decision == "decline"
    assert granite.reasons[0].startswith(("A commercial general liability limit of $5,000,000",
                                          "1 years in business is below"))


def test_money_reads_as_money_when_reasons_name_amounts():
    business = dict(BUSINESSES["electrician"], annual_revenue=9_500_000.0)
    report = match(business, example_market(), as_of=AS_OF)
    reasons = [reason for result in report.results for reason in result.reasons]
    assert any("$9,500,000" in reason for reason in reasons)
    assert not any(re.search(r"\d{4,}\.0\b|\$\d{4,}(?![\d,])", reason) for reason in reasons)


def test_accepts_say_why_the_risk_fits_when_it_sits_in_the_program():
    report = match(BUSINESSES["electrician"], example_market(), as_of=AS_OF, limit=1)
    (top,) = report.results
    assert top.decision == "accept" and top.reasons[0].startswith("Target class: ")
    assert any("sweet spot" in reason for reason in top.reasons[1:])


def test_the_best_n_are_never_padded_with_declines_when_few_products_would_write_it():
    foundry = {"naics": "331511", "state": "NV", "description": "Iron foundry.",
               "annual_revenue": 40_000_000, "employee_count": 300}
    report = match(foundry, example_market(), as_of=AS_OF, limit=5, lines=["CGL", "PROPC"])
    assert all(result.decision != "decline" for result in report.results)
    assert len(report.results) < 5
