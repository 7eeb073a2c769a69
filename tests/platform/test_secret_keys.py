"""Keys: configured ones win; the embedded SQLite set-up generates and keeps a key file."""

from __future__ import annotations

import stat

import pytest
from cryptography.fernet import Fernet

from insureops.platform.auth.secret_keys import ConfigurationError, key_file_for, load_secret_keys
from insureops.platform.config import Settings


def test_key_file_is_generated_once_when_sqlite_has_no_configured_keys(tmp_path):
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/platform.db")
    first = load_secret_keys(settings)
    path = key_file_for(settings)
    assert path == tmp_path / "platform.db-keys.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    second = load_secret_keys(settings)
    assert first.secret_key == second.secret_key
    assert second.fernet.decrypt(first.fernet.encrypt(b"tenant-url")) == b"tenant-url"


def test_configured_keys_are_used_when_given(tmp_path):
    key = Fernet.generate_key().decode()
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/p.db",
                        secret_key="s3cret", fernet_keys=(key,))
    keys = load_secret_keys(settings)
    assert keys.secret_key == b"s3cret"
    assert Fernet(key).decrypt(keys.fernet.encrypt(b"x")) == b"x"
    assert not key_file_for(settings).exists()


def test_rotation_reads_old_tokens_when_a_new_key_is_put_first(tmp_path):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    url = f"sqlite+aiosqlite:///{tmp_path}/p.db"
    token = load_secret_keys(Settings(database_url=url, secret_key="s", fernet_keys=(old,))
                             ).fernet.encrypt(b"secret")
    rotated = load_secret_keys(Settings(database_url=url, secret_key="s", fernet_keys=(new, old)))
    assert rotated.fernet.decrypt(token) == b"secret"


def test_postgresql_requires_keys_when_none_are_configured():
    settings = Settings(database_url="postgresql+psycopg://app@db/insureops")
    with pytest.raises(ConfigurationError, match="INSUREOPS_FERNET_KEYS"):
        load_secret_keys(settings)


def test_malformed_fernet_key_is_refused_when_configured(tmp_path):
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/p.db", secret_key="s",
                        fernet_keys=("not-a-key",))
    with pytest.raises(ConfigurationError, match="url-safe base64"):
        load_secret_keys(settings)
