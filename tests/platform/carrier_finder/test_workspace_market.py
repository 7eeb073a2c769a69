"""A workspace's own carriers, products and appetites (workspace_id set) are seen by that workspace
alone, next to the shared market (workspace_id null)."""

from __future__ import annotations

import threading

from insureops.carrier_matching import load_market
from insureops.platform.carrier_finder.market.appetite_cache import shared_cache
from insureops.platform.carrier_finder.market.loading import store_market
from insureops.platform.carrier_finder.market.store import MarketStore
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


async def test_a_workspace_shares_the_shared_snapshot_until_it_stores_entries_of_its_own(finder):
    """After a restart the warm-up reads (and indexes) the shared market once; a workspace
    without entries of its own gets that very snapshot, not a copy read and indexed again. The
    store reads checked appetites through the service's appetite cache, as the service's does
    (its own checking of the whole example market cost 10 s and proved nothing here)."""
    store = MarketStore(None, shared_cache())
    async with finder.tenancy.database.unit_of_work() as uow:
        shared = await store.market(uow.session, None)
        assert await store.market(uow.session, finder.member.workspace_id) is shared
    async with finder.tenancy.database.unit_of_work() as uow:
        await store_market(uow.session, load_market(market_texts()), now=NOW,
                           workspace_id=finder.member.workspace_id)
    async with finder.tenancy.database.unit_of_work() as uow:
        mine = await store.market(uow.session, finder.member.workspace_id)
        assert mine is not shared and mine.carrier("alpha") is not None
        assert await store.market(uow.session, None) is shared


def test_the_warm_up_waits_while_a_match_runs():
    store = MarketStore(None)
    market = load_market(market_texts())
    with store.matching():
        waiting = threading.Thread(target=store.compile_all, args=(market,))
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive()  # paused: the match has the interpreter
    waiting.join(30)
    assert not waiting.is_alive()
    assert all(appetite.ruleset.is_compiled for appetite in market.appetites
               if hasattr(appetite.ruleset, "is_compiled"))


def test_the_warm_up_stops_compiling_when_the_service_stops_even_while_a_match_runs():
    store = MarketStore(None)
    market = load_market(market_texts())
    with store.matching():
        waiting = threading.Thread(target=store.compile_all, args=(market,))
        waiting.start()
        store.stopping = True  # what the area's shutdown sets
        waiting.join(30)
        assert not waiting.is_alive()
    assert store.compile_all(market) == 0
    assert not any(appetite.ruleset.is_compiled for appetite in market.appetites
                   if hasattr(appetite.ruleset, "is_compiled"))
