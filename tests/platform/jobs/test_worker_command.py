"""`insureops worker`: refuses the embedded default, whose serve process runs the jobs."""

from __future__ import annotations

from click.testing import CliRunner

from insureops.platform.cli import main


def test_worker_refuses_when_the_platform_database_is_sqlite(tmp_path, monkeypatch):
    monkeypatch.setenv("INSUREOPS_DATABASE_URL", f"sqlite:///{tmp_path / 'p.db'}")
    result = CliRunner().invoke(main, ["worker"])
    assert result.exit_code == 1
    assert "`insureops serve` runs the jobs itself" in result.output
