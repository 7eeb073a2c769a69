"""Inputs normalised or refused (issue 32): states in any case and by name, NAICS 2017 codes
mapped to 2022 with a warning, unknown codes a modelled error, answers a description states."""

from __future__ import annotations

from datetime import date

import pytest

from insureops.carrier_matching.matching import match
from insureops.carrier_matching.naics_concordance import replacements
from insureops.carrier_matching.naics_reference import national_industries
from insureops.carrier_matching.normalise import BusinessInputError, normalise_business
from insureops.carrier_matching.scan_business import find_state
from insureops.engine.ir.errors import EvaluationError
from tests.carrier_matching.example_market import AS_OF, example_market


def read(**business):
    return normalise_business(business, as_of=date(2026, 3, 1))


@pytest.mark.parametrize(("given", "code"), [
    ("az", "AZ"), ("Az", "AZ"), (" AZ ", "AZ"), ("Oregon", "OR"), ("new york", "NY"),
    ("District of Columbia", "DC"), ("Washington DC", "DC"), ("state of Texas", "TX")])
def test_state_is_read_in_any_case_and_by_name_when_given(given, code):
    assert read(state=given).business["state"] == code


def test_a_state_that_is_no_state_is_refused_with_its_field_when_read():
    with pytest.raises(BusinessInputError) as caught:
        read(state="Oregn")
    assert caught.value.code == "invalid_state" and caught.value.details[0]["field"] == "state"
    assert isinstance(caught.value, EvaluationError)  # what every caller of match handles


def test_a_naics_2017_code_is_read_as_its_2022_code_with_a_warning_when_it_changed():
    found = read(naics="453998")
    assert found.business["naics"] == "459999"
    assert "453998" in found.warnings[0] and "2017" in found.warnings[0]
    assert read(naics="511210").business["naics"] == "513210"
    assert read(naics="238210").warnings == ()


@pytest.mark.parametrize("code", ["999999", "123456", "99"])
def test_an_unknown_naics_code_is_refused_when_neither_2022_nor_a_replaced_2017_code(code):
    with pytest.raises(BusinessInputError) as caught:
        read(naics=code)
    assert caught.value.code == "unknown_naics" and code in str(caught.value)


def test_the_concordance_covers_the_changed_codes_of_the_sectors_asked_for():
    table = replacements()
    current = national_industries()
    assert all(code not in current for code in table), "a 2017 code that 2022 kept"
    assert all(row.naics_2022 in current for row in table.values())
    sectors = {code[:2] for code in table}
    assert {"44", "45", "51", "52"} <= sectors
    # every 2017 retail code of 44-45 that 2022 dropped is mapped (442-454 were renumbered)
    assert {"442110", "443142", "446110", "447110", "448140", "451110", "452210", "453998",
            "454110"} <= set(table)


def test_line_aliases_are_read_and_unknown_lines_refused_when_given():
    found = read(lines_of_business=["crime", "GL", "garage"],
                 requests=[{"line": "umbrella", "limit": 5_000_000}])
    assert found.business["lines_of_business"] == ["CRIM", "CGL", "GARAG"]
    assert found.business["requests"][0]["line"] == "UMBRC"
    with pytest.raises(BusinessInputError):
        read(lines_of_business=["PET"])


def test_construction_in_words_is_read_as_its_iso_class_when_known():
    found = read(property={"construction": "Brick", "year_built": 1988})
    assert found.business["property"]["construction"] == "joisted_masonry"
    with pytest.raises(BusinessInputError):
        read(property={"construction": "straw"})


def test_plain_answers_are_read_from_the_description_when_not_given():
    found = read(description="Dry van freight, no hazmat. Office built in 1998, fully sprinklered.")
    assert found.business["fleet"]["hazmat"] is False
    assert found.business["property"] == {"sprinklered": True, "year_built": 1998}
    late = read(description="Diner, no late night hours.").business
    assert late["operations"]["open_past_midnight"] is False
    given = read(description="We haul hazmat.", fleet={"hazmat": False}).business
    assert given["fleet"]["hazmat"] is False  # an answer given is never overridden


def test_whole_numbers_stay_whole_and_years_come_from_the_founding_date_when_missing():
    found = read(annual_revenue=1_000_000.0, requested_limit=2e6, founded_on="2019-06-15")
    assert found.business["annual_revenue"] == 1_000_000 and isinstance(
        found.business["requested_limit"], int)
    assert found.business["years_in_business"] == 6


def test_a_scanned_page_names_its_state_in_words_when_the_address_is_written_out():
    assert find_state("Visit us: 1200 NE Broadway, Portland, Oregon 97232") == "OR"
    assert find_state("Boise, ID 83702", "Portland, Oregon") in {"ID", "OR"}


ELECTRICIAN = {"name": "Bright Spark Electric", "naics": "238210", "state": "AZ",
               "description": "Residential electrical service.", "annual_revenue": 1_750_000,
               "employee_count": 8, "years_in_business": 15, "prior_claims": []}


def test_a_lowercase_state_matches_as_the_code_does_when_the_market_is_asked():
    upper = match(ELECTRICIAN, example_market(), as_of=AS_OF)
    lower = match(dict(ELECTRICIAN, state="az"), example_market(), as_of=AS_OF)
    assert [(r.product.id, r.decision) for r in lower.results] == [
        (r.product.id, r.decision) for r in upper.results]
    assert sum(r.decision == "accept" for r in lower.results) > 5
    assert lower.warnings == ()  # a code in lower case is no change worth a warning


def test_an_unknown_naics_code_stops_the_match_when_asked():
    with pytest.raises(BusinessInputError):
        match(dict(ELECTRICIAN, naics="999999"), example_market(), as_of=AS_OF)


def test_a_2017_code_matches_as_its_2022_code_with_the_warning_in_the_report():
    report = match(dict(ELECTRICIAN, naics="453998", description="Gift shop."), example_market(),
                   as_of=AS_OF)
    assert any("453998" in warning for warning in report.warnings)


def test_unanswered_questions_come_back_once_each_when_products_ask_them():
    report = match({"naics": "484121", "state": "MO", "description": "Dry van freight."},
                   example_market(), as_of=AS_OF, lines=["AUTOB"])
    fields = [q.field for q in report.questions]
    assert len(fields) == len(set(fields))
    assert {"fleet.power_units", "fleet.dot_number", "prior_claims"} <= set(fields)
    hazmat = [q for q in report.questions if q.field == "fleet.hazmat"]
    assert hazmat and "long-haul/trucking-auto" in hazmat[0].products
    said = match({"naics": "484121", "state": "MO", "description": "Dry van freight, no hazmat."},
                 example_market(), as_of=AS_OF, lines=["AUTOB"])
    assert "fleet.hazmat" not in {q.field for q in said.questions}


def test_lines_written_as_names_are_read_as_their_codes_when_agents_type_them():
    found = read(lines_of_business=["General Liability", "workers comp", "Cyber Liability "
                                    "Insurance", "liquor_liability"])
    assert found.business["lines_of_business"] == ["CGL", "WORK", "CYBER", "LIQUR"]


def test_lines_written_as_brokers_abbreviate_them_are_read_as_their_codes():
    found = read(lines_of_business=["PROF", "LIQ", "prop", "CA", "BAP", "MPL", "DNO"])
    assert found.business["lines_of_business"] == ["EO", "LIQUR", "PROPC", "AUTOB", "AUTOB",
                                                   "EO", "DO"]


def test_amounts_written_as_text_are_read_as_numbers_when_they_are_numbers():
    found = read(annual_revenue="$1,500,000", employee_count="12")
    assert (found.business["annual_revenue"], found.business["employee_count"]) == (1_500_000, 12)
    with pytest.raises(BusinessInputError) as caught:
        read(annual_revenue="plenty")
    assert caught.value.code == "invalid_number"
