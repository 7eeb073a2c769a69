"""GET /carriers/, /carriers/<id>/, /products/, /appetites/ and POST /search/, /jurisdictions/,
/product-lines/ on both engines, over the example market."""

from __future__ import annotations

from insureops.carrier_matching.lines import LINES, lines_asked
from tests.carrier_matching.example_market import carrier_count, product_count
from tests.platform.carrier_finder.conftest import start_finder


async def all_pages(finder, path: str, **params) -> list[dict]:
    items, cursor = [], None
    while True:
        query = dict(params, **({"cursor": cursor} if cursor else {}))
        body = await (await finder.get(path, **query)).json()
        items += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            return items


async def test_carriers_lists_every_active_carrier_over_keyset_pages_when_paged(finder):
    items = await all_pages(finder, "/carriers/", limit=10)
    ids = [item["id"] for item in items]
    assert len(ids) == carrier_count() and ids == sorted(ids) and len(set(ids)) == len(ids)
    granite = next(item for item in items if item["id"] == "granite-trades")
    assert granite["lines"] == ["CGL", "INMRC", "UMBRC", "WORK"] and granite["product_count"] == 4


async def test_carriers_narrow_by_line_state_and_text_when_filters_are_given(finder):
    items = await all_pages(finder, "/carriers/", line="WORK", state="AZ")
    assert {"granite-trades", "copper-state-comp"} <= {item["id"] for item in items}
    assert all("WORK" in item["lines"] and "AZ" in item["states"] for item in items)
    named = await all_pages(finder, "/carriers/", q="granite")
    assert [item["id"] for item in named] == ["granite-trades"]


async def test_products_take_a_policy_line_as_all_of_its_codes_when_listed(finder):
    liability = set(lines_asked("liability"))
    by_policy_line = await all_pages(finder, "/products/", line="liability", limit=200)
    by_codes = [item for code in sorted(liability)
                for item in await all_pages(finder, "/products/", line=code, limit=200)]
    assert by_policy_line and {item["id"] for item in by_policy_line} == {
        item["id"] for item in by_codes}
    assert {item["line"] for item in by_policy_line} <= liability
    refused = await finder.get("/products/", line="no-such-line")
    assert refused.status == 400
    assert (await refused.json())["error"]["code"] == "validation_error"


async def test_carrier_detail_has_its_products_when_the_carrier_exists(finder):
    response = await finder.get("/carriers/granite-trades/")
    assert response.status == 200
    body = await response.json()
    assert [p["id"] for p in body["products"]] == [
        "granite-trades/equipment-floater", "granite-trades/trades-gl",
        "granite-trades/trades-umbrella", "granite-trades/trades-wc"]
    missing = await finder.get("/carriers/no-such-carrier/")
    assert missing.status == 404 and (await missing.json())["error"]["code"] == "not_found"


async def test_products_filter_by_naics_prefix_and_carrier_when_asked(finder):
    items = await all_pages(finder, "/products/", naics="2382", carrier="granite-trades")
    assert {item["id"] for item in items} >= {"granite-trades/trades-gl"}
    assert all(item["carrier_id"] == "granite-trades" for item in items)
    all_products = await all_pages(finder, "/products/", limit=200)
    assert len(all_products) == product_count()


async def test_appetites_carry_source_hash_and_version_when_listed(finder):
    items = await all_pages(finder, "/appetites/", carrier="granite-trades")
    names = [item["name"] for item in items]
    assert "appetite.granite_trades.trades_gl" in names
    liability = items[names.index("appetite.granite_trades.trades_gl")]
    assert liability["source"].lstrip().startswith("#") and len(liability["content_hash"]) == 64
    assert liability["version"] == 1
    assert liability["products"] == ["granite-trades/trades-gl"]  # each product its own appetite


async def test_listing_answers_400_when_the_cursor_is_mangled(finder):
    response = await finder.get("/products/", cursor="not-a-cursor")
    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "cursor"


async def test_search_returns_candidates_with_reasons_when_criteria_are_given(finder):
    response = await finder.post("/search/", {"naics": "238210", "state": "AZ", "lines": ["CGL"]})
    assert response.status == 200
    body = await response.json()
    granite = next(r for r in body["results"] if r["product"]["id"] == "granite-trades/trades-gl")
    assert granite["reasons"][:2] == ["writes CGL (Commercial General Liability)", "offered in AZ"]
    assert "238210" in granite["reasons"][2]
    assert all(r["product"]["line"] == "CGL" for r in body["results"])
    assert "cascade-green/landscape-gl" not in {r["product"]["id"] for r in body["results"]}


async def test_jurisdictions_lists_the_states_and_dc_when_no_criteria_are_given(finder):
    body = await (await finder.post("/jurisdictions/", {})).json()
    kinds = {row["code"]: row["kind"] for row in body["jurisdictions"]}
    assert len(kinds) == 51 and kinds["DC"] == "district" and kinds["TX"] == "state"
    counts = {row["code"]: row["product_count"] for row in body["jurisdictions"]}
    assert counts["TX"] > counts["VT"] > 0


async def test_jurisdictions_are_the_ones_manifests_accept_when_listed(finder):
    """Issue 30: the finder listed the territories (from the `us` package), which a carrier
    manifest refuses; its one list is the core's (carrier_matching.STATES)."""
    from insureops.carrier_matching import STATE_CODES

    body = await (await finder.post("/jurisdictions/", {})).json()
    assert {row["code"] for row in body["jurisdictions"]} == STATE_CODES


async def test_jurisdictions_narrow_to_where_the_market_has_appetite_when_criteria_are_given(
        finder):
    body = await (await finder.post("/jurisdictions/", {"naics": "721110",
                                                        "lines": ["PROPC"]})).json()
    codes = {row["code"] for row in body["jurisdictions"]}
    assert codes and all(row["product_count"] > 0 for row in body["jurisdictions"])
    assert "PR" not in codes


async def test_product_lines_count_candidate_products_when_narrowed(finder):
    everything = await (await finder.post("/product-lines/", {})).json()
    assert len(everything["product_lines"]) == len(LINES)
    assert sum(row["product_count"] for row in everything["product_lines"]) == product_count()
    narrowed = await (await finder.post("/product-lines/", {"state": "AK"})).json()
    assert narrowed["product_lines"] and all(row["product_count"] > 0
                                             for row in narrowed["product_lines"])
    assert len(narrowed["product_lines"]) < 12 or sum(
        row["product_count"] for row in narrowed["product_lines"]) < product_count()


async def test_market_routes_answer_empty_lists_when_no_market_is_stored(aiohttp_client,
                                                                        settings):
    finder = await start_finder(aiohttp_client, settings, market=False)
    assert (await (await finder.get("/carriers/")).json())["items"] == []
    body = await (await finder.post("/match-carriers-detailed/", {"business": {}})).json()
    assert (body["results"], body["considered"]) == ([], 0)
