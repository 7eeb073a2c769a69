"""Validation of client and policy payloads against the data model's JSON Schemas (schema/).

Messages name the field and the rule, never the value sent (a value may be personal data).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError as SchemaViolation

from insureops.schema.jsonschemas import Mode, resource_schema

_FORMATS = {"date": "a date (YYYY-MM-DD)", "date-time": "a date-time with time zone (RFC 3339)",
            "uuid": "a UUID", "ipv4": "an IPv4 address", "ipv6": "an IPv6 address"}
_TYPES = {"string": "a string", "number": "a number", "integer": "an integer",
          "boolean": "true or false", "null": "null", "object": "an object", "array": "an array"}


@cache
def _validator(resource: str, mode: Mode) -> Draft202012Validator:
    return Draft202012Validator(resource_schema(resource, mode), format_checker=FormatChecker())


def _path(error: SchemaViolation, extra: str | None = None) -> str:
    parts = [str(part) for part in error.absolute_path]
    if extra is not None:
        parts.append(extra)
    return ".".join(parts) or "body"


def _describe(error: SchemaViolation) -> Iterable[tuple[str, str]]:
    keyword, expected = error.validator, error.validator_value
    if keyword == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        for name in expected:
            if name not in present:
                yield _path(error, name), "is required"
        return
    if keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        for name in sorted(error.instance):
            if name not in known:
                yield _path(error, name), "is not a field of this resource (unknown field)"
        return
    if keyword == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        message = "must be " + " or ".join(_TYPES.get(kind, kind) for kind in kinds)
        yield _path(error), ("must be a JSON object" if _path(error) == "body" else message)
        return
    if keyword == "enum":
        yield _path(error), "must be one of: " + ", ".join(
            "null" if value is None else str(value) for value in expected)
        return
    messages = {
        "maxLength": f"is too long (at most {expected} characters)",
        "minLength": f"is too short (at least {expected} characters)",
        "format": f"must be {_FORMATS.get(str(expected), expected)}",
        "minimum": f"must be at least {expected}",
        "maximum": f"must be at most {expected}",
        "exclusiveMinimum": f"must be greater than {expected}",
        "exclusiveMaximum": f"must be less than {expected}",
        "anyOf": "must be an IP address",
    }
    yield _path(error), messages.get(str(keyword), "is invalid")


def payload_errors(resource: str, mode: Mode, data: Any) -> list[dict[str, str]]:
    """Every failure of `data` against the `resource` schema in `mode`, as {field, message}."""
    found: dict[tuple[str, str], None] = {}
    for error in _validator(resource, mode).iter_errors(data):
        for field, message in _describe(error):
            found[(field, message)] = None
    return [{"field": field, "message": message} for field, message in sorted(found)]
