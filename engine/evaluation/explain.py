"""Explanations: trace entries for rules and tables, and "near miss" messages saying why a
condition or a table cell did not hold, with the values that made it fail."""

from __future__ import annotations

from decimal import Decimal

from insureops.engine import ir
from insureops.engine.ir import numbers
from insureops.engine.ir.errors import EvaluationError
from insureops.engine.ir.operators import EXPLAINED, NEGATED, ORDERING
from insureops.engine.ir.printer import format_expr
from insureops.engine.ir.tree import chain
from insureops.engine.ir.values import format_literal

_MISSING = object()
_NEGATED_WORDS = NEGATED


def span_dict(span: ir.Span | None) -> dict | None:
    """A span as the trace shows it (1-based line and column of start and end)."""
    if span is None:
        return None
    return {"line": span.line, "column": span.column, "end_line": span.end_line,
            "end_column": span.end_column}


def text_of(node: object, source: str | None) -> str:
    """The node's source text when the source is known, else the canonical printing."""
    span = getattr(node, "span", None)
    if source and span is not None and 0 <= span.start < span.end <= len(source):
        return source[span.start:span.end]
    try:
        return format_expr(node)
    except ValueError:  # hand-built IR with no source form (an empty set): name the node
        return f"<{type(node).__name__}>"


def show(value: object) -> str:
    """A value in an explanation: as written in the language, numbers grouped (`5,200,000`)."""
    return format_literal(value, grouping=True)


def condition_entries(records: list, source: str | None) -> list[dict]:
    """The recorded `(node, value)` pairs as trace items, in evaluation order."""
    return [{"expr": text_of(node, source), "kind": type(node).__name__,
             "span": span_dict(getattr(node, "span", None)), "value": value}
            for node, value in records]


def comparison_miss(op: str, subject: str, value: object, operand: object) -> str:
    """Why `subject op operand` did not hold for the subject's `value`."""
    if value is None:
        return f"{subject} is null"
    if operand is None:
        return f"{subject} {show(value)} is compared with null"
    if op in ORDERING:
        text = f"{subject} {show(value)} is not {op} {show(operand)}"
        if type(value) is Decimal and type(operand) is Decimal:
            try:
                text += f" (by {show(numbers.absolute(numbers.subtract(value, operand, None)))})"
            except EvaluationError:  # a difference beyond the limits: no "by" then
                pass
        return text
    return f"{subject} {show(value)} {_NEGATED_WORDS.get(op, 'fails ' + op)} {show(operand)}"


def between_miss(subject: str, value: object, low: object, high: object) -> str:
    """Why `subject between low and high` did not hold."""
    if value is None:
        return f"{subject} is null"
    if low is None or high is None:
        return f"{subject} {show(value)} is compared with a null bound"
    try:
        if value < low:
            return f"{subject} {show(value)} is below the lower bound {show(low)}"
        return f"{subject} {show(value)} is above the upper bound {show(high)}"
    except TypeError:
        return f"{subject} {show(value)} is not between {show(low)} and {show(high)}"


def near_misses(condition: object, records: list, source: str | None) -> list[str]:
    """Messages for the parts of a condition that were false or null."""
    values = {id(node): value for node, value in records}
    messages: list[str] = []
    _explain(condition, values, source, messages)
    return messages


def _explain(expr: object, values: dict, source: str | None, out: list[str]) -> None:
    value = values.get(id(expr), _MISSING)
    if isinstance(expr, ir.Binary) and expr.op in ("and", "or"):
        for operand in chain(expr, expr.op):
            found = values.get(id(operand), _MISSING)
            if found is False or found is None:
                _explain(operand, values, source, out)
        return
    if value is _MISSING or value is True:
        return
    text = text_of(expr, source)
    if isinstance(expr, ir.Unary) and expr.op == "not":
        inner = values.get(id(expr.operand), _MISSING)
        if inner is True:
            out.append(f"{text_of(expr.operand, source)} is true")
            return
    if isinstance(expr, ir.Binary) and expr.op in EXPLAINED:
        left = _value_of(expr.left, values)
        right = _value_of(expr.right, values)
        if left is not _MISSING and right is not _MISSING:
            out.append(comparison_miss(expr.op, text_of(expr.left, source), left, right))
            return
    if isinstance(expr, ir.Between):
        parts = [_value_of(part, values) for part in (expr.value, expr.low, expr.high)]
        if _MISSING not in parts:
            out.append(between_miss(text_of(expr.value, source), *parts))
            return
    if isinstance(expr, ir.IsNull):
        inner = _value_of(expr.value, values)
        shown = "null" if inner is None else show(inner)
        out.append(f"{text_of(expr.value, source)} is {shown}")
        return
    out.append(f"{text} is {show(value)}")


def _value_of(expr: object, values: dict) -> object:
    if isinstance(expr, ir.Literal):
        return expr.value
    return values.get(id(expr), _MISSING)


def cell_miss(cell: object, subject: str, value: object, operands: list) -> str:
    """Why a table cell did not match the column's `value`."""
    if isinstance(cell, ir.NullCell):
        return f"{subject} is {show(value)}, not null"
    if isinstance(cell, ir.BetweenCell):
        return between_miss(subject, value, *operands)
    return comparison_miss(cell.op, subject, value, operands[0])


def item_entry(node: object, kind: str, *, matched: bool, skipped: str | None) -> dict:
    """The fields every trace entry has: name, kind, title, span, matched, skipped."""
    return {"name": node.name, "kind": kind, "title": node.title,
            "span": span_dict(node.name_span or node.span), "matched": matched,
            "skipped": skipped}
