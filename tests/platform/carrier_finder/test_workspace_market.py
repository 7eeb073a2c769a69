"""A workspace's own carriers, products and appetites (workspace_id set) are seen by that workspace
alone, next to the shared market (workspace_id null)."""

from __future__ import annotations

from insureops.carrier_matching import load_market
from insureops.platform.carrier_finder.market.loading import store_market
from tests.carrier_matching.example_market import carrier_count
from tests.carrier_matching.market_texts import market_texts
from tests.platform.carrier_finder.conftest import NOW


async def test_own_market_is_visible_only_to_its_workspace_when_stored_for_it(finder):
    own = load_market(market_texts())
    async with finder.tenancy.database.unit_of_work() as uow:
        await store_market(uow.session, own, now=NOW, workspace_id=finder.member.workspace_id)
    mine = await (await finder.get("/carriers/", limit=200)).json()
    assert "alpha" in {item["id"] for item in mine["items"]} and len(mine["items"]) == carrier_count() + 1
    other = await finder.tenancy.owner("kim@other.test", "Other Agency")
    theirs = await (await finder.client.get("/api/v1/carrier_finder/carriers/",
                                            params={"limit": 200}, headers=other.headers)).json()
    assert "alpha" not in {item["id"] for item in theirs["items"]}
    assert len(theirs["items"]) == carrier_count()
    body = await (await finder.post("/match-carriers-detailed/", {
        "business": {"naics": "238210", "state": "CA"}, "lines": ["CGL"]})).json()
    assert body["results"][0]["product"]["id"] == "alpha/gl"
