"""The generated code's text and helpers (engine/evaluation/codetext.py)."""

from __future__ import annotations

from engine_ir_builders import binary, comp, name

from insureops.engine.evaluation.codetext import Source, loop_names, mentions


def test_a_constant_gets_one_name_when_used_twice():
    src, value = Source(), object()
    assert src.const(value) == src.const(value) == "K0"
    assert src.const("other") == "K1" and src.names == {"K0": value, "K1": "other"}


def test_a_loop_variable_is_mentioned_when_an_expression_reads_it():
    names = loop_names({"business": "r0", "c": "_v1", "outputs": "r1"})
    assert names == {"c"}
    assert mentions(binary(">", name("c.amount"), 1), names)
    assert not mentions(binary(">", name("business.amount"), 1), names)
    assert mentions(comp("count", "x", name("business.items")), names)  # steps to charge
    assert not mentions(name("c.amount"), frozenset())


def test_an_expression_is_as_of_only_when_it_reads_the_clock_and_consts_alone():
    from decimal import Decimal

    from engine_ir_builders import call, months

    from insureops.engine.evaluation.codetext import as_of_only
    from insureops.engine.evaluation.expressions import ExpressionCompiler
    from insureops.engine.ir.limits import Limits

    compiler = ExpressionCompiler({"YEAR": months(12), "N": Decimal(3)}, {"business", "outputs"},
                                  Limits())
    today = call("today")
    assert as_of_only(binary("-", today, name("YEAR")), compiler, {})
    assert not as_of_only(binary("-", today, name("business.since")), compiler, {})
    assert not as_of_only(binary("-", today, name("c")), compiler, {"c": "_v1"})
    assert not as_of_only(binary("+", name("N"), 1), compiler, {})  # no clock: folded anyway
    assert not as_of_only(comp("count", "c", name("business.claims")), compiler, {})
