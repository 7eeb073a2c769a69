"""Running rules: order, effective windows, actions, decisions, stop, interpolation."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from engine_ir_builders import (
    accept,
    binary,
    build,
    decline,
    name,
    reason,
    refer,
    rule,
    ruleset,
    score,
    set_output,
    stop,
    tag,
    text,
)

from insureops.engine.ir.errors import EvaluationError

DAY = date(2025, 6, 15)


def evaluate(rs, business=None, **options):
    return build(rs).evaluate({"business": business or {}}, as_of=options.pop("as_of", DAY),
                              **options)


def test_rules_run_by_descending_priority_then_file_order_when_priorities_tie():
    rs = ruleset(rule("low", True, reason("low"), priority=-5),
                 rule("first_tie", True, reason("a")),
                 rule("high", True, reason("high"), priority=10),
                 rule("second_tie", True, reason("b")))
    result = evaluate(rs)
    assert result.fired == ("high", "first_tie", "second_tie", "low")
    assert result.reasons == ("high", "a", "b", "low")


def test_later_rules_read_outputs_when_an_earlier_rule_sets_them():
    rs = ruleset(rule("base", True, set_output("rate", Decimal("1.5")), priority=1),
                 rule("uses", binary(">", name("outputs.rate"), 1),
                      set_output("doubled", binary("*", name("outputs.rate"), 2))))
    assert evaluate(rs).outputs == {"rate": Decimal("1.5"), "doubled": Decimal("3.0")}


def test_reading_an_output_nothing_set_is_null_when_evaluated():
    rs = ruleset(rule("r", binary("==", name("outputs.missing"), 1), reason("x")))
    assert evaluate(rs).fired == ()


def test_score_adds_and_subtracts_exactly_when_rules_fire():
    rs = ruleset(rule("a", True, score("+=", Decimal("40.5"))),
                 rule("b", True, score("-=", 15)),
                 rule("c", False, score("+=", 1000)))
    assert evaluate(rs).score == Decimal("25.5")


def test_score_with_a_null_amount_is_unchanged_when_the_field_is_missing():
    rs = ruleset(rule("a", True, score("+=", name("business.bonus"))))
    assert evaluate(rs).score == 0


def test_score_with_a_string_is_a_type_mismatch_when_applied():
    rs = ruleset(rule("a", True, score("+=", "ten")))
    with pytest.raises(EvaluationError) as raised:
        evaluate(rs)
    assert raised.value.code == "type_mismatch"
    assert "rule `a`" in raised.value.message


@pytest.mark.parametrize(("decisions", "expected"), [
    (["accept"], "accept"),
    (["accept", "refer"], "refer"),
    (["refer", "accept"], "refer"),
    (["decline", "refer", "accept"], "decline"),
    (["accept", "decline"], "decline"),
])
def test_the_most_severe_decision_wins_when_several_rules_decide(decisions, expected):
    makers = {"accept": accept, "refer": refer, "decline": decline}
    rs = ruleset(*[rule(f"r{i}", True, makers[d](d)) for i, d in enumerate(decisions)])
    result = evaluate(rs)
    assert result.decision == expected
    assert result.reasons == tuple(decisions)


def test_default_decision_applies_when_no_rule_decides():
    rs = ruleset(rule("r", False, accept()), default="refer")
    assert evaluate(rs).decision == "refer"
    assert evaluate(ruleset(rule("r", False, accept()))).decision is None


def test_stop_ends_the_evaluation_after_the_rules_actions_when_it_fires():
    rs = ruleset(rule("first", True, decline("stop here"), stop(), tag("still_runs"),
                      priority=5),
                 rule("second", True, accept("never")))
    result = evaluate(rs)
    assert result.fired == ("first",)
    assert result.tags == ("still_runs",)
    assert result.decision == "decline"


def test_tags_are_sorted_and_unique_when_several_rules_tag():
    rs = ruleset(rule("a", True, tag("zeta"), tag("alpha")), rule("b", True, tag("alpha")))
    assert evaluate(rs).tags == ("alpha", "zeta")


def test_a_null_condition_does_not_match_when_the_field_is_missing():
    rs = ruleset(rule("r", binary("<", name("business.years"), 3), refer()))
    result = evaluate(rs, {"years": None})
    assert result.fired == ()
    assert result.decision is None


def test_a_non_boolean_condition_is_an_error_when_evaluated():
    rs = ruleset(rule("r", name("business.years"), refer()))
    with pytest.raises(EvaluationError) as raised:
        evaluate(rs, {"years": 3})
    assert raised.value.code == "type_mismatch"


def test_disabled_rules_are_skipped_when_enabled_is_false():
    rs = ruleset(rule("off", True, accept(), enabled=False), rule("on", True, refer()))
    assert evaluate(rs).fired == ("on",)


@pytest.mark.parametrize(("as_of", "fires"), [
    (date(2024, 12, 31), False),
    (date(2025, 1, 1), True),
    (date(2026, 12, 31), True),
    (date(2027, 1, 1), False),
])
def test_effective_window_is_inclusive_when_as_of_is_on_a_boundary(as_of, fires):
    rs = ruleset(rule("young", True, refer(), effective=(date(2025, 1, 1), date(2026, 12, 31))))
    assert (evaluate(rs, as_of=as_of).fired == ("young",)) is fires


def test_an_effective_window_without_as_of_is_an_error_when_evaluated():
    rs = ruleset(rule("young", True, refer(), effective=(date(2025, 1, 1), date(2026, 12, 31))))
    with pytest.raises(EvaluationError) as raised:
        build(rs).evaluate({"business": {}})
    assert raised.value.code == "as_of_required"


def test_messages_interpolate_values_plainly_when_a_reason_has_expressions():
    rs = ruleset(rule("r", True, decline(text(name("business.n"), " large losses of ",
                                              name("business.amount"), " in ",
                                              name("business.state"), " ({",
                                              name("business.none"), "}")),
                      reason(text("flag: ", name("business.flag")))))
    result = evaluate(rs, {"n": 3, "amount": Decimal("1.20"), "state": "CA", "flag": True})
    assert result.reasons == ("3 large losses of 1.20 in CA ({null}", "flag: true")


def test_a_non_string_tag_is_an_error_when_applied():
    from engine_ir_builders import expr

    from insureops.engine import ir

    rs = ruleset(rule("r", True, ir.TagAction(expr(5))))
    with pytest.raises(EvaluationError):
        evaluate(rs)


def test_result_is_a_frozen_record_with_to_dict_when_returned():
    rs = ruleset(rule("r", True, accept("fine"), score("+=", Decimal("1.50")),
                      set_output("x", "y")))
    result = evaluate(rs)
    assert result.to_dict() == {"ruleset": "t.rules", "decision": "accept",
                                "score": Decimal("1.50"), "outputs": {"x": "y"},
                                "reasons": ["fine"], "tags": [], "fired": ["r"]}
    assert result.trace is None
    with pytest.raises(AttributeError):
        result.decision = "refer"


def test_several_inputs_are_all_readable_when_declared():
    rs = ruleset(rule("r", binary(">", name("claim.amount"), name("policy.limit")),
                      refer("over limit")),
                 inputs={"claim": "Any", "policy": "Any"})
    compiled = build(rs)
    result = compiled.evaluate({"claim": {"amount": 200}, "policy": {"limit": 100}})
    assert result.fired == ("r",)
    with pytest.raises(EvaluationError) as raised:
        compiled.evaluate({"claim": {"amount": 1}})
    assert raised.value.code == "missing_input"
    with pytest.raises(EvaluationError) as raised:
        compiled.evaluate({"claim": {}, "policy": {}, "other": {}})
    assert raised.value.code == "unknown_input"


def test_consts_are_usable_in_conditions_when_declared():
    from engine_ir_builders import set_

    rs = ruleset(rule("r", binary("in", name("business.state"), name("CORE")), accept()),
                 consts={"CORE": set_("CA", "TX"), "LIMIT": binary("*", 2, 1000),
                         "DOUBLE": binary("*", name("LIMIT"), 2)})
    compiled = build(rs)
    assert compiled.consts["DOUBLE"] == 4000
    assert evaluate(rs, {"state": "TX"}).decision == "accept"
    assert evaluate(rs, {"state": "NV"}).decision is None


def test_a_const_that_cannot_be_computed_is_an_engine_error_when_compiled():
    from insureops.engine.ir.errors import EngineError

    rs = ruleset(rule("r", True, accept()), consts={"BAD": binary("+", "a", 1)})
    with pytest.raises(EngineError) as raised:
        build(rs)
    assert raised.value.code == "invalid_const"


def test_unknown_names_and_functions_are_invalid_ir_when_compiled():
    from engine_ir_builders import call

    from insureops.engine.ir.errors import EngineError

    for condition in (name("nobody.x"), binary("==", call("nope", 1), 1),
                      binary("==", call("len"), 1)):
        with pytest.raises(EngineError) as raised:
            build(ruleset(rule("r", condition, accept())))
        assert raised.value.code == "invalid_ir"
