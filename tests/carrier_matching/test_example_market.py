"""The example market in examples/market/: it loads, it is large and broad enough, every appetite
checks clean and passes its own tests, each product has its own appetite written from its
carrier's guide, and known businesses get the expected decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

from insureops.carrier_matching import LINE_CODES, STATE_CODES
from insureops.carrier_matching.guides import write_market_appetites
from insureops.carrier_matching.matching import with_activities
from tests.carrier_matching.example_market import AS_OF, MARKET_FOLDER, example_market, read_texts
from tests.examples.canonical import canonical_digest, digest

APPETITES = sorted(MARKET_FOLDER.glob("*/*.rules"))


def decide(product_id: str, business: dict) -> tuple[str | None, list[str]]:
    """The decision and tags of one product's appetite, as the matcher would run it."""
    market = example_market()
    product = next(p for p in market.products if p.id == product_id)
    result = market.appetite(product.appetite).ruleset.evaluate(
        {"business": with_activities(business)}, as_of=AS_OF)
    return result.decision, [t for t in result.tags if not t.startswith("ask:")]


def test_example_market_is_large_enough_when_loaded():
    loaded = example_market()
    assert len(loaded.carriers) >= 40
    assert len(loaded.products) >= 150
    assert len({product.appetite for product in loaded.products}) == len(loaded.appetites)


def test_each_product_has_its_own_appetite_when_the_market_is_loaded():
    # issue 32: 155 products shared 59 appetites, so programs inherited the wrong classes
    products = example_market().products
    assert len({product.appetite for product in products}) == len(products)


def test_every_appetite_is_written_from_its_guide_when_the_guides_are_read():
    texts = read_texts()
    written = write_market_appetites(texts)
    assert set(written) == {p.relative_to(MARKET_FOLDER).as_posix() for p in APPETITES}
    # the script lays the writer's text out as `insureops rules fmt` does
    stale = [path for path, text in written.items()
             if canonical_digest(text) != digest(texts[path])]
    assert stale == [], "run python examples/market/write_appetites.py"


def test_example_market_covers_every_state_and_line_when_products_are_combined():
    loaded = example_market()
    assert set().union(*(product.states for product in loaded.products)) == STATE_CODES
    assert {product.line for product in loaded.products} == LINE_CODES


def test_example_market_mixes_admitted_and_surplus_lines_carriers():
    markets = {carrier.market for carrier in example_market().carriers}
    assert markets == {"admitted", "surplus_lines"}


@pytest.mark.parametrize("path", APPETITES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_appetite_checks_clean_and_passes_its_tests(path: Path):
    """Checks clean: the example market holds it, and its loader (check_market) refuses an
    appetite with any diagnostic, warnings too, naming each; a check of its own here checked
    every appetite a second time."""
    relative = path.relative_to(MARKET_FOLDER).as_posix()
    appetite = example_market().appetite(relative)
    assert appetite is not None, relative
    assert appetite.source == path.read_text(encoding="utf-8")
    compiled = appetite.ruleset
    assert len(compiled.ir.tests) >= 5, "an appetite shows its decisions in at least five tests"
    failed = [f"{o.description}: {o.message}" for o in compiled.run_tests(as_of=AS_OF) if not o.passed]
    assert failed == []


ROOFER = {"name": "Summit Roofing", "description": "Residential reroofing, asphalt shingles.",
          "naics": "238160", "state": "TX", "annual_revenue": 1_500_000, "employee_count": 12,
          "years_in_business": 9, "requested_limit": 1_000_000, "prior_claims": []}


def test_roofer_is_declined_by_the_contractor_specialist_and_taken_by_the_es_writer():
    assert decide("granite-trades/trades-gl", ROOFER) == ("decline", ["excluded_class"])
    decision, tags = decide("ironbark/es-gl", ROOFER)
    assert decision == "accept" and tags == []


def test_bar_is_excluded_by_the_restaurant_program_and_written_in_es():
    bar = dict(ROOFER, naics="722410", state="GA", description="Neighborhood tavern with pub food.")
    assert decide("harvest-table/restaurant-bop", bar) == ("decline", ["excluded_class"])
    assert decide("ironbark/es-gl", bar)[0] == "accept"


def test_clinic_in_an_excluded_state_is_declined_by_the_clinic_writer():
    clinic = dict(ROOFER, naics="621111", state="NY", description="Family medicine group.",
                  employee_count=20)
    assert decide("caduceus/clinic-mpl", clinic) == ("decline", ["state"])
    assert decide("caduceus/clinic-mpl", dict(clinic, state="OH"))[0] == "accept"


def test_software_firm_with_crypto_operations_is_declined_by_the_tech_writer():
    firm = dict(ROOFER, naics="541511", state="CA", requested_limit=2_000_000,
                description="Custom software development and a crypto trading bot.")
    assert decide("byteshield/tech-eo", firm) == ("decline", ["prohibited_operation"])
    clean = dict(firm, description="Custom software development for retailers.")
    assert decide("byteshield/tech-eo", clean) == ("accept", [])


def test_regional_mutual_declines_outside_its_six_states_and_accepts_inside():
    hardware = dict(ROOFER, naics="444140", state="IA", annual_revenue=900_000,
                    description="Hardware store with key cutting.", years_in_business=22)
    assert decide("prairie-mutual/main-street-bop", hardware) == ("accept", [])
    assert decide("prairie-mutual/main-street-bop", dict(hardware, state="WI")) == (
        "decline", ["state"])


def test_hazmat_hauler_is_declined_and_a_large_loss_refers_for_the_trucking_specialist():
    fleet = dict(ROOFER, naics="484121", state="MO", employee_count=20, years_in_business=8,
                 description="Dry van truckload freight.")
    assert decide("long-haul/trucking-auto", fleet) == ("accept", [])
    hazmat = dict(fleet, description="Tanker loads of hazmat for refineries.")
    assert decide("long-haul/trucking-auto", hazmat) == ("decline", ["prohibited_operation"])
    loss = dict(fleet, prior_claims=[{"amount": 90_000, "date": "2025-04-02", "type": "auto"}])
    assert decide("long-haul/trucking-auto", loss) == ("refer", ["large_loss"])


# --- Issue 32: one test per class of market error, so none comes back ---

def answers(business: dict, lines: list[str] | None = None) -> dict[str, str]:
    """Product id -> decision for `business` matched against the whole example market."""
    from insureops.carrier_matching.matching import match
    return {r.product.id: r.decision
            for r in match(business, example_market(), as_of=AS_OF, lines=lines).results}


def accepted(business: dict, lines: list[str] | None = None) -> set[str]:
    return {product for product, decision in answers(business, lines).items()
            if decision == "accept"}


PLUMBER = {"name": "Rio Plumbing", "description": "Residential plumbing service and repair.",
           "naics": "238220", "state": "AZ", "annual_revenue": 1_200_000, "payroll": 450_000,
           "employee_count": 9, "years_in_business": 11, "prior_claims": []}


def test_each_program_keeps_to_its_own_classes_when_products_of_a_carrier_differ():
    # the agricultural comp program took a plumber and a dispensary
    assert answers(PLUMBER, ["WORK"])["copper-state-comp/comp-ag"] == "decline"
    dispensary = dict(PLUMBER, naics="459999", description="Licensed cannabis dispensary.")
    assert answers(dispensary, ["WORK"])["copper-state-comp/comp-ag"] == "decline"
    assert answers(PLUMBER, ["WORK"])["copper-state-comp/comp-contractors-group"] == "accept"
    farm = dict(PLUMBER, naics="111219", description="Vegetable farm with seasonal crews.")
    assert answers(farm, ["WORK"])["copper-state-comp/comp-ag"] == "accept"
    # a janitorial bond took truckers
    trucker = dict(PLUMBER, naics="484121", description="Dry van truckload freight.")
    assert answers(trucker, ["CRIM"])["sterling-fidelity/service-bond"] == "decline"
    cleaner = dict(PLUMBER, naics="561720", description="Office cleaning crews, nights.")
    assert answers(cleaner, ["CRIM"])["sterling-fidelity/service-bond"] == "accept"
    # technology E&O targeted hospitals
    hospital = dict(PLUMBER, naics="622110", description="Community hospital.",
                    annual_revenue=80_000_000, employee_count=600)
    assert answers(hospital, ["EO"])["aurora-cyber/tech-media"] == "decline"
    # "Contractors Excess" took a bakery
    bakery = dict(PLUMBER, naics="311811", description="Retail bakery and cafe.")
    assert answers(bakery, ["UMBRC"])["bastion-excess/contractors-excess"] == "decline"
    # Keystone's Florida and Louisiana wind referral is its BOP's, not its general liability's
    # (broker profiles, issue 32: a Florida shop found no BOP when the BOP declined the state)
    office = dict(PLUMBER, naics="541211", state="FL", description="CPA firm, tax and audit.")
    found = answers(office, ["BOP", "CGL"])
    assert found["keystone-main/bop"] == "refer" and found["keystone-main/gl"] == "accept"


def test_information_companies_find_cyber_and_d_and_o_when_their_class_is_51():
    saas = dict(PLUMBER, naics="513210", state="CA", description="Cloud scheduling software (SaaS).",
                annual_revenue=6_000_000, employee_count=40)
    programmers = dict(saas, naics="541511")
    lines = ["CYBER", "DO", "EO"]
    assert len(accepted(saas, lines)) >= len(accepted(programmers, lines)) >= 5
    assert {"byteshield/cyber-sme", "summit-management/private-do"} <= accepted(saas, lines)


HAZARDS = {
    "fireworks": ("459999", "Fireworks retail stands and wholesale pyrotechnics."),
    "dispensary": ("459999", "Licensed cannabis dispensary."),
    "implosion": ("238910", "Demolition by implosion of high-rise buildings."),
}


@pytest.mark.parametrize("hazard", sorted(HAZARDS))
def test_admitted_umbrellas_screen_hazards_when_the_class_or_operation_is_one(hazard):
    naics, description = HAZARDS[hazard]
    business = dict(PLUMBER, naics=naics, description=description, state="TX")
    market = example_market()
    for product, decision in answers(business, ["UMBRC"]).items():
        carrier = market.carrier(product.split("/")[0])
        if carrier.market == "admitted":
            assert decision == "decline", (hazard, product)


def test_description_checks_honour_negation_when_the_description_denies_an_operation():
    trucker = {"name": "Red River Freight", "naics": "484121", "state": "MO",
               "description": "Dry van truckload freight, no hazmat.", "annual_revenue": 4_000_000,
               "employee_count": 24, "years_in_business": 10, "prior_claims": []}
    assert answers(trucker, ["AUTOB"])["long-haul/trucking-auto"] == "accept"
    hazmat = dict(trucker, description="Dry van freight and placarded hazmat loads.")
    assert answers(hazmat, ["AUTOB"])["long-haul/trucking-auto"] == "decline"
    diner = {"name": "Blue Plate Diner", "naics": "722511", "state": "TN",
             "description": "Family diner, breakfast and lunch, no late night hours.",
             "annual_revenue": 1_200_000, "employee_count": 18, "years_in_business": 9,
             "prior_claims": []}
    assert answers(diner, ["BOP"])["harvest-table/restaurant-bop"] == "accept"
    late = dict(diner, description="Diner open late night on weekends.")
    assert answers(late, ["BOP"])["harvest-table/restaurant-bop"] == "refer"


def test_a_building_from_the_nineties_is_not_an_old_building_when_the_description_says_so():
    apartments = {"name": "Maple Court", "naics": "531110", "state": "OH",
                  "description": "Forty-unit garden apartments built in 1998.",
                  "annual_revenue": 900_000, "employee_count": 3, "years_in_business": 12,
                  "prior_claims": [], "property": {"construction": "joisted_masonry",
                                                   "year_built": 1998, "roof_age": 8,
                                                   "protection_class": 3, "sprinklered": True}}
    assert answers(apartments, ["PROPC"])["hearthstone/hab-property"] == "accept"


def test_an_out_of_class_refer_still_runs_the_loss_rules_when_the_losses_decline():
    claims = [{"amount": 29_000, "date": f"2025-0{month}-01", "type": "liability"}
              for month in range(1, 6)]
    cleaner = {"name": "Spotless", "naics": "561720", "state": "WA", "description": "Cleaning.",
               "annual_revenue": 900_000, "employee_count": 10, "years_in_business": 6,
               "prior_claims": claims}
    assert answers(cleaner, ["BOP"])["keystone-main/bop"] == "decline"
    assert answers(dict(cleaner, prior_claims=[]), ["BOP"])["keystone-main/bop"] == "refer"


def test_line_codes_are_acord_and_garage_and_liquor_lines_are_written():
    lines = {product.line for product in example_market().products}
    assert "CRIM" in lines and "CRIME" not in lines
    names = {p.name for p in example_market().products if p.line == "GARAG"}
    assert any("Garagekeepers" in name for name in names) and len(names) >= 2
    assert sum(p.line == "LIQUR" for p in example_market().products) >= 2


def test_each_line_reads_its_own_requested_limit_when_requests_are_given():
    business = dict(PLUMBER, requests=[{"line": "CGL", "limit": 1_000_000},
                                       {"line": "UMBRC", "limit": 5_000_000}])
    found = answers(business, ["CGL", "UMBRC"])
    assert found["granite-trades/trades-gl"] == "accept"
    assert found["granite-trades/trades-umbrella"] == "decline"  # its maximum is $2,000,000
    assert found["bastion-excess/contractors-excess"] == "accept"
