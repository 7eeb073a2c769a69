"""The job queue on the platform database's own connection pool: procrastinate's connector
takes an external pool (`PsycopgConnector.open_async(pool=...)`) and uses three things of it,
`connection()` (a psycopg AsyncConnection whose transaction is committed on leaving, rolled
back on an error), the connection string, and the connection class (its LISTEN connection,
which is its own in any case). `EnginePool` offers those over the SQLAlchemy engine's pool
that units of work use, so a process holds no second pool of platform connections for the
queue (docs/jobs.md, "Connections").
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from sqlalchemy.ext.asyncio import AsyncEngine


class EnginePool:
    """What procrastinate asks of a psycopg_pool.AsyncConnectionPool, over `engine`'s pool."""

    connection_class = psycopg.AsyncConnection

    def __init__(self, engine: AsyncEngine, conninfo: str) -> None:
        self.engine, self.conninfo, self.kwargs = engine, conninfo, {}

    @contextlib.asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[Any]:
        """A pooled connection in a transaction of its own: committed when the block ends,
        rolled back when it raises (as psycopg_pool's `connection()`)."""
        async with self.engine.connect() as connection:
            driver = (await connection.get_raw_connection()).driver_connection
            try:
                yield driver
            except BaseException:
                await driver.rollback()
                raise
            await driver.commit()

    async def _resolve_conninfo(self) -> str:  # psycopg_pool >= 3.3's name, which it calls
        return self.conninfo

    async def _resolve_kwargs(self) -> dict[str, Any]:
        return {}

    async def close(self) -> None:
        """The engine belongs to the Database, which disposes of it."""
