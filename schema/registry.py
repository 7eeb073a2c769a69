"""The type registry: JSON Schemas by the type names that rulesets declare (`input x: Business`).

The rules checker reads field names and types from here, and the engine converts input strings
declared with `format: date` / `date-time`. `Any` is not registered: it means "no schema".
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from insureops.schema.business import BUSINESS_SCHEMA

ANY_TYPE = "Any"


class TypeRegistry:
    """An immutable mapping of type name -> JSON Schema."""

    def __init__(self, schemas: Mapping[str, dict]) -> None:
        self._schemas = MappingProxyType(dict(schemas))

    def get(self, name: str) -> dict | None:
        """The schema of `name`, or None when unknown (and for `Any`)."""
        return self._schemas.get(name)

    def __contains__(self, name: object) -> bool:
        return name == ANY_TYPE or name in self._schemas

    def names(self) -> list[str]:
        """Every known type name, `Any` included, sorted."""
        return sorted([*self._schemas, ANY_TYPE])

    def with_types(self, extra: Mapping[str, dict]) -> TypeRegistry:
        """A new registry with `extra` added (or replacing same-named types)."""
        return TypeRegistry({**self._schemas, **extra})


@cache
def default_registry() -> TypeRegistry:
    """The product's types: the carrier-matching Business profile and the data-model resources."""
    # Imported here so that importing the registry stays cheap for commands that never call it.
    from insureops.schema.jsonschemas import read_schemas

    return TypeRegistry({"Business": BUSINESS_SCHEMA, **read_schemas()})
