"""Domain errors of the settings area, each with a stable code (mapped to HTTP in routes.py)."""

from __future__ import annotations


class SettingsError(Exception):
    """Root of the settings area's errors."""

    code = "settings_error"


class ApiKeyNotFoundError(SettingsError):
    """No live key with this id in the active workspace."""

    code = "not_found"


class InvalidExpiryError(SettingsError):
    """The requested expiry is not in the future."""

    code = "validation_error"


class DatabaseUrlRefusedError(SettingsError):
    """The tenant database URL is malformed, of an unsupported kind, or points somewhere the
    service must not connect to; `refusal_code` says which (docs/team-and-settings.md)."""

    code = "database_url_refused"

    def __init__(self, refusal_code: str, message: str) -> None:
        super().__init__(message)
        self.refusal_code = refusal_code


class DatabaseNotConfiguredError(SettingsError):
    """The workspace has no tenant database connection saved yet."""

    code = "database_not_configured"
