"""Which input paths a ruleset reads (engine/inputs/reads.py)."""

from __future__ import annotations

from engine_ir_builders import (
    accept,
    binary,
    call,
    comp,
    name,
    rule,
    ruleset,
    set_output,
    table,
    text,
)

from insureops.engine import ir
from insureops.engine.inputs.reads import Access, input_reads


def _shape(access: Access) -> object:
    """An access tree as plain data: "whole", or the fields and items read."""
    if access.whole:
        return "whole"
    shape: dict = {key: _shape(sub) for key, sub in access.fields.items()}
    if access.items is not None:
        shape["[]"] = _shape(access.items)
    return shape


def test_fields_compared_are_read_whole_when_rules_use_them():
    rs = ruleset(rule("r", binary("==", name("business.state"), "CA"),
                      accept(text("in ", name("business.city")))))
    assert _shape(input_reads(rs)["business"]) == {"state": "whole", "city": "whole"}


def test_item_fields_are_read_per_item_when_a_comprehension_filters_a_list():
    where = binary(">", name("c.amount"), 10)
    rs = ruleset(rule("r", binary(">", comp("count", "c", name("business.claims"),
                                            where=where), 1)))
    assert _shape(input_reads(rs)["business"]) == {"claims": {"[]": {"amount": "whole"}}}


def test_items_are_read_whole_when_any_tests_the_items_themselves():
    rs = ruleset(rule("r", comp("any", "f", name("business.flags"))),
                 rule("s", binary(">", comp("sum", "x", name("business.amounts")), 1)))
    assert _shape(input_reads(rs)["business"]) == {"flags": {"[]": "whole"},
                                                   "amounts": {"[]": "whole"}}


def test_nothing_is_read_from_items_when_count_has_no_where():
    rs = ruleset(rule("r", binary("==", comp("count", "c", name("business.claims")), 2)))
    assert _shape(input_reads(rs)["business"]) == {"claims": {"[]": {}}}


def test_nothing_is_read_from_items_when_len_takes_the_list():
    # issue 12: a list's length was read by converting the whole list
    rs = ruleset(rule("r", binary("<=", call("len", name("business.claims")), 2)))
    assert _shape(input_reads(rs)["business"]) == {"claims": {"[]": {}}}


def test_a_value_is_read_whole_when_indexed_or_passed_to_a_function():
    rs = ruleset(rule("r", binary("==", call("lower", name("business.names")), "x"),
                      set_output("first", ir.Index(name("business.claims"),
                                                   ir.Literal(0)))))
    assert _shape(input_reads(rs)["business"]) == {"names": "whole", "claims": "whole"}


def test_table_inputs_and_a_shadowing_loop_variable_are_followed_when_reading():
    rs = ruleset(
        table("t", "first", [name("business.state")], ["f"], [(["CA"], [1])]),
        rule("r", comp("any", "business", name("other.items"),
                       where=binary("==", name("business.kind"), "x"))),
        inputs={"business": "Any", "other": "Any"})
    reads = input_reads(rs)
    assert _shape(reads["business"]) == {"state": "whole"}
    assert _shape(reads["other"]) == {"items": {"[]": {"kind": "whole"}}}


def test_the_whole_input_is_read_when_a_rule_uses_the_input_itself():
    rs = ruleset(rule("r", binary("==", call("lower", name("business")), "x")))
    assert _shape(input_reads(rs)["business"]) == "whole"
