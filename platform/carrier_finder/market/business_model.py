"""The request model of a business, derived from the core's input schema (one source of truth).

`carrier_matching.normalise.input_schema()` is the `Business` type as the matcher reads it
(schema/business.py, widened where the matcher reads states by name, amounts as text, line
names and construction in words). This module turns that JSON Schema into a pydantic model, so
a field added to the core's Business is accepted here without a second copy, and the OpenAPI
document shows the same shape. The platform adds only budgets the core leaves open (the length
of free text and of lists), since every signed-up user is an attacker.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
    create_model,
)

from insureops.carrier_matching.normalise import input_schema
from insureops.platform.http.timestamps import IsoDate

MAX_TEXT = 10_000      # free text without a length of its own (a description)
MAX_ITEMS = 200        # any list (claims, requests, payroll classes, lines)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _title(path: str) -> str:
    return "".join(part.title() for part in path.replace(".", "_").split("_") if part)


def _number(schema: dict, text: bool) -> Any:
    """A JSON number (an integer stays one) within the schema's bounds; with `text`, also text
    up to its maxLength, which the matcher reads ("$1,500,000") or refuses with its field.
    One validator, so an error names the field alone (not each member of a union)."""
    low, high = schema.get("minimum"), schema.get("maximum")
    longest = schema.get("maxLength", 40)

    def check(value: Any) -> Any:
        if text and isinstance(value, str):
            if len(value) > longest:
                raise ValueError(f"at most {longest} characters")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("a number" + (" (or text that is one)" if text else ""))
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("a finite number")
        if low is not None and value < low:
            raise ValueError(f"at least {low}")
        if high is not None and value > high:
            raise ValueError(f"at most {high}")
        return value

    shown = {"type": "number", **({"minimum": low} if low is not None else {}),
             **({"maximum": high} if high is not None else {})}
    if text:
        shown = {"anyOf": [shown, {"type": "string", "maxLength": longest}]}
    return Annotated[Any, PlainValidator(check), WithJsonSchema(shown)]


def _scalar(kind: str, schema: dict) -> Any:
    """The pydantic type of one JSON Schema scalar type, with its constraints."""
    if kind == "string":
        if schema.get("format") == "date":
            return IsoDate
        return Annotated[StrictStr, Field(max_length=schema.get("maxLength", MAX_TEXT),
                                          min_length=schema.get("minLength"),
                                          pattern=schema.get("pattern"))]
    numeric = {"ge": schema.get("minimum"), "le": schema.get("maximum")}
    if kind == "integer":
        return Annotated[StrictInt, Field(**numeric)]
    if kind == "boolean":
        return StrictBool
    raise ValueError(f"unsupported JSON Schema type {kind!r}")


def _type(schema: dict, path: str) -> Any:
    """The pydantic type of `schema` (a property of the Business schema), nulls allowed when
    its type names null."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds or [])
    concrete = [kind for kind in kinds if kind != "null"]
    if "number" in concrete:
        found: Any = _number(schema, text="string" in concrete)
    elif concrete == ["object"]:
        found = model_from_schema(schema, _title(path))
    elif concrete == ["array"]:
        found = Annotated[list[_type(schema["items"], f"{path}_item")],
                          Field(max_length=MAX_ITEMS)]
    elif "enum" in schema:
        found = Literal[tuple(v for v in schema["enum"] if v is not None)]
    elif len(concrete) == 1:
        found = _scalar(concrete[0], schema)
    else:
        raise ValueError(f"unsupported JSON Schema type {kinds!r} at {path}")
    return found | None if "null" in kinds else found


def model_from_schema(schema: dict, name: str) -> type[BaseModel]:
    """A pydantic model of a JSON Schema object: every property optional (null by default),
    unknown properties refused."""
    fields: dict[str, Any] = {}
    for key, prop in schema.get("properties", {}).items():
        fields[key] = (_type(prop, f"{name}_{key}"), Field(None, description=prop.get(
            "description")))
    return create_model(name, __base__=_Strict, __doc__=schema.get("description"), **fields)


def _business_model() -> type[BaseModel]:
    model = model_from_schema(input_schema(), "Business")
    model.__doc__ = ("A business looking for coverage: the `Business` type appetites read (every "
                     "field optional; schema/business.py), as the matcher reads it "
                     "(carrier_matching/normalise.py).")
    return model


Business = _business_model()

