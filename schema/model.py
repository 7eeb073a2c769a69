"""The data model as plain data: tables, fields, types, defaults, keys, and constructors for them.

This is the one source of truth; the SQL rendering (schema/sql/), the JSON Schemas
(schema/jsonschemas.py) and docs/data-model.md are all derived from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Literal

DATA_MODEL_VERSION = "2.2.0"

Kind = Literal["uuid", "string", "text", "date", "timestamp", "decimal", "integer", "boolean",
               "json", "double", "ip_address", "text_array", "enum"]
OnDelete = Literal["CASCADE", "SET NULL", "RESTRICT"]
NOW = "now"  # the `default` of timestamps that take the current time


@dataclass(frozen=True)
class Reference:
    """A foreign key: the referenced table (its `id`) and the action when that row is deleted."""

    table: str
    on_delete: OnDelete


@dataclass(frozen=True)
class Field:
    """One column. `required` means NOT NULL; a field with a default is always NOT NULL too."""

    name: str
    kind: Kind
    required: bool = False
    length: int | None = None          # string(n): at most n characters
    min_length: int | None = None      # "3 characters" (currency codes): exactly 3
    precision: int | None = None       # decimal(p, s)
    scale: int | None = None
    enum: str | None = None            # name in schema.enums.ENUMS
    default: object = None             # a literal, or NOW
    primary_key: bool = False
    autoincrement: bool = False        # integer keys
    generated: bool = False            # uuid generated on creation
    unique: bool = False
    auto_updated: bool = False         # reset to now on every update (database trigger)
    references: Reference | None = None
    computed: str | None = None        # SQL expression of a read-only generated column
    minimum: Decimal | None = None
    maximum: Decimal | None = None
    hints: tuple[str, ...] = ()        # documented usual values of a free-text field
    allowed: tuple[str, ...] = ()      # the only values a free-text field accepts
    note: str = ""

    @property
    def not_null(self) -> bool:
        return self.required or self.primary_key or self.default is not None or self.generated

    @property
    def server_managed(self) -> bool:
        """Set by the service or the database, never by a create or update payload."""
        return (self.primary_key or self.generated or self.auto_updated or self.computed is not None
                or self.name in SERVER_MANAGED_NAMES)

    @property
    def choices(self) -> tuple[str, ...]:
        """The closed set of values (an enumeration's, or `allowed`), empty when open."""
        if self.enum:
            from insureops.schema.enums import ENUMS

            return ENUMS[self.enum]
        return self.allowed

    @property
    def type_label(self) -> str:
        """The specification's spelling of the type, e.g. `string(50)`, `decimal(12,2)`."""
        if self.kind == "string":
            return f"string({self.length})" if self.min_length != self.length else \
                f"{self.length} characters"
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.kind == "enum":
            return str(self.enum)
        return {"text_array": "array of text", "ip_address": "IP address"}.get(self.kind, self.kind)


# Columns that the service fills in: the tenant from the caller, the bookkeeping of reopened
# claims, and the record's own creation time (`created`, `created_at`: "takes the current time on
# creation"). Other timestamps that default to now (a claim's reported_at, a document's
# uploaded_at, a consent's captured_at) record a business event and may be given.
SERVER_MANAGED_NAMES = frozenset({"tenant_id", "reopen_count", "reopened_last_at", "created",
                                  "created_at"})


@dataclass(frozen=True)
class Table:
    """One table: its fields in order, its JSON Schema resource name and its table-level rules."""

    name: str
    resource: str
    description: str
    fields: tuple[Field, ...]
    unique_together: tuple[tuple[str, ...], ...] = ()
    append_only: bool = False
    status_field: str | None = None    # the column a state machine governs
    notes: tuple[str, ...] = field(default=())

    def field(self, name: str) -> Field:
        """The field called `name` (KeyError when the table has none)."""
        for item in self.fields:
            if item.name == name:
                return item
        raise KeyError(f"{self.name} has no field {name!r}")

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(item.name for item in self.fields)

    @property
    def tenant_scoped(self) -> bool:
        return "tenant_id" in self.field_names


# Constructors: short, so that the catalog reads like the specification's tables.

def uuid_key() -> Field:
    return Field("id", "uuid", primary_key=True, generated=True)


def serial_key() -> Field:
    return Field("id", "integer", primary_key=True, autoincrement=True)


def tenant() -> Field:
    return Field("tenant_id", "string", required=True, length=26)


def uuid(name: str, *, required: bool = False, references: str | None = None,
         on_delete: OnDelete = "CASCADE", **extra) -> Field:
    reference = Reference(references, on_delete) if references else None
    return Field(name, "uuid", required=required, references=reference, **extra)


def string(name: str, length: int, *, required: bool = False, **extra) -> Field:
    return Field(name, "string", required=required, length=length, **extra)


def text(name: str, *, required: bool = False, **extra) -> Field:
    return Field(name, "text", required=required, **extra)


def enum(name: str, enum_name: str, *, required: bool = False, **extra) -> Field:
    return Field(name, "enum", required=required, enum=enum_name, **extra)


def decimal(name: str, precision: int, scale: int, **extra) -> Field:
    return Field(name, "decimal", precision=precision, scale=scale, **extra)


def timestamp(name: str, *, required: bool = False, now: bool = False, **extra) -> Field:
    return Field(name, "timestamp", required=required or now, default=NOW if now else None, **extra)


def created(name: str = "created_at") -> Field:
    return timestamp(name, now=True)


def updated(name: str = "updated_at") -> Field:
    return timestamp(name, now=True, auto_updated=True)


def plain(name: str, kind: Kind, **extra) -> Field:
    return Field(name, kind, **extra)


def currency() -> Field:
    return Field("currency_code", "string", length=3, min_length=3, default="USD")


def many(kind_factory, names: str, *args, **extra) -> tuple[Field, ...]:
    """Several fields sharing one type, e.g. many(text, "city region country")."""
    return tuple(kind_factory(name, *args, **extra) for name in names.split())


def with_note(item: Field, note: str) -> Field:
    return replace(item, note=note)
