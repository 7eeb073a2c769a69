"""The rule studio web page: `/studio/` (`/studio` redirects) and its assets, package data.

The page is a static shell; everything it shows comes from the public studio, accounts, team and
carrier finder APIs on the same origin, so writes carry the session cookie and pass the Origin
check like any other browser request. The bundle is built from web/ (npm run build) and committed.
A strict Content-Security-Policy allows only this origin's scripts, styles and fetches; the
editor's runtime styles carry a per-response nonce.
"""

from __future__ import annotations

import html
import secrets
from pathlib import Path

from aiohttp import web
from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Auth
from insureops.platform.http.pages import page_asset, page_shell
from insureops.platform.http.routing import Call, RouteTable

STATIC = Path(__file__).with_name("static")
ASSETS = {"studio.js": "text/javascript", "studio.css": "text/css"}

routes = RouteTable("studio_web", "The rule studio web page (HTML and its bundled assets).")


class AssetPath(BaseModel):
    filename: str = Field(pattern="^[A-Za-z0-9._-]+$", description="A studio page asset file.")


def content_security_policy(nonce: str) -> str:
    """Same-origin scripts, styles and fetches only; the nonce admits the editor's style sheets."""
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            f"style-src 'self' 'nonce-{nonce}'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


def studio_page(nonce: str) -> str:
    """The rule studio's page shell."""
    return page_shell(STATIC, nonce, "Rule studio", "studio")


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


@routes.get(
    "/",
    response=None,
    auth=Auth.NONE,
    content_type="text/html",
    summary="The rule studio web page",
    description="Logs in through /api/auth/ and works through the /api/rules/ API.",
)
async def studio_index(call: Call[None, None]) -> web.Response:
    nonce = secrets.token_urlsafe(16)
    headers = {
        "Content-Security-Policy": content_security_policy(nonce),
        "Cache-Control": "no-store",
        **SECURITY_HEADERS,
    }
    return web.Response(text=studio_page(nonce), content_type="text/html", headers=headers)


@routes.get(
    "",
    response=None,
    auth=Auth.NONE,
    status=301,
    content_type="text/html",
    summary="The rule studio without its trailing slash: redirects to /studio/",
)
async def studio_redirect(call: Call[None, None]) -> web.Response:
    query = call.request.rel_url.raw_query_string  # as sent: `%26` must not become `&`
    location = "/studio/" + (f"?{query}" if query else "")
    link = html.escape(location)
    return web.Response(
        status=301,
        text=f'<!DOCTYPE html><a href="{link}">{link}</a>',
        content_type="text/html",
        headers={"Location": location, **SECURITY_HEADERS},
    )


@routes.get(
    "/assets/{filename}",
    response=None,
    auth=Auth.NONE,
    path_model=AssetPath,
    content_type="application/octet-stream",
    summary="A rule studio page asset",
)
async def studio_asset(call: Call[None, None]) -> web.StreamResponse:
    return page_asset(STATIC, ASSETS, call.path.filename, SECURITY_HEADERS)


def create_app() -> web.Application:
    """The page's sub-application, mounted at /studio by insureops.platform.app.create_app."""
    return routes.build_app()
