"""MarketStore's candidate indexes: one build per market snapshot, kept while it is in use."""

from __future__ import annotations

from insureops.carrier_matching.market import Market
from insureops.platform.carrier_finder.market.store import MarketStore


def test_index_is_built_once_per_market_when_markets_follow_each_other():
    builds: list[tuple] = []
    store = MarketStore(lambda appetites: builds.append(appetites) or object())
    markets = [Market((), (), ()) for _ in range(4)]
    for market in markets:
        first = store.index(market)
        assert store.index(market) is first  # the market just indexed is never dropped
    assert len(builds) == len(markets)


def test_index_is_none_when_the_store_does_not_prune():
    assert MarketStore(None).index(Market((), (), ())) is None
