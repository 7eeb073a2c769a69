"""Refuses unsafe requests sent from a foreign web page (cross-site request forgery).

A browser adds `Origin` to cross-site POST/PUT/PATCH/DELETE requests and attaches cookies to
them; refusing foreign origins keeps another site from acting with a user's session, and also
from logging a victim into an attacker's account (login CSRF). Allowed: no Origin header (not a
browser, or a same-origin navigation), the service's own origin, and `allowed_origins`.
Requests carrying an `Authorization` header (API keys, identity-provider JWTs) pass: a browser
never adds that header by itself, so they cannot be forged cross-site, and the browser
extension's own origin is not a web page's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from insureops.platform.errors import ApiError
from insureops.platform.keys import SETTINGS

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def origin_allowed(origin: str, own_origin: str, allowed: tuple[str, ...]) -> bool:
    """Exact scheme://host[:port] match; the opaque origin "null" never matches."""
    origin = origin.strip().rstrip("/")
    return origin != "null" and (origin == own_origin or origin in allowed)


@web.middleware
async def origin_middleware(request: web.Request,
                            handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
                            ) -> web.StreamResponse:
    """403 origin_not_allowed for an unsafe, cookie-borne request from a foreign origin."""
    origin = request.headers.get("Origin")
    if (origin is not None and request.method not in SAFE_METHODS
            and "Authorization" not in request.headers):
        own = f"{request.scheme}://{request.host}"
        if not origin_allowed(origin, own, request.config_dict[SETTINGS].allowed_origins):
            raise ApiError(403, "origin_not_allowed",
                           f"Requests from origin {origin} are refused.")
    return await handler(request)
