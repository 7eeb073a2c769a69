"""Migration 0004 creates exactly what the usage model describes, on both engines."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from insureops.platform.data.database import Base, Database
from insureops.platform.migrations import upgrade
from insureops.platform.records import usage  # noqa: F401 - registers mcp_usage on Base.metadata


def _usage_differences(connection) -> list:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return [diff for diff in compare_metadata(context, Base.metadata)
            if "mcp_usage" in repr(diff)]


async def test_migrated_usage_table_matches_the_model_when_compared(database_urls):
    database = Database.connect(database_urls.async_)
    try:
        await upgrade(database.engine)
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(_usage_differences)
    finally:
        await database.engine.dispose()
    assert differences == []
