"""Async access to one tenant database: the engine factories and transactions running the use cases.

The use cases are synchronous Core code on a Connection (so they share schema.sql's status and
constraint helpers); `TenantStore.run` runs one inside a transaction: on PostgreSQL through the
async driver (psycopg, no thread), on SQLite with the sync driver in one worker thread per use
case (aiosqlite would hop to its thread for every cursor call), writes serialised per file by an
asyncio lock and opened with BEGIN IMMEDIATE, the file in WAL mode with a busy timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from insureops.platform.bounded_connection import bounded_connector
from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.direct_sql import CommitOutcomeUnknownError, DirectPool
from insureops.platform.errors import is_database_unavailable
from insureops.platform.tenant_data.errors import TenantDatabaseUnavailableError
from insureops.platform.tenant_engine import BEGIN_IMMEDIATE, configure_sqlite, normalise_url

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
    `insureops.platform.bounded_connection.BoundedConnection`).

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
    # No pool_pre_ping (a round trip per checkout): TenantStore retries a use case once when
    # its pooled connection turns out dead before COMMIT.
    return create_async_engine(
        parsed, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=pool_timeout,
        connect_args=connect_args)


def _sqlite_wal(dbapi_connection, connection_record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers and the one writer do not block
    # WAL + NORMAL: no corruption on a crash; a power cut may lose the last commits
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_sqlite_tenant_engine(url: str | URL, *, pool_size: int = 3, max_overflow: int = 2,
                                pool_timeout: float = 5.0,
                                busy_timeout: float = 10.0) -> sa.Engine:
    """A bounded sync engine on a SQLite tenant database file, for `TenantStore`'s worker
    threads: foreign keys on, real BEGIN (tenant_engine), WAL, `busy_timeout` seconds of
    waiting for another process's write lock."""
    parsed = normalise_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise ValueError("create_sqlite_tenant_engine takes a sqlite:/// URL")
    engine = sa.create_engine(parsed, pool_size=pool_size, max_overflow=max_overflow,
                              pool_timeout=pool_timeout,
                              connect_args={"timeout": busy_timeout, "check_same_thread": False})
    configure_sqlite(engine)
    sa.event.listen(engine, "connect", _sqlite_wal)
    return engine


def _run_in_thread(engine: sa.Engine, use_case: Callable[..., ResultT], args: tuple,
                   read_only: bool) -> ResultT:
    with engine.connect() as connection:
        if not read_only:
            connection.execution_options(**{BEGIN_IMMEDIATE: True})
        with connection.begin():
            return use_case(connection, *args)


def _is_unprepared(exc: BaseException) -> bool:
    """A data-model table is missing: the database was never prepared with `schema apply`."""
    if not isinstance(exc, sa.exc.ProgrammingError | sa.exc.OperationalError):
        return False
    if getattr(exc.orig, "sqlstate", None) == "42P01":  # PostgreSQL undefined_table
        return True
    return str(exc.orig).startswith("no such table")


class TenantStore:
    """One tenant database: runs use cases in transactions, never longer than `timeout`.

    `engine` is an AsyncEngine, or a sync SQLite engine (`create_sqlite_tenant_engine`) whose
    use cases run in a worker thread; `write_lock` (the file's, one per engine) serialises the
    writes of that SQLite file within this process.
    """

    def __init__(self, engine: AsyncEngine | sa.Engine, *, timeout: float = 15.0,
                 write_lock: asyncio.Lock | None = None, direct: DirectPool | None = None,
                 threads: BoundedExecutor | None = None) -> None:
        self.engine = engine
        self.threads = threads  # where a sync SQLite engine's use cases run (None: to_thread)
        self.timeout = timeout
        self.write_lock = write_lock
        self.direct = direct

    async def run(self, use_case: Callable[..., ResultT], *args: Any, read_only: bool = False,
                  direct: Callable[..., Awaitable[ResultT]] | None = None) -> ResultT:
        """`use_case(connection, *args)` in one transaction (committed when it returns); writes
        are serialised per SQLite file. `read_only=True` (the use case never writes): SQLite
        readers run beside the writer, and on PostgreSQL the statements run without
        BEGIN/COMMIT round trips (each sees the latest commits, as READ COMMITTED does).
        `direct`: the same use case awaited on a `DirectConnection`, run instead on a
        PostgreSQL store with a direct pool (the hot routes; `tenant_data.direct`).

        An unreachable database (refused, timed out, gone away) is
        TenantDatabaseUnavailableError, whose message says when the connection was lost while
        committing (the change may or may not have been saved); data errors propagate unchanged.
        """
        try:
            async with asyncio.timeout(self.timeout):
                return await self._dispatch(use_case, args, read_only, direct)
        except TimeoutError:
            raise TenantDatabaseUnavailableError(
                "The tenant database did not answer in time; retry shortly.") from None
        except CommitOutcomeUnknownError:
            raise TenantDatabaseUnavailableError(
                "The connection to the tenant database was lost while committing: the change "
                "may or may not have been saved; check before repeating it.") from None
        except (sa.exc.SQLAlchemyError, OSError) as exc:
            if is_database_unavailable(exc) or isinstance(exc, OSError):
                raise TenantDatabaseUnavailableError(
                    "The tenant database cannot be reached; retry shortly.") from None
            if _is_unprepared(exc):
                raise TenantDatabaseUnavailableError(
                    "The tenant database is not prepared: run `insureops schema apply URL` on "
                    "it once.") from None
            raise

    async def _dispatch(self, use_case: Callable[..., ResultT], args: tuple, read_only: bool,
                        direct: Callable[..., Awaitable[ResultT]] | None) -> ResultT:
        if direct is not None and self.direct is not None:
            return await self.direct.run(lambda connection: direct(connection, *args),
                                         transaction=not read_only)
        if isinstance(self.engine, sa.Engine):
            if not read_only and self.write_lock is not None:
                async with self.write_lock:
                    return await self._in_thread(use_case, args, read_only)
            return await self._in_thread(use_case, args, read_only)
        return await self._run_async(use_case, args, read_only)

    async def _in_thread(self, use_case: Callable[..., ResultT], args: tuple,
                         read_only: bool) -> ResultT:
        if self.threads is None:
            return await asyncio.to_thread(_run_in_thread, self.engine, use_case, args,
                                           read_only)
        return await self.threads.run(_run_in_thread, self.engine, use_case, args, read_only)

    async def _run_async(self, use_case: Callable[..., ResultT], args: tuple,
                         read_only: bool) -> ResultT:
        # No pre-ping round trip per checkout: a pooled connection the server closed (restart,
        # idle kill) fails before COMMIT is sent, so nothing was committed and the use case runs
        # once more on a new connection (the pool drops the dead one). Lost during COMMIT, the
        # outcome is unknown: never run again (as on the direct path).
        assert isinstance(self.engine, AsyncEngine)
        for attempt in (1, 2):
            async with self.engine.connect() as connection:
                if read_only and connection.dialect.name == "postgresql":
                    await connection.execution_options(isolation_level="AUTOCOMMIT")
                try:
                    await connection.begin()
                    result = await connection.run_sync(use_case, *args)
                except sa.exc.DBAPIError as exc:
                    if attempt == 1 and exc.connection_invalidated:
                        continue
                    raise
                try:
                    await connection.commit()
                except sa.exc.DBAPIError as exc:
                    if exc.connection_invalidated:
                        raise CommitOutcomeUnknownError.after(exc) from exc
                    raise
                return result
        raise AssertionError("unreachable")

    async def ping(self) -> None:
        """Raise TenantDatabaseUnavailableError unless the database answers `SELECT 1`."""
        await self.run(lambda connection: connection.execute(sa.text("SELECT 1")).scalar())
