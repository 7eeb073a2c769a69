"""Platform migrations: applied on start and by `insureops migrate`, idempotent on both engines."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from click.testing import CliRunner
from sqlalchemy import inspect

from insureops.platform.cli import main
from insureops.platform.data.database import Base, Database
from insureops.platform.migrations import (
    VERSION_TABLE,
    current_revision,
    env_models,  # noqa: F401 - every model on Base.metadata
    head_revision,
    upgrade,
)


async def tables_and_revision(url: str) -> tuple[set[str], str | None]:
    database = Database.connect(url)
    try:
        async with database.engine.connect() as connection:
            tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
        return tables, await current_revision(database.engine)
    finally:
        await database.dispose()


def test_migrate_command_is_idempotent_when_run_twice(database_urls):
    runner = CliRunner()
    for _ in range(2):
        result = runner.invoke(main, ["migrate", "--database-url", database_urls.async_])
        assert result.exit_code == 0, result.output
        assert f"at revision {head_revision()}" in result.output


def test_migrate_command_creates_the_tables_when_the_database_is_empty(database_urls):
    result = CliRunner().invoke(main, ["migrate", "--database-url", database_urls.async_])
    assert result.exit_code == 0, result.output
    tables, revision = asyncio.run(tables_and_revision(database_urls.async_))
    assert {"rate_limit_counters", VERSION_TABLE} <= tables
    assert revision == head_revision()


async def test_service_start_migrates_when_the_database_is_new(client, settings):
    tables, revision = await tables_and_revision(settings.database_url)
    assert "rate_limit_counters" in tables and revision == head_revision()


def test_migrate_command_reports_a_failure_without_a_trace_when_unreachable(tmp_path):
    result = CliRunner().invoke(main, ["migrate", "--database-url",
                                       "postgresql+psycopg://nobody@127.0.0.1:1/none"])
    assert result.exit_code == 1
    assert "migration failed: OperationalError" in result.output
    assert "Traceback" not in result.output


def schema_differences(connection) -> list:
    """What alembic's autogenerate would change to make the database match the models."""
    def ours(name, kind, _parent) -> bool:  # procrastinate's queue tables are its own
        return name != VERSION_TABLE and not (kind == "table" and name.startswith(
            "procrastinate_"))
    context = MigrationContext.configure(connection, opts={
        "compare_type": False, "include_name": ours})
    return compare_metadata(context, Base.metadata)


async def test_migrations_create_exactly_the_models_when_applied_to_head(database_urls):
    database = Database.connect(database_urls.async_)
    try:
        assert await upgrade(database.engine) == head_revision()
        async with database.engine.connect() as connection:
            differences = await connection.run_sync(schema_differences)
    finally:
        await database.dispose()
    assert differences == []
