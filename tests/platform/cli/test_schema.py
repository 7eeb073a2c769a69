"""`insureops schema apply` and `insureops schema ddl` through the real command line group."""

from __future__ import annotations

import sqlalchemy as sa
from click.testing import CliRunner

from insureops.platform.cli import main
from insureops.platform.tenancy.engine import create_tenant_engine


def test_apply_prepares_then_reports_no_change_when_run_twice(database_urls):
    first = CliRunner().invoke(main, ["schema", "apply", database_urls.sync])
    second = CliRunner().invoke(main, ["schema", "apply", database_urls.sync])
    assert (first.exit_code, second.exit_code) == (0, 0), first.output + second.output
    assert "created data model 2.2.0" in first.output
    assert "already at 2.2.0" in second.output


def test_apply_exits_1_with_a_message_when_the_database_holds_a_newer_version(database_urls):
    assert CliRunner().invoke(main, ["schema", "apply", database_urls.sync]).exit_code == 0
    engine = create_tenant_engine(database_urls.sync)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE insureops_data_model SET version = '3.0.0'"))
    engine.dispose()
    result = CliRunner().invoke(main, ["schema", "apply", database_urls.sync])
    assert result.exit_code == 1
    assert "holds data model 3.0.0" in result.output and "Traceback" not in result.output


def test_apply_exits_1_when_the_url_scheme_is_unsupported():
    result = CliRunner().invoke(main, ["schema", "apply", "mysql://user:secret@host/db"])
    assert result.exit_code == 1
    assert "unsupported database URL scheme 'mysql'" in result.output


def test_apply_hides_the_password_when_the_database_is_unreachable():
    result = CliRunner().invoke(main, ["schema", "apply",
                                       "postgresql://user:s3cret@127.0.0.1:9/none"])
    assert result.exit_code == 1
    assert "cannot prepare the database" in result.output and "s3cret" not in result.output


def test_ddl_prints_tables_and_triggers_for_each_dialect():
    postgresql = CliRunner().invoke(main, ["schema", "ddl", "--dialect", "postgresql"])
    sqlite = CliRunner().invoke(main, ["schema", "ddl", "--dialect", "sqlite"])
    assert (postgresql.exit_code, sqlite.exit_code) == (0, 0)
    assert "CREATE TABLE claims" in postgresql.output and "JSONB" in postgresql.output
    assert "RAISE(ABORT" in sqlite.output and "CREATE TABLE claims" in sqlite.output
    assert "INSERT INTO insureops_data_model (version) VALUES ('2.2.0')" in sqlite.output


def test_ddl_refuses_an_unknown_dialect():
    result = CliRunner().invoke(main, ["schema", "ddl", "--dialect", "oracle"])
    assert result.exit_code == 2


def test_docs_prints_the_data_model_reference():
    result = CliRunner().invoke(main, ["schema", "docs"])
    assert result.exit_code == 0
    assert result.output.startswith("# Data model 2.2.0")
    assert "### claim_status_history" in result.output
