"""HTTP routes of the MCP v2 tenant API: its sub-application (routes come with its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable("mcp", "The tenant API (MCP v2): clients and policies, with an API key.")


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
