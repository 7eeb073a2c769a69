"""The invitation page at `/invitations/<id>/accept?token=...` and its assets (package data).

The team's invitation e-mail links here (platform/team/invitations.py `accept_link`). The page
is a static shell: its own small bundle (built from web/src/invitation/, committed under
static/) logs in or creates the account and POSTs the token to the team's accept route, all on
the same origin. Nothing about the invitation is rendered by the server, so the page answers the
same for any id and token: the accept route alone judges them. A strict Content-Security-Policy
allows only this origin's script, style and fetches; `Referrer-Policy: no-referrer` keeps the
token out of any request the page makes, and the script drops it from the address bar.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web
from pydantic import BaseModel, Field

from insureops.platform.auth.requirements import Auth
from insureops.platform.http.pages import asset_version, page_asset
from insureops.platform.http.routing import Call, RouteTable

STATIC = Path(__file__).with_name("static")
ASSETS = {"invitation.js": "text/javascript", "invitation.css": "text/css"}
POLICY = "; ".join(("default-src 'none'", "script-src 'self'", "style-src 'self'",
                    "img-src 'self' data:", "connect-src 'self'", "form-action 'self'",
                    "base-uri 'none'", "frame-ancestors 'none'"))
SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                    "X-Frame-Options": "DENY"}

routes = RouteTable("invitation_web", "The page an invitation e-mail links to.")


class PagePath(BaseModel):
    invitation_id: str = Field(pattern="^[0-9A-Za-z]{26}$",
                               description="The invitation's id, a ULID (the page reads it "
                               "from its address; the accept route checks it).")


class AssetPath(BaseModel):
    filename: str = Field(pattern="^[A-Za-z0-9._-]+$", description="An invitation page asset.")


def invitation_page() -> str:
    """The page shell: the bundle fills `#app`."""
    js, css = (f"/invitations/assets/{name}?v={asset_version(STATIC, name)}"
               for name in ("invitation.js", "invitation.css"))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join a workspace · insureops</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{css}">
<script type="module" src="{js}"></script>
</head>
<body>
<main id="app"><noscript>Accepting an invitation needs JavaScript.</noscript></main>
</body>
</html>
"""


@routes.get("/{invitation_id}/accept", response=None, auth=Auth.NONE, path_model=PagePath,
            content_type="text/html", summary="The invitation page (the e-mailed link)",
            description="Log in or create the account, then accept: the page POSTs the "
            "link's token to /api/team/invitations/<id>/accept/.")
async def page(call: Call[None, None]) -> web.Response:
    headers = {"Content-Security-Policy": POLICY, "Cache-Control": "no-store", **SECURITY_HEADERS}
    return web.Response(text=invitation_page(), content_type="text/html", headers=headers)


@routes.get("/assets/{filename}", response=None, auth=Auth.NONE, path_model=AssetPath,
            content_type="application/octet-stream", summary="An invitation page asset")
async def asset(call: Call[None, None]) -> web.StreamResponse:
    return page_asset(STATIC, ASSETS, call.path.filename, SECURITY_HEADERS)


def create_app() -> web.Application:
    """The page's sub-application, mounted at /invitations by insureops.platform.app."""
    return routes.build_app()
