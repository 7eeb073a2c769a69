"""The finder's match and search take a policy's `line_of_business` where lines are asked for
(issue 33): `liability` is every liability ACORD code."""

from __future__ import annotations

from insureops.carrier_matching.lines import lines_of_policy_line
from tests.carrier_matching.test_matching import ELECTRICIAN

LIABILITY = set(lines_of_policy_line("liability"))


async def _match(finder, lines: list) -> tuple[int, dict]:
    response = await finder.post("/match-carriers-detailed/", {"business": ELECTRICIAN,
                                                               "lines": lines})
    return response.status, await response.json()


async def test_match_reads_a_policy_line_as_its_acord_codes_when_asked_for(finder):
    status, by_policy_line = await _match(finder, ["liability"])
    assert status == 200, by_policy_line
    status, by_codes = await _match(finder, sorted(LIABILITY))
    assert status == 200
    lines = {r["product"]["line"] for r in by_policy_line["results"]}
    assert "CGL" in lines and lines <= LIABILITY
    assert by_policy_line["considered"] == by_codes["considered"]
    assert [r["product"]["id"] for r in by_policy_line["results"]] == [
        r["product"]["id"] for r in by_codes["results"]]


async def test_match_answers_400_naming_lines_when_the_policy_line_has_no_market_line(finder):
    status, body = await _match(finder, ["life"])
    assert status == 400
    assert body["error"]["code"] == "validation_error"
    assert [d["field"] for d in body["error"]["details"]] == ["lines"]
    assert "life is a policy line" in body["error"]["details"][0]["message"]


async def test_search_reads_a_policy_line_as_its_acord_codes_when_asked_for(finder):
    response = await finder.post("/search/", {"lines": ["workers_comp"]})
    assert response.status == 200, await response.text()
    items = (await response.json())["results"]
    assert items and {item["product"]["line"] for item in items} == {"WORK"}


async def test_lines_that_are_not_strings_are_400_not_500_when_schemathesis_sends_them(finder):
    status, body = await _match(finder, [{}])
    assert status == 400 and body["error"]["code"] == "validation_error"
