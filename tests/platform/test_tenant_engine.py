"""The tenant engine factory: sync URLs only, SQLite foreign keys on every connection."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from insureops.platform.tenancy.engine import create_tenant_engine, normalise_url


@pytest.mark.parametrize(("given", "driver"), [
    ("postgresql://u@h/db", "postgresql+psycopg"), ("postgres://u@h/db", "postgresql+psycopg"),
    ("postgresql+psycopg://u@h/db", "postgresql+psycopg"), ("sqlite:///x.db", "sqlite")])
def test_url_gets_a_sync_driver_when_normalised(given, driver):
    assert normalise_url(given).drivername == driver


@pytest.mark.parametrize("given", ["sqlite+aiosqlite:///x.db", "mysql://u@h/db"])
def test_url_is_refused_when_not_a_supported_sync_scheme(given):
    with pytest.raises(ValueError, match="unsupported database URL scheme"):
        normalise_url(given)


def test_sqlite_connections_enforce_foreign_keys_when_opened_by_the_factory(tmp_path):
    engine = create_tenant_engine(f"sqlite:///{tmp_path / 'fk.db'}")
    with engine.connect() as first, engine.connect() as second:
        assert first.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
        assert second.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
    engine.dispose()


def test_sqlite_ddl_is_rolled_back_when_its_transaction_fails(tmp_path):
    engine = create_tenant_engine(f"sqlite:///{tmp_path / 'tx.db'}")
    with pytest.raises(RuntimeError), engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE half (id INTEGER)")
        raise RuntimeError("abort")
    with engine.connect() as connection:
        assert not sa.inspect(connection).has_table("half")
    engine.dispose()
