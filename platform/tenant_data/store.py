"""Async access to one tenant database: the engine factory and transactions running the use cases.

The use cases are synchronous Core code on a Connection (so they share schema.sql's status and
constraint helpers); `TenantStore.run` runs one inside a transaction of an async engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from insureops.platform.db import bounded_connector
from insureops.platform.errors import is_database_unavailable
from insureops.platform.tenant_data.errors import TenantDatabaseUnavailableError
from insureops.platform.tenant_engine import configure_sqlite

ResultT = TypeVar("ResultT")

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


def create_async_tenant_engine(url: str | URL, *, pool_size: int = 3, max_overflow: int = 2,
                               pool_timeout: float = 5.0, connect_timeout: float = 3.0,
                               hostaddr: str | None = None,
                               round_trip_timeout: float = 15.0) -> AsyncEngine:
    """A bounded async engine on a tenant database (PostgreSQL or SQLite).

    On PostgreSQL each round trip to the server takes at most `round_trip_timeout` seconds, and
    a round trip cancelled by the caller's deadline closes its connection at once (see
    `insureops.platform.db.BoundedConnection`).

    `hostaddr` (PostgreSQL only) pins every connection to that checked address: the host name
    is not resolved again (DNS rebinding) and still serves TLS verification.
    """
    parsed = async_tenant_url(url)
    if parsed.get_backend_name() == "sqlite":
        if hostaddr is not None:
            raise ValueError("hostaddr applies to PostgreSQL tenant databases only")
        engine = create_async_engine(parsed, connect_args={"timeout": connect_timeout},
                                     pool_size=pool_size, max_overflow=max_overflow,
                                     pool_timeout=pool_timeout)
        configure_sqlite(engine.sync_engine)
        return engine
    connect_args: dict[str, object] = {"connect_timeout": max(1, round(connect_timeout)),
                                       "async_creator_fn": bounded_connector(round_trip_timeout)}
    if hostaddr is not None:
        connect_args["hostaddr"] = hostaddr
    return create_async_engine(
        parsed, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=pool_timeout,
        pool_pre_ping=True, connect_args=connect_args)


def _is_unprepared(exc: BaseException) -> bool:
    """A data-model table is missing: the database was never prepared with `schema apply`."""
    if not isinstance(exc, sa.exc.ProgrammingError | sa.exc.OperationalError):
        return False
    if getattr(exc.orig, "sqlstate", None) == "42P01":  # PostgreSQL undefined_table
        return True
    return str(exc.orig).startswith("no such table")


class TenantStore:
    """One tenant database: runs use cases in transactions, never longer than `timeout`."""

    def __init__(self, engine: AsyncEngine, *, timeout: float = 15.0) -> None:
        self.engine = engine
        self.timeout = timeout

    async def run(self, use_case: Callable[..., ResultT], *args: Any) -> ResultT:
        """`use_case(connection, *args)` in one transaction (committed when it returns).

        An unreachable database (refused, timed out, gone away) is
        TenantDatabaseUnavailableError; data errors propagate unchanged.
        """
        try:
            async with asyncio.timeout(self.timeout):
                async with self.engine.begin() as connection:
                    return await connection.run_sync(use_case, *args)
        except TimeoutError:
            raise TenantDatabaseUnavailableError(
                "The tenant database did not answer in time; retry shortly.") from None
        except (sa.exc.SQLAlchemyError, OSError) as exc:
            if is_database_unavailable(exc) or isinstance(exc, OSError):
                raise TenantDatabaseUnavailableError(
                    "The tenant database cannot be reached; retry shortly.") from None
            if _is_unprepared(exc):
                raise TenantDatabaseUnavailableError(
                    "The tenant database is not prepared: run `insureops schema apply URL` on "
                    "it once.") from None
            raise

    async def ping(self) -> None:
        """Raise TenantDatabaseUnavailableError unless the database answers `SELECT 1`."""
        await self.run(lambda connection: connection.execute(sa.text("SELECT 1")).scalar())
