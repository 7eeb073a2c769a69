"""Limits the route table cannot express alone: a second key, and counting only failures.

Uses the platform's RateLimiter and its counter table, and hangs the state on the request under
RATE_LIMIT_STATE, so the X-RateLimit-* headers and 429 bodies are the platform's own.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from aiohttp import web

from insureops.platform.accounts.errors import InvalidCredentialsError
from insureops.platform.http.errors import ApiError
from insureops.platform.http.ratelimit import (
    RateKey,
    RateLimit,
    RateLimitState,
    client_address,
)
from insureops.platform.keys import RATE_LIMIT_STATE, RATE_LIMITER, SETTINGS

SIGNUP = RateLimit("signup", 5, 3600)  # per client address; shared with /register/
RESEND_PER_EMAIL = RateLimit("resend_code", 3, 3600, key=RateKey.EMAIL)
RESEND_PER_ADDRESS = RateLimit("resend_code", 3, 3600)
LOGIN_FAILURES = RateLimit("login_failures", 10, 15 * 60, key=RateKey.EMAIL)
# The extension renews a 10-minute token about 6 times an hour; 60 leaves room for several
# browsers and retries while bounding signatures a stolen session can mint.
SERVICE_TOKEN = RateLimit("service_token", 60, 3600, key=RateKey.USER)


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


@contextlib.asynccontextmanager
async def login_attempt(request: web.Request, email: str) -> AsyncIterator[None]:
    """Hold one of the e-mail's login tries while the block checks the password; 429 when the
    window's tries are used up, so even the right password is refused then.

    The try is taken by one conditional upsert before the password hash is verified: however many
    requests race, at most LOGIN_FAILURES.limit verifications per window can fail (issue 28).
    A wrong password (InvalidCredentialsError) keeps it as a counted failure; any other outcome
    (a login, `email_not_verified`, an error) gives it back.
    """
    limiter = request.config_dict[RATE_LIMITER]
    state = await limiter.reserve(LOGIN_FAILURES, email)
    request[RATE_LIMIT_STATE] = state
    if state.exceeded:
        raise _refuse(LOGIN_FAILURES, state)
    failed = False
    try:
        yield
    except InvalidCredentialsError:
        failed = True
        raise
    finally:
        if not failed:
            request[RATE_LIMIT_STATE] = await limiter.refund(LOGIN_FAILURES, email, state)
