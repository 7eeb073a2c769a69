"""HTTP routes of the accounts area: thin handlers over the session principal and services."""

from __future__ import annotations

from aiohttp import web

from insureops.platform.accounts.payloads import ProfileResponse
from insureops.platform.auth import Auth
from insureops.platform.routing import Call, RouteTable

routes = RouteTable(
    "accounts",
    "Sign-up with e-mail verification, login sessions, logout and the profile.",
)


@routes.get("/profile/", response=ProfileResponse, auth=Auth.SESSION,
            summary="Current user profile",
            description="The user, their workspaces with roles, and the active workspace.")
async def profile(call: Call[None, None]) -> ProfileResponse:
    return ProfileResponse.from_principal(call.principal)


def create_app() -> web.Application:
    """The area's sub-application, mounted at /api/auth by insureops.platform.app.create_app."""
    return routes.build_app()
