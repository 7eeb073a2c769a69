"""Rule-derived pruning against the whole example market: the pruned result equals the unpruned
one decision for decision (issue 13's pruning equivalence property), and it prunes enough."""

from __future__ import annotations

import re
from datetime import date
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from insureops.carrier_matching import STATE_CODES
from insureops.carrier_matching.pruning import CandidateIndex, build_candidate_index
from insureops.dsl import EvaluationError
from tests.carrier_matching.example_market import AS_OF, example_market


def market():
    """The example market, checked once per test process (shared with the other tests)."""
    return example_market()


@cache
def rulesets() -> dict:
    return {appetite.name: appetite.ruleset for appetite in market().appetites}


@cache
def index() -> CandidateIndex:
    return build_candidate_index(rulesets())


def codes_in(source: str) -> set[str]:
    """The NAICS-like string literals of an appetite, and their shorter prefixes."""
    return {code[:length] for code in re.findall(r'"(\d{2,6})"', source)
            for length in range(2, len(code) + 1)}


@cache
def market_codes() -> list[str]:
    return sorted(set().union(*(codes_in(a.source) for a in market().appetites)))


@cache
def sources() -> list[str]:
    return [appetite.source for appetite in market().appetites]


PHRASES = ["electrical contractor", "restaurant and bar", "software consulting", "trucking",
           "controlled blasting", "fireworks", "cannabis dispensary", "crane work", "high-rise",
           "wrap-up projects", "ocip", "boarding school", "swimming lessons", "armed guards",
           "hurricane shutters", "demolition with explosives", "roofing", "warehouse",
           "home care", "day care", "nightclub", "tattoo", "hemp", "crypto", "bounce houses"]

# The market's codes and sources are drawn lazily (st.deferred): loading and checking the whole
# market at import made it most of the suite's collection time (issue 30).
market_naics = st.deferred(lambda: st.sampled_from(market_codes()))
naics_codes = st.one_of(market_naics,
                        st.from_regex(r"\A[0-9]{2,6}\Z"),
                        st.none())
states = st.one_of(st.sampled_from(sorted(STATE_CODES)), st.sampled_from(["PR", "GU", "ZZ"]),
                   st.none())
amounts = st.one_of(st.none(), st.integers(0, 60_000_000))
claims = st.lists(st.fixed_dictionaries({
    "amount": st.integers(0, 300_000),
    "date": st.dates(date(2019, 1, 1), date(2026, 2, 28)).map(date.isoformat),
    "type": st.sampled_from(["liability", "property", "theft", "breach", "hurricane", "auto",
                             "workers_compensation"]),
}), max_size=5)
random_businesses = st.fixed_dictionaries({
    "naics": naics_codes,
    "state": states,
    "description": st.one_of(st.none(), st.lists(st.sampled_from(PHRASES), max_size=3)
                             .map(" and ".join)),
    "annual_revenue": amounts,
    "payroll": amounts,
    "employee_count": st.one_of(st.none(), st.integers(0, 2_000)),
    "years_in_business": st.one_of(st.none(), st.integers(0, 80)),
    "requested_limit": st.one_of(st.none(), st.sampled_from(
        [500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000, 25_000_000])),
    "prior_claims": st.one_of(st.none(), claims),
})
# Businesses in most programs' sweet spot, so that accepts are frequent and the class and
# state boundaries are what decides.
clean_businesses = st.fixed_dictionaries({
    "naics": market_naics,
    "state": st.sampled_from(sorted(STATE_CODES)),
    "description": st.sampled_from(["A family-owned business serving local customers.",
                                    "Residential and commercial services."]),
    "annual_revenue": st.integers(400_000, 4_000_000),
    "payroll": st.integers(150_000, 1_500_000),
    "employee_count": st.integers(3, 40),
    "years_in_business": st.integers(4, 40),
    "requested_limit": st.sampled_from([1_000_000, 2_000_000]),
    "prior_claims": st.just([]),
})
# ... and with the class and state drawn from one appetite's own literals, so that its exact
# codes, prefixes, exclusions and states meet the index often.
targeted = st.deferred(lambda: st.sampled_from(sources())).flatmap(
    lambda source: st.fixed_dictionaries({
        "naics": st.sampled_from(sorted(codes_in(source))),
        "state": st.sampled_from(sorted(set(re.findall(r'"([A-Z]{2})"', source))
                                        | {"NY", "WY"})),
    }))
businesses = st.one_of(
    clean_businesses, random_businesses,
    st.tuples(clean_businesses, targeted).map(lambda pair: {**pair[0], **pair[1]}),
    st.tuples(random_businesses, targeted).map(lambda pair: {**pair[0], **pair[1]}))


def decision(name: str, business: dict) -> str | None:
    try:
        return rulesets()[name].evaluate({"business": business}, as_of=AS_OF).decision
    except EvaluationError:  # an evaluation that fails decides nothing
        return None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(businesses)
def test_pruned_result_equals_unpruned_when_every_appetite_is_evaluated(business):
    candidates = index().candidates(business)
    for name in sorted(rulesets()):
        if name not in candidates:
            assert decision(name, business) in ("decline", None), (
                name, business, index().why_pruned(name, business))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(businesses)
def test_a_screen_gives_the_candidates_and_reasons_of_the_index_when_asked_per_business(
        business):
    screen = index().screen(business)
    assert screen.candidates == index().candidates(business)
    for name in sorted(rulesets()):
        assert screen.why(name) == index().why_pruned(name, business), (name, business)


TYPICAL = {
    "electrician in Arizona": {"naics": "238210", "state": "AZ"},
    "restaurant in Texas": {"naics": "722511", "state": "TX"},
    "software firm in New York": {"naics": "541511", "state": "NY"},
    "trucker in Ohio": {"naics": "484121", "state": "OH"},
    "dentist in Florida": {"naics": "621210", "state": "FL"},
}


def test_typical_businesses_prune_most_of_the_market_when_class_and_state_are_given():
    total = len(rulesets())
    for label, business in TYPICAL.items():
        kept = index().candidates(business)
        assert 0 < len(kept) < total / 2, (label, sorted(kept))


def test_every_appetite_is_kept_when_class_and_state_are_missing():
    assert index().candidates({}) == frozenset(rulesets())


def test_why_pruned_names_the_state_when_a_state_program_meets_another_state():
    reason = index().why_pruned("appetite.granite_trades.trades_gl",
                                {"naics": "238210", "state": "FL"})
    assert reason.startswith("state FL is not in the states this appetite accepts or refers")
    assert index().why_pruned("appetite.granite_trades.trades_gl",
                              {"naics": "238210", "state": "AZ"}) is None


def test_why_pruned_names_the_class_when_an_excluded_class_meets_a_contractor_program():
    reason = index().why_pruned("appetite.granite_trades.trades_gl",
                                {"naics": "238160", "state": "AZ"})
    assert reason.startswith("NAICS 238160 is not among the classes")


def test_constraints_give_prefixes_and_states_when_an_appetite_is_regional():
    constraints = index().constraints("appetite.granite_trades.trades_gl")
    assert constraints.state_codes == frozenset(
        {"AZ", "CA", "CO", "ID", "NM", "NV", "OR", "TX", "UT", "WA"})
    assert set(constraints.naics_prefixes) == {"236118", "2382", "2383"}
    assert constraints.admits_naics_prefix("23") and not constraints.admits_naics_prefix("2381")


def test_for_criteria_narrows_by_prefix_and_state_when_the_rest_is_unknown():
    contractors = index().for_criteria(naics="238", state="AZ")
    assert "appetite.granite_trades.trades_gl" in contractors
    assert "appetite.prairie_mutual.contractors_wc" not in contractors  # not filed in AZ
    assert "appetite.beacon_education.education_gl" not in contractors
    assert index().for_criteria(naics="2381", state="AZ") < contractors
    assert index().for_criteria() == frozenset(rulesets())
    for name in index().for_criteria(state="WY"):
        assert index().constraints(name).admits_state("WY")


def test_constraints_list_excluded_states_when_an_appetite_writes_every_other_state():
    constraints = index().constraints("appetite.caduceus.clinic_mpl")
    assert constraints.state_codes is None
    assert constraints.excluded_states == {"IL", "NY", "PA"}
    assert not constraints.admits_state("NY") and constraints.admits_state("OH")
