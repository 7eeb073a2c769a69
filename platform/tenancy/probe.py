"""A tenant database probed once: connect, time one round trip, read its data-model version.

The settings' connection test and the local MCP server's start check use it; it is no way to
reach the store (that is `book.store.TenantStore`): one connection, no pool, async
drivers so that the caller's deadline cancels it at any step, a stalled server included.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from insureops.platform.tenancy.data_model import recorded_version

_ASYNC_DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg",
                  "postgresql+psycopg": "postgresql+psycopg", "sqlite": "sqlite+aiosqlite",
                  "sqlite+pysqlite": "sqlite+aiosqlite", "sqlite+aiosqlite": "sqlite+aiosqlite"}


def async_tenant_url(url: str | URL) -> URL:
    """The async-driver form of a tenant database URL; ValueError for other schemes."""
    parsed = make_url(url)
    driver = _ASYNC_DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(f"unsupported database URL scheme {parsed.drivername!r}: use "
                         "postgresql:// or sqlite:///PATH")
    return parsed.set(drivername=driver)


async def probe(url: str | URL,
                connect_args: Mapping[str, object] | None = None) -> tuple[int, str | None]:
    """(milliseconds to connect and answer `SELECT 1`, the recorded data-model version or
    None) of the database at `url`; the driver's error when it cannot be reached."""
    engine = create_async_engine(async_tenant_url(url), poolclass=NullPool,
                                 connect_args=dict(connect_args or {}))
    try:
        started = time.perf_counter()
        async with engine.connect() as connection:
            await connection.execute(sa.text("SELECT 1"))
            latency_ms = round((time.perf_counter() - started) * 1000)
            version = await connection.run_sync(recorded_version)
        return latency_ms, version
    finally:
        await engine.dispose()
