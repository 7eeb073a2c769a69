"""The session authenticator: cookie `sessionid` -> Principal, with the sliding cookie refresh.

Registered by create_app for AuthKind.SESSION, so every Session route of every area uses it.
It lives with the session it reads (table, lifetime, rotation: the accounts area's service);
only the composition root registers it for the other areas.
"""

from __future__ import annotations

import datetime

from aiohttp import hdrs, web

from insureops.platform.accounts import service
from insureops.platform.accounts.credentials import is_session_id
from insureops.platform.auth.requirements import Principal
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import CLOCK, DATABASE, REFRESH_SESSION_COOKIE, SETTINGS

COOKIE_NAME = "sessionid"


def _not_authenticated() -> ApiError:
    return ApiError(401, "not_authenticated", "Log in first: no valid session.")


def session_cookie(request: web.Request) -> str | None:
    """The request's session id: its `sessionid` cookie when that has the form of one (no
    other value is looked up or hashed)."""
    session_id = request.cookies.get(COOKIE_NAME)
    return session_id if session_id and is_session_id(session_id) else None


async def authenticate_session(request: web.Request) -> Principal:
    """The principal of the request's session cookie; 401 not_authenticated otherwise."""
    session_id = session_cookie(request)
    if session_id is None:
        raise _not_authenticated()
    now = datetime.datetime.fromtimestamp(request.config_dict[CLOCK](), tz=datetime.UTC)
    found = await service.resume_session(request.config_dict[DATABASE], now, session_id)
    if found is None:
        raise _not_authenticated()
    if found.refreshed:
        request[REFRESH_SESSION_COOKIE] = session_id
    return found.principal


def set_session_cookie(request: web.Request, response: web.StreamResponse,
                       session_id: str) -> None:
    """HttpOnly, SameSite=Lax, Secure when configured, living as long as the session."""
    response.set_cookie(
        COOKIE_NAME, session_id, max_age=int(service.SESSION_LIFETIME.total_seconds()),
        path="/", httponly=True, samesite="Lax",
        secure=request.config_dict[SETTINGS].secure_cookies)


def clear_session_cookie(request: web.Request, response: web.StreamResponse) -> None:
    response.del_cookie(COOKIE_NAME, path="/", secure=request.config_dict[SETTINGS].secure_cookies,
                        httponly=True, samesite="Lax")


async def refresh_session_cookie(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: when the session slid forward, so does the cookie's Max-Age.

    aiohttp has already turned `response.cookies` into headers when this signal runs, so the
    refreshed cookie is added as a header of its own (unless the handler set the cookie).
    """
    session_id = request.get(REFRESH_SESSION_COOKIE)
    if session_id is None:
        return
    if any(value.startswith(f"{COOKIE_NAME}=")
           for value in response.headers.getall(hdrs.SET_COOKIE, ())):
        return
    carrier = web.StreamResponse()
    set_session_cookie(request, carrier, session_id)
    response.headers.add(hdrs.SET_COOKIE, carrier.cookies[COOKIE_NAME].OutputString())
