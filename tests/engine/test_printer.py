"""The canonical printer of IR expressions (engine/ir/printer.py)."""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from engine_ir_builders import (
    and_,
    between,
    binary,
    call,
    comp,
    if_,
    is_null,
    list_,
    lit,
    name,
    neg,
    not_,
    obj,
    or_,
    set_,
    text,
)

from insureops.engine import ir
from insureops.engine.ir.printer import format_expr
from insureops.engine.ir.values import Duration


@pytest.mark.parametrize(("expression", "printed"), [
    (binary("*", binary("+", 1, 2), 3), "(1 + 2) * 3"),
    (binary("+", 1, binary("*", 2, 3)), "1 + 2 * 3"),
    (binary("-", 1, binary("-", 2, 3)), "1 - (2 - 3)"),
    (and_(or_(True, False), not_(name("x"))), "(true or false) and not x"),
    (or_(and_(True, False), True), "true and false or true"),
    (between(name("b.revenue"), 100_000, 5_000_000), "b.revenue between 100000 and 5000000"),
    (is_null(name("b.x"), negated=True), "b.x is not null"),
    (if_(name("c"), lit("a"), lit(None)), 'if c then "a" else null'),
    (call("round", Decimal("1.20"), 2), "round(1.20, 2)"),
    (neg(name("x")), "-x"),
    (binary("-", 1, lit(Decimal(-3))), "1 - -3"),
    (binary("in", name("s"), set_("CA", "TX")), 's in {"CA", "TX"}'),
    (list_(1, "a\"b\n"), '[1, "a\\"b\\n"]'),
    (obj(a=1), '{"a": 1}'),
    (comp("count", "c", name("xs"), where=binary(">", name("c.amount"), 10)),
     "count(c in xs where c.amount > 10)"),
    (comp("sum", "c", name("xs"), projection=name("c.amount")), "sum(c.amount for c in xs)"),
    (ir.Index(name("xs"), lit(0)), "xs[0]"),
    (text("n = ", name("n"), " {x}"), '"n = {n} {{x}}"'),
    (lit(date(2025, 1, 31)), "2025-01-31"),
    (lit(datetime(2025, 1, 31, 10, tzinfo=timezone.utc)), "2025-01-31T10:00:00Z"),
    (lit(Duration(0, 90)), "90 days"),
    (binary("??", name("a"), binary("+", name("b"), 1)), "a ?? b + 1"),
])
def test_expressions_print_with_only_needed_parentheses_when_printed(expression, printed):
    assert format_expr(expression) == printed


def test_non_expressions_are_refused_when_printed():
    with pytest.raises(TypeError):
        format_expr(ir.StopAction())
