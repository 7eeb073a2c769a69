"""One tenant database as a store: runs a use case on the records port in one transaction
(or, `run_statements`, work of its own on the same connections: rules at work).

There is one implementation of every use case (`service`, on `repository.TenantRecords`) and one
of the port (`repository.SqlTenantRecords`); the store only says which connection it runs on:
- PostgreSQL: a connection of the database's direct pool (psycopg, no thread, pipeline mode;
  `insureops.platform.data.direct`), the one pool per database and instance;
- SQLite: the file's sync connection in one worker thread per use case (aiosqlite would hop to
  its thread for every cursor call), writes serialised per file by an asyncio lock and opened
  with BEGIN IMMEDIATE, the file in WAL mode with a busy timeout. The use case's awaits on this
  connection never suspend, so the thread drives the coroutine to its end in one step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import AbstractContextManager
from typing import Any, Concatenate, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.data.direct import DirectPool, Statement
from insureops.platform.data.retry import CommitOutcomeUnknownError
from insureops.platform.http.errors import is_database_unavailable
from insureops.platform.tenancy.book.errors import (
    TenantDatabaseUnavailableError,
    TenantDatabaseUnpreparedError,
)
from insureops.platform.tenancy.book.repository import (
    RecordsConnection,
    SqlTenantRecords,
    TenantRecords,
)
from insureops.platform.tenancy.engine import BEGIN_IMMEDIATE, configure_sqlite
from insureops.schema.sql.violations import translated_violations

ResultT = TypeVar("ResultT")
# The driver each accepted scheme is served with (the async suffixes of URLs saved earlier too).
_DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg",
            "postgresql+psycopg": "postgresql+psycopg", "sqlite": "sqlite",
            "sqlite+pysqlite": "sqlite", "sqlite+aiosqlite": "sqlite"}
P = ParamSpec("P")
UseCase = Callable[Concatenate[TenantRecords, P], Awaitable[ResultT]]


def _sqlite_wal(dbapi_connection, connection_record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers and the one writer do not block
    # WAL + NORMAL: no corruption on a crash; a power cut may lose the last commits
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def tenant_url(url: str | URL) -> URL:
    """The URL with the driver the store uses; ValueError for another scheme."""
    parsed = make_url(url)
    driver = _DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(f"unsupported database URL scheme {parsed.drivername!r}: use "
                         "postgresql:// or sqlite:///PATH")
    return parsed.set(drivername=driver)


def create_sqlite_tenant_engine(url: str | URL, *, pool_size: int = 3, max_overflow: int = 2,
                                pool_timeout: float = 5.0,
                                busy_timeout: float = 10.0) -> sa.Engine:
    """A bounded sync engine on a SQLite tenant database file, for `TenantStore`'s worker
    threads: foreign keys on, real BEGIN (tenancy.engine), WAL, `busy_timeout` seconds of
    waiting for another process's write lock."""
    parsed = tenant_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise ValueError("create_sqlite_tenant_engine takes a sqlite:/// URL")
    engine = sa.create_engine(parsed, pool_size=pool_size, max_overflow=max_overflow,
                              pool_timeout=pool_timeout,
                              connect_args={"timeout": busy_timeout, "check_same_thread": False})
    configure_sqlite(engine)
    sa.event.listen(engine, "connect", _sqlite_wal)
    return engine


class SqliteConnection:
    """A SQLite file's sync connection as `repository.RecordsConnection`: each await runs its
    statement at once, in the calling (worker) thread, and never suspends."""

    dialect = "sqlite"

    def __init__(self, connection: sa.Connection) -> None:
        self._connection = connection

    def _run(self, statement: Statement | sa.Executable,
             values: Mapping[str, Any]) -> sa.CursorResult:
        core = statement.statement if isinstance(statement, Statement) else statement
        return self._connection.execute(core, dict(values))

    async def first(self, statement: Statement | sa.Executable,
                    values: Mapping[str, Any]) -> dict[str, Any] | None:
        row = self._run(statement, values).first()
        return None if row is None else dict(row._mapping)

    async def all(self, statement: Statement | sa.Executable, values: Mapping[str, Any], *,
                  convert: bool = True) -> list[dict[str, Any]]:
        # `convert` is PostgreSQL's: SQLite's values always come converted (in this thread)
        return [dict(row._mapping) for row in self._run(statement, values)]

    async def one(self, statement: Statement | sa.Executable,
                  values: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self._run(statement, values).one()._mapping)

    async def execute(self, statement: Statement | sa.Executable,
                      values: Mapping[str, Any]) -> None:
        self._run(statement, values)

    def violations(self) -> AbstractContextManager[None]:
        """Refusals as ConstraintViolationError; SQLite does not name a refused foreign key, so
        the connection is asked which reference is missing."""
        return translated_violations(self._connection)


def run_to_completion(coroutine: Coroutine[Any, Any, ResultT]) -> ResultT:
    """The result of a coroutine whose awaits never suspend (a use case on SqliteConnection),
    run in the calling thread; RuntimeError when it awaits anything that does."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("a use case on a SQLite tenant store awaited something besides its store")


async def off_the_loop(threads: BoundedExecutor | None, function: Callable[..., ResultT],
                      *args: Any) -> ResultT:
    """`function(*args)` (CPU work inside a use case, such as evaluating rules) never on the
    event loop: on `threads` (None: asyncio's default threads) when the use case runs on the
    loop (PostgreSQL), at once when it already runs in a worker thread (SQLite, where its
    awaits must not suspend)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # a SQLite use case, driven by run_to_completion in its thread
        return function(*args)
    if threads is None:
        return await asyncio.to_thread(function, *args)
    return await threads.run(function, *args)


def _run_on_sqlite(engine: sa.Engine, work: Callable[..., Coroutine], args: tuple,
                   read_only: bool) -> Any:
    with engine.connect() as connection:
        if not read_only:
            connection.execution_options(**{BEGIN_IMMEDIATE: True})
        with connection.begin():
            return run_to_completion(work(SqliteConnection(connection), *args))


def _on_records(use_case: UseCase) -> Callable[..., Coroutine]:
    async def work(connection: RecordsConnection, *args: Any) -> Any:
        return await use_case(SqlTenantRecords(connection), *args)
    return work


def _is_unprepared(exc: BaseException) -> bool:
    """A data-model table is missing: the database was never prepared with `schema apply`."""
    if not isinstance(exc, sa.exc.ProgrammingError | sa.exc.OperationalError):
        return False
    if getattr(exc.orig, "sqlstate", None) == "42P01":  # PostgreSQL undefined_table
        return True
    return str(exc.orig).startswith("no such table")


class TenantStore:
    """One tenant database: runs use cases in transactions, never longer than `timeout`.

    `backend` is the database's DirectPool (PostgreSQL) or a sync SQLite engine
    (`create_sqlite_tenant_engine`) whose use cases run on `threads` (None: asyncio's default
    threads); `write_lock` (the file's, one per engine) serialises the writes of that SQLite
    file within this process.
    """

    def __init__(self, backend: DirectPool | sa.Engine, *, timeout: float = 15.0,
                 write_lock: asyncio.Lock | None = None,
                 threads: BoundedExecutor | None = None) -> None:
        self.backend = backend
        self.threads = threads
        self.timeout = timeout
        self.write_lock = write_lock

    async def run(self, use_case: UseCase[P, ResultT], *args: Any,
                  read_only: bool = False) -> ResultT:
        """`use_case(records, *args)` in one transaction (committed when it returns); writes
        are serialised per SQLite file. `read_only=True` (the use case never writes): SQLite
        readers run beside the writer, and on PostgreSQL the statements run without
        BEGIN/COMMIT round trips (each sees the latest commits, as READ COMMITTED does).

        An unreachable database (refused, timed out, gone away) is
        TenantDatabaseUnavailableError, whose message says when the connection was lost while
        committing (the change may or may not have been saved); data errors propagate unchanged.
        """
        return await self.run_statements(_on_records(use_case), *args, read_only=read_only)

    async def run_statements(self, work: Callable[..., Coroutine[Any, Any, ResultT]],
                             *args: Any, read_only: bool = False) -> ResultT:
        """`work(connection, *args)` on a `RecordsConnection` of the store, as `run` runs a use
        case (one transaction, the same bounds, retry policy and errors): for statements of
        their own on the tenant database (rules at work's outbox, ledger and book reads). CPU
        work inside it goes through `off_the_loop`."""
        try:
            async with asyncio.timeout(self.timeout):
                return await self._dispatch(work, args, read_only)
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
                raise TenantDatabaseUnpreparedError(
                    "The tenant database is not prepared: run `insureops schema apply URL` on "
                    "it once.") from None
            raise

    async def _dispatch(self, work: Callable[..., Coroutine], args: tuple,
                        read_only: bool) -> Any:
        if isinstance(self.backend, DirectPool):
            return await self.backend.run(lambda connection: work(connection, *args),
                                          transaction=not read_only)
        if not read_only and self.write_lock is not None:
            async with self.write_lock:
                return await self._in_thread(work, args, read_only)
        return await self._in_thread(work, args, read_only)

    async def _in_thread(self, work: Callable[..., Coroutine], args: tuple,
                         read_only: bool) -> Any:
        if self.threads is None:
            return await asyncio.to_thread(_run_on_sqlite, self.backend, work, args, read_only)
        return await self.threads.run(_run_on_sqlite, self.backend, work, args, read_only)

    async def close(self) -> None:
        """Close the pooled connections."""
        if isinstance(self.backend, DirectPool):
            await self.backend.close()
        else:
            await asyncio.to_thread(self.backend.dispose)


def open_tenant_store(url: str | URL, *, pool_size: int = 5, pool_timeout: float = 5.0,
                      connect_timeout: float = 3.0, operation_timeout: float = 15.0,
                      hostaddr: str | None = None, busy_timeout: float = 10.0,
                      threads: BoundedExecutor | None = None) -> TenantStore:
    """A store on a tenant database URL (postgresql:// or sqlite:///PATH, any driver suffix):
    at most `pool_size` connections, each round trip on PostgreSQL bounded by
    `operation_timeout` and a cancelled one closing its connection at once
    (`data.bounded_connection`). `hostaddr` (PostgreSQL only) pins every connection to that checked
    address: the host name is not resolved again (DNS rebinding) and still serves TLS
    verification. ValueError for another scheme."""
    parsed = tenant_url(url)
    if parsed.get_backend_name() == "sqlite":
        if hostaddr is not None:
            raise ValueError("hostaddr applies to PostgreSQL tenant databases only")
        engine = create_sqlite_tenant_engine(parsed, pool_size=pool_size, max_overflow=0,
                                             pool_timeout=pool_timeout,
                                             busy_timeout=busy_timeout)
        return TenantStore(engine, timeout=operation_timeout, write_lock=asyncio.Lock(),
                           threads=threads)
    pool = DirectPool(parsed, max_size=pool_size, pool_timeout=pool_timeout,
                      connect_timeout=connect_timeout, hostaddr=hostaddr,
                      round_trip_timeout=operation_timeout)
    return TenantStore(pool, timeout=operation_timeout, threads=threads)
