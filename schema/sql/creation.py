"""Creating and dropping the whole data model on one connection (in the caller's transaction)."""

from __future__ import annotations

import sqlalchemy as sa

from insureops.schema.catalog import TABLES
from insureops.schema.sql.tables import VERSION_TABLE, build_metadata
from insureops.schema.sql.triggers import install_triggers

POSTGRESQL_FUNCTIONS = ("insureops_touch_modified", "insureops_touch_updated_at",
                        "insureops_append_only", "insureops_claim_status_history")


def create_data_model(connection: sa.Connection, *, version: str) -> None:
    """Create every table, index and trigger, and record `version` in the version table."""
    metadata = build_metadata()
    metadata.create_all(connection)
    install_triggers(connection)
    connection.execute(sa.delete(metadata.tables[VERSION_TABLE]))
    connection.execute(sa.insert(metadata.tables[VERSION_TABLE]).values(version=version))


def drop_data_model(connection: sa.Connection) -> None:
    """Drop every data-model table (their triggers go with them) and the trigger functions."""
    build_metadata().drop_all(connection)
    if connection.dialect.name == "postgresql":
        for function in POSTGRESQL_FUNCTIONS:
            connection.exec_driver_sql(f"DROP FUNCTION IF EXISTS {function}() CASCADE")


def existing_data_model_tables(connection: sa.Connection) -> list[str]:
    """Which of the data model's table names already exist in the database."""
    present = set(sa.inspect(connection).get_table_names())
    return [table.name for table in TABLES if table.name in present]
