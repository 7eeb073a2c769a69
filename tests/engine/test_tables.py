"""Decision tables: hit policies, cells, outputs, firing (engine/evaluation/program.py)."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    binary,
    build,
    name,
    reason,
    rule,
    ruleset,
    set_,
    set_output,
    table,
)

from insureops.dsl.api import parse_ruleset
from insureops.engine.evaluation.compiler import compile_ir
from insureops.engine.evaluation.interpreter import compile_reference
from insureops.engine.ir.errors import EvaluationError

FACTORS = [
    (["CA", ("<", 10)], [Decimal("1.20"), "B"]),
    (["CA", (">=", 10)], [Decimal("1.35"), "C"]),
    ([("in", set_("TX", "AZ")), "-"], [Decimal("1.10"), "B"]),
    (["-", "-"], [Decimal("1.00"), "A"]),
]


def evaluate(*items, business):
    return build(ruleset(*items)).evaluate({"business": business}, as_of=date(2025, 1, 1))


def territory(hit="first", rows=FACTORS, **options):
    return table("territory_factor", hit, [name("business.state"), name("business.employees")],
                 ["factor", "tier"], rows, **options)


@pytest.mark.parametrize(("state", "employees", "factor", "tier"), [
    ("CA", 6, "1.20", "B"), ("CA", 10, "1.35", "C"), ("TX", 99, "1.10", "B"),
    ("NV", 1, "1.00", "A"), ("CA", None, "1.00", "A"),
])
def test_hit_first_takes_the_first_matching_row_when_several_match(state, employees, factor,
                                                                    tier):
    result = evaluate(territory(), business={"state": state, "employees": employees})
    assert result.outputs == {"factor": Decimal(factor), "tier": tier}
    assert str(result.outputs["factor"]) == factor
    assert result.fired == ("territory_factor",)


def test_a_table_does_not_fire_when_no_row_matches():
    result = evaluate(territory(rows=FACTORS[:2]), business={"state": "NV", "employees": 1})
    assert result.outputs == {}
    assert result.fired == ()


def test_hit_unique_sets_outputs_when_exactly_one_row_matches():
    result = evaluate(territory("unique", FACTORS[:3]), business={"state": "TX", "employees": 1})
    assert result.outputs["tier"] == "B"


def test_hit_unique_is_an_evaluation_error_when_two_rows_match():
    with pytest.raises(EvaluationError) as raised:
        evaluate(territory("unique"), business={"state": "TX", "employees": 1})
    assert raised.value.code == "table_not_unique"
    assert "territory_factor" in raised.value.message


def test_hit_collect_lists_every_matching_rows_values_when_several_match():
    result = evaluate(territory("collect"), business={"state": "CA", "employees": 3})
    assert result.outputs == {"factor": [Decimal("1.20"), Decimal("1.00")], "tier": ["B", "A"]}
    assert result.fired == ("territory_factor",)


def test_hit_collect_gives_empty_lists_when_nothing_matches():
    result = evaluate(territory("collect", FACTORS[:1]), business={"state": "NV", "employees": 3})
    assert result.outputs == {"factor": [], "tier": []}
    assert result.fired == ()


@pytest.mark.parametrize(("cell", "value", "matches"), [
    ("-", None, True),
    ("null", None, True),
    ("null", "x", False),
    (("between", 10, 20), 10, True),
    (("between", 10, 20), 21, False),
    (("!=", "NY"), "CA", True),
    (("!=", "NY"), None, False),
    (("starts_with", "23"), "2382", True),
    (("ends_with", "10"), "238210", True),
    (("contains", "82"), "238210", True),
    (("matches", "^23[0-9]+$"), "238210", True),
    (("not in", set_("NY", "NJ")), "CA", True),
    (("in", set_("NY", "NJ")), "CA", False),
    (("<=", 5), 5, True),
    ((">", 5), 5, False),
    ("CA", "CA", True),
    ("CA", None, False),
])
def test_cell_matches_per_its_kind_when_checked(cell, value, matches):
    rows = [([cell], ["hit"])]
    t = table("t", "first", [name("business.v")], ["out"], rows)
    result = evaluate(t, business={"v": value})
    assert (result.outputs.get("out") == "hit") is matches


def test_tables_and_rules_interleave_by_priority_when_ordered():
    t = table("t", "first", [name("business.v")], ["seen"], [(["-"], [name("outputs.before")])],
              priority=5)
    before = rule("before", True, reason("b"), priority=10)
    after = rule("after", binary("==", name("outputs.seen"), "x"), reason("a"))
    setter = rule("setter", True, set_output("before", "x"), priority=10)
    result = evaluate(after, t, before, setter, business={"v": 1})
    assert result.fired == ("before", "setter", "t", "after")
    assert result.outputs == {"before": "x", "seen": "x"}


def test_a_cell_comparing_incompatible_types_is_an_error_when_evaluated():
    t = table("t", "first", [name("business.v")], ["out"], [([("<", 10)], ["x"])])
    with pytest.raises(EvaluationError) as raised:
        evaluate(t, business={"v": "ten"})
    assert raised.value.code == "type_mismatch"


WRITERS = """ruleset t.writers "Outputs from constant writers and others"
input r: Any
default decision accept

rule early "A constant set before the table" priority 40
when r.early == true
then
    set note = "early"
    set factor = 2.50
end

table rate "A factor and a tier" hit first priority 30
    | r.state | => factor | => tier |
    | "CA"    | 1.20      | "B"     |
    | "TX"    | 1.10      | -       |
end

rule own "A factor read from the record" priority 20
when r.own is not null
then
    set factor = r.own
end

rule late "A constant set after the table" priority 10
when r.late == true
then
    set tier = "Z"
end
"""


@pytest.mark.parametrize("left_out", [(), ("early",), ("own",), ("early", "own"),
                                      ("early", "rate"), ("early", "own", "late"),
                                      ("rate", "own", "late")])
def test_outputs_agree_with_the_reference_whichever_item_writes_them_first(left_out):
    """A ruleset whose only writer of outputs writes constants hands out its outputs as
    constants; with other writers they are copied as before: either way they equal the
    reference interpreter's, in the same order, and stay read-only."""
    parsed = parse_ruleset(WRITERS)
    parsed = dataclasses.replace(parsed, items=tuple(item for item in parsed.items
                                                     if item.name not in left_out))
    compiled = compile_ir(parsed, input_schemas={"r": None}, source=WRITERS)
    reference = compile_reference(parsed, input_schemas={"r": None}, source=WRITERS)
    sole = len(left_out) == 3  # the constant writer left alone shares its outputs
    assert ("o = NO_OUTPUTS" in compiled.generated_source) is sole
    seen = []
    for state in ("CA", "TX", "NV"):
        for early in (False, True):
            for own in (None, 3):
                for late in (False, True):
                    record = {"r": {"state": state, "early": early, "own": own, "late": late}}
                    found = compiled.evaluate(record, as_of=date(2026, 1, 1))
                    expected = reference.evaluate(record, as_of=date(2026, 1, 1))
                    assert list(found.outputs.items()) == list(expected.outputs.items()), record
                    assert found.fired == expected.fired
                    assert next(compiled.evaluate_many([record], as_of=date(2026, 1, 1))) \
                        == found
                    with pytest.raises(TypeError):
                        found.outputs["factor"] = Decimal(0)
                    seen.append(dict(found.outputs))
    assert {} in seen
    assert len({tuple(outputs.items()) for outputs in seen}) >= 2
