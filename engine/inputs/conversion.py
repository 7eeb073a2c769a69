"""Input data -> runtime values, guided by each input's JSON Schema, within the input limits.

JSON numbers (int, float, str-parsed Decimal) become exact Decimals (floats through `str`, never
through binary); strings that the schema declares `format: date` / `date-time` become dates /
aware datetimes (a datetime without offset is taken as UTC); everything else keeps its JSON
shape: objects are dicts, arrays lists. Under `Any` (no schema) strings stay strings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import date, datetime, timezone
from decimal import Decimal

from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.numbers import ROUNDING, in_range
from insureops.engine.ir.values import Duration, iso_date, iso_datetime

_BIG = 10**100  # ints below this size convert without further checks


class _Plan:
    """What a (resolved) schema says about one value: string format, property schemas and
    formats, the schema of extra properties and of array items."""

    __slots__ = ("children", "extra", "extra_format", "extra_integer", "fmt", "formats",
                 "integer", "integers", "items", "plans")

    def __init__(self, schema: dict | None, root: dict | None) -> None:
        branches = _alternatives(schema, root)
        self.fmt = _format_of(schema, root)
        self.children: dict[str, dict | None] = {}
        self.extra = None
        for branch in reversed(branches):
            for key, sub in (branch.get("properties") or {}).items():
                self.children[key] = _resolve(sub, root)
            if isinstance(branch.get("additionalProperties"), dict):
                self.extra = _resolve(branch["additionalProperties"], root)
        self.formats = {key: fmt for key, sub in self.children.items()
                        if (fmt := _format_of(sub, root))}
        self.extra_format = _format_of(self.extra, root)
        self.integer = integer_of(schema, root)
        self.integers = frozenset(key for key, sub in self.children.items()
                                  if integer_of(sub, root))
        self.extra_integer = integer_of(self.extra, root)
        self.items = _resolve(_items_of(schema, root), root)
        self.plans: dict[object, _Plan] = {}  # sub-plans by key ("[]" for items), on demand


class InputConverter:
    """Converts the data of one input; built once per compiled ruleset and input, it keeps
    what it learnt about the schema (one `_Plan` per sub-schema)."""

    def __init__(self, schema: dict | None) -> None:
        self.root = schema
        self._plans: dict[int, _Plan] = {}
        self._fingerprint: str | None = None

    def fingerprint(self) -> str:
        """The schema as canonical JSON (worked out once): two converters with the same
        fingerprint convert every value alike."""
        found = self._fingerprint
        if found is None:
            try:
                found = json.dumps(self.root, sort_keys=True, default=repr)
            except (TypeError, ValueError):  # not JSON: like no other converter's
                found = f"<schema {id(self)}>"
            self._fingerprint = found
        return found

    def convert(self, name: str, value: object, limits: Limits) -> object:
        """The runtime value of input `name`; `invalid_input` or a limit error if it cannot."""
        budget = [limits.max_input_nodes]
        try:
            return self.convert_value(value, self.root_schema, budget, limits, name, 1)
        except RecursionError:
            raise LimitExceededError(f"input `{name}` is nested too deeply",
                                     code="limit_depth") from None

    @property
    def root_schema(self) -> dict | None:
        """The input's schema with its `$ref` followed."""
        return _resolve(self.root, self.root)

    def plan(self, schema: dict | None) -> _Plan:
        """What the schema `schema` (part of this converter's) says, worked out once."""
        plan = self._plans.get(id(schema))
        if plan is None:
            plan = self._plans[id(schema)] = _Plan(schema, self.root)
        return plan

    def convert_value(self, value, schema, budget: list, limits: Limits, path: str,
                      depth: int):
        """Any value: containers are checked against the limits and walked."""
        kind = type(value)
        if kind is dict or kind is list or kind is tuple or kind is set or kind is frozenset \
                or isinstance(value, Mapping):
            _enter(value, budget, limits, path, depth)
            plan = self.plan(schema)
            if kind is list or kind is tuple:
                return self._list(value, plan, budget, limits, path, depth)
            if kind is set or kind is frozenset:
                return frozenset(self._list(value, plan, budget, limits, path, depth))
            return self._object(value, plan, budget, limits, path, depth)
        plan = self.plan(schema)
        return convert_scalar(value, plan.fmt, path, plan.integer)

    def _sub(self, plan: _Plan, key: object) -> _Plan:
        """The plan of property `key` (or of the items, key None), cached on the plan."""
        found = plan.plans.get(key)
        if found is None:
            schema = plan.items if key is None else plan.children.get(key, plan.extra)
            found = plan.plans[key] = self.plan(schema)
        return found

    def _list(self, value, plan: _Plan, budget, limits, path: str, depth: int) -> list:
        schema = plan.items
        item_plan = plan.plans.get(None) or self._sub(plan, None)
        fmt, integer = item_plan.fmt, item_plan.integer
        converted = []
        append = converted.append
        for item in value:
            kind = type(item)
            if kind is dict:
                _enter(item, budget, limits, path, depth + 1)
                append(self._object(item, item_plan, budget, limits, path, depth + 1))
            elif kind is str:
                append(item if fmt is None else convert_string(item, fmt, path))
            elif kind is int and -_BIG < item < _BIG:
                append(Decimal(item))
            elif item is None or kind is bool or (
                    kind is Decimal and item.is_finite() and in_range(item)
                    and (not integer or whole(item))):
                append(item)
            else:
                append(self.convert_value(item, schema, budget, limits, f"{path}[]", depth + 1))
        return converted

    def _object(self, value: Mapping, plan: _Plan, budget, limits, path: str, depth: int):
        # Copy first (in C), then replace only the values that need converting.
        converted = dict(value)
        formats, children, extra = plan.formats, plan.children, plan.extra
        open_format = plan.extra_format
        for key, item in value.items():
            kind = type(item)
            if kind is str:
                fmt = formats.get(key) if open_format is None else formats.get(
                    key, None if key in children else open_format)
                if fmt is not None:
                    converted[key] = convert_string(item, fmt, f"{path}.{key}")
            elif kind is Decimal:
                if not item.is_finite() or not in_range(item) or (
                        (key in plan.integers if key in children else plan.extra_integer)
                        and not whole(item)):
                    convert_scalar(item, None, f"{path}.{key}", True)  # raises invalid_input
            elif kind is int:
                converted[key] = Decimal(item) if -_BIG < item < _BIG else _convert_number(
                    item, f"{path}.{key}")
            elif kind is dict:
                _enter(item, budget, limits, path, depth + 1)
                converted[key] = self._object(item, plan.plans.get(key) or self._sub(plan, key),
                                              budget, limits, f"{path}.{key}", depth + 1)
            elif kind is list:
                _enter(item, budget, limits, path, depth + 1)
                converted[key] = self._list(item, plan.plans.get(key) or self._sub(plan, key),
                                            budget, limits, f"{path}.{key}", depth + 1)
            elif item is not None and kind is not bool:
                converted[key] = self.convert_value(item, children.get(key, extra), budget, limits,
                                               f"{path}.{key}", depth + 1)
            if type(key) is not str:
                raise EvaluationError(f"{path}: object keys must be strings",
                                      code="invalid_input")
        return converted


def _enter(value, budget: list, limits: Limits, path: str, depth: int) -> None:
    """Count a container against the size budget and check its depth."""
    if depth > limits.max_input_depth:
        raise LimitExceededError(
            f"input is nested deeper than {limits.max_input_depth} levels at {path}",
            code="limit_depth")
    budget[0] -= len(value)
    if budget[0] < 0:
        raise LimitExceededError(f"input has more than {limits.max_input_nodes} values",
                                 code="limit_input_size")


def convert_input(name: str, value: object, schema: dict | None, limits: Limits) -> object:
    """Convert one input value named `name` (a one-off `InputConverter`)."""
    return InputConverter(schema).convert(name, value, limits)


def convert_scalar(value: object, fmt: str | None, path: str, integer: bool = False) -> object:
    """A scalar input value as a runtime value (`invalid_input` when it cannot be)."""
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is str:
        return convert_string(value, fmt, path)
    if kind is int or kind is float or kind is Decimal:
        number = _convert_number(value, path)
        if integer and not whole(number):
            raise EvaluationError(f"{path}: {number} is not a whole number (its schema says "
                                  f"integer)", code="invalid_input")
        return number
    if kind is datetime:
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if kind is date or kind is Duration:
        return value
    raise EvaluationError(f"{path}: unsupported input value of type {kind.__name__}",
                          code="invalid_input")


def _convert_number(value: object, path: str) -> Decimal:
    if type(value) is float:
        if not math.isfinite(value):
            raise EvaluationError(f"{path}: {value} is not a number", code="invalid_input")
        number = Decimal(str(value))
    elif type(value) is int:
        if abs(value).bit_length() > 3000:
            raise EvaluationError(f"{path}: number out of range", code="invalid_input")
        number = Decimal(value)
    else:
        number = value
    if not number.is_finite():
        raise EvaluationError(f"{path}: {number} is not a number", code="invalid_input")
    if not in_range(number):
        raise EvaluationError(f"{path}: number out of range", code="invalid_input")
    return number


def convert_string(value: str, fmt: str | None, path: str) -> object:
    """A string of a `format: date`/`date-time` field as a date or datetime; else itself."""
    if fmt == "date":
        day = iso_date(value)
        if day is not None:
            return day
        raise EvaluationError(f"{path}: {value[:60]!r} is not an ISO date (YYYY-MM-DD)",
                              code="invalid_input")
    if fmt == "date-time":
        moment = iso_datetime(value)
        if moment is None:
            raise EvaluationError(f"{path}: {value[:60]!r} is not an ISO date-time "
                                  "(YYYY-MM-DDTHH:MM:SS+00:00)", code="invalid_input")
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return value


def _resolve(schema: dict | None, root: dict | None) -> dict | None:
    """Follow local `$ref`s ("#/$defs/X") a bounded number of times."""
    for _ in range(32):
        if not isinstance(schema, dict) or "$ref" not in schema:
            break
        schema = _pointer(schema["$ref"], root)
    return schema if isinstance(schema, dict) else None


def _pointer(ref: object, root: dict | None) -> dict | None:
    if not isinstance(ref, str) or not ref.startswith("#") or root is None:
        return None
    node: object = root
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _alternatives(schema: dict | None, root: dict | None) -> list[dict]:
    """The schema and its anyOf/oneOf/allOf branches (resolved), for format and shape lookups."""
    if schema is None:
        return []
    found = [schema]
    for keyword in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(keyword, ()) or ():
            resolved = _resolve(branch, root)
            if resolved is not None:
                found.append(resolved)
    return found


def _format_of(schema: dict | None, root: dict | None) -> str | None:
    for branch in _alternatives(schema, root):
        if branch.get("format") in ("date", "date-time"):
            return branch["format"]
    return None


def integer_of(schema: dict | None, root: dict | None) -> bool:
    """Whether the schema takes numbers only when whole: `type` says `integer` and not
    `number` (in the schema or its anyOf/oneOf/allOf branches)."""
    kinds: set = set()
    for branch in _alternatives(schema, root):
        kind = branch.get("type")
        kinds.update(k for k in (kind if isinstance(kind, list) else [kind])
                     if isinstance(k, str))
    return "integer" in kinds and "number" not in kinds


def whole(number: Decimal) -> bool:
    """Whether a finite number is a whole number (`3`, `3.0`, `3E+2`; not `2.5`)."""
    return number == number.to_integral_value(context=ROUNDING)


def _items_of(schema: dict | None, root: dict | None) -> dict | None:
    for branch in _alternatives(schema, root):
        if isinstance(branch.get("items"), dict):
            return branch["items"]
    return None
