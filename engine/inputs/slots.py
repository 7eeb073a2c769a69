"""Where a value read from the input data sits, and its conversion where a rule reads it.

The compiled form reads the input JSON as it is (no copy): a read field stays the raw value
(int, float, Decimal, str, bool, None, dict, list) until a use needs a runtime value, and
`value_of` converts it there, guided by the `Slot` the read reached (its schema: `format`,
`integer`; its path, for messages). So a value is checked where a rule reads it, on every
path alike (docs/rules-language.md, "Input data"); a value used whole is converted whole and
counted against the evaluation's `input_left` (Limits.max_input_nodes) as it is.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal

from insureops.engine.inputs.conversion import (
    InputConverter,
    convert_scalar,
    convert_string,
    whole,
)
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.numbers import MAX_EXPONENT
from insureops.engine.ir.values import Duration

BIG = 10**100  # ints below this size convert without further checks
# Decimal(int) costs more than a lookup: counts, ages and years are mostly small, so their
# Decimals are made once (immutable, shared)
SMALL = tuple(Decimal(number) for number in range(1024))
# The full conversion recurses once per level: deeper input is `limit_depth` whatever
# `max_input_depth` says.
DEEPEST_INPUT = 400
_CONTAINERS = (dict, list, tuple, set, frozenset)


class Slot:
    """A position in an input's data: the input's converter, the schema there, the path
    (`business.prior_claims[].amount`) and the nesting depth (the input itself is 1)."""

    __slots__ = ("converter", "schema", "path", "depth", "fmt", "integer", "_fields", "_item",
                 "_kind")

    def __init__(self, converter: InputConverter, schema: dict | None, path: str,
                 depth: int) -> None:
        self.converter, self.schema, self.path, self.depth = converter, schema, path, depth
        plan = converter.plan(schema)
        self.fmt, self.integer = plan.fmt, plan.integer
        self._fields: dict[str, Slot] = {}
        self._item: Slot | None = None
        self._kind: str | None = None

    def kind(self) -> str:
        """What the conversion of a value read here depends on, as one (interned) text: the
        input's schema and this path. Slots of several compiled rulesets with the same input
        schema have the same kind, so they may share a conversion (`whole_value`)."""
        found = self._kind
        if found is None:
            found = self._kind = sys.intern(f"{self.converter.fingerprint()}\0{self.path}")
        return found

    @classmethod
    def root(cls, name: str, schema: dict | None) -> Slot:
        """The slot of input `name` with its JSON Schema (None for `Any`)."""
        converter = InputConverter(schema)
        return cls(converter, converter.root_schema, name, 1)

    def field(self, name: str) -> Slot:
        """The slot of field `name` of the object here."""
        found = self._fields.get(name)
        if found is None:
            plan = self.converter.plan(self.schema)
            schema = plan.children.get(name, plan.extra)
            found = self._fields[name] = Slot(self.converter, schema, f"{self.path}.{name}",
                                              self.depth + 1)
        return found

    def item(self) -> Slot:
        """The slot of the items of the list here."""
        if self._item is None:
            plan = self.converter.plan(self.schema)
            self._item = Slot(self.converter, plan.items, f"{self.path}[]", self.depth + 1)
        return self._item


def value_of(raw: object, slot: Slot, ev) -> object:
    """The runtime value of the raw input value `raw` read at `slot`: numbers as exact
    Decimals (floats through their shortest text), `format: date`/`date-time` strings as
    dates, containers converted whole (counted against the input limits); `invalid_input` or
    a limit error when it cannot be. A value already converted is returned as it is."""
    kind = type(raw)
    if kind is str:
        return raw if slot.fmt is None else convert_string(raw, slot.fmt, slot.path)
    if kind is int:
        if -BIG < raw < BIG:
            return SMALL[raw] if 0 <= raw < 1024 else Decimal(raw)
        return convert_scalar(raw, None, slot.path, slot.integer)
    if raw is None or kind is bool:
        return raw
    if kind is float:
        if raw - raw == 0.0:  # finite
            number = Decimal(repr(raw))
            if slot.integer and not raw.is_integer():
                _not_whole(number, slot)
            return number
        raise EvaluationError(f"{slot.path}: {raw} is not a number", code="invalid_input")
    if kind is Decimal:
        if raw.is_finite() and -MAX_EXPONENT <= raw.adjusted() <= MAX_EXPONENT and (
                not slot.integer or whole(raw)):
            return raw
        return convert_scalar(raw, None, slot.path, slot.integer)
    if kind in _CONTAINERS or isinstance(raw, Mapping):
        return whole_value(raw, slot, ev)
    return convert_scalar(raw, slot.fmt, slot.path, slot.integer)


def _not_whole(number: Decimal, slot: Slot) -> None:
    raise EvaluationError(f"{slot.path}: {number} is not a whole number (its schema says "
                          f"integer)", code="invalid_input")


def whole_value(raw: object, slot: Slot, ev) -> object:
    """A container read whole: converted, its values counted against `ev.input_left` and
    its depth against the input depth limit, once per evaluation (read again, the same
    converted value is given). With `ev.conversions` (a dict the caller shares between the
    evaluations of one batch over the same inputs), a value another evaluation converted at
    a slot of the same kind is taken from there and only counted: the conversion of a valid
    value depends on nothing else, and an invalid one is never kept (each evaluation raises
    its error)."""
    memo = ev.wholes
    if memo is None:
        memo = ev.wholes = {}
    else:
        found = memo.get((id(raw), id(slot)))
        if found is not None:
            return found[1]
    limits = ev.limits
    shared = ev.conversions
    if shared is not None:
        key = (id(raw), slot._kind or slot.kind(), limits.max_input_depth)
        kept = shared.get(key)
        if kept is not None and kept[0] is raw:
            if kept[2] > ev.input_left:
                _too_many(limits)
            ev.input_left -= kept[2]
            memo[(id(raw), id(slot))] = kept
            return kept[1]
    deepest = min(limits.max_input_depth, DEEPEST_INPUT)
    budget = [ev.input_left]
    try:
        converted = slot.converter.convert_value(raw, slot.schema, budget, _DepthLimits(deepest),
                                            slot.path, slot.depth)
    except LimitExceededError as error:
        if error.code == "limit_input_size":
            _too_many(limits)
        raise
    except RecursionError:
        raise LimitExceededError(f"input `{slot.path}` is nested too deeply",
                                 code="limit_depth") from None
    # the raw value kept: its id stays its own
    kept = (raw, converted, ev.input_left - budget[0])
    ev.input_left = budget[0]
    memo[(id(raw), id(slot))] = kept
    if shared is not None:
        shared[key] = kept
    return converted


def _too_many(limits) -> None:
    raise LimitExceededError(f"input has more than {limits.max_input_nodes:,} values "
                             f"read whole (Limits.max_input_nodes)",
                             code="limit_input_size") from None


class _DepthLimits:
    """What the full conversion reads of the limits: the depth bound (the size is the
    evaluation's own budget, passed in)."""

    __slots__ = ("max_input_depth", "max_input_nodes")

    def __init__(self, deepest: int) -> None:
        self.max_input_depth = deepest
        self.max_input_nodes = 0


def shown(raw: object, slot: Slot | None) -> object:
    """A raw value as an explanation shows it: converted where it can be, never raising (a
    value that cannot be converted is shown as it is given; checking it is the rules' reading,
    not the explanation's)."""
    kind = type(raw)
    if kind is dict:
        return {key: shown(value, slot.field(key) if slot and type(key) is str else None)
                for key, value in raw.items()}
    if kind is list or kind is tuple:
        item = slot.item() if slot is not None else None
        return [shown(value, item) for value in raw]
    if kind is float:
        return Decimal(repr(raw)) if math.isfinite(raw) else repr(raw)
    if kind is int:
        return Decimal(raw) if -BIG < raw < BIG else raw
    if kind is str and slot is not None and slot.fmt is not None:
        try:
            return convert_string(raw, slot.fmt, slot.path)
        except EvaluationError:
            return raw
    if kind in (Decimal, str, bool, date, datetime, Duration, set, frozenset) or raw is None:
        return raw
    return repr(raw)
