"""The type registry: JSON Schemas by the type names that rulesets declare (`input x: Business`).

The rules checker reads field names and types from here, and the engine converts input strings
declared with `format: date` / `date-time`. `Any` is not registered: it means "no schema".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache, partial
from threading import Lock
from types import MappingProxyType

from insureops.schema.business import BUSINESS_SCHEMA

ANY_TYPE = "Any"


class TypeRegistry:
    """An immutable mapping of type name -> JSON Schema. A schema may be given as a function
    that makes it, called on first use: a ruleset reads one or two of the product's 36 types,
    and building them all was a tenth of a fresh `insureops rules check`."""

    def __init__(self, schemas: Mapping[str, dict | Callable[[], dict]]) -> None:
        self._sources = MappingProxyType(dict(schemas))
        self._made: dict[str, dict] = {}
        self._lock = Lock()

    def get(self, name: str) -> dict | None:
        """The schema of `name`, or None when unknown (and for `Any`)."""
        found = self._made.get(name)
        if found is not None:
            return found
        source = self._sources.get(name)
        if source is None or isinstance(source, dict):
            return source
        with self._lock:  # one schema object per name, also under threads
            found = self._made.get(name)
            if found is None:
                found = self._made[name] = source()
        return found

    def __contains__(self, name: object) -> bool:
        return name == ANY_TYPE or name in self._sources

    def names(self) -> list[str]:
        """Every known type name, `Any` included, sorted."""
        return sorted([*self._sources, ANY_TYPE])

    def with_types(self, extra: Mapping[str, dict]) -> TypeRegistry:
        """A new registry with `extra` added (or replacing same-named types)."""
        return TypeRegistry({**self._sources, **extra})


@cache
def default_registry() -> TypeRegistry:
    """The product's types: the carrier-matching Business profile and the data-model resources
    (their read schemas, made when a ruleset first asks for one)."""
    # Imported here so that importing the registry stays cheap for commands that never call it.
    from insureops.schema.jsonschemas import resource_names, resource_schema

    resources = {name: partial(resource_schema, name, "read") for name in resource_names()}
    return TypeRegistry({"Business": BUSINESS_SCHEMA, **resources})
