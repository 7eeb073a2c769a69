"""The public API: check_source, compile_ruleset (end to end with the engine), the cache."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from insureops.dsl import api, compile_ruleset
from insureops.dsl.errors import DslError, RulesetInvalidError
from insureops.schema.registry import default_registry

SMALL_ELECTRICIAN = {"naics": "238210", "state": "CA", "annual_revenue": 900000,
                     "employee_count": 6, "years_in_business": 8, "prior_claims": []}
AS_OF = date(2025, 6, 1)  # inside young_business's effective window


def test_spec_example_runs_end_to_end_when_compiled(spec_source):
    compiled = compile_ruleset(spec_source, filename="acme.rules")
    outcomes = compiled.run_tests(as_of=AS_OF)
    assert [(o.description, o.passed) for o in outcomes] == [
        ("small electrician in CA is accepted", True)]
    result = compiled.evaluate({"business": SMALL_ELECTRICIAN}, as_of=AS_OF)
    assert result.decision == "accept"
    assert result.score == Decimal(40)
    assert str(result.outputs["factor"]) == "1.20"
    assert result.outputs["tier"] == "B"
    assert result.fired == ("core_trades", "territory_factor")


def test_large_losses_decline_with_interpolated_reason_when_three_claims_are_large(spec_source):
    claims = [{"amount": 20000}] * 3
    result = compile_ruleset(spec_source).evaluate(
        {"business": {**SMALL_ELECTRICIAN, "prior_claims": claims}}, as_of=AS_OF)
    assert result.decision == "decline"
    assert result.reasons == ("3 large losses in five years",)
    assert result.fired == ("large_losses",)


def test_compile_ruleset_is_the_api_function_when_imported_from_the_package():
    assert compile_ruleset is api.compile_ruleset
    assert type(compile_ruleset).__name__ == "function"  # no callable-module trick


def test_compiled_ruleset_is_cached_when_source_and_registry_repeat(spec_source):
    first = compile_ruleset(spec_source, filename="a.rules")
    assert compile_ruleset(spec_source, filename="a.rules") is first
    assert compile_ruleset(spec_source, filename="b.rules") is not first
    other = default_registry().with_types({})
    assert compile_ruleset(spec_source, filename="a.rules", registry=other) is not first


def test_cache_evicts_the_oldest_entry_when_full(spec_source):
    cache = api.RulesetCache(size=2)
    first = cache.compile(spec_source, filename="1")
    cache.compile(spec_source, filename="2")
    cache.compile(spec_source, filename="3")
    assert len(cache) == 2
    assert cache.compile(spec_source, filename="1") is not first


def test_cache_get_answers_only_what_was_compiled_without_compiling(spec_source):
    cache = api.RulesetCache(size=2)
    assert cache.get(spec_source, filename="1") is None and len(cache) == 0
    first = cache.compile(spec_source, filename="1")
    assert cache.get(spec_source, filename="1") is first
    assert cache.get(spec_source, filename="2") is None


def test_invalid_source_raises_with_every_error_rendered_when_compiled():
    source = ("ruleset a\ninput business: Business\n"
              "rule r when business.anual_revenue > 1 and nope() then stop end\n")
    with pytest.raises(RulesetInvalidError) as raised:
        compile_ruleset(source, filename="bad.rules")
    error = raised.value
    assert isinstance(error, DslError) and error.code == "rule_invalid"
    assert [d.code for d in error.diagnostics] == ["E104", "E101"]
    assert str(error).startswith("bad.rules:3:13: error[E104]: unknown field `anual_revenue`")
    assert "bad.rules:3:44: error[E101]: unknown function `nope`" in str(error)


def test_warnings_do_not_stop_compilation_when_there_is_no_error():
    source = ("ruleset a\ninput x: Any\n"
              "rule r when x.n > 3 and x.n < 2 then accept \"never\" end\n")
    assert api.check_source(source).warnings
    assert compile_ruleset(source).evaluate({"x": {"n": 1}}).decision is None


def test_check_source_reports_instead_of_raising_when_nesting_is_extreme():
    report = api.check_source("ruleset a\nconst A = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    assert [d.code for d in report.diagnostics] == ["E007"]
    assert report.ruleset is None


def test_syntax_errors_leave_no_ruleset_when_checked():
    report = api.check_source("ruleset a\nrule r when then stop end\n")
    assert report.ruleset is None and report.errors[0].code == "E001"


def test_parse_ruleset_returns_checked_ir_when_valid_and_raises_when_not(spec_source):
    assert api.parse_ruleset(spec_source).name == "appetite.acme_contractors"
    with pytest.raises(RulesetInvalidError):
        api.parse_ruleset("ruleset a\nrule r when nope then stop end\n")
