"""Errors of the tenant-data use cases: each carries a stable code (mapped to HTTP by the area)."""

from __future__ import annotations


class TenantDataError(Exception):
    """Root of the tenant-data errors; `code` is the stable snake_case error code."""

    code = "tenant_data_error"

    def __init__(self, message: str, details: list[dict[str, str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class PayloadInvalidError(TenantDataError):
    """A payload or query failed validation; `details` is one {field, message} per failure."""

    code = "validation_error"


class RecordMissingError(TenantDataError):
    """No client or policy with that uuid in the caller's tenant."""

    code = "not_found"


class StateConflictError(TenantDataError):
    """The write conflicts with the stored data (a duplicate policy_number, a status move)."""

    code = "conflict"


class TransitionRefusedError(StateConflictError):
    """The policy state machine does not allow the status change."""

    code = "invalid_transition"


class TenantDatabaseUnavailableError(TenantDataError):
    """The tenant database cannot be reached (down, refusing, timed out, not configured)."""

    code = "tenant_database_unavailable"


class TenantDatabaseUnpreparedError(TenantDatabaseUnavailableError):
    """A table the statements need is missing: the database was never prepared, or predates
    the revision that adds it (rules at work's outbox); `insureops schema apply URL` once."""
