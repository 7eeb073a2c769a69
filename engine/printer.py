"""IR expression -> canonical source text, for explanations when no source text is at hand."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.values import Duration

_BINARY_LEVEL = {
    "or": 1, "and": 2,
    "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4, "in": 4, "not in": 4,
    "starts_with": 4, "ends_with": 4, "contains": 4, "matches": 4,
    "??": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7,
}
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def print_expr(expr: object) -> str:
    """The expression as the language writes it, with only the parentheses it needs."""
    return _print(expr, 0)


def print_literal(value: object) -> str:
    """A literal value as source text (`1.20`, `"CA"`, `2025-01-31`, `90 days`)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (int, float)):
        return format(Decimal(str(value)), "f")
    if isinstance(value, str):
        return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'
    if isinstance(value, datetime):
        text = value.isoformat()
        if value.utcoffset() == timedelta(0):
            text = text.removesuffix("+00:00") + "Z"
        return text
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Duration):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(print_literal(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(print_literal(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{print_literal(k)}: {print_literal(v)}"
                               for k, v in value.items()) + "}"
    return repr(value)


def _wrap(text: str, level: int, context: int) -> str:
    return f"({text})" if level < context else text


def _print(expr: object, context: int) -> str:
    if isinstance(expr, ir.Literal):
        text = print_literal(expr.value)
        negative = isinstance(expr.value, Decimal) and expr.value.is_signed()
        return _wrap(text, 8, context) if negative else text
    if isinstance(expr, ir.Name):
        return expr.name
    if isinstance(expr, ir.Member):
        return f"{_print(expr.obj, 9)}.{expr.field}"
    if isinstance(expr, ir.Index):
        return f"{_print(expr.obj, 9)}[{_print(expr.index, 0)}]"
    if isinstance(expr, ir.Call):
        return f"{expr.func}({', '.join(_print(a, 0) for a in expr.args)})"
    if isinstance(expr, ir.Unary):
        if expr.op == "not":
            return _wrap(f"not {_print(expr.operand, 3)}", 3, context)
        return _wrap(f"-{_print(expr.operand, 8)}", 8, context)
    if isinstance(expr, ir.Binary):
        level = _BINARY_LEVEL[expr.op]
        left = _print(expr.left, level)
        right = _print(expr.right, level + 1)
        return _wrap(f"{left} {expr.op} {right}", level, context)
    if isinstance(expr, ir.Between):
        text = f"{_print(expr.value, 5)} between {_print(expr.low, 5)} and {_print(expr.high, 5)}"
        return _wrap(text, 4, context)
    if isinstance(expr, ir.IsNull):
        text = f"{_print(expr.value, 5)} is {'not ' if expr.negated else ''}null"
        return _wrap(text, 4, context)
    if isinstance(expr, ir.Conditional):
        text = (f"if {_print(expr.cond, 0)} then {_print(expr.then, 0)} "
                f"else {_print(expr.else_, 0)}")
        return _wrap(text, 0, context)
    return _print_compound(expr)


def _print_compound(expr: object) -> str:
    if isinstance(expr, ir.ListExpr):
        return "[" + ", ".join(_print(item, 0) for item in expr.items) + "]"
    if isinstance(expr, ir.SetExpr):
        return "{" + ", ".join(_print(item, 0) for item in expr.items) + "}"
    if isinstance(expr, ir.ObjectExpr):
        return "{" + ", ".join(f"{print_literal(k)}: {_print(v, 0)}"
                               for k, v in expr.entries) + "}"
    if isinstance(expr, ir.Comprehension):
        where = f" where {_print(expr.where, 0)}" if expr.where is not None else ""
        head = f"{_print(expr.projection, 0)} for " if expr.projection is not None else ""
        return f"{expr.kind}({head}{expr.var} in {_print(expr.source, 0)}{where})"
    if isinstance(expr, ir.Interpolated):
        pieces = ["".join(_ESCAPES.get(ch, ch) for ch in part.replace("{", "{{"))
                  if isinstance(part, str) else "{" + _print(part, 0) + "}"
                  for part in expr.parts]
        return '"' + "".join(pieces) + '"'
    raise TypeError(f"not an expression node: {type(expr).__name__}")
