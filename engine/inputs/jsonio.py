"""JSON in and out for rule data: numbers are exact Decimals both ways.

`dumps` writes Decimals as JSON numbers keeping their scale (`1.20`, never `1.2`; written in
plain positional notation, never with an exponent), dates and datetimes as ISO 8601 strings,
`Duration`s as ISO 8601 duration strings (`P6M`, `P90D`, `P1M3D`), sets as sorted arrays and
tuples as arrays. `loads` parses every number as a Decimal and refuses NaN and Infinity.
`read` does the same within `ReadLimits` (nesting depth, count of values, length of a number
literal), raising `JsonLimitError` instead of a RecursionError or an unbounded amount of work:
the reader for untrusted text (request bodies, case lines).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from insureops.engine.ir.limits import Limits
from insureops.engine.ir.values import Duration

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


_DEFAULT = Limits()


@dataclass(frozen=True)
class ReadLimits:
    """Bounds on JSON text read from outside. Depth and values default to the engine's input
    limits (`Limits.max_input_depth`, `Limits.max_input_nodes`), so anything read within them
    can be evaluated; a number literal longer than `max_number_length` characters is refused
    (Python's int() refuses more than 4,300 digits with a ValueError of its own)."""

    max_depth: int = _DEFAULT.max_input_depth
    max_values: int = _DEFAULT.max_input_nodes
    max_number_length: int = 100


class JsonLimitError(ValueError):
    """The JSON text is well-formed (as far as read) but beyond a `ReadLimits` bound."""


def read(text: str | bytes, limits: ReadLimits = ReadLimits(), *, exact: bool = True) -> object:
    """Parse untrusted JSON text within `limits`. Numbers become Decimals (`exact`) or Python
    ints and floats (not `exact`, for pydantic models); NaN and Infinity are refused. Raises
    json.JSONDecodeError for malformed text and JsonLimitError (both ValueErrors) past a limit."""
    longest = limits.max_number_length

    def number(kind: type):
        def parse(literal: str) -> object:
            if len(literal) > longest:
                raise JsonLimitError(f"a number is longer than {longest} characters")
            value = kind(literal)
            if kind is float and value in (_INFINITY, -_INFINITY):
                raise JsonLimitError("a number is out of range")
            return value
        return parse

    try:
        data = json.loads(text, parse_int=number(Decimal if exact else int),
                          parse_float=number(Decimal if exact else float),
                          parse_constant=_refuse)
    except RecursionError:
        raise JsonLimitError(f"nested deeper than {limits.max_depth} levels") from None
    measure(data, limits)
    return data


_INFINITY = float("inf")


def measure(data: object, limits: ReadLimits) -> None:
    """Raise JsonLimitError when decoded JSON `data` nests deeper than `limits.max_depth` or
    holds more than `limits.max_values` values (every object, array and scalar counts once).
    Stops at the first excess, so the work is bounded by the limits, not by the data."""
    values = 1
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limits.max_depth:
            raise JsonLimitError(f"nested deeper than {limits.max_depth} levels")
        values += len(children)
        if values > limits.max_values:
            raise JsonLimitError(f"more than {limits.max_values} values")
        pending.extend((child, depth + 1) for child in children
                       if isinstance(child, (dict, list)))


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
