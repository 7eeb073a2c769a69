"""Settings: defaults, the environment (INSUREOPS_*), URL normalisation, validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from insureops.platform.config import Settings


def test_defaults_describe_the_embedded_setup_when_nothing_is_configured():
    settings = Settings()
    assert settings.database_url == "sqlite+aiosqlite:///./insureops.db"
    assert settings.sqlite_path == Path("insureops.db")
    assert (settings.host, settings.port) == ("127.0.0.1", 8080)
    assert settings.max_body_bytes == 1024 * 1024
    assert settings.secret_key is None and settings.fernet_keys == ()
    # Issue 11: every workspace gets its own embedded SQLite tenant database next to it.
    assert settings.tenant_sqlite_root == Path("insureops.db-tenants")
    assert settings.embedded_tenants_on


def test_embedded_tenant_databases_are_off_when_the_platform_is_postgres_or_turned_off(
        monkeypatch):
    postgres = Settings(database_url="postgresql://app@db.internal/insureops")
    assert postgres.tenant_sqlite_root is None and not postgres.embedded_tenants_on
    monkeypatch.setenv("INSUREOPS_EMBEDDED_TENANT_DATABASES", "false")
    off = Settings.from_env()
    assert off.tenant_sqlite_root is None and not off.embedded_tenants_on
    directory_only = Settings.from_env(tenant_sqlite_directory="/srv/tenants")
    assert directory_only.tenant_sqlite_root == Path("/srv/tenants")
    assert not directory_only.embedded_tenants_on  # SQLite URLs may be saved; no default


def test_embedded_tenant_databases_need_a_directory_when_the_platform_is_postgres():
    with pytest.raises(ValidationError, match="INSUREOPS_TENANT_SQLITE_DIRECTORY"):
        Settings(database_url="postgresql://app@db.internal/insureops",
                 embedded_tenant_databases=True)
    on = Settings(database_url="postgresql://app@db.internal/insureops",
                  embedded_tenant_databases=True, tenant_sqlite_directory="/srv/tenants")
    assert on.embedded_tenants_on


def test_direct_construction_ignores_the_environment_when_variables_are_set(monkeypatch):
    monkeypatch.setenv("INSUREOPS_PORT", "9999")
    assert Settings().port == 8080
    assert Settings.from_env().port == 9999


def test_from_env_reads_prefixed_variables_when_they_are_set(monkeypatch):
    monkeypatch.setenv("INSUREOPS_DATABASE_URL", "postgresql://app@db.internal:5432/insureops")
    monkeypatch.setenv("INSUREOPS_ALLOWED_ORIGINS", "https://a.example/, https://b.example")
    monkeypatch.setenv("INSUREOPS_FERNET_KEYS", "k1,k2")
    monkeypatch.setenv("INSUREOPS_SECURE_COOKIES", "true")
    monkeypatch.setenv("INSUREOPS_TRUSTED_PROXY", "1")
    monkeypatch.setenv("INSUREOPS_LOG_FORMAT", "json")
    monkeypatch.setenv("INSUREOPS_MAX_BODY_BYTES", "2048")
    settings = Settings.from_env()
    assert settings.database_url == "postgresql+psycopg://app@db.internal:5432/insureops"
    assert settings.sqlite_path is None
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    assert [key.get_secret_value() for key in settings.fernet_keys] == ["k1", "k2"]
    assert settings.secure_cookies and settings.trusted_proxy
    assert (settings.log_format, settings.max_body_bytes) == ("json", 2048)


def test_overrides_win_over_the_environment_when_the_cli_passes_options(monkeypatch):
    monkeypatch.setenv("INSUREOPS_PORT", "9999")
    assert Settings.from_env(port=8181).port == 8181


def test_settings_are_frozen_when_built():
    with pytest.raises(ValidationError):
        Settings().port = 1  # type: ignore[misc]


@pytest.mark.parametrize(("name", "value"), [
    ("INSUREOPS_DATABASE_URL", "mysql://x/y"),
    ("INSUREOPS_PORT", "not-a-port"),
    ("INSUREOPS_LOG_FORMAT", "xml"),
])
def test_invalid_values_are_refused_when_read_from_the_environment(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings.from_env()


def test_secret_key_is_hidden_when_settings_are_printed(monkeypatch):
    monkeypatch.setenv("INSUREOPS_SECRET_KEY", "very-secret-value")
    settings = Settings.from_env()
    assert "very-secret-value" not in repr(settings)
    assert settings.secret_key.get_secret_value() == "very-secret-value"
