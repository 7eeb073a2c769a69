"""The matcher against the straightforward reference (reference_matching.py), over a few hundred
businesses of every shape x the whole example market: every answer the same, in the same
order, with the same reasons, tags, outputs, questions and counts (with lines, a limit, the
candidate index and explanations too), and the same error when the business cannot be read."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from decimal import Decimal
from functools import cache

import msgspec
import pytest

from insureops.carrier_matching import LINE_CODES, STATE_CODES
from insureops.carrier_matching.description import activities, denies, mentions
from insureops.carrier_matching.match_plan import match_plan
from insureops.carrier_matching.matching import MatchResult, candidate_products, match
from insureops.carrier_matching.naics_reference import title
from insureops.carrier_matching.normalise import DESCRIBED_FLAGS, normalise_business
from insureops.carrier_matching.pruning import index_market_appetites
from tests.carrier_matching.example_market import AS_OF, MARKET_FOLDER, example_market
from tests.carrier_matching.reference_matching import reference_match

DESCRIPTIONS = (
    None, "", "Residential and light commercial electrical service and panel upgrades.",
    "Residential re-roofing and gutter work; no commercial roofs.",
    "Neighborhood tavern with pub food, live music on weekends, open past midnight.",
    "Family restaurant, no liquor, never open late.", "Custom software and SaaS for clinics.",
    "Long-haul trucking of hazmat tanker loads.", "Local delivery vans, no hazardous materials.",
    "Fully sprinklered warehouse built in 1998.", "New homes and condominium construction.",
    "Dental practice with two hygienists.", "Landscaping, snow plowing and tree trimming.",
    "Payment card processing for retailers with $5000000 in sales.",
)
CLAIM_TYPES = ("property_damage", "bodily_injury", "auto", "cyber", None)
STATE_NAMES = ("arizona", "New York", "tx", " ca ")


@cache
def market_naics() -> tuple[str, ...]:
    """The six-digit and prefix NAICS codes the example appetites name (valid ones only)."""
    found = set()
    for path in MARKET_FOLDER.glob("*/*.rules"):
        found.update(re.findall(r'"([0-9]{2,6})"', path.read_text(encoding="utf-8")))
    return tuple(sorted(code for code in found if title(code) is not None))


def money(rng: random.Random, top: int, *, text: bool = True) -> object:
    """An amount as a caller may send it: an int, a float with cents, a Decimal, text, null."""
    return rng.choice((rng.randrange(top), rng.randrange(top) + 0.25, None,
                       Decimal(rng.randrange(top * 100)) / 100,
                       str(rng.randrange(top)) if text else rng.randrange(top)))


def business(rng: random.Random) -> dict:
    """One business drawn from every shape the Business type allows (fields left out too)."""
    found = {"name": f"Business {rng.randrange(10**6)}",
             "description": rng.choice(DESCRIPTIONS),
             "naics": rng.choice(market_naics() + ("238", "5415", None)),
             "state": rng.choice(sorted(STATE_CODES) + list(STATE_NAMES) + [None]),
             "annual_revenue": money(rng, 60_000_000), "payroll": money(rng, 9_000_000),
             "employee_count": rng.choice((None, rng.randrange(400))),
             "years_in_business": rng.choice((None, rng.randrange(40), 2.5)),
             "requested_limit": rng.choice((None, 500_000, 1_000_000, 2_000_000, 10_000_000,
                                            30_000_000)),
             "prior_claims": [{"amount": money(rng, 600_000, text=rng.random() < 0.1),
                               "date": f"{rng.randrange(2015, 2027)}-0{rng.randrange(1, 10)}-15",
                               "type": rng.choice(CLAIM_TYPES)}
                              for _ in range(rng.choice((0, 0, 1, 2, 5)))]}
    if rng.random() < 0.3:
        found["lines_of_business"] = rng.sample(sorted(LINE_CODES), rng.randrange(1, 4))
    if rng.random() < 0.3:
        found["operations"] = {"liquor_sales_percent": rng.randrange(101),
                               "subcontracted_percent": rng.randrange(101),
                               "residential_percent": rng.randrange(101),
                               "max_stories": rng.randrange(12)}
    if rng.random() < 0.2:
        found["fleet"] = {"power_units": rng.randrange(60), "drivers": rng.randrange(80),
                          "radius_miles": rng.randrange(900), "for_hire": rng.random() < 0.5}
    if rng.random() < 0.2:
        found["property"] = {"construction": "frame", "year_built": rng.randrange(1900, 2026),
                             "protection_class": rng.randrange(1, 11),
                             "building_value": rng.randrange(10_000_000)}
    if rng.random() < 0.2:
        found["cyber"] = {"records": rng.randrange(2_000_000), "mfa": rng.random() < 0.5,
                          "backups": rng.random() < 0.5}
    if rng.random() < 0.1:
        del found["naics"]
    return found


def businesses(count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [business(rng) for _ in range(count)]


def answer(call, *args, **options) -> object:
    """A report as comparable data (every field, scores by their text), or the error raised."""
    try:
        report = call(*args, **options)
    except Exception as error:  # noqa: BLE001 - the error is the answer compared
        return ("error", type(error).__name__, str(error))
    assert all(type(r) is MatchResult and r == msgspec.structs.replace(r)
               for r in report.results)
    return ([(r.carrier.id, r.product.id, r.decision, str(r.score), r.reasons, r.tags,
              sorted((k, repr(v)) for k, v in r.outputs.items()), repr(r.trace), r.evaluated,
              r.notes, r.questions) for r in report.results],
            report.considered, report.pruned, report.questions, report.warnings)


def assert_same(business: dict, **options) -> None:
    market = example_market()
    expected = answer(reference_match, business, market, as_of=AS_OF, **options)
    assert answer(match, business, market, as_of=AS_OF, **options) == expected


@pytest.mark.parametrize("part", range(4))
def test_match_answers_as_the_reference_when_businesses_of_every_shape_are_matched(part):
    for item in businesses(60, seed=part):
        assert_same(item)


@pytest.mark.parametrize("part", range(2))
def test_match_answers_as_the_reference_when_limited_and_pruned_by_the_index(part):
    index = index_market_appetites(example_market().appetites)
    rng = random.Random(100 + part)
    for item in businesses(40, seed=100 + part):
        assert_same(item, index=index)
        assert_same(item, limit=rng.choice((0, 1, 5, 40)), index=rng.choice((index, None)))


def test_match_answers_as_the_reference_when_lines_are_asked_for_or_explained():
    rng = random.Random(7)
    for item in businesses(30, seed=7):
        assert_same(item, lines=rng.sample(sorted(LINE_CODES), rng.randrange(1, 5)))
        assert_same(item, lines=["CGL"], explain=True)


def test_match_raises_as_the_reference_when_the_business_cannot_be_read():
    for broken in ({"naics": "999999"}, {"state": "Atlantis"}, {"lines_of_business": ["X"]},
                   {"annual_revenue": "a lot"}, {"naics": "238210", "employee_count": -1}):
        assert_same({"name": "Broken", **broken})


def test_described_answers_read_as_mentions_and_denies_say_when_descriptions_vary():
    rng = random.Random(11)
    words = [w for text in DESCRIPTIONS if text for w in text.split()] + [
        "no", "not", "but", "hazmat", "late", "night", "dj", "sprinklers", ",", "."]
    texts = [t for t in DESCRIPTIONS if t] + [" ".join(rng.choices(words, k=rng.randrange(1, 14)))
                                              for _ in range(400)]
    for text in texts:
        data = normalise_business({"description": text}).business
        for group, field, phrases in DESCRIBED_FLAGS:
            expected = True if mentions(text, phrases) else False if denies(text, phrases) \
                else None
            assert (data.get(group) or {}).get(field) is expected, (text, field)
        assert data["activities"] == activities(text)


def test_the_match_plan_is_made_once_per_market_and_lists_its_answerable_products():
    market = example_market()
    plan = match_plan(market)
    assert match_plan(market) is plan
    assert [entry.product for entry in plan.entries] == candidate_products(market)
    ranked = sorted(plan.entries, key=lambda e: e.position)
    assert [(e.carrier.name, e.product.name, e.product.id) for e in ranked] == sorted(
        (e.carrier.name, e.product.name, e.product.id) for e in plan.entries)
    assert [e.product for e in plan.candidates(["CGL", "WORK"])] == candidate_products(
        market, ["CGL", "WORK"])
    assert match_plan(replace(market)) is not plan  # a market of its own, a plan of its own
