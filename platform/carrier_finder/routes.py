"""HTTP routes of the carrier finder area: its sub-areas' tables (market/, scan/, own/) served as
one, and the area's sub-application with the state they share (docs/carrier-finder.md)."""

from __future__ import annotations

import asyncio
from typing import cast

from aiohttp import web

from insureops.carrier_matching.pruning import index_market_appetites
from insureops.platform.carrier_finder.market import routes as market
from insureops.platform.carrier_finder.market.appetite_cache import AppetiteCache, shared_cache
from insureops.platform.carrier_finder.market.startup import STARTUP_HOOKS, warm_market
from insureops.platform.carrier_finder.market.store import MarketStore
from insureops.platform.carrier_finder.own import routes as own
from insureops.platform.carrier_finder.own.service import CompiledCache
from insureops.platform.carrier_finder.scan import routes as scan
from insureops.platform.http.routing import RouteTable
from insureops.platform.keys import AREA_STARTUP, MARKET_STORE, OWN_APPETITES

routes = RouteTable(
    "carrier_finder",
    "Carriers, products and appetites; search, scored matching, classification and website scans.",
)
for sub_area in (market, scan, own):  # in this order: the OpenAPI document lists them so
    routes.include(sub_area.routes)


def create_app(index_builder=index_market_appetites,
               appetite_cache: AppetiteCache | None = None) -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app; `index_builder`
    (appetites -> candidate index, carrier_matching.pruning) prunes, None evaluates every
    candidate (the benchmark's comparison); `appetite_cache` keeps checked appetites and their
    compiled code between runs (default: the user's, shared with the CLI)."""
    app = routes.build_app()
    store = MarketStore(index_builder, appetite_cache or shared_cache())
    app[MARKET_STORE] = store
    app[OWN_APPETITES] = CompiledCache()
    app[AREA_STARTUP] = (*STARTUP_HOOKS, warm_market(store))
    app.on_shutdown.append(_stop_warming)  # before the database closes (cleanup)
    app.on_cleanup.append(_stop_threads)
    return app


async def _stop_warming(app: web.Application) -> None:
    """Cancel the start-up warm-up and wait for it, while the database is still open."""
    store = cast(MarketStore, app[MARKET_STORE])
    store.stopping = True  # the thread compiling the market stops at the next appetite
    tasks = list(store.warming)
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=10)


async def _stop_threads(app: web.Application) -> None:
    cast(MarketStore, app[MARKET_STORE]).threads.close()
    cast(MarketStore, app[MARKET_STORE]).warm_threads.close()
    cast(CompiledCache, app[OWN_APPETITES]).threads.close()
