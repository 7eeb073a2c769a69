"""JSON in and out for rule data: numbers are exact Decimals both ways.

`dumps` writes Decimals as JSON numbers keeping their scale (`1.20`, never `1.2`; written in
plain positional notation, never with an exponent), dates and datetimes as ISO 8601 strings,
`Duration`s as ISO 8601 duration strings (`P6M`, `P90D`, `P1M3D`), sets as sorted arrays and
tuples as arrays. `loads` parses every number as a Decimal and refuses NaN and Infinity.
"""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

from insureops.engine.values import Duration

_encode_string = json.encoder.encode_basestring  # UTF-8 text, not \u escapes


def dumps(obj: object, *, indent: int | None = None) -> str:
    """`obj` as JSON text; `indent` pretty-prints with that many spaces per level."""
    out: list[str] = []
    _write(obj, out, indent, 0)
    return "".join(out)


def loads(text: str | bytes) -> object:
    """Parse JSON text; numbers become Decimals."""
    return json.loads(text, parse_float=Decimal, parse_int=Decimal, parse_constant=_refuse)


def _refuse(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _write(obj: object, out: list[str], indent: int | None, level: int) -> None:
    if obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, str):
        out.append(_encode_string(obj))
    elif isinstance(obj, Decimal):
        if not obj.is_finite():
            raise ValueError(f"{obj} cannot be written as a JSON number")
        out.append(format(obj, "f"))
    elif isinstance(obj, int):
        out.append(str(obj))
    elif isinstance(obj, float):
        out.append(format(Decimal(str(obj)), "f"))
    elif isinstance(obj, date):
        out.append('"' + obj.isoformat() + '"')
    elif isinstance(obj, Duration):
        out.append('"' + obj.iso() + '"')
    elif isinstance(obj, dict):
        _write_items([(str(k), v) for k, v in obj.items()], out, indent, level, "{}")
    elif isinstance(obj, (list, tuple)):
        _write_items([(None, v) for v in obj], out, indent, level, "[]")
    elif isinstance(obj, (set, frozenset)):
        ordered = sorted(obj, key=lambda v: (type(v).__name__, dumps(v)))
        _write_items([(None, v) for v in ordered], out, indent, level, "[]")
    else:
        raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def _write_items(items: list, out: list[str], indent: int | None, level: int,
                 brackets: str) -> None:
    if not items:
        out.append(brackets)
        return
    out.append(brackets[0])
    inner = "\n" + " " * (indent * (level + 1)) if indent is not None else ""
    for position, (key, value) in enumerate(items):
        if position:
            out.append("," if indent is not None else ", ")
        out.append(inner)
        if key is not None:
            out.append(_encode_string(key) + ": ")
        _write(value, out, indent, level + 1)
    if indent is not None:
        out.append("\n" + " " * (indent * level))
    out.append(brackets[1])
