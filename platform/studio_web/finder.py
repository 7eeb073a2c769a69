"""The carrier finder page for agents: `/finder/` (`/finder` redirects) and its bundle.

A page of the same web app as the rule studio (web/src/finder.ts, built to static/finder.js by
web/build.mjs as a bundle of its own): describe a business or scan its website, answer the
questions the market asks, and read the ranked carriers with their reasons, strength, access
and where to submit. Everything comes from the public APIs on the same origin (login, classify,
scan, match, and the tenant API for saving a client), under the studio's strict
Content-Security-Policy: same-origin scripts, styles and fetches only, no CDN.
"""

from __future__ import annotations

import html
import secrets

from aiohttp import web
from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Auth
from insureops.platform.http.pages import page_asset, page_shell
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.studio_web.routes import (
    SECURITY_HEADERS,
    STATIC,
    content_security_policy,
)

ASSETS = {"finder.js": "text/javascript", "finder.css": "text/css"}

routes = RouteTable("finder_web", "The carrier finder page for agents (HTML and its bundle).")


class AssetPath(BaseModel):
    filename: str = Field(pattern="^[A-Za-z0-9._-]+$", description="A finder page asset file.")


def finder_page(nonce: str) -> str:
    """The page shell: landmarks and a live region; the bundle fills `#app`."""
    return page_shell(STATIC, nonce, "Carrier finder", "finder")


@routes.get("/", response=None, auth=Auth.NONE, content_type="text/html",
            summary="The carrier finder page for agents",
            description="Logs in through /api/auth/ and works through the carrier finder API.")
async def finder_index(call: Call[None, None]) -> web.Response:
    nonce = secrets.token_urlsafe(16)
    headers = {"Content-Security-Policy": content_security_policy(nonce),
               "Cache-Control": "no-store", **SECURITY_HEADERS}
    return web.Response(text=finder_page(nonce), content_type="text/html", headers=headers)


@routes.get("", response=None, auth=Auth.NONE, status=301, content_type="text/html",
            summary="The carrier finder page without its trailing slash: redirects to /finder/")
async def finder_redirect(call: Call[None, None]) -> web.Response:
    query = call.request.rel_url.raw_query_string
    location = "/finder/" + (f"?{query}" if query else "")
    link = html.escape(location)
    return web.Response(status=301, text=f'<!DOCTYPE html><a href="{link}">{link}</a>',
                        content_type="text/html", headers={"Location": location,
                                                           **SECURITY_HEADERS})


@routes.get("/assets/{filename}", response=None, auth=Auth.NONE, path_model=AssetPath,
            content_type="application/octet-stream", summary="A carrier finder page asset")
async def finder_asset(call: Call[None, None]) -> web.StreamResponse:
    return page_asset(STATIC, ASSETS, call.path.filename, SECURITY_HEADERS)


def create_app() -> web.Application:
    """The page's sub-application, mounted at /finder by insureops.platform.app.create_app."""
    return routes.build_app()
