"""The example market in examples/market/: it loads, it is large and broad enough, every appetite
checks clean and passes its own tests, and known businesses get the expected decisions."""

from __future__ import annotations

from datetime import date
from functools import cache
from pathlib import Path

import pytest

from insureops.carrier_matching import LINE_CODES, STATE_CODES, Market, load_market
from insureops.dsl.api import check_source

ROOT = Path(__file__).resolve().parents[2]
MARKET = ROOT / "examples" / "market"
AS_OF = date(2026, 3, 1)
APPETITES = sorted(MARKET.glob("*/*.rules"))


def read_texts() -> dict[str, str]:
    return {path.relative_to(MARKET).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(MARKET.rglob("*")) if path.suffix in {".toml", ".rules"}}


@cache
def market() -> Market:
    return load_market(read_texts(), as_of=AS_OF)


def decide(appetite: str, business: dict) -> tuple[str | None, list[str]]:
    result = market().appetite(appetite).ruleset.evaluate({"business": business}, as_of=AS_OF)
    return result.decision, list(result.tags)


def test_example_market_is_large_enough_when_loaded():
    loaded = market()
    assert len(loaded.carriers) >= 40
    assert len(loaded.products) >= 150
    assert len({product.appetite for product in loaded.products}) == len(loaded.appetites)


def test_example_market_covers_every_state_and_line_when_products_are_combined():
    loaded = market()
    assert set().union(*(product.states for product in loaded.products)) == STATE_CODES
    assert {product.line for product in loaded.products} == LINE_CODES


def test_example_market_mixes_admitted_and_surplus_lines_carriers():
    markets = {carrier.market for carrier in market().carriers}
    assert markets == {"admitted", "surplus_lines"}


@pytest.mark.parametrize("path", APPETITES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_appetite_checks_clean_and_passes_its_tests(path: Path):
    relative = path.relative_to(MARKET).as_posix()
    source = path.read_text(encoding="utf-8")
    report = check_source(source, filename=relative)
    assert [d.message for d in report.diagnostics] == []
    compiled = market().appetite(relative).ruleset
    assert len(compiled.ir.tests) >= 5, "an appetite shows its decisions in at least five tests"
    failed = [f"{o.description}: {o.message}" for o in compiled.run_tests(as_of=AS_OF) if not o.passed]
    assert failed == []


ROOFER = {"name": "Summit Roofing", "description": "Residential reroofing, asphalt shingles.",
          "naics": "238160", "state": "TX", "annual_revenue": 1_500_000, "employee_count": 12,
          "years_in_business": 9, "requested_limit": 1_000_000, "prior_claims": []}


def test_roofer_is_declined_by_the_contractor_specialist_and_taken_by_the_es_writer():
    assert decide("granite-trades/trades_liability.rules", ROOFER) == ("decline", ["excluded_class"])
    decision, tags = decide("ironbark/hard_casualty.rules", ROOFER)
    assert decision == "accept" and tags == []


def test_bar_is_excluded_by_the_restaurant_program_and_written_in_es():
    bar = dict(ROOFER, naics="722410", state="GA", description="Neighborhood tavern with pub food.")
    assert decide("harvest-table/restaurants.rules", bar) == ("decline", ["excluded_class"])
    assert decide("ironbark/hard_casualty.rules", bar)[0] == "accept"


def test_clinic_in_an_excluded_state_is_declined_by_the_clinic_writer():
    clinic = dict(ROOFER, naics="621111", state="NY", description="Family medicine group.",
                  employee_count=20)
    assert decide("caduceus/clinic_pl.rules", clinic) == ("decline", ["state"])
    assert decide("caduceus/clinic_pl.rules", dict(clinic, state="OH"))[0] == "accept"


def test_software_firm_with_crypto_operations_is_declined_by_the_tech_writer():
    firm = dict(ROOFER, naics="541511", state="CA", requested_limit=2_000_000,
                description="Custom software development and a crypto trading bot.")
    assert decide("byteshield/tech_eo.rules", firm) == ("decline", ["prohibited_operation"])
    clean = dict(firm, description="Custom software development for retailers.")
    assert decide("byteshield/tech_eo.rules", clean) == ("accept", [])


def test_regional_mutual_declines_outside_its_six_states_and_accepts_inside():
    hardware = dict(ROOFER, naics="444140", state="IA", annual_revenue=900_000,
                    description="Hardware store with key cutting.", years_in_business=22)
    assert decide("prairie-mutual/main_street.rules", hardware) == ("accept", [])
    assert decide("prairie-mutual/main_street.rules", dict(hardware, state="WI")) == (
        "decline", ["state"])


def test_hazmat_hauler_is_declined_and_a_large_loss_refers_for_the_trucking_specialist():
    fleet = dict(ROOFER, naics="484121", state="MO", employee_count=20, years_in_business=8,
                 description="Dry van truckload freight.")
    assert decide("long-haul/motor_carrier.rules", fleet) == ("accept", [])
    hazmat = dict(fleet, description="Tanker loads of hazmat for refineries.")
    assert decide("long-haul/motor_carrier.rules", hazmat) == ("decline", ["prohibited_operation"])
    loss = dict(fleet, prior_claims=[{"amount": 90_000, "date": "2025-04-02", "type": "auto"}])
    assert decide("long-haul/motor_carrier.rules", loss) == ("refer", ["large_loss"])
