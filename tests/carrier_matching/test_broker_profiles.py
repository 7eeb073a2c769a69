"""Broker profiles (issue 32: "a hidden set of broker profiles ... will judge the result"): small
commercial businesses a broker places every day, in many states, each a Business JSON file in
broker_profiles/ (run one with `insureops market match examples/market FILE`). For each, every
line it asks for must find an admitted market that accepts or refers, save the lines the table
below names: comp in the monopolistic states (no private market at all), classes the example
market writes in the surplus lines market only, and the gaps still open.
"""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from pathlib import Path

import pytest

from insureops.carrier_matching.matching import MatchReport, match
from insureops.carrier_matching.pruning import index_market_appetites
from insureops.carrier_matching.regulation import MONOPOLISTIC_COMP_STATES
from tests.carrier_matching.example_market import example_market

PROFILES = Path(__file__).parent / "broker_profiles"
AS_OF = date(2026, 11, 27)

# Lines only a surplus lines product writes, by design of the example market's carriers.
SURPLUS_ONLY = {
    "apartments-il": {"PROPC", "CGL"},          # habitational: Hearthstone, Ironbark
    "bar-tx-tavern": {"CGL", "LIQUR", "PROPC"},  # bars: Ironbark
    "roofer-ga": {"CGL"},                        # roofing GL: Ironbark
    "home-health-oh": {"EO", "CGL"},             # home care: Meridian Senior
    "security-guards-ca": {"EO"},                # security guards' E&O: Vigil
}
# Lines no product writes yet (docs: /work/notes/market-report.md, "what remains").
OPEN_GAPS = {
    "home-health-oh": {"AUTOB"},   # hired and non-owned auto for caregivers
    "salon-ny": {"EO"},            # beauticians' professional liability
    "veterinary-mn": {"EO"},       # veterinary professional liability
}
# Products that must not accept (or, with "any", neither accept nor refer) the profile's line.
WRONG = {
    "carpenter-ma": [("ironbark/es-gl", "accept")],       # E&S GL where admitted writes it
    "painter-nj": [("ironbark/es-gl", "accept")],
    "fitness-co": [("ironbark/es-gl", "accept")],           # Northstar writes fitness admitted
    "restaurant-ca-full-service": [("ironbark/es-liquor", "accept")],
    "apartments-il": [("keystone-main/gl", "any")],      # habitational is excluded
    "bar-tx-tavern": [("keystone-main/gl", "any"), ("cardinal-national/middle-market-gl", "any")],
    "roofer-ga": [("cardinal-national/middle-market-gl", "any")],
    "trucking-pa-regional": [("keystone-main/gl", "any")],
}


def profile_names() -> list[str]:
    return sorted(path.stem for path in PROFILES.glob("*.json"))


def profile(name: str) -> dict:
    return json.loads((PROFILES / f"{name}.json").read_text(encoding="utf-8"))


@cache
def report(name: str) -> MatchReport:
    market = example_market()
    return match(profile(name), market, as_of=AS_OF, index=_index())


@cache
def _index():
    return index_market_appetites(example_market().appetites)


def test_there_are_at_least_forty_profiles_across_the_big_states_and_a_monopolistic_one():
    names = profile_names()
    states = {profile(name)["state"] for name in names}
    assert len(names) >= 40
    assert {"CA", "TX", "FL", "NY", "PA", "IL", "OH", "GA", "NC", "MI", "NJ", "WA", "AZ", "MA",
            "CO"} <= states
    assert states & MONOPOLISTIC_COMP_STATES


@pytest.mark.parametrize("name", profile_names())
def test_every_line_a_broker_places_finds_an_admitted_market_when_the_profile_is_matched(name):
    business = profile(name)
    results = report(name).results
    for line in business["lines_of_business"]:
        writing = [r for r in results if r.product.line == line and r.decision != "decline"]
        if line == "WORK" and business["state"] in MONOPOLISTIC_COMP_STATES:
            assert writing == [], f"{name}: private comp in monopolistic {business['state']}"
        elif line in OPEN_GAPS.get(name, ()):
            continue
        elif line in SURPLUS_ONLY.get(name, ()):
            assert writing, f"{name}: no product accepts or refers {line}"
        else:
            admitted = [r.product.id for r in writing if r.product.admitted]
            assert admitted, f"{name}: no admitted product accepts or refers {line}: " + \
                "; ".join(f"{r.product.id}: {r.reasons[0]}" for r in results
                          if r.product.line == line and r.reasons)


@pytest.mark.parametrize("name", sorted(WRONG))
def test_named_wrong_accepts_are_absent_when_the_profile_is_matched(name):
    by_id = {r.product.id: r for r in report(name).results}
    for product, forbidden in WRONG[name]:
        decision = by_id[product].decision
        assert decision != "accept" if forbidden == "accept" else decision == "decline", \
            f"{name}: {product} {decision}: {by_id[product].reasons[:1]}"
