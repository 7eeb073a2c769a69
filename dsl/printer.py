"""IR -> rules-language text that parses back to the same IR (format_ruleset, format_expr).

Parentheses are added only where the grammar needs them. Comparisons do not chain, so a
comparison operand that is itself a comparison is parenthesized.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.values import Duration

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
        elif braces and char in "{}":
            out.append(char * 2)
        else:
            out.append(char)
    return "".join(out)


def _expr(expr: ir.Expr) -> tuple[str, int]:
    if isinstance(expr, ir.Literal):
        negative = isinstance(expr.value, Decimal) and expr.value.is_signed()
        return format_literal(expr.value), 8 if negative else 9
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


def format_ruleset(ruleset: ir.Ruleset) -> str:
    """The whole ruleset as a `.rules` file."""
    title = f" {format_literal(ruleset.title)}" if ruleset.title is not None else ""
    lines = [f"ruleset {ruleset.name}{title}"]
    if ruleset.version is not None:
        lines.append(f"version {ruleset.version}")
    lines += [f"input {i.name}: {i.type_name}" for i in ruleset.inputs]
    if ruleset.default_decision is not None:
        lines.append(f"default decision {ruleset.default_decision}")
    lines += [f"const {c.name} = {format_expr(c.value)}" for c in ruleset.consts]
    for item in ruleset.items:
        lines.append("")
        lines += _rule(item) if isinstance(item, ir.Rule) else _table(item)
    for test in ruleset.tests:
        lines += ["", f"test {format_literal(test.description)}"]
        for given in test.givens:
            as_of = f" as of {given.as_of.isoformat()}" if given.as_of is not None else ""
            lines.append(f"given {given.name} = {format_expr(given.value)}{as_of}")
        lines += [f"expect {format_expr(test.expect)}", "end"]
    return "\n".join(lines) + "\n"


def _rule(rule: ir.Rule) -> list[str]:
    head = f"rule {rule.name}"
    if rule.title is not None:
        head += f" {format_literal(rule.title)}"
    if rule.priority:
        head += f" priority {rule.priority}"
    if rule.effective is not None:
        head += f" effective {rule.effective.start} to {rule.effective.end}"
    if not rule.enabled:
        head += " enabled false"
    return [head, f"when {format_expr(rule.condition)}", "then",
            *(f"    {_action(action)}" for action in rule.actions), "end"]


def _action(action: ir.Action) -> str:
    if isinstance(action, ir.ScoreAction):
        return f"score {action.op} {format_expr(action.value)}"
    if isinstance(action, ir.SetAction):
        return f"set {action.name} = {format_expr(action.value)}"
    if isinstance(action, ir.DecisionAction):
        return f"{action.decision} {format_message(action.message)}"
    if isinstance(action, ir.ReasonAction):
        return f"reason {format_message(action.message)}"
    if isinstance(action, ir.TagAction):
        return f"tag {format_message(action.tag)}"
    return "stop"


def _table(table: ir.Table) -> list[str]:
    title = f" {format_literal(table.title)}" if table.title is not None else ""
    priority = f" priority {table.priority}" if table.priority else ""
    heads = [format_expr(e) for e in table.inputs] + [f"=> {name}" for name in table.outputs]
    rows = [[_cell(cell) for cell in row.cells] + [format_expr(v, 6) for v in row.values]
            for row in table.rows]
    return [f"table {table.name}{title} hit {table.hit}{priority}",
            *("    | " + " | ".join(cells) + " |" for cells in [heads, *rows]), "end"]


def _cell(cell: ir.Cell) -> str:
    if isinstance(cell, ir.AnyCell):
        return "-"
    if isinstance(cell, ir.NullCell):
        return "is null"
    if isinstance(cell, ir.BetweenCell):
        return f"between {format_expr(cell.low, 6)} and {format_expr(cell.high, 6)}"
    operand = format_expr(cell.operand, 6)
    return operand if cell.op == "==" else f"{cell.op} {operand}"
