"""Alembic environment of the tenant data model: runs on a connection handed in by `apply`.

Its own version table (insureops_tenant_alembic_version) keeps it apart from the platform
database's alembic history. SQLite migrations run in batch mode (ALTER TABLE by copy).
"""

from __future__ import annotations

from alembic import context

from insureops.platform.tenancy.data_model import ALEMBIC_VERSION_TABLE
from insureops.schema.sql.tables import build_metadata


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("the tenant migrations run through insureops.platform.tenancy.data_model, "
                           "which hands alembic an open connection")
    context.configure(
        connection=connection,
        target_metadata=build_metadata(),
        version_table=ALEMBIC_VERSION_TABLE,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
