"""HTTP routes of the mcp v2 tenant api area (its sub-application; routes are added by its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable("mcp", "The tenant API (MCP v2): clients and policies, with an API key.")


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
