"""Limits the route table cannot express alone: a second key, and counting only failures.

Uses the platform's RateLimiter and its counter table, and hangs the state on the request under
RATE_LIMIT_STATE, so the X-RateLimit-* headers and 429 bodies are the platform's own.
"""

from __future__ import annotations

from aiohttp import web
from sqlalchemy import select

from insureops.platform.errors import ApiError
from insureops.platform.keys import CLOCK, DATABASE, RATE_LIMIT_STATE, RATE_LIMITER, SETTINGS
from insureops.platform.ratelimit import (
    RateKey,
    RateLimit,
    RateLimitCounter,
    RateLimitState,
    client_address,
    counter_key,
)

SIGNUP = RateLimit("signup", 5, 3600)  # per client address; shared with /register/
RESEND_PER_EMAIL = RateLimit("resend_code", 3, 3600, key=RateKey.EMAIL)
RESEND_PER_ADDRESS = RateLimit("resend_code", 3, 3600)
LOGIN_FAILURES = RateLimit("login_failures", 10, 15 * 60, key=RateKey.EMAIL)


def _refuse(limit: RateLimit, state: RateLimitState) -> ApiError:
    return ApiError(429, "rate_limited", f"Rate limit exceeded ({limit.describe()}); retry in "
                    f"{state.retry_after} s.")


def _keep_tightest(request: web.Request, state: RateLimitState) -> None:
    """Report the counter closest to its limit in the headers."""
    current = request.get(RATE_LIMIT_STATE)
    if current is None or state.remaining <= current.remaining:
        request[RATE_LIMIT_STATE] = state


async def count_client_address(request: web.Request, limit: RateLimit) -> None:
    """Count a second limit, per client address, next to the route's own; 429 when exceeded."""
    settings = request.config_dict[SETTINGS]
    subject = client_address(request, trusted_proxy=settings.trusted_proxy)
    state = await request.config_dict[RATE_LIMITER].hit(limit, subject)
    _keep_tightest(request, state)
    if state.exceeded:
        raise _refuse(limit, state)


async def ensure_login_allowed(request: web.Request, email: str) -> None:
    """Refuse (429) a login for an e-mail that used up its failures in this window.

    Checked before the password, so a correct guess after the limit is refused too.
    """
    now = request.config_dict[CLOCK]()
    window = LOGIN_FAILURES.window_seconds
    window_start = int(now // window) * window  # the RateLimiter's fixed windows
    async with request.config_dict[DATABASE].engine.connect() as connection:
        count = (await connection.execute(select(RateLimitCounter.count).where(
            RateLimitCounter.key == counter_key(LOGIN_FAILURES, email),
            RateLimitCounter.window_start == window_start))).scalar_one_or_none() or 0
    blocked = count >= LOGIN_FAILURES.limit
    state = RateLimitState(LOGIN_FAILURES.limit, count + 1 if blocked else count,
                           window_start + window, now)
    request[RATE_LIMIT_STATE] = state
    if blocked:
        raise _refuse(LOGIN_FAILURES, state)


async def count_login_failure(request: web.Request, email: str) -> None:
    """Count one failed login for the e-mail (the answer stays 401, with updated headers)."""
    state = await request.config_dict[RATE_LIMITER].hit(LOGIN_FAILURES, email)
    request[RATE_LIMIT_STATE] = state
