"""The sync engine factory of tenant databases: URL normalisation, per-connection SQLite settings.

SQLite needs `PRAGMA foreign_keys=ON` on every connection (otherwise CASCADE, SET NULL and
RESTRICT are silently ignored), and real transactions around DDL: the factory sets the driver to
autocommit mode and emits BEGIN itself (SQLAlchemy's documented pysqlite recipe), so `apply` is
atomic and SAVEPOINTs work. Always open tenant databases through `create_tenant_engine`.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

SYNC_DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg",
                "postgresql+psycopg": "postgresql+psycopg", "sqlite": "sqlite",
                "sqlite+pysqlite": "sqlite"}


def normalise_url(url: str | URL) -> URL:
    """A sync URL SQLAlchemy can open: postgresql:// and postgres:// use psycopg 3.

    Raises ValueError for other schemes (async drivers included: this is the sync side).
    """
    parsed = make_url(url)
    driver = SYNC_DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(f"unsupported database URL scheme {parsed.drivername!r}: use "
                         "postgresql://, postgresql+psycopg:// or sqlite:///PATH")
    return parsed.set(drivername=driver)


def _on_sqlite_connect(dbapi_connection, connection_record) -> None:
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


# Execution option: open the transaction with BEGIN IMMEDIATE (takes SQLite's write lock at once,
# waiting up to the busy timeout, instead of failing when a read transaction upgrades later).
BEGIN_IMMEDIATE = "insureops_begin_immediate"


def _on_sqlite_begin(connection: sa.Connection) -> None:
    immediate = connection.get_execution_options().get(BEGIN_IMMEDIATE, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def configure_sqlite(engine: sa.Engine) -> None:
    """Enforce foreign keys on every connection and make BEGIN real (SAVEPOINTs work): SQLite's
    driver defaults do neither. For an async engine pass its `sync_engine`."""
    sa.event.listen(engine, "connect", _on_sqlite_connect)
    sa.event.listen(engine, "begin", _on_sqlite_begin)


def create_tenant_engine(url: str | URL, **options) -> sa.Engine:
    """An Engine on a tenant database (PostgreSQL or SQLite) with the settings above."""
    parsed = normalise_url(url)
    engine = sa.create_engine(parsed, **options)
    if parsed.get_backend_name() == "sqlite":
        configure_sqlite(engine)
    return engine
