"""HTTP routes of the connectors area (its sub-application; routes are added by its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable(
    "connectors",
    "E-mail sending, templates and logs; bring-your-own-key LLM providers.",
)


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
