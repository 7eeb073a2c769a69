"""`apply` prepares a tenant database idempotently, upgrades in place, refuses unknown versions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from insureops.platform.tenancy.data_model import (
    ALEMBIC_VERSION_TABLE,
    MIGRATIONS,
    SERVICE_TABLES,
    apply_data_model,
    recorded_version,
)
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.catalog import TABLES
from insureops.schema.errors import DataModelVersionError
from insureops.schema.sql.ddl import ddl_statements
from insureops.schema.sql.tables import VERSION_TABLE, build_metadata

REVISION_2_3_0 = '''"""Data model 2.3.0 (test only): clients gain a nickname."""
import sqlalchemy as sa
from alembic import op

revision = "v2_3_0"
down_revision = "v2_2_0_events"
branch_labels = None
depends_on = None
data_model_version = "2.3.0"


def upgrade() -> None:
    op.add_column("clients", sa.Column("nickname", sa.Text()))
    op.execute("UPDATE insureops_data_model SET version = '2.3.0'")


def downgrade() -> None:
    op.drop_column("clients", "nickname")
'''


@pytest.fixture
def fresh(database_urls):
    engine = create_tenant_engine(database_urls.sync)
    yield engine
    engine.dispose()


def _tables(engine) -> set[str]:
    with engine.connect() as connection:
        return set(sa.inspect(connection).get_table_names())


def test_apply_creates_every_table_and_records_the_version_when_the_database_is_empty(fresh):
    result = apply_data_model(fresh)
    assert (result.action, result.version) == ("created", "2.2.0")
    assert ({t.name for t in TABLES} | {VERSION_TABLE, ALEMBIC_VERSION_TABLE}
            | set(SERVICE_TABLES)) == _tables(fresh)
    with fresh.connect() as connection:
        assert recorded_version(connection) == "2.2.0"
        assert connection.execute(sa.text(
            f"SELECT version_num FROM {ALEMBIC_VERSION_TABLE}")).scalar_one() == "v2_2_0_events"


def test_apply_changes_nothing_when_run_again(fresh):
    apply_data_model(fresh)
    with fresh.begin() as connection:
        connection.execute(sa.text("INSERT INTO producers (id, tenant_id, name) VALUES "
                                   "('0b4a6d1e5c7f4a3b8e2d1c0f9a8b7c6d', 't', 'kept')"))
    second = apply_data_model(fresh)
    assert (second.action, second.describe()) == ("unchanged", "already at 2.2.0; nothing to do")
    with fresh.connect() as connection:
        assert connection.execute(sa.text("SELECT name FROM producers")).scalar_one() == "kept"


def test_database_matches_the_metadata_when_applied(fresh):
    apply_data_model(fresh)
    with fresh.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"version_table": ALEMBIC_VERSION_TABLE, "compare_type": False,
                              "include_name": lambda name, kind, _parent: not (
                                  kind == "table" and name in SERVICE_TABLES)})
        differences = compare_metadata(context, build_metadata())
    assert differences == []


def test_apply_refuses_without_changes_when_the_database_holds_a_newer_version(fresh):
    apply_data_model(fresh)
    with fresh.begin() as connection:
        connection.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version = '9.0.0'"))
    with pytest.raises(DataModelVersionError, match="holds data model 9.0.0") as caught:
        apply_data_model(fresh)
    assert caught.value.found == "9.0.0"


def test_apply_refuses_when_data_model_tables_exist_without_a_version(fresh):
    with fresh.begin() as connection:
        connection.execute(sa.text("CREATE TABLE clients (id integer primary key)"))
    with pytest.raises(DataModelVersionError, match="no insureops_data_model record"):
        apply_data_model(fresh)
    assert _tables(fresh) == {"clients"}


def test_database_from_printed_ddl_is_recognised_when_applied(fresh, backend):
    with fresh.begin() as connection:
        for statement in ddl_statements(backend):
            connection.execute(sa.text(statement))
    result = apply_data_model(fresh)  # the DDL is the data model's: the outbox is added
    assert (result.action, result.previous, result.version) == ("upgraded", "2.2.0", "2.2.0")
    assert set(SERVICE_TABLES) <= _tables(fresh)
    assert apply_data_model(fresh).action == "unchanged"


def test_later_version_upgrades_a_database_in_place_when_a_revision_is_added(fresh, tmp_path):
    apply_data_model(fresh)
    with fresh.begin() as connection:
        connection.execute(sa.text("INSERT INTO producers (id, tenant_id, name) VALUES "
                                   "('0b4a6d1e5c7f4a3b8e2d1c0f9a8b7c6d', 't', 'kept')"))
    migrations = Path(shutil.copytree(MIGRATIONS, tmp_path / "migrations",
                                      ignore=shutil.ignore_patterns("__pycache__")))
    (migrations / "versions" / "v2_3_0_nickname.py").write_text(REVISION_2_3_0)
    result = apply_data_model(fresh, version="2.3.0", migrations=migrations)
    assert (result.action, result.previous, result.version) == ("upgraded", "2.2.0", "2.3.0")
    with fresh.connect() as connection:
        assert "nickname" in {c["name"] for c in sa.inspect(connection).get_columns("clients")}
        assert connection.execute(sa.text("SELECT name FROM producers")).scalar_one() == "kept"
    with pytest.raises(DataModelVersionError, match="2.3.0"):
        apply_data_model(fresh)
