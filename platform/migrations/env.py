"""Alembic environment of the platform database; runs on the connection upgrade() hands it."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from insureops.platform.data.database import Base
from insureops.platform.migrations import env_models  # noqa: F401 - every model on Base.metadata

# PostgreSQL: one instance migrates at a time when several start together (arbitrary constant).
_MIGRATION_LOCK_ID = 7_310_452_611


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run platform migrations through insureops.platform.migrations.upgrade "
                           "or `insureops migrate`")
    if connection.dialect.name == "postgresql":
        connection.execute(text(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_ID})"))
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        version_table=context.config.get_main_option("version_table"),
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite's ALTER TABLE is limited
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) mode is not supported for the platform database")
run_migrations_online()
