"""The checker's reading of the built-in functions: arity, argument and result types.

Everything comes from the engine's registry (`engine/ir/builtins.py` `FUNCTIONS`); this module
only turns its kinds into the checker's types and words the problems.
"""

from __future__ import annotations

from insureops.dsl import types as t
from insureops.engine.ir.builtins import FUNCTIONS, Function

Problem = tuple[str, str, str | None]
_RESULTS = {"number": t.NUMBER, "string": t.STRING, "date": t.DATE, "datetime": t.DATETIME}

__all__ = ["FUNCTIONS", "check_call"]


def _items_or_args(types: list[t.Type]) -> t.Type:
    if len(types) == 1:
        only = types[0]
        return (only.item or t.ANY) if only.is_collection else t.ANY
    found = t.NULL
    for each in types:
        found = t.unify(found, each)
    return found


def check_call(name: str, types: list[t.Type]) -> tuple[t.Type, Problem | None]:
    """The result type of `name(args)`, or a problem (code, message, hint)."""
    function = FUNCTIONS[name]
    low, high, count = function.minimum, function.maximum, len(types)
    if count < low or (high is not None and count > high):
        wanted = (f"{low}" if low == high else f"{low} or {high}" if high == low + 1
                  else f"at least {low}" if high is None else f"{low} to {high}")
        plural = "" if wanted == "1" else "s"
        return t.ANY, ("E102", f"`{name}` takes {wanted} argument{plural}, not {count}", None)
    for position, (found, accepted) in enumerate(zip(types, function.accepts or ()), start=1):
        if not found.is_any and found.kind not in accepted:
            words = t.with_article(" or ".join(accepted))
            return t.ANY, ("E202", (f"argument {position} of `{name}` must be {words}, "
                           f"not {found.a}"), None)
    if function.items is not None and count == 1:
        problem = _one_collection(function, types[0])
        if problem is not None:
            return t.ANY, problem
    if function.result == "items":  # a null-tolerant function may still give null
        return _items_or_args(types + [t.NULL] if function.null_tolerant else types), None
    return _RESULTS.get(function.result, t.ANY), None


def _one_collection(function: Function, found: t.Type) -> Problem | None:
    """`sum(xs)`, `min(xs)`, `max(xs)` of one argument need a list or set (of the registry's
    item kind)."""
    name = function.name
    if found.is_any:
        return None
    if not found.is_collection:
        return ("E202", f"`{name}` of one argument takes a list or set, not {found.a}",
                f"write `{name}(a, b, ...)` for several values")
    item = found.item or t.ANY
    if function.items != "any" and not item.is_any and item.kind != function.items:
        return ("E202", f"`{name}` of one list takes {function.items} items, not {item} values",
                None)
    return None
