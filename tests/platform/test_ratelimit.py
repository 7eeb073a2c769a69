"""Rate limits: headers on limited responses, 429 with Retry-After, windows, shared counters."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from insureops.platform.data.database import Database
from insureops.platform.http.ratelimit import (
    RateKey,
    RateLimit,
    RateLimitCounter,
    RateLimiter,
    client_address,
)

LIMITED = "/api/probe/limited/"
BY_EMAIL = "/api/probe/limited-by-email/"
T0 = 1_800_000_000.0  # a window boundary for a 60 s window


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_headers_count_down_when_requests_stay_within_the_limit(make_probe, settings):
    client = await make_probe(settings, clock=FakeClock(T0 + 10))
    remaining = []
    for _ in range(3):
        response = await client.post(LIMITED)
        assert response.status == 200
        assert response.headers["X-RateLimit-Limit"] == "3"
        assert response.headers["X-RateLimit-Reset"] == str(int(T0) + 60)
        assert "Retry-After" not in response.headers
        remaining.append(response.headers["X-RateLimit-Remaining"])
    assert remaining == ["2", "1", "0"]


async def test_request_is_429_with_retry_after_when_the_limit_is_exceeded(make_probe, settings):
    client = await make_probe(settings, clock=FakeClock(T0 + 15.5))
    for _ in range(3):
        await client.post(LIMITED)
    response = await client.post(LIMITED)
    assert response.status == 429
    body = await response.json()
    assert body["error"]["code"] == "rate_limited"
    assert response.headers["Retry-After"] == "45"
    assert response.headers["X-RateLimit-Remaining"] == "0"
    assert response.headers["X-RateLimit-Reset"] == str(int(T0) + 60)


async def test_counter_starts_again_when_the_window_resets(make_probe, settings):
    clock = FakeClock(T0 + 59)
    client = await make_probe(settings, clock=clock)
    for _ in range(4):
        await client.post(LIMITED)
    clock.now = T0 + 60
    response = await client.post(LIMITED)
    assert response.status == 200
    assert response.headers["X-RateLimit-Remaining"] == "2"
    assert response.headers["X-RateLimit-Reset"] == str(int(T0) + 120)


async def test_two_instances_share_one_count_when_they_use_one_database(make_probe, settings):
    clock = FakeClock(T0 + 1)
    first = await make_probe(settings, clock=clock)
    second = await make_probe(settings, clock=clock)
    assert first.app is not second.app
    seen = []
    for client in (first, second, first, second):
        response = await client.post(LIMITED)
        seen.append((response.status, response.headers["X-RateLimit-Remaining"]))
    assert seen == [(200, "2"), (200, "1"), (200, "0"), (429, "0")]


async def test_email_keyed_limit_counts_each_address_when_bodies_differ(make_probe, settings):
    client = await make_probe(settings, clock=FakeClock(T0))
    body = {"name": "Ann", "email": "ann@example.com", "count": 1}
    assert (await client.post(BY_EMAIL, json=body)).status == 200
    assert (await client.post(BY_EMAIL, json={**body, "email": "ANN@example.com "})).status == 429
    assert (await client.post(BY_EMAIL, json={**body, "email": "bob@example.com"})).status == 200


async def test_workspace_keyed_limit_is_shared_by_members_when_they_act_in_one_workspace(
        make_probe, settings):
    client = await make_probe(settings, clock=FakeClock(T0))
    url = "/api/probe/limited-by-workspace/"
    owner, member = {"X-Test-Role": "owner"}, {"X-Test-Role": "member"}
    statuses = [(await client.post(url, headers=who)).status for who in (owner, member, owner)]
    assert statuses == [200, 200, 429]
    other = {"X-Test-Role": "owner", "X-Test-Workspace": "w2"}
    assert (await client.post(url, headers=other)).status == 200


async def test_error_responses_keep_the_headers_when_the_route_is_limited(make_probe, settings):
    client = await make_probe(settings, clock=FakeClock(T0))
    body = {"name": "Ann", "email": "ann@example.com", "count": 1}
    await client.post(BY_EMAIL, json=body)
    response = await client.post(BY_EMAIL, json=body)
    assert response.status == 429
    assert response.headers["X-RateLimit-Limit"] == "1"
    assert int(response.headers["Retry-After"]) == 3600


async def test_expired_windows_are_purged_when_the_limiter_runs_later(settings):
    database = Database.connect(settings.database_url)
    try:
        clock = FakeClock(T0)
        limiter = RateLimiter(database.engine, clock=clock, purge_every_seconds=30)
        limit = RateLimit("purge", 5, 60)
        for subject in ("a", "b", "c"):
            await limiter.hit(limit, subject)
        clock.now = T0 + 61
        state = await limiter.hit(limit, "a")
        assert state.count == 1
        async with database.sessions() as session:
            rows = await session.scalar(select(func.count()).select_from(RateLimitCounter))
        assert rows == 1
    finally:
        await database.engine.dispose()


async def test_reserve_grants_exactly_the_limit_when_a_hundred_callers_race(settings):
    """Issue 28: one conditional upsert per caller; the stored count never passes the limit."""
    database = Database.connect(settings.database_url)
    try:
        limiter = RateLimiter(database.engine, clock=FakeClock(T0))
        limit = RateLimit("reserve", 10, 60, RateKey.EMAIL)
        states = await asyncio.gather(*[limiter.reserve(limit, "ann@example.com")
                                        for _ in range(100)])
        assert sorted(s.count for s in states if not s.exceeded) == list(range(1, 11))
        assert {(s.count, s.retry_after) for s in states if s.exceeded} == {(11, 60)}
        async with database.sessions() as session:
            assert await session.scalar(select(RateLimitCounter.count)) == 10
        await limiter.refund(limit, "ann@example.com", states[0])
        assert (await limiter.reserve(limit, "ann@example.com")).count == 10
        assert (await limiter.reserve(limit, "ann@example.com")).exceeded
    finally:
        await database.engine.dispose()


async def test_counters_store_no_subject_in_clear_when_counting_addresses(settings):
    database = Database.connect(settings.database_url)
    try:
        await RateLimiter(database.engine).hit(RateLimit("signup", 5, 3600, RateKey.EMAIL),
                                                 "ann@example.com")
        async with database.sessions() as session:
            keys = (await session.scalars(select(RateLimitCounter.key))).all()
        assert len(keys) == 1 and keys[0].startswith("signup:email:")
        assert "ann" not in keys[0]
    finally:
        await database.engine.dispose()


class _Request:
    def __init__(self, remote: str, forwarded: str | None) -> None:
        self.remote = remote
        self.headers = {"X-Forwarded-For": forwarded} if forwarded else {}


@pytest.mark.parametrize(("trusted", "forwarded", "expected"), [
    (False, "1.2.3.4", "10.0.0.1"),
    (True, "6.6.6.6, 1.2.3.4", "1.2.3.4"),
    (True, None, "10.0.0.1"),
])
def test_client_address_honours_forwarded_for_only_when_the_proxy_is_trusted(
        trusted, forwarded, expected):
    assert client_address(_Request("10.0.0.1", forwarded), trusted_proxy=trusted) == expected
