"""`insureops classify` (issue 33): the offline classifier from the command line."""

from __future__ import annotations

import json

from click.testing import CliRunner

from insureops.carrier_matching.classifier import classify
from insureops.platform.carrier_finder.market.payloads import ClassifyResponse
from insureops.platform.cli import main

ELECTRICIAN = "Residential electrical panel upgrades and wiring"


def _invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["classify", *args], input=stdin, catch_exceptions=False)


def test_classify_prints_ranked_codes_best_first_when_the_trade_is_named():
    result = _invoke(ELECTRICIAN, "--name", "Bright Spark Electric", "--limit", "2")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("238210  ") and lines[0].endswith("Wiring Installation Contractors")


def test_classify_json_is_the_classify_routes_shape_with_the_same_codes_when_asked():
    result = _invoke("-", "--json", stdin="we fix leaking pipes and install water heaters")
    assert result.exit_code == 0, result.stderr
    answer = ClassifyResponse.model_validate(json.loads(result.stdout))
    assert answer.method == "offline"
    expected = classify("we fix leaking pipes and install water heaters")
    assert [(r.naics, r.confidence) for r in answer.results] == [
        (r.naics, r.confidence) for r in expected]


def test_classify_exits_1_with_a_hint_when_no_code_fits():
    result = _invoke("xyzzy plugh")
    assert result.exit_code == 1
    assert result.stdout == "" and "no NAICS code fits" in result.stderr


def test_classify_refuses_a_blank_or_oversized_description_with_exit_2():
    assert _invoke("   ").exit_code == 2
    assert _invoke("-", stdin="plumbing " * 2000).exit_code == 2
