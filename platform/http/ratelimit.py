"""Fixed-window rate limits counted in the platform database, so all instances share them."""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from aiohttp import web
from sqlalchemy import BigInteger, Integer, String, bindparam, delete, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.database import Base


class RateKey(StrEnum):
    """What a limit counts per."""

    CLIENT_IP = "client_ip"
    EMAIL = "email"  # the `email` field of the request body
    WORKSPACE = "workspace"  # the caller's active workspace
    USER = "user"  # the session's user
    API_KEY = "api_key"  # the caller's API key (its id)


@dataclass(frozen=True)
class RateLimit:
    """At most `limit` requests per `window_seconds` for each distinct key value."""

    name: str
    limit: int
    window_seconds: int
    key: RateKey = RateKey.CLIENT_IP
    # True: only what the route does counts; a request it refuses (a 4xx domain error, e.g. a
    # duplicate invitation, or the 429 itself) gives its hit back. The hit is taken first
    # either way, so concurrent requests never get past the limit.
    successes_only: bool = False

    def describe(self) -> str:
        return f"{self.limit} per {self.window_seconds} s per {self.key.value}"


@dataclass(frozen=True)
class RateLimitState:
    """The counter after one request: what the X-RateLimit-* headers say."""

    limit: int
    count: int
    reset_at: int  # Unix time (seconds) when the window ends
    now: float

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit

    @property
    def retry_after(self) -> int:
        return max(1, math.ceil(self.reset_at - self.now))

    def headers(self) -> dict[str, str]:
        headers = {"X-RateLimit-Limit": str(self.limit),
                   "X-RateLimit-Remaining": str(self.remaining),
                   "X-RateLimit-Reset": str(self.reset_at)}
        if self.exceeded:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class RateLimitCounter(Base):
    """One window's counter for one key (table created by migration 0001)."""

    __tablename__ = "rate_limit_counters"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[int] = mapped_column(BigInteger, index=True)


def counter_key(limit: RateLimit, subject: str) -> str:
    """The stored key: the limit's name and a digest of the subject (no addresses in clear)."""
    digest = hashlib.sha256(subject.strip().lower().encode()).hexdigest()[:40]
    return f"{limit.name}:{limit.key.value}:{digest}"


_NO_SYNC_COMMIT = text("SET LOCAL synchronous_commit = off")


def _upsert_statement(insert, *, below_ceiling: bool = False):
    """INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count (built once);
    `below_ceiling` adds `WHERE count < :ceiling` to the update, which then returns no row
    when the stored count has reached the ceiling."""
    counter = RateLimitCounter
    return insert(counter).values(
        key=bindparam("key"), window_start=bindparam("window_start"), count=1,
        expires_at=bindparam("expires_at"),
    ).on_conflict_do_update(
        index_elements=[counter.key, counter.window_start],
        set_={"count": counter.count + 1},
        where=(counter.count < bindparam("ceiling")) if below_ceiling else None,
    ).returning(counter.count)


class RateLimiter:
    """Counts hits in the platform database with one atomic upsert per request."""

    def __init__(self, engine: AsyncEngine, *, clock: Callable[[], float] = time.time,
                 purge_every_seconds: int = 300) -> None:
        self._engine = engine
        self._is_postgresql = engine.dialect.name == "postgresql"
        insert = postgresql.insert if self._is_postgresql else sqlite.insert
        self._upsert = _upsert_statement(insert)
        self._reserve = _upsert_statement(insert, below_ceiling=True)
        self._clock = clock
        self._purge_every = purge_every_seconds
        self._next_purge = 0.0

    async def hit(self, limit: RateLimit, subject: str) -> RateLimitState:
        """Count one request for `subject` and return the counter after it (it goes on
        counting past the limit)."""
        return await self._count(self._upsert, limit, subject, {})

    async def reserve(self, limit: RateLimit, subject: str) -> RateLimitState:
        """Take one of the window's `limit.limit` hits for `subject` if one is left, in one
        conditional upsert; when none is, count nothing and return an exceeded state.

        However many callers race, at most `limit.limit` of them get a hit, and the stored count
        never passes the limit; `refund` gives a hit back (issue 28: the login failures)."""
        return await self._count(self._reserve, limit, subject, {"ceiling": limit.limit})

    async def _count(self, statement, limit: RateLimit, subject: str,
                     extra: dict[str, int]) -> RateLimitState:
        now = self._clock()
        window_start = int(now // limit.window_seconds) * limit.window_seconds
        reset_at = window_start + limit.window_seconds
        row = {"key": counter_key(limit, subject), "window_start": window_start,
               "expires_at": reset_at, **extra}
        async with self._engine.begin() as connection:  # Core: one statement, no ORM state
            if self._is_postgresql:  # a crash may lose the last hits; no need to wait for fsync
                await connection.execute(_NO_SYNC_COMMIT)
            count = (await connection.execute(statement, row)).scalar_one_or_none()
        if now >= self._next_purge:
            await self.purge_expired(now)
        # no row: the conditional update found the counter full
        return RateLimitState(limit.limit, limit.limit + 1 if count is None else count,
                              reset_at, now)

    async def refund(self, limit: RateLimit, subject: str,
                     state: RateLimitState) -> RateLimitState:
        """Give back one hit counted by `hit` (same subject, same window): one atomic decrement,
        never below zero, so concurrent hits and refunds keep an exact count."""
        window_start = state.reset_at - limit.window_seconds
        counter = RateLimitCounter
        statement = update(counter).where(
            counter.key == counter_key(limit, subject), counter.window_start == window_start,
            counter.count > 0).values(count=counter.count - 1).returning(counter.count)
        async with self._engine.begin() as connection:
            count = (await connection.execute(statement)).scalar_one_or_none()
        return RateLimitState(limit.limit, count or 0, state.reset_at, state.now)

    async def purge_expired(self, now: float | None = None) -> int:
        """Delete counters of windows that have ended; returns how many went."""
        now = self._clock() if now is None else now
        self._next_purge = now + self._purge_every
        async with self._engine.begin() as connection:
            result = await connection.execute(
                delete(RateLimitCounter).where(RateLimitCounter.expires_at <= int(now)))
        return result.rowcount or 0


def client_address(request: web.Request, *, trusted_proxy: bool) -> str:
    """The caller's address; X-Forwarded-For only counts when a trusted proxy sets it, and
    only its last entry, when that is an IP address. Anything else was not written by the
    proxy: bytes that were not UTF-8 failed as a rate-limit key (a 500, issue 28)."""
    if trusted_proxy:
        # the last entry is appended by our proxy; earlier ones are client-supplied
        forwarded = request.headers.get("X-Forwarded-For", "").rpartition(",")[2].strip()
        if forwarded.isascii():  # an IPv6 address's scope id may be any text
            with contextlib.suppress(ValueError):
                return str(ipaddress.ip_address(forwarded))
    return request.remote or "unknown"
