"""Input conversion specialised to what a ruleset reads (every evaluation path uses it).

Given an input's access tree (`engine/inputs/reads.py`), `ProjectedConverter` converts only the fields
read, with generated per-object functions reached through a constants table (as in `codegen.py`).
A field that cannot be converted holds an `errors.Invalid`, raised where a rule reads it; a value
used whole is counted against the input limits as it is converted. Unread data is neither
converted, validated nor counted, on every path alike (docs/rules-language.md, "Input data").
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from insureops.engine.inputs.conversion import (
    _BIG,
    InputConverter,
    _convert_string,
    _format_of,
    whole,
)
from insureops.engine.inputs.reads import Access
from insureops.engine.ir.errors import EngineError, Invalid, LimitExceededError
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.numbers import MAX_EXPONENT
from insureops.engine.ir.values import Duration, iso_date

_SCALARS = frozenset({str, Decimal, int, float, bool, type(None), date, datetime, Duration})
_UNLIMITED = Limits(max_input_nodes=2**62, max_input_depth=2**30)
# The full conversion recurses once per level, so deeper input has always ended as a
# `limit_depth` error (from a RecursionError) whatever `max_input_depth` said; keep that.
DEEPEST_INPUT = 400
# Decimal(int) costs more than a JSON parse's Decimal (its argument parsing, the context):
# counts, ages and years are mostly small, so their Decimals are made once (immutable, shared)
_SMALL = tuple(Decimal(number) for number in range(1024))


class _Exotic(Exception):
    """The input holds something other than dicts, lists and JSON scalars."""


class _Budget:
    """What is left of the input limits while one input is converted."""

    __slots__ = ("deepest", "left", "limits", "name")

    def __init__(self, limits: Limits, name: str) -> None:
        self.left = limits.max_input_nodes
        self.deepest = min(limits.max_input_depth, DEEPEST_INPUT)
        self.limits, self.name = limits, name


def _too_deep(budget: _Budget) -> None:
    raise LimitExceededError(f"input is nested deeper than {budget.deepest} levels at "
                             f"{budget.name}", code="limit_depth")


def _too_big(budget: _Budget) -> None:
    raise LimitExceededError(f"input has more than {budget.limits.max_input_nodes} values",
                             code="limit_input_size")


def _walk(value: object, depth: int, budget: _Budget) -> None:
    """Count a value nobody converts piecewise (unread, or converted whole) against the
    limits: each container its length, level by level, as `measure` does."""
    if type(value) is not dict and type(value) is not list:
        if type(value) not in _SCALARS:
            raise _Exotic
        return
    level = [value]
    while level:
        if depth > budget.deepest:
            _too_deep(budget)
        below: list = []
        for container in level:
            budget.left -= len(container)
            for item in (container.values() if type(container) is dict else container):
                kind = type(item)
                if kind is dict or kind is list:
                    below.append(item)
                elif kind not in _SCALARS:
                    raise _Exotic
        if budget.left < 0:
            _too_big(budget)
        level, depth = below, depth + 1


def measure(value: object, limits: Limits, name: str) -> bool:
    """Check a whole value against the input size and depth limits (raising as the full
    conversion does); False when it holds something other than dicts, lists and scalars."""
    try:
        _walk(value, 1, _Budget(limits, name))
    except _Exotic:
        return False
    return True


def _nothing(access: Access) -> bool:
    """Whether nothing at all is read from the value `access` stands for."""
    return not access.whole and not access.fields and access.items is None


class ProjectedConverter:
    """Converts one input, only along the paths its ruleset reads; values used whole are
    counted against the input limits (unread data is not walked)."""

    def __init__(self, full: InputConverter, access: Access) -> None:
        self.full = full
        self._names: dict[str, object] = {"DECIMAL": Decimal, "SMALL": _SMALL,
                                          "ENGINE": EngineError, "INVALID": Invalid,
                                          "DAY": iso_date,
                                          "BIG": _BIG, "TOO_DEEP": _too_deep, "WHOLE": whole,
                                          "TOO_BIG": _too_big}
        self._count = 0
        self._root = None if access.whole else self._value(access, full._root, 1)

    def convert(self, name: str, value: object, limits: Limits) -> object:
        """The runtime value of input `name`, as far as the ruleset reads it."""
        if self._root is None:
            return self.full.convert(name, value, limits)
        try:
            return self._root(value, name, _Budget(limits, name))
        except _Exotic:
            return self.full.convert(name, value, limits)

    def _whole(self, schema: dict | None, depth: int):
        """Full conversion of a value at `depth`, counted against the limits first."""
        convert = self.full._convert

        def whole(value: object, path: str, budget: _Budget) -> object:
            _walk(value, depth, budget)
            return convert(value, schema, [_UNLIMITED.max_input_nodes], _UNLIMITED, path, 1)
        return whole

    def _value(self, access: Access, schema: dict | None, depth: int):
        """The converter `(value, path, budget) -> value` of one access node at `depth`."""
        if access.whole or (access.fields and access.items is not None):
            return self._whole(schema, depth)
        plan = self.full._plan(schema)
        if access.fields:
            return self._object(access, plan, schema, depth)
        whole = self._whole(schema, depth)
        if access.items is not None and _nothing(access.items):
            def length(value: object, path: str, budget: _Budget) -> object:
                if type(value) is not list:
                    return whole(value, path, budget)
                return value  # only its length is read (`len`, `count` without a test)
            return length
        if access.items is not None:
            item = self._value(access.items, plan.items, depth + 1)

            def items(value: object, path: str, budget: _Budget) -> object:
                if type(value) is not list:
                    return whole(value, path, budget)
                return [item(x, path, budget) for x in value]
            return items

        def keep(value: object, path: str, budget: _Budget) -> object:
            return value  # nothing is read from it (a `count` over its list)
        return keep

    def _leaf(self, schema: dict | None, fmt: str | None, depth: int):
        """A field read as a whole: a string of a `format` is parsed here, anything else
        takes the full conversion."""
        whole = self._whole(schema, depth)
        if fmt is None:
            return whole

        def leaf(value: object, path: str, budget: _Budget) -> object:
            if type(value) is str:
                return _convert_string(value, fmt, path)
            return whole(value, path, budget)
        return leaf

    def _object(self, access: Access, plan, schema: dict | None, depth: int):
        """A generated function converting the read fields of one object at `depth`."""
        number = self._count
        self._count += 1
        const = self._const
        whole = const(self._whole(schema, depth))
        lines = ["def convert(v, p, b):",
                 "    if type(v) is not dict:",
                 f"        try: return {whole}(v, p, b)",
                 "        except ENGINE as e: return INVALID(e)",  # an item read field by field
                 "    o = {}"]
        for key, sub in access.fields.items():
            lines += self._field(key, sub, plan, depth + 1)
        lines.append("    return o")
        namespace = dict(self._names)
        exec(compile("\n".join(lines), f"<projection {number}>", "exec"),  # noqa: S102
             namespace)
        return namespace["convert"]

    def _field(self, key: str, sub: Access, plan, depth: int, names: str = "voxp",
               prefix: str = "", ind: str = "    ") -> list[str]:
        """`_converting` in a `try`: a field that cannot be converted holds an `Invalid`,
        whose error is raised where the field is read."""
        o, k = names[1], self._const(key)
        return [f"{ind}try:",
                *self._converting(key, sub, plan, depth, names, prefix, ind + "    "),
                f"{ind}except ENGINE as e:",
                f"{ind}    {o}[{k}] = INVALID(e)"]

    def _converting(self, key: str, sub: Access, plan, depth: int, names: str,
                    prefix: str, ind: str) -> list[str]:
        """The lines converting field `key` (at `depth`) of the object `v` into `o` (the
        variables `names` name v, o, x and the path p; `prefix` goes before the key in
        error paths; `ind` indents the lines)."""
        const = self._const
        v, o, x, p = names
        k, path = const(key), const(f"{prefix}.{key}")
        child = plan.children.get(key, plan.extra)
        lines = [f"{ind}{x} = {v}.get({k})", f"{ind}if {x} is not None:"]
        fmt = _format_of(child, self.full.root)
        leaf = sub.whole or (not sub.fields and sub.items is None)
        if leaf and fmt is None:  # strings stay strings; exact numbers in range stay
            convert = const(self._leaf(child, fmt, depth))
            # a number of an `integer` field must also be whole (else the full conversion
            # refuses it)
            whole = f" and WHOLE({x})" if self.full._plan(child).integer else ""
            lines.append(f"{ind}    {o}[{k}] = {x} if type({x}) is str "
                         f"else (SMALL[{x}] if 0 <= {x} < {len(_SMALL)} else DECIMAL({x})) "
                         f"if type({x}) is int and -BIG < {x} < BIG "
                         f"else {x} if type({x}) is DECIMAL and {x}.is_finite() "
                         f"and {-MAX_EXPONENT} <= {x}.adjusted() <= {MAX_EXPONENT}{whole} "
                         f"else {convert}({x}, {p} + {path}, b)")
        elif leaf and fmt == "date":  # the usual date string, parsed here
            convert = const(self._leaf(child, fmt, depth))
            lines += [f"{ind}    {o}[{k}] = DAY({x}) if type({x}) is str else None",
                      f"{ind}    if {o}[{k}] is None: {o}[{k}] = {convert}({x}, {p} + {path}, b)"]
        else:
            convert = const(self._leaf(child, fmt, depth) if leaf
                            else self._value(sub, child, depth))
            lines.append(f"{ind}    {o}[{k}] = {convert}({x}, {p} + {path}, b)")
        return lines

    def _const(self, value: object) -> str:
        name = f"K{len(self._names)}"
        self._names[name] = value
        return name
