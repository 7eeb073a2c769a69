"""The checker's type model (number, string, ..., list[T], object{fields}, any) and JSON Schema -> it.

Nullability is not tracked: every value may be null at run time (missing data is normal and the
language's null semantics handle it), so types only describe the non-null value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from types import MappingProxyType

from insureops.engine.ir.values import Duration


def with_article(text: str) -> str:
    """`text` after "a" or "an" (by its first letter: the type names need nothing subtler)."""
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


@dataclass(frozen=True)
class Type:
    """A static type. `kind` is a scalar name, "list", "set", "object", "any" or "null"."""

    kind: str
    item: Type | None = None
    fields: Mapping[str, Type] | None = field(default=None, compare=False)
    name: str | None = field(default=None, compare=False)
    closed: bool = field(default=False, compare=False)
    integer: bool = field(default=False, compare=False)
    minimum: Decimal | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.name:
            return self.name
        if self.kind in ("list", "set"):
            return f"{self.kind}[{self.item}]"
        return self.kind

    @property
    def a(self) -> str:
        """The type with an article, for messages: "a number", "an object", "a Business",
        "a value of any type", "null"."""
        if self.kind == "null":
            return "null"
        if self.kind == "any" and not self.name:
            return "a value of any type"
        return with_article(str(self))

    @property
    def is_any(self) -> bool:
        return self.kind in ("any", "null")

    @property
    def is_collection(self) -> bool:
        return self.kind in ("list", "set")


ANY = Type("any")
NULL = Type("null")
NUMBER = Type("number")
STRING = Type("string")
BOOLEAN = Type("boolean")
DATE = Type("date")
DATETIME = Type("datetime")
DURATION = Type("duration")


def list_of(item: Type) -> Type:
    return Type("list", item)


def set_of(item: Type) -> Type:
    return Type("set", item)


def object_of(fields: Mapping[str, Type], name: str | None = None, closed: bool = True) -> Type:
    return Type("object", fields=MappingProxyType(dict(fields)), name=name, closed=closed)


def compatible(a: Type, b: Type) -> bool:
    """Whether values of a and b can meet (compare, share a list): any/null fit everything."""
    if a.is_any or b.is_any:
        return True
    if a.kind != b.kind:
        return False
    if a.item is not None and b.item is not None:
        return compatible(a.item, b.item)
    return True


def unify(a: Type, b: Type) -> Type:
    """The common type of two branches or list items (any when they differ)."""
    if a.kind == "null":
        return b
    if b.kind == "null":
        return a
    if a.kind == "any" or b.kind == "any" or not compatible(a, b):
        return ANY
    if a.item is not None and b.item is not None:
        return Type(a.kind, unify(a.item, b.item))
    return a


def from_json_schema(schema: Mapping | None, name: str | None = None) -> Type:
    """The type of values valid against a JSON Schema; unknown constructs become `any`."""
    if not isinstance(schema, Mapping):
        return ANY
    kinds = schema.get("type")
    if isinstance(kinds, list):
        kinds = [k for k in kinds if k != "null"]
        kinds = kinds[0] if len(kinds) == 1 else None
    if kinds is None and "enum" in schema:
        kinds = _enum_kind(schema["enum"])
    if kinds is None and "properties" in schema:
        kinds = "object"
    return _typed(kinds, schema, name)


def _typed(kind: object, schema: Mapping, name: str | None) -> Type:
    if kind in ("number", "integer"):
        minimum = schema.get("minimum")
        return Type("number", integer=kind == "integer",
                    minimum=Decimal(str(minimum)) if isinstance(minimum, (int, float)) else None)
    if kind == "string":
        fmt = schema.get("format")
        return DATE if fmt == "date" else DATETIME if fmt == "date-time" else STRING
    if kind == "boolean":
        return BOOLEAN
    if kind == "array":
        return list_of(from_json_schema(schema.get("items"), f"{name} item" if name else None))
    if kind == "object":
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            return ANY
        owner = name or schema.get("title")
        fields = {key: from_json_schema(value, f"{owner}.{key}" if owner else None)
                  for key, value in properties.items()}
        closed = schema.get("additionalProperties") is False
        return object_of(fields, name or schema.get("title"), closed)
    return ANY


def _enum_kind(values: object) -> str | None:
    if not isinstance(values, list):
        return None
    kinds = {type(v) for v in values if v is not None}
    if kinds == {str}:
        return "string"
    if kinds and kinds <= {int, float}:
        return "number"
    return None


def type_of_value(value: object) -> Type:
    """The type of a literal's Python value."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, Decimal):
        return NUMBER
    if isinstance(value, str):
        return STRING
    if isinstance(value, datetime):
        return DATETIME
    if isinstance(value, date):
        return DATE
    if isinstance(value, Duration):
        return DURATION
    return ANY
