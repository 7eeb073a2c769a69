"""The generated code's text and helpers (engine/codetext.py)."""

from __future__ import annotations

from engine_ir_builders import binary, comp, name

from insureops.engine.codetext import Source, loop_names, mentions


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
