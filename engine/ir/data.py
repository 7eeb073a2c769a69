"""The IR as plain data (lists, strings, numbers, booleans, null) and back, for caches on disk.

`ruleset_to_data` writes each node as `["ClassName", field, ...]` in field order, spans
included, and each other value under a lowercase tag (`["tuple", ...]`, `["decimal", "1.20"]`,
`["date", ...]`, `["datetime", ...]`, `["duration", months, days]`, `["span", ...]`).
`ruleset_from_data` reads it back by building only the node classes of `nodes.py` and those
values: unlike pickle, reading data never runs code, so a cache file can say nothing but IR.
Anything else is a `ValueError`.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from datetime import date, datetime
from decimal import Decimal

from insureops.engine.ir import nodes
from insureops.engine.ir.values import Duration

# Every IR node class by name: the only classes `ruleset_from_data` constructs.
NODE_CLASSES: dict[str, type] = {
    name: value for name, value in vars(nodes).items()
    if isinstance(value, type) and is_dataclass(value) and value.__module__ == nodes.__name__}
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in NODE_CLASSES.values()}
_ARITY = {cls: len(names) for cls, names in _FIELDS.items()}
_SCALARS = frozenset({str, int, bool, type(None)})


def node_fields(kind: type) -> tuple[str, ...] | None:
    """The fields of IR node class `kind` in constructor order; None for any other type."""
    return _FIELDS.get(kind)


def ruleset_to_data(ruleset: nodes.Ruleset) -> list:
    """`ruleset` as plain data that `ruleset_from_data` reads back equal, spans included."""
    return _to_data(ruleset)


def _to_data(value: object) -> object:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is nodes.Span:
        return ["span", *value]
    if kind is tuple:
        return ["tuple", *map(_to_data, value)]
    if kind is Decimal:
        return ["decimal", str(value)]
    if kind is date:
        return ["date", value.isoformat()]
    if kind is datetime:
        return ["datetime", value.isoformat()]
    if kind is Duration:
        return ["duration", value.months, value.days]
    if kind in _FIELDS:
        return [kind.__name__, *(_to_data(getattr(value, name)) for name in _FIELDS[kind])]
    raise ValueError(f"not IR data: {kind.__name__}")


def ruleset_from_data(data: object) -> nodes.Ruleset:
    """The Ruleset that `ruleset_to_data` wrote as `data`; ValueError for anything else."""
    ruleset = _from_data(data)
    if type(ruleset) is not nodes.Ruleset:
        raise ValueError("not a ruleset")
    return ruleset


def _from_data(data: object) -> object:
    # Scalars are taken in place by the callers' comprehensions: one call per list, not per
    # value, is what keeps a warm start fast (a few milliseconds for a 150-line ruleset).
    if type(data) is not list or not data:
        raise ValueError("not IR data")
    tag, rest = data[0], data[1:]
    cls = NODE_CLASSES.get(tag) if type(tag) is str else None
    if cls is not None:
        if len(rest) != _ARITY[cls]:
            raise ValueError(f"not an IR node: {tag}")
        return cls(*[item if type(item) in _SCALARS else _from_data(item) for item in rest])
    if tag == "tuple":
        return tuple([item if type(item) in _SCALARS else _from_data(item) for item in rest])
    if tag == "span":
        if len(rest) != 6 or not all(type(item) is int for item in rest):
            raise ValueError("not a span")
        return _new_span(nodes.Span, rest)
    if tag == "duration":
        if len(rest) != 2 or not all(type(item) is int for item in rest):
            raise ValueError("not a duration")
        return Duration(*rest)
    reader = _READERS.get(tag) if type(tag) is str else None
    if reader is None or len(rest) != 1 or type(rest[0]) is not str:
        raise ValueError(f"not IR data: {str(tag)[:40]!r}")
    try:
        return reader(rest[0])
    except ArithmeticError:  # decimal.InvalidOperation: not a number
        raise ValueError("not a decimal") from None


_READERS = {"decimal": Decimal, "date": date.fromisoformat, "datetime": datetime.fromisoformat}
_new_span = tuple.__new__  # a named tuple built in C, without its Python-level __new__
