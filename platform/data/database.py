"""The platform database: declarative Base, the async engine per app, and UnitOfWork.

On PostgreSQL the service's engine is bounded in time (`database_timeout_seconds`): connecting
and every round trip to the server. A server that accepts and never answers would otherwise hold
each request, /api/health/ included, forever (issue 17's fault tests).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self, TypeVar

from aiohttp import web
from sqlalchemy import MetaData, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from insureops.platform.data.bounded_connection import bounded_connector
from insureops.platform.data.retry import once_more_on_a_new_connection
from insureops.platform.keys import DATABASE, SETTINGS

T = TypeVar("T")

# Stable constraint names, so migrations on SQLite and PostgreSQL agree on them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Base of every platform ORM model (areas' models.py subclass it)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def _enable_sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    # WAL + NORMAL: no corruption on a crash; a power cut may lose the last commits, not older ones
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def create_engine(url: str, timeout: float | None = None) -> AsyncEngine:
    """An async engine for a sqlite+aiosqlite or postgresql+psycopg URL; on PostgreSQL with a
    `timeout`, connecting and each round trip take at most that many seconds (migrations and the
    CLI go without)."""
    if url.startswith("sqlite"):
        _, _, rest = url.partition(":///")
        path = rest.split("?", 1)[0]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # timeout: how long a writer waits for SQLite's lock when instances share the file
        engine = create_async_engine(url, connect_args={"timeout": 15})
        event.listen(engine.sync_engine, "connect", _enable_sqlite_pragmas)
        return engine
    connect_args: dict[str, object] = {}
    if timeout is not None:
        connect_args = {"connect_timeout": max(1, round(timeout)),
                        "async_creator_fn": bounded_connector(timeout)}
    return create_async_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10,
                               pool_timeout=timeout or 30.0, connect_args=connect_args)


def create_reads_engine(url: str, timeout: float | None = None) -> AsyncEngine:
    """PostgreSQL: a small autocommit engine without pre-ping for `Database.read`, the reads on
    the request path that change nothing (an API key, a session, a workspace's market): one
    round trip per statement; a read whose pooled connection turns out dead runs once more
    (`insureops.platform.data.retry`). Bounded like the main one."""
    connect_args: dict[str, object] = {}
    if timeout is not None:
        connect_args = {"connect_timeout": max(1, round(timeout)),
                        "async_creator_fn": bounded_connector(timeout)}
    return create_async_engine(url, isolation_level="AUTOCOMMIT", pool_size=8, max_overflow=0,
                               pool_timeout=timeout or 30.0, connect_args=connect_args)


@dataclass(frozen=True)
class Database:
    """One platform database: its engine and session factory for units of work, and `reads`
    for reads on the request path that change nothing (the same engine on SQLite): two pools
    on PostgreSQL, one on SQLite."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    reads: AsyncEngine
    read_sessions: async_sessionmaker[AsyncSession] = field(repr=False)

    @classmethod
    def connect(cls, url: str, timeout: float | None = None) -> Database:
        engine = create_engine(url, timeout)
        reads = engine if url.startswith("sqlite") else create_reads_engine(url, timeout)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False), reads,
                   async_sessionmaker(reads, expire_on_commit=False))

    def unit_of_work(self) -> UnitOfWork:
        return UnitOfWork(self.sessions)

    async def read(self, work: Callable[[UnitOfWork], Awaitable[T]]) -> T:
        """`work`'s result, run in a unit of work on the reads engine: for request-path reads
        that write nothing. On PostgreSQL each statement is one round trip (autocommit: no
        BEGIN, COMMIT or pre-ping; each statement sees what was committed before it, as in a
        READ COMMITTED transaction); a pooled connection found dead is replaced once, `work`
        running again, so it must change nothing outside the database either."""
        async def attempt(_new: bool) -> T:
            # SQLAlchemy's pool dropped the dead connection (and those older than it)
            async with UnitOfWork(self.read_sessions) as uow:
                return await work(uow)
        return await once_more_on_a_new_connection(attempt)

    async def dispose(self) -> None:
        """Close the pooled connections of both engines."""
        await self.engine.dispose()
        if self.reads is not self.engine:
            await self.reads.dispose()

    async def ping(self) -> None:
        """Raise the driver's error when the database cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))


async def upsert(session: AsyncSession, model: type[Base], key: dict[str, object],
                 values: dict[str, object]) -> None:
    """Insert the row of primary key `key` with `values`, or set `values` on it when it
    exists, in one INSERT ... ON CONFLICT DO UPDATE (SQLite's or PostgreSQL's). Two first
    writes of one row at once both succeed, the later one's values staying; reading "no row"
    and then inserting failed one of them on the primary key, a 500 (issue 28)."""
    insert = postgresql.insert if session.bind.dialect.name == "postgresql" else sqlite.insert
    await session.execute(insert(model).values(**key, **values)
                          .on_conflict_do_update(index_elements=list(key), set_=values))


class UnitOfWork:
    """One transaction: `async with db.unit_of_work() as uow:` commits on success, else rolls back.

    Repositories receive `uow.session`; they never open sessions of their own.
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._session: AsyncSession | None = None
        self._after_commit: list[Callable[[], Awaitable[object]]] = []

    @property
    def session(self) -> AsyncSession:
        if self._session is None:
            raise RuntimeError("UnitOfWork used outside its `async with` block")
        return self._session

    async def __aenter__(self) -> Self:
        self._session = self._sessions()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        session, self._session = self.session, None
        try:
            if exc_type is None:
                await session.commit()
            else:
                await session.rollback()
        finally:
            await session.close()
        if exc_type is None:
            await self._run_after_commit()

    async def commit(self) -> None:
        """Commit now (e.g. before an outbound call); the block may go on with a new transaction."""
        await self.session.commit()
        await self._run_after_commit()

    def after_commit(self, action: Callable[[], Awaitable[object]]) -> None:
        """Await `action()` once the unit of work's transaction has committed (never when it
        rolls back): what must follow the commit, and only it (the embedded job runner starts
        a job enqueued inside the transaction this way)."""
        self._after_commit.append(action)

    async def _run_after_commit(self) -> None:
        actions, self._after_commit = self._after_commit, []
        for action in actions:
            await action()


async def database_context(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: migrate on start when configured; dispose the engine's pool on shutdown.

    The Database object itself is made in create_app (an engine connects lazily), because app
    state must not change once the app has started.
    """
    from insureops.platform.migrations import upgrade

    database, settings = app[DATABASE], app[SETTINGS]
    try:
        if settings.migrate_on_start:
            # On PostgreSQL an engine of its own, without the service's round-trip bound: a
            # migration may be slow. (SQLite has no bound; ":memory:" must stay one engine.)
            migrating = database.engine if settings.is_sqlite else create_engine(
                settings.database_url)
            try:
                await upgrade(migrating)
            finally:
                if migrating is not database.engine:
                    await migrating.dispose()
        yield
    finally:
        await database.dispose()
