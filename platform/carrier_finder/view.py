"""The market a workspace sees for one request: the stored market (market/) with the workspace's
own carriers and products (own/) laid over it. Every carrier finder route reads this view, so a
listing, a search, a match and a scan see the same market.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from sqlalchemy.ext.asyncio import AsyncSession

from insureops.carrier_matching.market import Market
from insureops.carrier_matching.sources import LayeredSource, MarketSource, own_market
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.carrier_finder.own import repository as own_repository
from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct
from insureops.platform.carrier_finder.own.repository import OwnRepository
from insureops.platform.carrier_finder.own.service import (
    AppetiteState,
    CompiledCache,
    appetites,
    core_carrier,
)
from insureops.platform.http.routing import Call
from insureops.platform.keys import MARKET_STORE, OWN_APPETITES, RULE_CATALOG
from insureops.platform.records.rule_catalog import RuleCatalog


@dataclass
class View:
    """The market a workspace sees for one request: `source` to match, listings' own marks,
    and the own products that are not matched with why."""

    source: LayeredSource
    own_carriers: dict[str, WorkspaceCarrier] = field(default_factory=dict)
    own_products: dict[str, WorkspaceProduct] = field(default_factory=dict)
    appetites: dict[str, AppetiteState] = field(default_factory=dict)  # by rule id

    @property
    def market(self) -> Market:
        return self.source.market

    def state_of(self, product: WorkspaceProduct) -> AppetiteState:
        return self.appetites[product.appetite_rule_id]

    @property
    def unmatched(self) -> list[tuple[WorkspaceProduct, AppetiteState]]:
        """Active own products of active own carriers whose rule is not matched."""
        carriers = {row.id: row for row in self.own_carriers.values()}
        return [(p, self.state_of(p)) for p in self.own_products.values()
                if p.active and carriers[p.carrier_id].active
                and self.state_of(p).status != "published"]


async def workspace_view(session: AsyncSession, store: MarketStore, catalog: RuleCatalog | None,
                         cache: CompiledCache, workspace_id: str | None, *,
                         own: OwnRepository = own_repository) -> View:
    """The market `workspace_id` sees: the stored one (shared, with entries loaded for it) and
    its own carriers and products (`own`: their store), each product with its rule's published
    appetite."""
    base = await store.market(session, workspace_id)
    base_source = MarketSource(base, store.index(base))
    if workspace_id is None:
        return View(LayeredSource(base_source, Market((), (), ())))
    carriers, products = await own.own_rows(session, workspace_id)
    if not carriers:
        return View(LayeredSource(base_source, Market((), (), ())))
    by_id = {row.id: row for row in carriers}
    # each statement reads what was committed before it: a product added with its carrier after
    # the carriers' read waits for the next request
    products = [row for row in products if row.carrier_id in by_id]
    states, found = await appetites(session, catalog, cache, workspace_id,
                                    {row.appetite_rule_id for row in products})
    core_products = [row.core(by_id[row.carrier_id].slug, found[row.appetite_rule_id].path)
                     for row in products if row.appetite_rule_id in found]
    mine = own_market((core_carrier(row) for row in carriers), core_products,
                      {a.path: a for a in found.values()}.values())
    return View(LayeredSource(base_source, mine), {row.slug: row for row in carriers},
                {row.slug: row for row in products}, states)


def market_store(call: Call) -> MarketStore:
    return cast(MarketStore, call.request.config_dict[MARKET_STORE])


def compiled_cache(call: Call) -> CompiledCache:
    return cast(CompiledCache, call.request.config_dict[OWN_APPETITES])


def rule_catalog(call: Call) -> RuleCatalog | None:
    return call.request.config_dict.get(RULE_CATALOG)


async def view_for(call: Call) -> View:
    """The market the session's workspace sees, with its own carriers and products."""
    store, catalog, cache = market_store(call), rule_catalog(call), compiled_cache(call)
    workspace_id = call.principal.active_workspace_id
    return await call.read(lambda uow: workspace_view(uow.session, store, catalog, cache,
                                                      workspace_id))
