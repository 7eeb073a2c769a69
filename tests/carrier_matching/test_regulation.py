"""Regulatory facts as data every appetite obeys (issue 32): no private workers compensation in
the monopolistic states, none in the surplus lines market, and the diligent-search note on every
surplus lines answer; refused in manifests, enforced by the matcher, true of the example market."""

from __future__ import annotations

from insureops.carrier_matching.manifest import parse_manifest
from insureops.carrier_matching.matching import match
from insureops.carrier_matching.regulation import (
    DILIGENT_SEARCH_NOTE,
    MONOPOLISTIC_COMP_STATES,
    SURPLUS_LINES_INELIGIBLE,
)
from tests.carrier_matching.example_market import AS_OF, example_market
from tests.carrier_matching.market_texts import MANIFEST

PATH = "alpha/carrier.toml"


def test_monopolistic_states_are_the_four_state_fund_states():
    assert MONOPOLISTIC_COMP_STATES == {"ND", "OH", "WA", "WY"}


def test_manifest_offering_comp_in_a_monopolistic_state_is_refused_when_checked():
    text = MANIFEST.replace('states = ["CA", "TX"]', 'states = ["CA", "OH", "TX"]', 1).replace(
        'states = ["TX", "CA"]', 'states = ["TX", "CA", "OH"]').replace('line = "UMBRC"', 'line = "WORK"')
    (problem,) = parse_manifest(PATH, text).problems
    assert problem.code == "regulatory" and "OH" in problem.message


def test_surplus_lines_comp_product_is_refused_when_checked():
    text = MANIFEST.replace('market = "admitted"', 'market = "surplus_lines"').replace(
        'type = "regional"', 'type = "excess_and_surplus"').replace('line = "UMBRC"', 'line = "WORK"')
    (problem,) = parse_manifest(PATH, text).problems
    assert problem.code == "regulatory" and "surplus lines" in problem.message


def test_no_private_comp_product_of_the_example_market_writes_a_monopolistic_state():
    for product in example_market().products:
        if product.line == "WORK":
            assert not product.states & MONOPOLISTIC_COMP_STATES, product.id


def test_no_surplus_lines_carrier_of_the_example_market_writes_comp():
    market = example_market()
    for product in market.products:
        if not product.admitted or market.carrier(product.carrier_id).market == "surplus_lines":
            assert product.line not in SURPLUS_LINES_INELIGIBLE, product.id


MACHINE_SHOP = {"name": "Buckeye Precision", "description": "CNC machine shop, job shop work.",
                "naics": "332710", "state": "OH", "annual_revenue": 4_000_000,
                "payroll": 1_400_000, "employee_count": 30, "years_in_business": 20,
                "prior_claims": []}


def test_every_comp_answer_in_a_monopolistic_state_is_a_regulatory_decline():
    for state, business in (("OH", MACHINE_SHOP),
                            ("WA", dict(MACHINE_SHOP, naics="561730", state="WA")),
                            ("ND", dict(MACHINE_SHOP, naics="561612", state="ND"))):
        results = match(business, example_market(), as_of=AS_OF, lines=["WORK"]).results
        assert results and all(r.decision == "decline" for r in results), state
        assert all(r.tags == ("regulatory",) and not r.evaluated
                   and "monopolistic" in r.reasons[0] for r in results)
        assert "stop-gap" in results[0].reasons[0]


def test_surplus_lines_answers_carry_the_diligent_search_note_when_not_declined():
    bar = {"name": "The Rusty Anchor", "description": "Neighborhood tavern with pub food.",
           "naics": "722410", "state": "GA", "annual_revenue": 900_000, "employee_count": 9,
           "years_in_business": 8, "requested_limit": 1_000_000, "prior_claims": []}
    results = match(bar, example_market(), as_of=AS_OF).results
    surplus = [r for r in results if not r.product.admitted and r.decision != "decline"]
    assert surplus and all(DILIGENT_SEARCH_NOTE in r.notes for r in surplus)
    assert all(r.notes == () for r in results if r.product.admitted)
