"""Refuses unsafe requests sent from a foreign web page (cross-site request forgery).

A browser adds `Origin` to cross-site POST/PUT/PATCH/DELETE requests and attaches cookies to
them; refusing foreign origins keeps another site from acting with a user's session, and also
from logging a victim into an attacker's account (login CSRF). Allowed: no Origin header (not a
browser, or a same-origin navigation), the service's own origin, and `allowed_origins`.

The route pipeline runs the check before authenticating. It is skipped only on routes that
authenticate by the `Authorization` header alone (API keys, identity-provider JWTs): a browser
never adds that header by itself, so such requests cannot be forged cross-site, and the browser
extension's origin is not a web page's. The mere presence of the header skips nothing: on a
session route the cookie would still authenticate a forged `Authorization: x` (issue 17).
"""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import AuthKind, AuthRequirement
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import SETTINGS

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# Requirements met only by the Authorization header: no cookie can authenticate these routes.
HEADER_AUTHENTICATED = frozenset({AuthKind.API_KEY, AuthKind.JWT})


def origin_allowed(origin: str, own_origin: str, allowed: tuple[str, ...]) -> bool:
    """Exact scheme://host[:port] match; the opaque origin "null" never matches."""
    origin = origin.strip().rstrip("/")
    return origin != "null" and (origin == own_origin or origin in allowed)


def check_origin(request: web.Request, requirement: AuthRequirement) -> None:
    """403 origin_not_allowed for an unsafe request from a foreign origin to a route that a
    cookie (or nothing) authenticates."""
    origin = request.headers.get("Origin")
    if (origin is None or request.method in SAFE_METHODS
            or requirement.kind in HEADER_AUTHENTICATED):
        return
    own = f"{request.scheme}://{request.host}"
    if not origin_allowed(origin, own, request.config_dict[SETTINGS].allowed_origins):
        raise ApiError(403, "origin_not_allowed", f"Requests from origin {origin} are refused.")
