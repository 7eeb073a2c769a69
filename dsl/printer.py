"""IR ruleset -> rules-language text that parses back to the same IR (format_ruleset).

Expressions, literals and messages are printed by the engine's printer; this module lays out
the header, rules, tables and tests around them.
"""

from __future__ import annotations

from insureops.engine import ir
from insureops.engine.ir.printer import format_expr, format_literal, format_message


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
