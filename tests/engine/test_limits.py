"""Every limit raises LimitExceededError with its code, never a hang or a crash."""

from __future__ import annotations

import time
from datetime import date

import pytest
from engine_ir_builders import (
    binary,
    build,
    comp,
    name,
    neg,
    rule,
    ruleset,
    set_output,
    text,
)

from insureops.engine.ir.errors import EvaluationError, LimitExceededError
from insureops.engine.ir.limits import Limits


def run(condition_or_value, business, limits=Limits(), *, as_value=False):
    action = set_output("v", condition_or_value) if as_value else set_output("v", True)
    when = True if as_value else condition_or_value
    compiled = build(ruleset(rule("r", when, action)))
    return compiled.evaluate({"business": business}, as_of=date(2025, 1, 1), limits=limits)


def test_input_size_is_limited_when_the_data_read_has_too_many_values():
    with pytest.raises(LimitExceededError) as raised:  # read whole, so counted (issue 12)
        run(name("business.items"), {"items": list(range(200))}, Limits(max_input_nodes=100),
            as_value=True)
    assert raised.value.code == "limit_input_size"


def test_input_depth_is_limited_when_the_data_read_is_nested_too_deeply():
    nested: dict = {}
    for _ in range(100):
        nested = {"a": nested}
    with pytest.raises(LimitExceededError) as raised:
        run(name("business.a"), nested, as_value=True)
    assert raised.value.code == "limit_depth"


def test_very_deep_input_is_a_limit_error_not_a_recursion_error_when_converted():
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(LimitExceededError) as raised:
        run(name("business.x"), {"x": nested},
            Limits(max_input_depth=10**6, max_input_nodes=10**7), as_value=True)
    assert raised.value.code == "limit_depth"


def test_steps_are_limited_when_comprehensions_iterate_too_much():
    items = name("business.items")
    nested = comp("count", "a", items,
                  where=binary(">", comp("count", "b", items), 0))
    with pytest.raises(LimitExceededError) as raised:
        run(binary(">", nested, 0), {"items": list(range(300))}, Limits(max_steps=10_000))
    assert raised.value.code == "limit_steps"
    assert raised.value.span is not None or raised.value.message


def test_default_call_charges_a_leading_comprehension_before_it_makes_an_evaluation():
    # the default call keeps the steps left in a local until a path needs the Evaluation:
    # a condition's leading comprehension is charged there, and the budget still holds
    condition = binary(">", comp("count", "c", name("business.items"),
                                 where=binary(">", name("c"), 0)), 0)
    compiled = build(ruleset(rule("r", condition, set_output("v", True))))
    assert "STEPS_OVER" in compiled.evaluate.__globals__["__source__"]
    with pytest.raises(LimitExceededError) as raised:
        compiled.evaluate({"business": {"items": [0] * 1_000_001}})
    assert raised.value.code == "limit_steps"
    assert compiled.evaluate({"business": {"items": [0, 2]}}).outputs == {"v": True}


def test_steps_count_rules_when_the_ruleset_is_long():
    rs = ruleset(*[rule(f"r{i}", True) for i in range(20)])
    with pytest.raises(LimitExceededError) as raised:
        build(rs).evaluate({"business": {}}, limits=Limits(max_steps=10))
    assert raised.value.code == "limit_steps"


def test_regex_pattern_length_is_limited_when_too_long():
    with pytest.raises(LimitExceededError) as raised:
        run(binary("matches", name("business.s"), "a" * 600), {"s": "a"})
    assert raised.value.code == "limit_regex"


def test_regex_subject_length_is_limited_when_too_long():
    with pytest.raises(LimitExceededError) as raised:
        run(binary("matches", name("business.s"), "a"), {"s": "a" * 20_000})
    assert raised.value.code == "limit_regex"


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a*)*b", "(a|aa)*c", "(x+x+)+y", r"(\w+\s?)*$",
                                     r"(.)\1", "(a{1,2})*b", "(?:a{1,3}){1,60}b"])
def test_catastrophic_patterns_are_refused_quickly_when_matched(pattern):
    started = time.perf_counter()
    with pytest.raises(LimitExceededError) as raised:
        run(binary("matches", name("business.s"), pattern), {"s": "a" * 5000 + "!"})
    assert raised.value.code == "limit_regex"
    assert time.perf_counter() - started < 1


def test_an_invalid_pattern_is_an_evaluation_error_when_matched():
    with pytest.raises(EvaluationError) as raised:
        run(binary("matches", name("business.s"), "[a-"), {"s": "a"})
    assert raised.value.code == "invalid_regex"


def test_matches_uses_search_semantics_when_unanchored():
    assert run(binary("matches", name("business.s"), "82"), {"s": "238210"}).fired == ("r",)
    assert run(binary("matches", name("business.s"), "^82"), {"s": "238210"}).fired == ()


def test_list_size_is_limited_when_concatenation_grows_a_list():
    items = name("business.items")
    with pytest.raises(LimitExceededError) as raised:
        run(binary("+", items, items), {"items": list(range(60))},
            Limits(max_list_size=100), as_value=True)
    assert raised.value.code == "limit_list_size"


def test_string_length_is_limited_when_concatenation_or_interpolation_grows_it():
    s = name("business.s")
    for value in (binary("+", s, s), text(s, s)):
        with pytest.raises(LimitExceededError) as raised:
            run(value, {"s": "x" * 600}, Limits(max_string_length=1000), as_value=True)
        assert raised.value.code == "limit_string_length"


def test_expression_depth_is_limited_when_compiling_a_deep_tree():
    deep = name("business.x")
    for _ in range(5000):
        deep = neg(deep)
    with pytest.raises(LimitExceededError) as raised:
        build(ruleset(rule("r", True, set_output("v", deep))))
    assert raised.value.code == "limit_expression_depth"


def test_limits_have_documented_defaults_when_constructed():
    limits = Limits()
    assert (limits.max_input_nodes, limits.max_input_depth, limits.max_steps) == (
        100_000, 64, 1_000_000)
    assert limits.max_regex_pattern_length == 500
    assert limits.max_regex_subject_length == 10_000


def test_subject_length_shrinks_with_the_patterns_quantifiers_when_they_can_backtrack():
    pattern = binary("matches", name("business.s"), "a*a*a*b")
    assert run(pattern, {"s": "a" * 60}).fired == ()
    started = time.perf_counter()
    with pytest.raises(LimitExceededError) as raised:
        run(pattern, {"s": "a" * 500})
    assert raised.value.code == "limit_regex"
    assert "limit 66 for this pattern" in raised.value.message
    assert time.perf_counter() - started < 1


def test_simple_patterns_take_long_subjects_when_they_cannot_backtrack():
    pattern = binary("matches", name("business.s"), "^[A-Z]{2}[0-9]{4}$")
    assert run(pattern, {"s": "CA1234"}).fired == ("r",)
    assert run(pattern, {"s": "x" * 9_000}).fired == ()


TEXT_SCANS = [  # (condition, business): each scans a text of some length
    (lambda: binary("contains", name("business.s"), "needle"), lambda n: {"s": "x" * n}),
    (lambda: binary("in", name("business.s"), "y" * 200), lambda n: {"s": "x" * (n % 7)}),
    (lambda: binary("contains", name("business.s"), name("business.t")),
     lambda n: {"s": "x" * n, "t": "xy"}),
    (lambda: binary("in", name("business.t"), name("business.s")),
     lambda n: {"s": "x" * n, "t": "xx"}),
    (lambda: binary("not in", name("business.t"), name("business.s")),
     lambda n: {"s": "x" * n, "t": "y"}),
    (lambda: binary("contains", name("business.s"), name("business.t")),
     lambda n: {"s": "x" * n, "t": None}),
]


def _outcome(compiled, business, limits):
    try:
        return compiled.evaluate({"business": business}, limits=limits).outputs
    except LimitExceededError as error:
        return error.code, error.message, error.span


@pytest.mark.parametrize("case", range(len(TEXT_SCANS)))
@pytest.mark.parametrize("length", [0, 63, 64, 200, 1000])
def test_text_scans_charge_what_the_reference_charges_when_tested_inline(case, length):
    # the generated code tests two strings itself and charges the scan inline: the same
    # steps (one per 64 characters scanned) and the same limit error at the same budget
    condition, business = TEXT_SCANS[case]
    rs = ruleset(rule("r", condition(), set_output("v", True)))
    compiled, reference = build(rs), build(rs, reference=True)
    for steps in range(0, length // 64 + 3):
        limits = Limits(max_steps=steps)
        assert _outcome(compiled, business(length), limits) == \
            _outcome(reference, business(length), limits)
    assert _outcome(compiled, business(length), None) == \
        _outcome(reference, business(length), None)


def test_default_call_charges_text_scans_before_it_makes_an_evaluation():
    # each rule scans a text of 999,999 characters 8 times (15,624 steps each): the ninth
    # rule runs past the default budget with no Evaluation made, as the reference does
    scans = [binary("contains", name("business.s"), f"needle {n}") for n in range(8)]
    when = scans[0]
    for scan in scans[1:]:
        when = binary("or", when, scan)
    rs = ruleset(*(rule(f"r{n}", when, set_output(f"v{n}", True)) for n in range(9)))
    compiled, reference = build(rs), build(rs, reference=True)
    assert "_st := _st" in compiled.evaluate.__globals__["__source__"]
    business = {"s": "x" * 999_999}
    assert _outcome(compiled, business, None) == _outcome(reference, business, None)
    assert _outcome(compiled, business, None)[0] == "limit_steps"
    short = {"s": "x" * 999_999 + " needle 7"}
    assert _outcome(compiled, short, None) == _outcome(reference, short, None)
