"""Small builders for engine IR, so tests read close to the rules language (not a parser)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from insureops.engine import ir
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.evaluation.interpreter import compile_reference
from insureops.engine.ir.values import Duration


def expr(value: object) -> object:
    """An IR node as is; Python values become literals (ints/floats as exact Decimals)."""
    if isinstance(value, (ir.Literal, ir.Name, ir.Member, ir.Index, ir.Call, ir.Unary, ir.Binary,
                          ir.Between, ir.IsNull, ir.Conditional, ir.ListExpr, ir.SetExpr,
                          ir.ObjectExpr, ir.Comprehension, ir.Interpolated)):
        return value
    return lit(value)


def lit(value: object) -> ir.Literal:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = Decimal(str(value))
    return ir.Literal(value)


def name(text: str) -> object:
    """`a.b.c` -> Member(Member(Name(a), b), c)."""
    first, *fields = text.split(".")
    node: object = ir.Name(first)
    for field in fields:
        node = ir.Member(node, field)
    return node


def binary(op: str, left: object, right: object) -> ir.Binary:
    return ir.Binary(op, expr(left), expr(right))


def and_(*operands: object) -> object:
    node = expr(operands[0])
    for operand in operands[1:]:
        node = ir.Binary("and", node, expr(operand))
    return node


def or_(*operands: object) -> object:
    node = expr(operands[0])
    for operand in operands[1:]:
        node = ir.Binary("or", node, expr(operand))
    return node


def not_(operand: object) -> ir.Unary:
    return ir.Unary("not", expr(operand))


def neg(operand: object) -> ir.Unary:
    return ir.Unary("-", expr(operand))


def between(value: object, low: object, high: object) -> ir.Between:
    return ir.Between(expr(value), expr(low), expr(high))


def is_null(value: object, negated: bool = False) -> ir.IsNull:
    return ir.IsNull(expr(value), negated)


def if_(cond: object, then: object, else_: object) -> ir.Conditional:
    return ir.Conditional(expr(cond), expr(then), expr(else_))


def call(func: str, *args: object) -> ir.Call:
    return ir.Call(func, tuple(expr(a) for a in args))


def list_(*items: object) -> ir.ListExpr:
    return ir.ListExpr(tuple(expr(i) for i in items))


def set_(*items: object) -> ir.SetExpr:
    return ir.SetExpr(tuple(expr(i) for i in items))


def obj(**entries: object) -> ir.ObjectExpr:
    return ir.ObjectExpr(tuple((k, expr(v)) for k, v in entries.items()))


def comp(kind: str, var: str, source: object, *, where: object = None,
         projection: object = None) -> ir.Comprehension:
    return ir.Comprehension(kind, var, expr(source),
                            expr(projection) if projection is not None else None,
                            expr(where) if where is not None else None)


def text(*parts: object) -> ir.Interpolated:
    return ir.Interpolated(tuple(p if isinstance(p, str) else expr(p) for p in parts))


def days(n: int) -> Duration:
    return Duration(days=n)


def months(n: int) -> Duration:
    return Duration(months=n)


# --- actions, rules, tables, rulesets -----------------------------------------------------------

def score(op: str, value: object) -> ir.ScoreAction:
    return ir.ScoreAction(op, expr(value))


def set_output(output: str, value: object) -> ir.SetAction:
    return ir.SetAction(output, expr(value))


def accept(message: object = "ok") -> ir.DecisionAction:
    return ir.DecisionAction("accept", expr(message))


def refer(message: object = "refer") -> ir.DecisionAction:
    return ir.DecisionAction("refer", expr(message))


def decline(message: object = "no") -> ir.DecisionAction:
    return ir.DecisionAction("decline", expr(message))


def reason(message: object) -> ir.ReasonAction:
    return ir.ReasonAction(expr(message))


def tag(value: str) -> ir.TagAction:
    return ir.TagAction(expr(value))


def stop() -> ir.StopAction:
    return ir.StopAction()


def rule(rule_name: str, when: object, *actions: object, priority: int = 0,
         effective: tuple[date, date] | None = None, enabled: bool = True,
         title: str | None = None, span: ir.Span | None = None) -> ir.Rule:
    window = ir.Effective(*effective) if effective else None
    return ir.Rule(rule_name, expr(when), tuple(actions), title, priority, window, enabled,
                   span=span)


def cell(spec: object) -> object:
    """"-" any; "null" is null; ("<", 10) an operator cell; ("between", a, b); else a literal."""
    if spec == "-":
        return ir.AnyCell()
    if spec == "null":
        return ir.NullCell()
    if isinstance(spec, tuple) and spec[0] == "between":
        return ir.BetweenCell(expr(spec[1]), expr(spec[2]))
    if isinstance(spec, tuple):
        return ir.CompareCell(spec[0], expr(spec[1]))
    return ir.CompareCell("==", expr(spec))


def table(table_name: str, hit: str, inputs: list, outputs: list, rows: list, *,
          priority: int = 0) -> ir.Table:
    built = tuple(ir.TableRow(tuple(cell(c) for c in cells), tuple(expr(v) for v in values))
                  for cells, values in rows)
    return ir.Table(table_name, hit, tuple(expr(i) for i in inputs), tuple(outputs), built,
                    priority=priority)


def ruleset(*items: object, inputs: dict | None = None, consts: dict | None = None,
            default: str | None = None, tests: tuple = ()) -> ir.Ruleset:
    declared = inputs if inputs is not None else {"business": "Any"}
    return ir.Ruleset(
        "t.rules", tuple(ir.InputDecl(n, t) for n, t in declared.items()), tuple(items),
        default_decision=default,
        consts=tuple(ir.Const(n, expr(v)) for n, v in (consts or {}).items()), tests=tests)


def build(ruleset_ir: ir.Ruleset, schemas: dict | None = None, *, reference: bool = False,
          source: str | None = None):
    """Compile to the one compiled form (or run by the reference interpreter)."""
    schemas = schemas or {}
    declared = {d.name: schemas.get(d.name) for d in ruleset_ir.inputs}
    if reference:
        return compile_reference(ruleset_ir, input_schemas=declared, source=source)
    return compile_ir(ruleset_ir, input_schemas=declared, source=source)


def value_of(expression: object, **inputs: object):
    """Evaluate one expression over `business`-style inputs (all `Any`), returning the value
    the rule sets as `outputs.v`."""
    declared = {key: "Any" for key in inputs}
    rs = ruleset(rule("r", True, set_output("v", expression)), inputs=declared)
    return build(rs).evaluate(inputs, as_of=date(2025, 6, 15)).outputs["v"]
