"""HTTP routes of the carrier finder area: the market, search, scored matching and classification."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.carrier_finder.market_store import MarketStore
from insureops.platform.carrier_finder.startup import MARKET_STORE, STARTUP_HOOKS
from insureops.platform.keys import AREA_STARTUP
from insureops.platform.routing import RouteTable

routes = RouteTable(
    "carrier_finder",
    "Carriers, products and appetites; search, scored matching, classification and website scans.",
)


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    app = routes.build_app()
    app[MARKET_STORE] = MarketStore()
    app[AREA_STARTUP] = STARTUP_HOOKS
    return app
