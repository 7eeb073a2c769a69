"""POST /match-carriers-detailed/ through HTTP on both engines: ranking and reasons for known
businesses (issue 13), schema failures per field, lines, limit and explain."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.carrier_matching.example_market import product_count
from tests.carrier_matching.test_matching import ELECTRICIAN, KNOWN, RESTAURANT

DECISIONS = {"accept": 0, "refer": 1, "decline": 2}


@pytest.mark.parametrize("name", ["electrician", "restaurant"])
async def test_match_route_ranks_known_businesses_when_the_example_market_is_stored(
        finder, name, snapshot):
    response = await finder.post("/match-carriers-detailed/", {"business": KNOWN[name],
                                                               "limit": 12})
    assert response.status == 200, await response.text()
    body = await response.json()
    # the service prunes with the rule-derived index: a pruned product is a decline too
    assert body["considered"] == product_count() and body["pruned"] > 0 and body["elapsed_ms"] > 0
    assert [f"{r['decision']} {r['score']:g} {r['carrier']['id']} {r['product']['id']} "
            f"{r['product']['line']}: {r['reasons'][0]}" for r in body["results"]] == snapshot


async def test_match_route_returns_declines_last_with_reasons_when_no_limit_is_given(finder):
    body = await (await finder.post("/match-carriers-detailed/", {"business": RESTAURANT})).json()
    ranks = [DECISIONS[r["decision"]] for r in body["results"]]
    assert ranks == sorted(ranks) and ranks[-1] == 2
    assert all(r["reasons"] for r in body["results"] if r["decision"] == "decline")
    top = body["results"][0]
    assert set(top) >= {"carrier", "product", "decision", "score", "reasons", "outputs"}
    assert set(top["carrier"]) == {"id", "name", "rating"} and "trace" not in top or \
        top["trace"] is None


async def test_match_route_answers_400_with_a_detail_per_field_when_the_business_is_invalid(
        finder):
    business = dict(ELECTRICIAN, naics="23821X", annual_revenue=-5, employee_count=-1,
                    nickname="Sparky")
    response = await finder.post("/match-carriers-detailed/", {"business": business})
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "validation_error"
    fields = {detail["field"] for detail in error["details"]}
    assert {"business.naics", "business.annual_revenue", "business.employee_count",
            "business.nickname"} <= fields


async def test_match_route_matches_only_the_lines_asked_for_when_lines_are_given(finder):
    body = await (await finder.post("/match-carriers-detailed/", {
        "business": ELECTRICIAN, "lines": ["WORK"]})).json()
    assert {r["product"]["line"] for r in body["results"]} == {"WORK"}
    unknown = await finder.post("/match-carriers-detailed/", {"business": ELECTRICIAN,
                                                              "lines": ["NOPE"]})
    assert unknown.status == 400


async def test_match_route_adds_the_trace_when_explain_is_true(finder):
    body = await (await finder.post("/match-carriers-detailed/", {
        "business": ELECTRICIAN, "explain": True, "limit": 2})).json()
    assert len(body["results"]) == 2 and all(r["trace"] for r in body["results"])


async def test_match_route_answers_401_when_there_is_no_session(finder):
    response = await finder.client.post("/api/v1/carrier_finder/match-carriers-detailed/",
                                        json={"business": ELECTRICIAN})
    assert response.status == 401


class OnlyGranite:
    """A candidate index keeping Granite Trades' liability appetite: the pruning seam."""

    def __init__(self, appetites) -> None:
        self.names = {a.name for a in appetites}

    def candidates(self, business) -> frozenset[str]:
        return frozenset({"appetite.granite_trades.trades_gl"}) & self.names

    def why_pruned(self, name: str, business) -> str:
        return f"{name} writes no NAICS {business.get('naics')}"

    def screen(self, business) -> SimpleNamespace:
        return SimpleNamespace(candidates=self.candidates(business),
                               why=lambda name: self.why_pruned(name, business))

    def for_criteria(self, naics=None, state=None) -> frozenset[str]:
        return self.candidates({"naics": naics, "state": state})


async def test_match_route_prunes_with_the_index_when_the_area_is_given_an_index_builder(
        aiohttp_client, settings):
    from insureops.platform.app import Area
    from insureops.platform.carrier_finder import routes as finder_routes
    from tests.platform.carrier_finder.conftest import Finder, start_finder
    from tests.platform.workspaces import cheap_areas

    areas = tuple(Area(a.prefix, lambda: finder_routes.create_app(OnlyGranite))
                  if a.prefix == "/api/v1/carrier_finder" else a for a in cheap_areas())
    finder: Finder = await start_finder(aiohttp_client, settings, areas=areas)
    body = await (await finder.post("/match-carriers-detailed/", {"business": ELECTRICIAN})).json()
    assert body["considered"] == product_count() and body["pruned"] > 0
    evaluated = {r["product"]["id"] for r in body["results"] if r["evaluated"]}
    assert "granite-trades/trades-gl" in evaluated and "granite-trades/trades-wc" not in evaluated
    pruned = next(r for r in body["results"] if "pruned" in r["tags"])
    assert pruned["decision"] == "decline" and pruned["reasons"][0].endswith("NAICS 238210")
    search = await (await finder.post("/search/", {"naics": "238210"})).json()
    assert search["index"] == "pruning"
    assert {r["appetite"] for r in search["results"]} == {"appetite.granite_trades.trades_gl"}


async def test_match_route_reads_what_the_core_reads_and_answers_as_a_broker_reads(finder):
    """Issue 32: a state by name, amounts as text, per-line requests and questions are read as
    the core reads them; the answer carries the questions, the warnings, each product's
    strength, access, where to submit and minimum premium, and the results by carrier."""
    business = dict(ELECTRICIAN, state="arizona", naics="238210", annual_revenue="$1,750,000",
                    requests=[{"line": "general liability", "limit": 1_000_000}],
                    operations={"subcontracted_percent": 10}, fleet={"power_units": 2},
                    property={"construction": "brick", "year_built": 1998},
                    cyber={"mfa": True}, payroll_by_class=[{"code": "5190", "payroll": 620000}])
    response = await finder.post("/match-carriers-detailed/", {"business": business,
                                                               "limit": 8})
    assert response.status == 200, await response.text()
    body = await response.json()
    assert any("read as AZ" in w for w in body["warnings"])
    assert any("annual_revenue" in w for w in body["warnings"])
    top = body["results"][0]
    assert top["decision"] == "accept" and top["strength"] in {"preferred", "standard", "limited"}
    assert top["access"]["path"] in {"direct", "wholesaler", "mga"} and top["access"]["text"]
    assert top["submit"] and top["minimum_premium"] > 0 and top["max_limit"] >= 1_000_000
    assert "1000000.0" not in " ".join(top["reasons"])
    carriers = body["carriers"]
    assert carriers[0]["id"] == top["carrier"]["id"] and carriers[0]["decision"] == "accept"
    assert carriers[0]["underwriter"] and carriers[0]["submit"] and carriers[0]["guide"]
    assert carriers[0]["products"][0]["minimum_premium"].startswith("$")
    assert sum(len(c["products"]) for c in carriers) == len(body["results"])
    for question in body["questions"]:
        assert question["field"] and question["text"] and question["products"]


async def test_match_route_asks_the_client_what_would_change_a_decision(finder):
    restaurant = {key: value for key, value in RESTAURANT.items() if key != "operations"}
    body = await (await finder.post("/match-carriers-detailed/", {
        "business": restaurant, "lines": ["LIQUR"]})).json()
    fields = {question["field"] for question in body["questions"]}
    assert "operations.liquor_sales_percent" in fields
    asking = [r for r in body["results"] if r["decision"] != "decline" and r["questions"]]
    assert asking and all(q.startswith("Ask the client: ") for r in asking
                          for q in r["questions"])


@pytest.mark.parametrize(("field", "value"), [
    ("naics", "999999"), ("state", "Atlantis"), ("annual_revenue", "a lot")])
async def test_match_route_refuses_a_business_it_cannot_read_naming_the_field(
        finder, field, value):
    response = await finder.post("/match-carriers-detailed/", {
        "business": dict(ELECTRICIAN, **{field: value})})
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "business_invalid"
    assert error["details"][0]["field"] == f"business.{field}"
    assert value in error["details"][0]["message"]


async def test_match_route_maps_a_naics_2017_code_with_a_warning(finder):
    body = await (await finder.post("/match-carriers-detailed/", {
        "business": dict(ELECTRICIAN, naics="453998")})).json()
    assert any("453998" in warning and "2017" in warning for warning in body["warnings"])
