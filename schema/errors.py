"""Errors of the data-model layer: each has a stable snake_case `code` and, where known, a field."""

from __future__ import annotations

from collections.abc import Sequence


class SchemaError(Exception):
    """Root of the schema package's errors."""

    code = "schema_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidTransitionError(SchemaError):
    """A status change that the resource's state machine does not allow."""

    code = "invalid_transition"

    def __init__(self, resource: str, field: str, from_state: str | None, to_state: str,
                 allowed: Sequence[str]) -> None:
        self.resource = resource
        self.from_state = from_state
        self.to_state = to_state
        self.allowed = tuple(allowed)
        options = ", ".join(self.allowed) if self.allowed else "none (final state)"
        super().__init__(
            f"{resource}.{field}: cannot change from {from_state!r} to {to_state!r}; "
            f"allowed from {from_state!r}: {options}",
            field=field,
        )


class MissingFieldError(SchemaError):
    """A field a status change requires was not given (e.g. closure_reason to close a claim)."""

    code = "validation_error"


class RecordNotFoundError(SchemaError):
    """The row a status change addresses does not exist (in this tenant)."""

    code = "not_found"


class ConstraintViolationError(SchemaError):
    """The database refused a write; `field` names the column, `code` the rule that failed.

    Codes: too_long, invalid_enum, out_of_range, required, duplicate, invalid_reference,
    referenced (a RESTRICT foreign key blocks a delete), append_only, read_only, invalid_value.
    """

    def __init__(self, field: str | None, code: str, message: str, *,
                 table: str | None = None) -> None:
        super().__init__(message, field=field)
        self.code = code
        self.table = table


class DataModelVersionError(SchemaError):
    """The tenant database holds a data-model version this code cannot serve or upgrade."""

    code = "data_model_version"

    def __init__(self, found: str | None, supported: str, message: str) -> None:
        super().__init__(message)
        self.found = found
        self.supported = supported
