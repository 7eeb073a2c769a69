"""Migration 0002 creates exactly what the ORM models describe, on both engines."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from insureops.platform.accounts import models  # noqa: F401 - registers the tables
from insureops.platform.data.database import Base, Database
from insureops.platform.email import log  # noqa: F401 - registers the e-mail log
from insureops.platform.identity import models as identity_models  # noqa: F401 - users, workspaces
from insureops.platform.migrations import upgrade

TABLES = {"users", "workspaces", "memberships", "sessions", "verification_codes", "email_log"}


def _differences(connection) -> list:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return [diff for diff in compare_metadata(context, Base.metadata)
            if _table_of(diff) in TABLES]


def _table_of(diff) -> str | None:
    first = diff[0] if isinstance(diff, list) else diff
    for item in first[1:]:
        name = getattr(item, "name", None) if hasattr(item, "columns") else None
        table = getattr(item, "table", None)
        if table is not None and hasattr(table, "name"):
            return table.name
        if name is not None:
            return name
        if isinstance(item, str) and item in TABLES:
            return item
    return None


async def test_migrated_tables_match_the_models_when_compared(database_urls):
    database = Database.connect(database_urls.async_)
    try:
        await upgrade(database.engine)
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(_differences)
    finally:
        await database.engine.dispose()

    assert differences == []
