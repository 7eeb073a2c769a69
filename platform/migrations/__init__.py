"""The platform database's alembic environment, configured in code (no alembic.ini at runtime)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

# A table name of its own: tenant databases have their own alembic environment and version table.
VERSION_TABLE = "insureops_platform_version"


def alembic_config() -> Config:
    """The alembic Config of the platform database (script location = this package)."""
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).resolve().parent))
    config.set_main_option("version_table", VERSION_TABLE)
    return config


@cache
def head_revision() -> str | None:
    """The newest revision of this package's scripts (they do not change while we run)."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(
        connection, opts={"version_table": VERSION_TABLE}).get_current_revision()


async def upgrade(engine: AsyncEngine) -> str | None:
    """Apply every pending platform migration in one transaction; return the revision reached.

    A database already at head is left alone after one read of its version table, so an
    instance (or a test) starting on a migrated database does not run alembic at all.
    """
    head = head_revision()
    if await current_revision(engine) == head:
        return head
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade)
    return await current_revision(engine)


async def current_revision(engine: AsyncEngine) -> str | None:
    async with engine.connect() as connection:
        return await connection.run_sync(_current)
