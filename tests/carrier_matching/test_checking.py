"""check_market over a folder's texts: a clean market loads, and each kind of problem is reported
with its file, line and column."""

from __future__ import annotations

from datetime import date

import pytest

from insureops.carrier_matching import MarketInvalidError, check_market, content_hash, load_market
from tests.carrier_matching.market_texts import APPETITE, market_texts

AS_OF = date(2026, 3, 1)


def problems(texts: dict[str, str]) -> list[tuple[str, int | None, int | None, str]]:
    report = check_market(texts, as_of=AS_OF)
    assert report.market is None
    return [(p.file, p.line, p.column, p.code) for p in report.problems]


def test_market_loads_when_every_file_checks():
    report = check_market(market_texts(), as_of=AS_OF)
    assert report.ok and report.tests_run == 1
    market = report.market
    assert [c.id for c in market.carriers] == ["alpha"]
    assert [p.id for p in market.products] == ["alpha/gl", "alpha/umbrella"]
    (appetite,) = market.appetites
    assert appetite.name == "appetite.alpha.electricians"
    assert appetite.content_hash == content_hash(APPETITE) and len(appetite.content_hash) == 64
    assert market.appetite("alpha/electricians.rules") is appetite
    result = appetite.ruleset.evaluate({"business": {"naics": "238210"}})
    assert result.decision == "accept"


def test_broken_appetite_is_reported_with_file_line_and_column_when_a_field_is_misspelt():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("business.naics ==", "business.nacis ==")
    assert problems(texts) == [("alpha/electricians.rules", 8, 6, "E104")]
    rendered = check_market(texts).problems[0].render()
    assert rendered.startswith("alpha/electricians.rules:8:6: error[E104]: unknown field `nacis`")
    assert "did you mean `naics`?" in rendered


def test_appetite_warning_is_a_problem_when_a_rule_can_never_fire():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace(
        "business.requested_limit > MAX_LIMIT",
        "business.requested_limit > MAX_LIMIT and business.requested_limit < 10")
    report = check_market(texts, as_of=AS_OF)
    assert [(p.code, p.severity, p.line) for p in report.problems] == [("W200", "warning", 14)]
    assert report.market is None


def test_failing_embedded_test_is_reported_at_the_test_when_its_expectation_is_wrong():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("score == 30", "score == 35")
    assert problems(texts) == [("alpha/electricians.rules", 20, 1, "appetite_test_failed")]
    message = check_market(texts, as_of=AS_OF).problems[0].message
    assert 'test "an electrician is accepted" failed' in message and "score = 30" in message


def test_embedded_tests_are_skipped_when_not_asked_for():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("score == 30", "score == 35")
    report = check_market(texts, run_tests=False)
    assert report.ok and report.tests_run == 0


def test_unknown_appetite_is_reported_at_the_product_when_the_file_is_missing():
    texts = market_texts()
    texts["alpha/carrier.toml"] = texts["alpha/carrier.toml"].replace(
        'appetite = "electricians.rules"\nstrength', 'appetite = "electrician.rules"\nstrength', 1)
    assert problems(texts) == [("alpha/carrier.toml", 27, 1, "unknown_appetite")]


def test_unused_appetite_is_reported_when_no_product_names_it():
    texts = market_texts()
    texts["alpha/spare.rules"] = APPETITE.replace("appetite.alpha.electricians", "appetite.alpha.spare")
    assert problems(texts) == [("alpha/spare.rules", None, None, "unused_appetite")]


def test_limit_mismatch_is_reported_when_a_product_maximum_differs_from_its_appetite():
    texts = market_texts()
    texts["alpha/carrier.toml"] = texts["alpha/carrier.toml"].replace(
        "max_limit = 1_000_000\nappetite", "max_limit = 2_000_000\nappetite", 1)
    assert problems(texts) == [("alpha/carrier.toml", 26, 1, "limit_mismatch")]


def test_appetite_must_read_one_business_when_it_declares_other_inputs():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace(
        "input business: Business", "input business: Business\ninput claim: Claim")
    assert problems(texts) == [("alpha/electricians.rules", 1, 1, "appetite_input")]


def test_duplicate_ruleset_names_are_reported_when_two_carriers_share_one():
    texts = market_texts()
    texts["beta/carrier.toml"] = texts["alpha/carrier.toml"].replace('"alpha"', '"beta"').replace(
        '"11111"', '"22222"')
    texts["beta/electricians.rules"] = APPETITE
    assert problems(texts) == [("beta/electricians.rules", 1, 1, "duplicate_id")]


def test_appetite_without_tests_is_a_problem_when_it_shows_no_decision():
    texts = market_texts()
    source = APPETITE
    texts["alpha/electricians.rules"] = source[:source.index("test ")]
    assert problems(texts) == [("alpha/electricians.rules", 1, 1, "appetite_untested")]


def test_appetites_without_a_manifest_are_reported_when_a_folder_has_none():
    texts = market_texts()
    texts["gamma/x.rules"] = APPETITE.replace("appetite.alpha.electricians", "appetite.gamma.x")
    assert problems(texts) == [("gamma", None, None, "missing_manifest")]


def test_load_market_raises_every_problem_when_the_market_is_broken():
    texts = market_texts()
    texts["alpha/electricians.rules"] = APPETITE.replace("business.naics ==", "business.nacis ==")
    texts["alpha/carrier.toml"] = texts["alpha/carrier.toml"].replace('"CGL"', '"GL"')
    with pytest.raises(MarketInvalidError) as raised:
        load_market(texts)
    assert [p.code for p in raised.value.problems] == ["unknown_line", "E104"]
    assert raised.value.code == "market_invalid"
