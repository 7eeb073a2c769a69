"""The platform database: declarative Base, the async engine per app, and UnitOfWork."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from aiohttp import web
from sqlalchemy import MetaData, event, text
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from insureops.platform.keys import DATABASE, SETTINGS

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


def create_engine(url: str) -> AsyncEngine:
    """An async engine for a sqlite+aiosqlite or postgresql+psycopg URL."""
    if url.startswith("sqlite"):
        _, _, rest = url.partition(":///")
        path = rest.split("?", 1)[0]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # timeout: how long a writer waits for SQLite's lock when instances share the file
        engine = create_async_engine(url, connect_args={"timeout": 15})
        event.listen(engine.sync_engine, "connect", _enable_sqlite_pragmas)
        return engine
    return create_async_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


def create_reads_engine(url: str) -> AsyncEngine:
    """PostgreSQL: a small autocommit engine without pre-ping, for one-statement reads on the
    request path (the API key's): one round trip each; the caller retries once when its
    pooled connection turns out dead (`connection_invalidated`)."""
    return create_async_engine(url, isolation_level="AUTOCOMMIT", pool_size=8, max_overflow=0)


@dataclass(frozen=True)
class Database:
    """One platform database: its engine and session factory; `reads` for one-statement reads
    on the request path (the same engine on SQLite)."""

    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    reads: AsyncEngine

    @classmethod
    def connect(cls, url: str) -> Database:
        engine = create_engine(url)
        reads = engine if url.startswith("sqlite") else create_reads_engine(url)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False), reads)

    def unit_of_work(self) -> UnitOfWork:
        return UnitOfWork(self.sessions)

    async def ping(self) -> None:
        """Raise the driver's error when the database cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))


class UnitOfWork:
    """One transaction: `async with db.unit_of_work() as uow:` commits on success, else rolls back.

    Repositories receive `uow.session`; they never open sessions of their own.
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._session: AsyncSession | None = None

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

    async def commit(self) -> None:
        """Commit now (e.g. before an outbound call); the block may go on with a new transaction."""
        await self.session.commit()


async def database_context(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: migrate on start when configured; dispose the engine's pool on shutdown.

    The Database object itself is made in create_app (an engine connects lazily), because app
    state must not change once the app has started.
    """
    from insureops.platform.migrations import upgrade

    database = app[DATABASE]
    try:
        if app[SETTINGS].migrate_on_start:
            await upgrade(database.engine)
        yield
    finally:
        await database.engine.dispose()
        if database.reads is not database.engine:
            await database.reads.dispose()
