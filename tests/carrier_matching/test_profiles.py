"""The agent-facing manifest fields (issue 32): type, access, territories, submission, guide
dates, product strength; and the market's wholesalers and MGAs in intermediaries.toml."""

from __future__ import annotations

from datetime import date

from insureops.carrier_matching import check_market
from insureops.carrier_matching.manifest import parse_manifest
from insureops.carrier_matching.profiles import parse_intermediaries
from tests.carrier_matching.market_texts import MANIFEST, market_texts

PATH = "alpha/carrier.toml"
WHOLESALER = """\
[[intermediaries]]
id = "crossroads"
name = "Crossroads Wholesale"
kind = "wholesaler"
states = "all"
contact = "Renata Volkova"
email = "submit@crossroads.example"
"""


def codes(result) -> list[str]:
    return sorted(p.code for p in result.problems)


def test_profile_is_read_when_the_manifest_has_every_field():
    carrier = parse_manifest(PATH, MANIFEST).carrier
    profile = carrier.profile
    assert (profile.type, profile.access.path, profile.access.via) == ("regional", "direct", None)
    assert profile.submission_email == "submissions@alpha.example"
    assert (profile.guide_effective, profile.guide_reviewed) == (date(2025, 7, 1), date(2026, 1, 15))
    assert profile.territory("TX").underwriter == "Ada Quill" and profile.territory("NY") is None
    assert {p.strength for p in parse_manifest(PATH, MANIFEST).products} == {"standard"}


def test_missing_profile_fields_are_each_reported_when_left_out():
    text = MANIFEST.replace('type = "regional"\n', "").replace(
        'submission_email = "submissions@alpha.example"\n', "").replace(
        'strength = "standard"\n', "", 1)
    result = parse_manifest(PATH, text)
    messages = " ".join(p.message for p in result.problems)
    assert "carrier.type" in messages and "submission_email" in messages
    assert "products[0].strength" in messages


def test_unknown_values_are_refused_when_type_access_or_strength_is_misspelt():
    text = MANIFEST.replace('type = "regional"', 'type = "local"').replace(
        'access = "direct"', 'access = "broker"').replace('strength = "standard"', 'strength = "hot"', 1)
    assert codes(parse_manifest(PATH, text)) == ["invalid_field"] * 3


def test_access_through_a_wholesaler_needs_via_when_not_direct():
    text = MANIFEST.replace('access = "direct"', 'access = "wholesaler"')
    assert "needs `via`" in parse_manifest(PATH, text).problems[0].message


def test_surplus_lines_carrier_must_be_typed_e_and_s_when_its_market_says_so():
    text = MANIFEST.replace('market = "admitted"', 'market = "surplus_lines"')
    assert any("excess_and_surplus" in p.message for p in parse_manifest(PATH, text).problems)


def test_guide_review_before_its_effective_date_is_refused_when_dates_are_swapped():
    text = MANIFEST.replace("guide_reviewed = 2026-01-15", "guide_reviewed = 2024-01-15")
    assert codes(parse_manifest(PATH, text)) == ["invalid_field"]
    quoted = MANIFEST.replace("guide_effective = 2025-07-01", 'guide_effective = "2025-07-01"')
    assert "must be a date" in parse_manifest(PATH, quoted).problems[0].message


def test_territories_must_cover_every_state_once_when_the_carrier_lists_them():
    uncovered = MANIFEST.replace('states = ["TX", "CA"]', 'states = ["TX"]')
    assert "no territory covers CA" in parse_manifest(PATH, uncovered).problems[0].message
    twice = MANIFEST + '\n[[territories]]\nname = "Again"\nstates = ["CA"]\nunderwriter = "B"\n' \
        'email = "b@alpha.example"\n'
    assert "one underwriter a state" in parse_manifest(PATH, twice).problems[0].message


def test_via_must_name_an_intermediary_of_the_market_when_checked():
    texts = market_texts()
    texts["alpha/carrier.toml"] = MANIFEST.replace(
        'access = "direct"', 'access = "wholesaler"\nvia = "crossroads"')
    report = check_market(texts, run_tests=False)
    assert [p.code for p in report.problems] == ["unknown_intermediary"]
    texts["intermediaries.toml"] = WHOLESALER
    report = check_market(texts, run_tests=False)
    assert report.ok and report.market.intermediary("crossroads").kind == "wholesaler"
    texts["intermediaries.toml"] = WHOLESALER.replace('"wholesaler"', '"mga"')
    assert [p.code for p in check_market(texts, run_tests=False).problems] == [
        "unknown_intermediary"]


def test_intermediaries_are_checked_field_by_field_when_malformed():
    found, problems = parse_intermediaries("intermediaries.toml", WHOLESALER.replace(
        'kind = "wholesaler"', 'kind = "broker"').replace("submit@", "submit-at-"))
    assert found == [] and sorted(p.code for p in problems) == ["invalid_field", "invalid_field"]
