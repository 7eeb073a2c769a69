"""HTTP routes of the rule studio area (its sub-application; routes are added by its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable("rules_studio", "Rules: CRUD, simulate and execute.")


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
