"""The printer: IR -> text that parses back to the same IR."""

from __future__ import annotations

from decimal import Decimal

import pytest

from insureops.dsl.api import check_source
from insureops.dsl.printer import format_expr, format_ruleset
from insureops.engine import ir


def one(n: int) -> ir.Literal:
    return ir.Literal(Decimal(n))


@pytest.mark.parametrize(("node", "text"), [
    (ir.Binary("-", one(1), ir.Binary("-", one(2), one(3))), "1 - (2 - 3)"),
    (ir.Binary("==", ir.Binary("==", one(1), one(2)), one(3)), "(1 == 2) == 3"),
    (ir.Unary("-", one(3)), "-(3)"),
    (ir.Literal(Decimal(-3)), "-3"),
    (ir.Member(ir.Literal(Decimal(-3)), "x"), "(-3).x"),
    (ir.Comprehension("count", "x", ir.Binary("or", ir.Name("a"), ir.Name("b"))),
     "count(x in (a or b))"),
    (ir.Interpolated(("a{", ir.Name("n"), "}")), '"a{{{n}}}"'),
])
def test_expression_prints_with_the_parentheses_it_needs_when_formatted(node, text):
    assert format_expr(node) == text


def test_spec_example_prints_to_text_that_checks_to_the_same_ir_when_reparsed(spec_source):
    ruleset = check_source(spec_source).ruleset
    again = check_source(format_ruleset(ruleset))
    assert again.diagnostics == () and again.ruleset == ruleset
