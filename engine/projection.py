"""Input conversion specialised to what a ruleset reads (the untraced fast path).

`engine/conversion.py` converts a whole input; most rulesets read a few fields of it. Given an
input's access tree (`engine/reads.py`), `ProjectedConverter` converts only the fields read:
an object becomes a new dict holding just those fields (converted; a field absent or null
stays absent, which reads the same), a list read item by item gets each item projected, and a
value used whole (or of an unexpected shape) goes through the full conversion. Unread fields
are neither converted nor validated (an invalid date in a field no rule reads is no error).

The input limits still hold for the whole input: `measure` walks every container iteratively
(no conversion, no recursion) and counts values and depth as the full conversion does. Inputs
holding anything but JSON-like values (tuples, sets, other mappings, ...) take the full
conversion. The converter of an object is generated Python text (one straight-line function
per object shape), reached only through a constants table, like `codegen.py`.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine.conversion import (
    _BIG,
    MAX_EXPONENT,
    InputConverter,
    _convert_string,
    _format_of,
)
from insureops.engine.errors import LimitExceededError
from insureops.engine.limits import Limits
from insureops.engine.reads import Access
from insureops.engine.values import Duration

_SCALARS = frozenset({str, Decimal, int, float, bool, type(None), date, datetime, Duration})
_UNLIMITED = Limits(max_input_nodes=2**62, max_input_depth=2**30)
# The full conversion recurses once per level, so deeper input has always ended as a
# `limit_depth` error (from a RecursionError) whatever `max_input_depth` said; keep that.
DEEPEST_INPUT = 400


def measure(value: object, limits: Limits, name: str) -> bool:
    """Check `value` against the input size and depth limits (raising as the full conversion
    does); False when it holds something other than dicts, lists and scalars. Level by level,
    without recursion: every container counts its length, as in the full conversion."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind in _SCALARS
    deepest = min(limits.max_input_depth, DEEPEST_INPUT)
    remaining, level, depth = limits.max_input_nodes - len(value), [value], 1
    while level:
        if depth > deepest:
            raise LimitExceededError(
                f"input is nested deeper than {deepest} levels at {name}", code="limit_depth")
        if remaining < 0:
            raise LimitExceededError(f"input has more than {limits.max_input_nodes} values",
                                     code="limit_input_size")
        below: list = []
        for container in level:
            for item in (container.values() if type(container) is dict else container):
                kind = type(item)
                if kind is dict or kind is list:
                    remaining -= len(item)
                    below.append(item)
                elif kind not in _SCALARS:
                    return False
        level, depth = below, depth + 1
    return True


class ProjectedConverter:
    """Converts one input, only along the paths its ruleset reads."""

    def __init__(self, full: InputConverter, access: Access) -> None:
        self.full = full
        self._lines: list[str] = []
        self._names: dict[str, object] = {"DECIMAL": Decimal, "DAY": date.fromisoformat,
                                          "BIG": _BIG}
        self._count = 0
        self._root = None if access.whole else self._value(access, full._root, "")

    def convert(self, name: str, value: object, limits: Limits,
                measured: bool = False) -> object:
        """The runtime value of input `name`, as far as the ruleset reads it. `measured`: the
        caller knows that `value` is JSON data within the input limits (see `measure`)."""
        if self._root is None or not (measured or measure(value, limits, name)):
            return self.full.convert(name, value, limits)
        return self._root(value, name)

    def _whole(self, schema: dict | None):
        """Full conversion of a value (its limits were measured with the input)."""
        convert = self.full._convert

        def whole(value: object, path: str) -> object:
            return convert(value, schema, [_UNLIMITED.max_input_nodes], _UNLIMITED, path, 1)
        return whole

    def _value(self, access: Access, schema: dict | None, path: str):
        """The converter `(value, path) -> value` of one access node."""
        if access.whole or (access.fields and access.items is not None):
            return self._whole(schema)
        plan = self.full._plan(schema)
        if access.fields:
            return self._object(access, plan, schema)
        if access.items is not None:
            item = self._value(access.items, plan.items, path)
            whole = self._whole(schema)

            def items(value: object, path: str) -> object:
                if type(value) is list:
                    return [item(x, path) for x in value]
                return whole(value, path)
            return items
        return _keep

    def _leaf(self, schema: dict | None, fmt: str | None):
        """A field read as a whole: a string of a `format` is parsed here, anything else
        takes the full conversion."""
        whole = self._whole(schema)
        if fmt is None:
            return whole

        def leaf(value: object, path: str) -> object:
            if type(value) is str:
                return _convert_string(value, fmt, path)
            return whole(value, path)
        return leaf

    def _object(self, access: Access, plan, schema: dict | None):
        """A generated function converting the read fields of one object."""
        number = self._count
        self._count += 1
        const = self._const
        lines = ["def convert(v, p):",
                 f"    if type(v) is not dict: return {const(self._whole(schema))}(v, p)",
                 "    o = {}"]
        for key, sub in access.fields.items():
            k = const(key)
            child = plan.children.get(key, plan.extra)
            lines.append(f"    x = v.get({k})")
            lines.append("    if x is not None:")
            fmt = _format_of(child, self.full.root)
            leaf = sub.whole or (not sub.fields and sub.items is None)
            objects = not leaf and sub.items is not None and not sub.fields \
                and not sub.items.whole and sub.items.fields and sub.items.items is None
            convert = None if objects else const(
                self._leaf(child, fmt) if leaf else self._value(sub, child, ""))
            if leaf and fmt is None:  # strings stay strings; exact numbers in range stay
                lines.append(f"        o[{k}] = x if type(x) is str or (type(x) is DECIMAL "
                             f"and {-MAX_EXPONENT} <= x.adjusted() <= {MAX_EXPONENT}) "
                             f"else DECIMAL(x) if type(x) is int and -BIG < x < BIG "
                             f"else {convert}(x, p + {const('.' + key)})")
            elif leaf and fmt == "date":  # the usual date string, parsed here
                lines += ["        try:",
                          (f"            o[{k}] = DAY(x) if type(x) is str and len(x) == 10 "
                           f"else {convert}(x, p + {const('.' + key)})"),
                          "        except ValueError:",
                          f"            o[{k}] = {convert}(x, p + {const('.' + key)})"]
            elif objects:
                # a list of objects read field by field: the items converted right here
                item = const(self._value(sub.items, self.full._plan(child).items, ""))
                path = const("." + key)
                lines.append(f"        o[{k}] = [{item}(y, p + {path}) for y in x] "
                             f"if type(x) is list else {const(self._whole(child))}(x, p + {path})")
            else:
                lines.append(f"        o[{k}] = {convert}(x, p + {const('.' + key)})")
        lines.append("    return o")
        namespace = dict(self._names)
        exec(compile("\n".join(lines), f"<projection {number}>", "exec"),  # noqa: S102
             namespace)
        return namespace["convert"]

    def _const(self, value: object) -> str:
        name = f"K{len(self._names)}"
        self._names[name] = value
        return name


def _keep(value: object, path: str) -> object:
    """Nothing is read from this value (a `count` over its list): it stays as it is."""
    return value
