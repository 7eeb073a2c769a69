"""The built-in functions' signatures as the checker sees them: arity, argument and result types.

The names and arities match engine.builtins.BUILTINS (a test keeps them in step).
"""

from __future__ import annotations

from collections.abc import Callable

from insureops.dsl import types as t

Problem = tuple[str, str, str | None]
_TEXT = ("string",)
_NUMBER = ("number",)
_MOMENT = ("date", "datetime")


def _same(types: list[t.Type]) -> t.Type:
    return types[0]


def _items_or_args(types: list[t.Type]) -> t.Type:
    if len(types) == 1:
        only = types[0]
        return (only.item or t.ANY) if only.is_collection else t.ANY
    found = t.NULL
    for each in types:
        found = t.unify(found, each)
    return found


def _fixed(result: t.Type) -> Callable[[list[t.Type]], t.Type]:
    return lambda _types: result


# name -> (minimum, maximum or None, accepted kinds per argument or None for any, result)
FUNCTIONS: dict[str, tuple[int, int | None, tuple | None, Callable[[list[t.Type]], t.Type]]] = {
    "len": (1, 1, (("string", "list", "set", "object"),), _fixed(t.NUMBER)),
    "lower": (1, 1, (_TEXT,), _fixed(t.STRING)),
    "upper": (1, 1, (_TEXT,), _fixed(t.STRING)),
    "trim": (1, 1, (_TEXT,), _fixed(t.STRING)),
    "round": (1, 2, (_NUMBER, _NUMBER), _fixed(t.NUMBER)),
    "abs": (1, 1, (_NUMBER,), _fixed(t.NUMBER)),
    "floor": (1, 1, (_NUMBER,), _fixed(t.NUMBER)),
    "ceil": (1, 1, (_NUMBER,), _fixed(t.NUMBER)),
    "min": (1, None, None, _items_or_args),
    "max": (1, None, None, _items_or_args),
    "sum": (1, None, None, _fixed(t.NUMBER)),
    "today": (0, 0, (), _fixed(t.DATE)),
    "now": (0, 0, (), _fixed(t.DATETIME)),
    "date": (1, 1, (("string", "date", "datetime"),), _fixed(t.DATE)),
    "days_between": (2, 2, (_MOMENT, _MOMENT), _fixed(t.NUMBER)),
    "years_between": (2, 2, (_MOMENT, _MOMENT), _fixed(t.NUMBER)),
    "coalesce": (1, None, None, _items_or_args),
}


def check_call(name: str, types: list[t.Type]) -> tuple[t.Type, Problem | None]:
    """The result type of `name(args)`, or a problem (code, message, hint)."""
    low, high, kinds, result = FUNCTIONS[name]
    count = len(types)
    if count < low or (high is not None and count > high):
        wanted = (f"{low}" if low == high else f"{low} or {high}" if high == low + 1
                  else f"at least {low}" if high is None else f"{low} to {high}")
        plural = "" if wanted == "1" else "s"
        return t.ANY, ("E102", f"`{name}` takes {wanted} argument{plural}, not {count}", None)
    for position, (found, accepted) in enumerate(zip(types, kinds or ()), start=1):
        if not found.is_any and found.kind not in accepted:
            words = t.with_article(" or ".join(accepted))
            return t.ANY, ("E202", (f"argument {position} of `{name}` must be {words}, "
                           f"not {found.a}"), None)
    if name in ("min", "max", "sum") and count == 1:
        problem = _one_collection(name, types[0])
        if problem is not None:
            return t.ANY, problem
    if name == "coalesce":
        return _items_or_args(types + [t.NULL]), None
    return result(types), None


def _one_collection(name: str, found: t.Type) -> Problem | None:
    """`sum(xs)`, `min(xs)`, `max(xs)` of one argument need a list or set (of numbers for sum)."""
    if found.is_any:
        return None
    if not found.is_collection:
        return ("E202", f"`{name}` of one argument takes a list or set, not {found.a}",
                f"write `{name}(a, b, ...)` for several values")
    item = found.item or t.ANY
    if name == "sum" and not item.is_any and item.kind != "number":
        return ("E202", f"`sum` adds numbers, not {item} values", None)
    return None
