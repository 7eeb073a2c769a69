"""IR expression -> rules-language source text, and runtime values -> display text.

`format_expr` is the one expression printer of the product: explanations use it when no source
text is at hand, and the dsl's `format_ruleset` builds on it. Its output parses back to the same
IR (tests/dsl/test_printer.py holds that with hypothesis). Parentheses are added only where the
grammar needs them; comparisons do not chain, so a comparison operand that is itself a comparison
is parenthesized.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.ir.values import Duration

# precedence levels of rules.lark: expr 0, or 1, and 2, not 3, comparison 4, ?? 5, + - 6,
# * / % 7, unary minus 8, postfix 9
_LEVEL = {"or": 1, "and": 2, "??": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def format_expr(expr: ir.Expr, context: int = 0) -> str:
    """The expression as source text, parenthesized for a position of precedence `context`."""
    text, level = _expr(expr)
    return f"({text})" if level < context else text


def format_literal(value: object, *, braces: bool = False) -> str:
    """A literal value; braces=True doubles `{` and `}` (inside a message string)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, str):
        return '"' + _escape(value, braces) + '"'
    if isinstance(value, datetime):
        text = value.isoformat()
        return text.removesuffix("+00:00") + "Z" if value.utcoffset() == timedelta(0) else text
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Duration):
        if value.months and value.days:
            raise ValueError(f"{value} has no literal form")
        amount, unit = (value.months, "months") if value.months else (value.days, "days")
        return f"{amount} {unit}"
    raise ValueError(f"{value!r} has no literal form")


def _escape(text: str, braces: bool) -> str:
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\u{ord(char):04x}")
        elif char in "{}":  # doubled in a message; escaped elsewhere, where a `{` followed by
            # a `"` and a `}` would read as an interpolation to the lexer
            out.append(char * 2 if braces else "\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _expr(expr: ir.Expr) -> tuple[str, int]:
    if isinstance(expr, ir.Literal):
        negative = isinstance(expr.value, Decimal) and expr.value.is_signed()
        try:
            text = format_literal(expr.value)
        except ValueError:  # a hand-built IR value with no literal form: show it, never fail
            text = print_literal(expr.value)
        return text, 8 if negative else 9
    if isinstance(expr, ir.Name):
        return expr.name, 9
    if isinstance(expr, ir.Member):
        return f"{format_expr(expr.obj, 9)}.{expr.field}", 9
    if isinstance(expr, ir.Index):
        return f"{format_expr(expr.obj, 9)}[{format_expr(expr.index)}]", 9
    if isinstance(expr, ir.Call):
        return f"{expr.func}({', '.join(format_expr(a) for a in expr.args)})", 9
    if isinstance(expr, ir.Unary):
        if expr.op == "not":
            return f"not {format_expr(expr.operand, 3)}", 3
        operand = expr.operand
        # `-3` would read back as the literal -3: keep the negation visible.
        inner = (f"({format_expr(operand)})" if isinstance(operand, ir.Literal)
                 and isinstance(operand.value, Decimal) else format_expr(operand, 8))
        return f"-{inner}", 8
    if isinstance(expr, ir.Binary):
        return _binary(expr)
    if isinstance(expr, ir.Between):
        low, high = format_expr(expr.low, 5), format_expr(expr.high, 5)
        return f"{format_expr(expr.value, 5)} between {low} and {high}", 4
    if isinstance(expr, ir.IsNull):
        return f"{format_expr(expr.value, 5)} is {'not ' if expr.negated else ''}null", 4
    if isinstance(expr, ir.Conditional):
        cond, then, else_ = (format_expr(e) for e in (expr.cond, expr.then, expr.else_))
        return f"if {cond} then {then} else {else_}", 0
    return _compound(expr), 9


def _binary(expr: ir.Binary) -> tuple[str, int]:
    level = _LEVEL.get(expr.op, 4)
    if level == 4:  # comparisons and word operators take ?? operands and never chain
        return f"{format_expr(expr.left, 5)} {expr.op} {format_expr(expr.right, 5)}", 4
    return f"{format_expr(expr.left, level)} {expr.op} {format_expr(expr.right, level + 1)}", level


def _compound(expr: ir.Expr) -> str:
    if isinstance(expr, ir.ListExpr):
        return "[" + ", ".join(format_expr(item) for item in expr.items) + "]"
    if isinstance(expr, ir.SetExpr):
        if not expr.items:
            raise ValueError("an empty set has no literal form (`{}` is an empty object)")
        return "{" + ", ".join(format_expr(item) for item in expr.items) + "}"
    if isinstance(expr, ir.ObjectExpr):
        return "{" + ", ".join(f"{format_literal(key)}: {format_expr(value)}"
                               for key, value in expr.entries) + "}"
    if isinstance(expr, ir.Comprehension):
        where = f" where {format_expr(expr.where)}" if expr.where is not None else ""
        head = f"{format_expr(expr.projection)} for " if expr.projection is not None else ""
        return f"{expr.kind}({head}{expr.var} in {format_expr(expr.source, 5)}{where})"
    if isinstance(expr, ir.Interpolated):
        return format_message(expr)
    raise TypeError(f"not an expression node: {type(expr).__name__}")


def format_message(expr: ir.Expr) -> str:
    """An action's message: string parts with doubled braces, `{expr}` for expressions."""
    if isinstance(expr, ir.Literal) and isinstance(expr.value, str):
        return format_literal(expr.value, braces=True)
    if not isinstance(expr, ir.Interpolated):
        return format_expr(expr)
    pieces = [_escape(part, True) if isinstance(part, str) else "{" + format_expr(part) + "}"
              for part in expr.parts]
    return '"' + "".join(pieces) + '"'


def print_literal(value: object) -> str:
    """Any runtime value as display text: scalars as the language writes them (`1.20`, `"CA"`,
    `2025-01-31`, `90 days`), collections element by element, anything else by its repr."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(print_literal(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(print_literal(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{print_literal(k)}: {print_literal(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = Decimal(str(value))
    try:
        return format_literal(value)
    except ValueError:  # a mixed duration, or a value the language has no literal for
        return str(value) if isinstance(value, Duration) else repr(value)
