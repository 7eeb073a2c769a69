"""HTTP routes of the prospects area (its sub-application; routes are added by its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable(
    "prospects",
    "Prospects saved by the browser extension (identity-provider JWT).",
)


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
