"""HTTP routes of the team collaboration area: its sub-application (routes come with its issue)."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.routing import RouteTable

routes = RouteTable("team", "Workspace, members, roles and invitations.")


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    return routes.build_app()
