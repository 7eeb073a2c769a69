"""The checker: a built Ruleset against the type registry -> every error and warning at once.

Declarations (inputs, consts, names, outputs) are checked here; expressions in expressions.py,
tables in tablecheck.py, rule reachability in reachability.py.
"""

from __future__ import annotations

from insureops.dsl import types as t
from insureops.dsl.diagnostics import Diagnostic, error, sort_diagnostics
from insureops.dsl.domains import is_known, literal_value
from insureops.dsl.expressions import ExpressionChecker, Scope, suggest
from insureops.dsl.reachability import check_reachability
from insureops.dsl.tablecheck import check_table
from insureops.engine import ir
from insureops.engine.ir.limits import Limits
from insureops.engine.ir.tree import expression_depth
from insureops.schema.registry import ANY_TYPE, TypeRegistry


def check_ruleset(ruleset: ir.Ruleset, registry: TypeRegistry) -> list[Diagnostic]:
    """All diagnostics of `ruleset`, in source order."""
    diagnostics: list[Diagnostic] = []
    inputs = _inputs(ruleset, registry, diagnostics)
    consts, const_lines, const_values = _consts(ruleset, diagnostics)
    _item_names(ruleset, diagnostics)
    outputs = frozenset(_outputs(ruleset))
    scope = Scope(inputs, consts, const_lines, outputs)
    checker = ExpressionChecker(scope, diagnostics)
    for item in ruleset.items:
        if isinstance(item, ir.Rule):
            _rule(item, checker)
        else:
            check_table(item, checker, const_values, diagnostics)
    for test in ruleset.tests:
        _test(test, inputs, Scope(inputs, consts, const_lines, outputs, in_test=True),
              diagnostics)
    check_reachability(ruleset, const_values, diagnostics)
    _depths(ruleset, diagnostics)
    if ruleset.consts and not any(d.severity == "error" for d in diagnostics):
        _const_values(ruleset, diagnostics)
    return sort_diagnostics(diagnostics)


def const_types(ruleset: ir.Ruleset) -> dict[str, t.Type]:
    """The type of each const (the language analysis's hover and completion show them)."""
    return _consts(ruleset, [])[0]


def _const_values(ruleset: ir.Ruleset, diagnostics: list[Diagnostic]) -> None:
    """E115 for each const the engine cannot compute within its limits (it computes them
    once, when compiling): found here, `rules check` fails instead of the compile."""
    from insureops.engine.evaluation.compiler import (
        const_errors,  # the engine's compiler, on first use
    )

    for found in const_errors(ruleset):
        diagnostics.append(error(
            "E115", found.span, found.message,
            "consts are computed under the evaluation limits: lists up to 100,000 items, "
            "strings up to 1,000,000 characters, numbers up to 100 digits"))


def _depths(ruleset: ir.Ruleset, diagnostics: list[Diagnostic]) -> None:
    """The engine compiles each expression on its own and refuses one nested deeper than its
    limit; report that here, where it has a place, rather than at compile time."""
    limit = Limits().max_expression_depth
    for expr in _expression_roots(ruleset):
        depth = expression_depth(expr)
        if depth > limit:
            diagnostics.append(error(
                "E007", expr.span, f"this expression is nested {depth} levels deep; the engine "
                f"evaluates at most {limit}",
                "each `and`/`or`/operator in a chain adds a level: split the condition across "
                "rules or consts, or use a table"))


def _expression_roots(ruleset: ir.Ruleset):
    """Every expression the engine compiles separately, in source order."""
    for const in ruleset.consts:
        yield const.value
    for item in ruleset.items:
        if isinstance(item, ir.Rule):
            yield item.condition
            for action in item.actions:
                yield from (part for part in (getattr(action, name, None)
                                              for name in ("value", "message", "tag"))
                            if part is not None)
            continue
        yield from item.inputs
        for row in item.rows:
            for cell in row.cells:
                yield from (part for part in (getattr(cell, name, None)
                                              for name in ("operand", "low", "high"))
                            if part is not None)
            yield from row.values
    for test in ruleset.tests:
        yield from (given.value for given in test.givens)
        yield test.expect


def _inputs(ruleset: ir.Ruleset, registry: TypeRegistry,
            diagnostics: list[Diagnostic]) -> dict[str, t.Type]:
    inputs: dict[str, t.Type] = {}
    first: dict[str, ir.InputDecl] = {}
    for declaration in ruleset.inputs:
        name = declaration.name
        if name in first:
            _duplicate(diagnostics, declaration.span, "input", name, first[name].span)
            continue
        first[name] = declaration
        type_name = declaration.type_name
        if type_name == ANY_TYPE:
            inputs[name] = t.ANY
        elif registry.get(type_name) is None:
            diagnostics.append(error(
                "E103", declaration.span, f"unknown type `{type_name}`",
                suggest(type_name, registry.names()) or
                f"known types: {', '.join(registry.names())}"))
            inputs[name] = t.ANY
        else:
            inputs[name] = t.from_json_schema(registry.get(type_name), type_name)
    return inputs


def _consts(ruleset: ir.Ruleset, diagnostics: list[Diagnostic]
            ) -> tuple[dict[str, t.Type], dict[str, int], dict[str, object]]:
    types: dict[str, t.Type] = {}
    lines: dict[str, int] = {}
    values: dict[str, object] = {}
    seen: dict[str, ir.Const] = {}
    for const in ruleset.consts:
        if const.name in seen:
            _duplicate(diagnostics, const.span, "const", const.name, seen[const.name].span)
            continue
        seen[const.name] = const
        offender = _non_literal(const.value, types)
        if offender is not None:
            diagnostics.append(error(
                "E107", offender.span, f"const `{const.name}` must be a literal expression",
                "a const holds numbers, strings, dates, lists, sets or other consts, "
                "not inputs or function calls"))
        scope = Scope({}, dict(types), dict(lines), frozenset())
        types[const.name] = (t.ANY if offender is not None else
                             ExpressionChecker(scope, diagnostics).check(const.value))
        lines[const.name] = const.span.line if const.span else 0
        value = literal_value(const.value, values)
        if is_known(value):
            values[const.name] = value
    return types, lines, values


def _non_literal(expr: ir.Expr, consts: dict[str, t.Type]) -> ir.Expr | None:
    if isinstance(expr, ir.Literal):
        return None
    if isinstance(expr, ir.Name):
        return None if expr.name in consts else expr
    if isinstance(expr, (ir.ListExpr, ir.SetExpr)):
        children = list(expr.items)
    elif isinstance(expr, ir.ObjectExpr):
        children = [value for _, value in expr.entries]
    elif isinstance(expr, ir.Unary) and expr.op == "-":
        children = [expr.operand]
    elif isinstance(expr, ir.Binary) and expr.op in ("+", "-", "*", "/", "%"):
        children = [expr.left, expr.right]
    else:
        return expr
    return next((found for child in children
                 if (found := _non_literal(child, consts)) is not None), None)


def _item_names(ruleset: ir.Ruleset, diagnostics: list[Diagnostic]) -> None:
    seen: dict[str, ir.Rule | ir.Table] = {}
    for item in ruleset.items:
        kind = "rule" if isinstance(item, ir.Rule) else "table"
        if item.name in seen:
            previous = seen[item.name]
            other = "rule" if isinstance(previous, ir.Rule) else "table"
            _duplicate(diagnostics, item.name_span or item.span, kind, item.name,
                       previous.name_span or previous.span, other)
        else:
            seen[item.name] = item


def _duplicate(diagnostics: list[Diagnostic], span: ir.Span | None, kind: str, name: str,
               first: ir.Span | None, first_kind: str | None = None) -> None:
    where = f" at line {first.line}" if first else ""
    diagnostics.append(error(
        "E106", span, f"duplicate {kind} name `{name}`",
        f"{first_kind or kind} `{name}` is already defined{where}; names must be unique"))


def _outputs(ruleset: ir.Ruleset) -> set[str]:
    names: set[str] = set()
    for item in ruleset.items:
        if isinstance(item, ir.Table):
            names.update(item.outputs)
        else:
            names.update(a.name for a in item.actions if isinstance(a, ir.SetAction))
    return names


def _rule(rule: ir.Rule, checker: ExpressionChecker) -> None:
    checker.condition(rule.condition, f"the condition of rule `{rule.name}`")
    for action in rule.actions:
        if isinstance(action, ir.ScoreAction):
            found = checker.check(action.value)
            if not found.is_any and found.kind != "number":
                checker.report("E200", action.value.span,
                               f"`score {action.op}` needs a number, not {found.a}")
        elif isinstance(action, ir.SetAction):
            checker.check(action.value)
        elif isinstance(action, (ir.DecisionAction, ir.ReasonAction)):
            checker.check(action.message)
        elif isinstance(action, ir.TagAction):
            checker.check(action.tag)


def _test(test: ir.TestCase, inputs: dict[str, t.Type], scope: Scope,
          diagnostics: list[Diagnostic]) -> None:
    value_checker = ExpressionChecker(Scope({}, scope.consts, scope.const_lines, frozenset()),
                                      diagnostics)
    for given in test.givens:
        if given.name not in inputs:
            diagnostics.append(error(
                "E111", given.span, f"`{given.name}` is not an input of this ruleset",
                suggest(given.name, list(inputs)) or "declare it with `input NAME: Type`"))
        else:
            _given_fields(given.value, inputs[given.name], diagnostics)
        value_checker.check(given.value)
    ExpressionChecker(scope, diagnostics).condition(test.expect, "a test's `expect`")


def _given_fields(value: ir.Expr, wanted: t.Type, diagnostics: list[Diagnostic]) -> None:
    if not isinstance(value, ir.ObjectExpr) or wanted.kind != "object" or not wanted.closed:
        return
    fields = wanted.fields or {}
    for key, item in value.entries:
        if key not in fields:
            diagnostics.append(error("E104", item.span, f"unknown field `{key}` on {wanted}",
                                     suggest(key, list(fields))))
        else:
            _given_fields(item, fields[key], diagnostics)
            if isinstance(item, ir.ListExpr) and fields[key].kind == "list":
                for element in item.items:
                    _given_fields(element, fields[key].item or t.ANY, diagnostics)
