"""The transform: text -> engine IR with a span on every node."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest

from insureops.dsl.api import check_source
from insureops.engine import ir
from insureops.engine.ir.values import Duration


def ruleset(source: str) -> ir.Ruleset:
    report = check_source(source, registry=None)
    assert report.ruleset is not None, [d.message for d in report.diagnostics]
    return report.ruleset


def const(text: str) -> ir.Expr:
    return ruleset(f"ruleset a\nconst C = {text}\n").consts[0].value


def text_of(source: str, node) -> str:
    return source[node.span.start:node.span.end]


def test_member_span_covers_its_text_when_built_from_a_rule(spec_source):
    rule = ruleset(spec_source).items[0]
    between = rule.condition.right
    assert text_of(spec_source, between.value) == "business.annual_revenue"
    assert (between.value.span.line, between.value.span.column) == (13, 9)


def test_interpolated_part_span_points_into_the_file_when_inside_a_message(spec_source):
    message = ruleset(spec_source).items[1].actions[0].message
    assert isinstance(message, ir.Interpolated)
    part = message.parts[0]
    assert text_of(spec_source, part) == (
        "count(c in business.prior_claims where c.amount > 10_000)")
    assert message.parts[1] == " large losses in five years"


def test_table_cell_span_points_into_the_file_when_in_a_row(spec_source):
    table = ruleset(spec_source).items[3]
    assert text_of(spec_source, table.rows[0].cells[1]) == "< 10"
    assert text_of(spec_source, table.rows[2].cells[0]) == 'in {"TX", "AZ"}'


def test_spec_example_builds_the_expected_table_when_parsed(spec_source):
    table = ruleset(spec_source).items[3]
    assert table == ir.Table(
        name="territory_factor", hit="first",
        inputs=(ir.Member(ir.Name("business"), "state"),
                ir.Member(ir.Name("business"), "employee_count")),
        outputs=("factor", "tier"),
        rows=(
            ir.TableRow((ir.CompareCell("==", ir.Literal("CA")),
                         ir.CompareCell("<", ir.Literal(Decimal(10)))),
                        (ir.Literal(Decimal("1.20")), ir.Literal("B"))),
            ir.TableRow((ir.CompareCell("==", ir.Literal("CA")),
                         ir.CompareCell(">=", ir.Literal(Decimal(10)))),
                        (ir.Literal(Decimal("1.35")), ir.Literal("C"))),
            ir.TableRow((ir.CompareCell("in", ir.SetExpr((ir.Literal("TX"), ir.Literal("AZ")))),
                         ir.AnyCell()),
                        (ir.Literal(Decimal("1.10")), ir.Literal("B"))),
            ir.TableRow((ir.AnyCell(), ir.AnyCell()),
                        (ir.Literal(Decimal("1.00")), ir.Literal("A"))),
        ),
        title="Territory factor")


@pytest.mark.parametrize(("text", "value"), [
    ("5_000_000", Decimal(5000000)),
    ("1.20", Decimal("1.20")),
    ("-3", Decimal(-3)),
    ("2025-01-31", date(2025, 1, 31)),
    ("2025-01-31T10:00:00Z", datetime(2025, 1, 31, 10, tzinfo=UTC)),
    ("2025-01-31T10:00:00+02:00", datetime(2025, 1, 31, 10, tzinfo=timezone(timedelta(hours=2)))),
    ("90 days", Duration(days=90)),
    ("1 year", Duration(months=12)),
    ("2 weeks", Duration(days=14)),
    ("6 months", Duration(months=6)),
    (r'"a\"b\\c\n\t\u00e9"', 'a"b\\c\n\té'),
    ('"{x} {{y}}"', "{x} {{y}}"),
    ("true", True),
    ("null", None),
])
def test_literal_has_its_value_when_written_in_source(text, value):
    assert const(text) == ir.Literal(value)


def test_negation_stays_an_operation_when_the_number_is_parenthesized():
    assert const("-(3)") == ir.Unary("-", ir.Literal(Decimal(3)))


def test_message_braces_are_literal_when_doubled():
    rule = ruleset('ruleset a\nrule r when true then reason "a {{b}} c" end\n').items[0]
    assert rule.actions[0] == ir.ReasonAction(ir.Literal("a {b} c"))


@pytest.mark.parametrize(("text", "node"), [
    ("any(x in [1] where x > 0)", ir.Comprehension(
        "any", "x", ir.ListExpr((ir.Literal(Decimal(1)),)), None,
        ir.Binary(">", ir.Name("x"), ir.Literal(Decimal(0))))),
    ("count(x in [1])", ir.Comprehension("count", "x", ir.ListExpr((ir.Literal(Decimal(1)),)))),
    ("sum(x.a for x in [] where x.b)", ir.Comprehension(
        "sum", "x", ir.ListExpr(()), ir.Member(ir.Name("x"), "a"), ir.Member(ir.Name("x"), "b"))),
    ("max(1, 2)", ir.Call("max", (ir.Literal(Decimal(1)), ir.Literal(Decimal(2))))),
    ("if true then 1 else 2", ir.Conditional(
        ir.Literal(True), ir.Literal(Decimal(1)), ir.Literal(Decimal(2)))),
    ("1 + 2 * 3", ir.Binary("+", ir.Literal(Decimal(1)), ir.Binary(
        "*", ir.Literal(Decimal(2)), ir.Literal(Decimal(3))))),
    ("not true or false", ir.Binary("or", ir.Unary("not", ir.Literal(True)), ir.Literal(False))),
    ("null ?? 1 + 1 > 1", ir.Binary(">", ir.Binary("??", ir.Literal(None), ir.Binary(
        "+", ir.Literal(Decimal(1)), ir.Literal(Decimal(1)))), ir.Literal(Decimal(1)))),
    ('"a" not in {"b"}', ir.Binary("not in", ir.Literal("a"), ir.SetExpr((ir.Literal("b"),)))),
    ("1 is not null", ir.IsNull(ir.Literal(Decimal(1)), True)),
    ('{"k": [1][0]}', ir.ObjectExpr((("k", ir.Index(
        ir.ListExpr((ir.Literal(Decimal(1)),)), ir.Literal(Decimal(0)))),))),
])
def test_expression_builds_its_ir_when_parsed(text, node):
    assert const(text) == node


def test_rule_options_are_read_when_all_are_given():
    rule = ruleset("ruleset a\nrule r \"T\" priority -5 effective 2025-01-01 to 2025-12-31 "
                   "enabled false when true then stop end\n").items[0]
    assert (rule.title, rule.priority, rule.enabled) == ("T", -5, False)
    assert rule.effective == ir.Effective(date(2025, 1, 1), date(2025, 12, 31))


def test_given_reads_its_as_of_date_when_present():
    source = ('ruleset a\ninput b: Any\ntest "t"\ngiven b = {} as of 2025-03-01\n'
              'expect score == 0\nend\n')
    test = ruleset(source).tests[0]
    assert test.givens[0].as_of == date(2025, 3, 1)
    assert test.expect == ir.Binary("==", ir.Name("score"), ir.Literal(Decimal(0)))
