"""Input conversion specialised to what a ruleset reads (engine/inputs/projection.py)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import binary, build, comp, name, rule, ruleset, set_output

from insureops.engine.inputs.projection import measure
from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits

SCHEMA = {
    "type": "object",
    "properties": {
        "since": {"type": ["string", "null"], "format": "date"},
        "founded": {"type": ["string", "null"], "format": "date"},
        "claims": {"type": "array", "items": {
            "type": "object", "properties": {"date": {"type": "string", "format": "date"}}}},
    },
}
RULES = ruleset(
    rule("old", binary("<", name("business.since"), date(2020, 1, 1)),
         set_output("revenue", name("business.revenue"))),
    rule("recent", comp("any", "c", name("business.claims"),
                        where=binary(">", name("c.date"), date(2025, 1, 1))),
         set_output("recent", True)),
    inputs={"business": "Business"})
BUSINESS = {"since": "2019-05-01", "founded": "not a date", "revenue": 12,
            "claims": [{"date": "2025-03-01", "amount": 3}, {"date": "2024-01-01"}],
            "notes": {"deep": [1, 2, {"x": "y"}]}}


def _compiled():
    return build(RULES, {"business": SCHEMA})


def test_only_the_fields_read_are_converted_when_evaluating_untraced():
    compiled = _compiled()
    compiled.evaluate({"business": BUSINESS})  # makes the fast path
    bound = compiled._bind({"business": BUSINESS}, Limits())["business"]
    assert bound == {"since": date(2019, 5, 1), "revenue": Decimal(12),
                     "claims": [{"date": date(2025, 3, 1)}, {"date": date(2024, 1, 1)}]}
    assert type(bound["revenue"]) is Decimal


def test_results_agree_with_the_full_conversion_when_explained():
    compiled = _compiled()
    fast = compiled.evaluate({"business": {**BUSINESS, "founded": "2001-01-01"}})
    full = compiled.evaluate({"business": {**BUSINESS, "founded": "2001-01-01"}}, explain=True)
    assert fast.outputs == full.outputs == {"revenue": Decimal(12), "recent": True}
    assert fast.fired == full.fired == ["old", "recent"]


def test_an_unread_invalid_date_is_no_error_when_untraced_or_explained():
    # issue 12: it passed untraced and failed explained; unread fields are neither converted
    # nor validated on any path (docs/rules-language.md, "Input data")
    assert _compiled().evaluate({"business": BUSINESS}).fired == ["old", "recent"]
    assert _compiled().evaluate({"business": BUSINESS}, explain=True).fired == ["old", "recent"]


def test_a_read_invalid_date_is_the_full_conversions_error_when_untraced():
    business = {**BUSINESS, "founded": None, "claims": [{"date": "2025-13-01"}]}
    with pytest.raises(EvaluationError) as fast:
        _compiled().evaluate({"business": business})
    with pytest.raises(EvaluationError) as full:
        _compiled().evaluate({"business": business}, explain=True)
    assert (fast.value.code, fast.value.message) == (full.value.code, full.value.message)
    assert "business.claims.date" in fast.value.message


def test_unread_data_is_not_counted_when_evaluated_on_any_path():
    # issue 12: the input limits bound what the rules read; unread data is not walked on
    # every call (JSON text is bounded where the engine's reader parses it, jsonio.read)
    nested: list = []
    for _ in range(10):
        nested = [nested]
    business = {**BUSINESS, "notes": list(range(200)), "deep": nested}
    limits = Limits(max_input_nodes=100, max_input_depth=8)
    plain = _compiled().evaluate({"business": business}, limits=limits)
    explained = _compiled().evaluate({"business": business}, limits=limits, explain=True)
    assert plain.fired == explained.fired == ["old", "recent"]


def test_measure_counts_like_the_full_conversion_when_containers_nest():
    value = {"a": [1, 2, {"b": 3}], "c": "d"}  # 2 + 3 + 1 values
    assert measure(value, Limits(max_input_nodes=6, max_input_depth=3), "x") is True
    with pytest.raises(LimitExceededError):
        measure(value, Limits(max_input_nodes=5), "x")
    with pytest.raises(LimitExceededError):
        measure(value, Limits(max_input_depth=2), "x")


def test_inputs_that_are_not_json_take_the_full_conversion_when_bound():
    assert measure({"a": (1, 2)}, Limits(), "x") is False
    business = {**BUSINESS, "founded": None, "claims": ({"date": "2025-03-01"},)}
    assert _compiled().evaluate({"business": business}).outputs["recent"] is True
    with pytest.raises(EvaluationError):  # the full conversion validates every field
        _compiled().evaluate({"business": {**business, "founded": "not a date",
                                           "claims": ()}})


def test_unread_data_is_not_counted_against_the_limits_when_evaluated():
    business = {**BUSINESS, "notes": list(range(200))}
    limits = Limits(max_input_nodes=100)
    result = _compiled().evaluate({"business": business}, limits=limits)
    assert result.fired == ["old", "recent"]


def test_a_value_read_whole_counts_against_the_limits_where_it_is_read():
    business = {"since": "2019-05-01", "revenue": list(range(200))}
    limits = Limits(max_input_nodes=100, max_input_depth=6)
    for explain in (False, True):
        with pytest.raises(LimitExceededError) as raised:
            _compiled().evaluate({"business": business}, limits=limits, explain=explain)
        assert raised.value.code == "limit_input_size"
    unread = {"since": "2021-05-01", "revenue": list(range(200))}  # `old` reads no revenue
    assert _compiled().evaluate({"business": unread}, limits=limits).fired == []


def test_lists_read_item_by_item_are_bounded_by_the_step_budget_not_counted():
    # issue 12: the items a comprehension reads cost steps; they are not walked beforehand
    business = {"claims": [{"date": "2025-03-01", "a": 1, "b": 2}] * 200}
    limits = Limits(max_input_nodes=100, max_steps=300)
    assert _compiled().evaluate({"business": business}, limits=limits).fired == ["recent"]
    with pytest.raises(LimitExceededError) as raised:
        _compiled().evaluate({"business": {"claims": [{"date": "2020-01-01"}] * 400}},
                             limits=limits)
    assert raised.value.code == "limit_steps"


@pytest.mark.parametrize("revenue", [0, 1, 1023, 1024, -1, 10**99, -(10**99), 10**100, 10**950,
                                     True, Decimal("-0"), Decimal("1.50"), Decimal("1E+5")])
@pytest.mark.parametrize("limits", [None, Limits()])  # the direct path, the generated one
def test_a_number_converts_as_the_full_conversion_converts_it_when_read(revenue, limits):
    compiled = _compiled()
    business = {**BUSINESS, "founded": "2001-01-01", "revenue": revenue}

    def outcome(**options):
        try:
            return repr(compiled.evaluate({"business": business}, **options).outputs)
        except EvaluationError as error:
            return (error.code, error.message)
    assert outcome(limits=limits) == outcome(explain=True)


@pytest.mark.parametrize("claims", [
    [], None, "text", 5, [None], [1, "x"], [{"date": "2025-03-01", "amount": 3}, {}],
    [{"date": None}, {"date": "2025-13-01"}], [{"date": 20250301}], [{"date": "2025-3-1"}],
    [{"date": "2024-06-01", "other": [1, {"x": 2}]}], [[{"date": "2025-03-01"}]],
])
def test_list_items_convert_as_the_full_conversion_when_read_field_by_field(claims):
    compiled = _compiled()
    business = {**BUSINESS, "founded": "2001-01-01", "claims": claims}

    def outcome(**options):
        try:
            return repr(_untraced(compiled.evaluate({"business": business},
                                                    as_of=date(2025, 6, 1), **options)))
        except EvaluationError as error:
            return (error.code, error.message)
    assert outcome() == outcome(limits=Limits()) == outcome(explain=True)


def _untraced(result) -> dict:
    """The result's fields as JSON, without the trace an explained run adds."""
    return {key: value for key, value in result.to_dict().items() if key != "trace"}


@pytest.mark.parametrize("unread", [(1, 2), object(), {"a": {1, 2}}])
def test_unread_values_that_are_not_json_are_ignored_when_evaluated(unread):
    business = {**BUSINESS, "unread": unread}
    plain = _compiled().evaluate({"business": business})
    assert plain.to_dict() == _untraced(_compiled().evaluate({"business": business},
                                                             explain=True))
    assert measure(business, Limits(), "business") is False
