"""The service's keys: from the settings, or (zero-config SQLite only) a generated key file."""

from __future__ import annotations

import json
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.fernet import Fernet, MultiFernet

from insureops.platform.config import Settings

logger = logging.getLogger("insureops.platform.secret_keys")  # the name logs have carried


class ConfigurationError(Exception):
    """The settings cannot run the service; the message says what to set."""


@dataclass(frozen=True)
class SecretKeys:
    """secret_key: HMAC key for tokens; fernet: encrypts secrets at rest (newest key first)."""

    secret_key: bytes
    fernet: MultiFernet


def key_file_for(settings: Settings) -> Path | None:
    """Where the embedded set-up keeps generated keys: next to the SQLite file."""
    path = settings.sqlite_path
    return path.with_name(path.name + "-keys.json") if path else None


def _generate(path: Path) -> dict[str, object]:
    keys = {"secret_key": secrets.token_urlsafe(48),
            "fernet_keys": [Fernet.generate_key().decode()]}
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        json.dump(keys, file)
    logger.warning("generated secret keys into %s (embedded set-up); in production set "
                   "INSUREOPS_SECRET_KEY and INSUREOPS_FERNET_KEYS instead", path)
    return keys


def _read_or_generate(path: Path) -> dict[str, object]:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        try:
            return _generate(path)
        except FileExistsError:  # another instance generated it first
            return json.loads(path.read_text())


def load_secret_keys(settings: Settings) -> SecretKeys:
    """The configured keys; with SQLite and none configured, those of the generated key file."""
    secret = settings.secret_key.get_secret_value() if settings.secret_key else None
    fernet_keys = [key.get_secret_value() for key in settings.fernet_keys]
    if not (secret and fernet_keys):
        path = key_file_for(settings)
        if path is None:
            raise ConfigurationError(
                "INSUREOPS_SECRET_KEY and INSUREOPS_FERNET_KEYS are required unless the platform "
                "database is a SQLite file (generate a Fernet key with `python -c \"from "
                "cryptography.fernet import Fernet; print(Fernet.generate_key().decode())\"`)")
        stored = _read_or_generate(path)
        secret = secret or str(stored["secret_key"])
        fernet_keys = fernet_keys or [str(key) for key in stored["fernet_keys"]]
    try:
        fernet = MultiFernet([Fernet(key) for key in fernet_keys])
    except ValueError:
        raise ConfigurationError("INSUREOPS_FERNET_KEYS must be 32-byte url-safe base64 keys, "
                                 "comma-separated") from None
    return SecretKeys(secret.encode(), fernet)
