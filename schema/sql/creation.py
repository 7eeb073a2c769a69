"""Creating and dropping the whole data model on one connection (in the caller's transaction)."""

from __future__ import annotations

import sqlalchemy as sa

from insureops.schema.catalog import TABLES
from insureops.schema.sql.ddl import ddl_statements
from insureops.schema.sql.tables import VERSION_TABLE, build_metadata

POSTGRESQL_FUNCTIONS = ("insureops_touch_modified", "insureops_touch_updated_at",
                        "insureops_append_only", "insureops_claim_status_history")


def create_data_model(connection: sa.Connection, *, version: str) -> None:
    """Create every table, index and trigger, and record `version` in the version table.

    On PostgreSQL the printed DDL goes to the server as one script (one round trip instead of
    ~150); SQLite runs the same statements one by one. Either way: exactly `schema ddl`'s output.
    """
    metadata = build_metadata()
    statements = ddl_statements(connection.dialect.name, version_row=False)
    if connection.dialect.name == "postgresql":
        # No parameters: doubling % keeps psycopg from reading strftime-like text as placeholders.
        connection.exec_driver_sql(";\n".join(statements).replace("%", "%%"))
    else:
        for statement in statements:
            connection.exec_driver_sql(statement)
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
