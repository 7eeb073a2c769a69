"""Matching known businesses against the example market: ranking, reasons, lines, limits and the
candidate index seam (issue 13: "ranked accept before refer before decline, then by score")."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from types import SimpleNamespace

import pytest

from insureops.carrier_matching.matching import DECISION_RANK, candidate_products, match
from insureops.engine.ir.errors import EvaluationError
from tests.carrier_matching.example_market import AS_OF, example_market

ELECTRICIAN = {
    "name": "Bright Spark Electric",
    "description": "Residential and light commercial electrical service and panel upgrades.",
    "naics": "238210", "state": "AZ", "annual_revenue": 1750000, "employee_count": 8,
    "years_in_business": 15, "requested_limit": 1000000, "prior_claims": [],
}
RESTAURANT = {
    "name": "Magnolia Kitchen", "description": "Full-service family restaurant with a small bar.",
    "naics": "722511", "state": "GA", "annual_revenue": 1200000, "payroll": 450000,
    "employee_count": 22, "years_in_business": 8, "requested_limit": 1000000, "prior_claims": [],
}
ROOFER = {
    "name": "Top Notch Roofing", "description": "Residential re-roofing and gutter work.",
    "naics": "238160", "state": "CO", "annual_revenue": 900000, "employee_count": 6,
    "years_in_business": 12, "requested_limit": 1000000,
    "prior_claims": [{"amount": 42000, "date": "2025-06-01", "type": "bodily_injury"}],
}
SOFTWARE = {
    "name": "Northwind Apps", "description": "We build custom software and SaaS for clinics.",
    "naics": "541511", "state": "NY", "annual_revenue": 3000000, "employee_count": 25,
    "years_in_business": 6, "requested_limit": 2000000, "prior_claims": [],
}
KNOWN = {"electrician": ELECTRICIAN, "restaurant": RESTAURANT, "roofer": ROOFER,
         "software": SOFTWARE}


def summary(report) -> list[str]:
    return [f"{r.decision} {r.score} {r.product.id}: {' | '.join(r.reasons)}"
            for r in report.results]


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_match_ranks_and_explains_known_businesses_when_matched_against_the_example_market(
        name, snapshot):
    report = match(KNOWN[name], example_market(), as_of=AS_OF)
    assert {"considered": report.considered, "pruned": report.pruned,
            "results": summary(report)} == snapshot


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_match_orders_accept_refer_decline_then_score_then_name_when_ranked(name):
    results = match(KNOWN[name], example_market(), as_of=AS_OF).results
    keys = [(DECISION_RANK[r.decision], -r.score, r.carrier.name, r.product.name) for r in results]
    assert keys == sorted(keys)
    assert len(results) == len(candidate_products(example_market()))


def test_match_returns_declines_with_their_reasons_when_a_class_is_excluded():
    results = match(ROOFER, example_market(), as_of=AS_OF).results
    granite = next(r for r in results if r.product.id == "granite-trades/trades-gl")
    assert granite.decision == "decline"
    assert granite.reasons == (
        "Roofing contractors (NAICS 238160) is excluded: Granite Trades does not write it",)
    assert "excluded_class" in granite.tags


def test_match_declines_without_evaluating_when_the_product_is_not_offered_in_the_state():
    business = dict(ELECTRICIAN, state="ME")
    results = match(business, example_market(), as_of=AS_OF).results
    granite = next(r for r in results if r.product.id == "granite-trades/trades-gl")
    assert (granite.decision, granite.evaluated, granite.tags) == ("decline", False, ("state",))
    assert granite.reasons == ("Trade Contractors General Liability is not offered in ME",)


def test_match_considers_only_the_lines_asked_for_when_lines_are_given():
    report = match(ELECTRICIAN, example_market(), as_of=AS_OF, lines=["CGL", "WORK"])
    assert {r.product.line for r in report.results} == {"CGL", "WORK"}
    assert report.considered == len(candidate_products(example_market(), ["CGL", "WORK"]))


def test_match_uses_the_business_lines_when_no_lines_are_given():
    business = dict(ELECTRICIAN, lines_of_business=["CYBER"])
    report = match(business, example_market(), as_of=AS_OF)
    assert {r.product.line for r in report.results} == {"CYBER"}


def test_match_uses_the_lines_of_the_requests_when_no_lines_are_listed():
    business = dict(ELECTRICIAN, requests=[{"line": "workers comp", "limit": 500_000},
                                           {"line": "CGL", "limit": 2_000_000}])
    report = match(business, example_market(), as_of=AS_OF)
    assert {r.product.line for r in report.results} == {"WORK", "CGL"}
    listed = match(dict(business, lines_of_business=["CYBER"]), example_market(), as_of=AS_OF)
    assert {r.product.line for r in listed.results} == {"CYBER"}


def test_match_keeps_the_best_results_when_a_limit_is_given():
    full = match(ELECTRICIAN, example_market(), as_of=AS_OF)
    limited = match(ELECTRICIAN, example_market(), as_of=AS_OF, limit=3)
    assert limited.results == full.results[:3]
    assert limited.considered == full.considered


def test_match_adds_the_engine_trace_when_explain_is_asked():
    plain = match(ELECTRICIAN, example_market(), as_of=AS_OF, limit=1).results[0]
    explained = match(ELECTRICIAN, example_market(), as_of=AS_OF, limit=1, explain=True).results[0]
    assert plain.trace is None
    assert explained.trace and (explained.decision, explained.score) == (plain.decision, plain.score)


def test_match_reads_the_score_and_outputs_from_the_engine_when_accepted():
    top = match(ELECTRICIAN, example_market(), as_of=AS_OF).results[0]
    assert (top.product.id, top.decision, top.score) == ("granite-trades/trades-gl", "accept",
                                                         Decimal(75))
    assert top.outputs["class_fit"] == "core"


def test_match_raises_the_engine_error_when_the_business_breaks_its_type():
    with pytest.raises(EvaluationError):
        match(dict(ELECTRICIAN, annual_revenue="a lot"), example_market(), as_of=AS_OF)


class OnlyGranite:
    """A candidate index that keeps one appetite: the seam carrier_matching.pruning plugs into."""

    def candidates(self, business: Mapping) -> frozenset[str]:
        return frozenset({"appetite.granite_trades.trades_gl"})

    def why_pruned(self, name: str, business: Mapping) -> str:
        return f"{name} cannot accept NAICS {business['naics']}"

    def screen(self, business: Mapping) -> SimpleNamespace:
        return SimpleNamespace(candidates=self.candidates(business),
                               why=lambda name: self.why_pruned(name, business))


def test_match_declines_pruned_appetites_with_the_index_reason_when_an_index_is_given():
    market = example_market()
    kept = match(ELECTRICIAN, market, as_of=AS_OF, index=OnlyGranite())
    evaluated = [r for r in kept.results if r.evaluated]
    assert {market.appetite(r.product.appetite).name for r in evaluated} == \
        {"appetite.granite_trades.trades_gl"}
    pruned = [r for r in kept.results if "pruned" in r.tags]
    assert len(pruned) == kept.pruned > 0
    assert pruned[0].reasons[0].endswith("cannot accept NAICS 238210")
