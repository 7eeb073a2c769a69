"""`any` and `all` are `or` and `and` over the items, with the language's Kleene logic
(issue 12: `all(c in [2, null] where c > 1)` and `any(c in [null] where c > 1)` gave false
instead of null), the same on every evaluation path."""

from __future__ import annotations

import pytest
from engine_ir_builders import binary, comp, lit, name, rule, ruleset, set_output
from engine_paths import same_everywhere


def _value(expression, items) -> str:
    rs = ruleset(rule("r", True, set_output("v", expression)), inputs={"business": "Any"})
    found = same_everywhere(rs, {"business": {"xs": items}})
    assert found[0] == "value", found
    return found[1]


def _quantifier(kind: str, items: list) -> str:
    return _value(comp(kind, "c", name("business.xs"), where=binary(">", name("c"), 1)), items)


@pytest.mark.parametrize(("kind", "items", "expected"), [
    ("all", [2, None], '{"v": null}'),   # issue 12's probe
    ("any", [None], '{"v": null}'),      # issue 12's probe
    ("all", [2, None, 0], '{"v": false}'),
    ("all", [None, 0], '{"v": false}'),
    ("any", [None, 2], '{"v": true}'),
    ("any", [0, None], '{"v": null}'),
    ("all", [2, 3], '{"v": true}'),
    ("any", [0, 1], '{"v": false}'),
    ("all", [], '{"v": true}'),
    ("any", [], '{"v": false}'),
])
def test_quantifier_is_kleene_and_or_over_the_items_when_a_test_is_null(kind, items, expected):
    assert _quantifier(kind, items) == expected


@pytest.mark.parametrize(("kind", "items", "expected"), [
    ("all", [True, None], '{"v": null}'),
    ("all", [None, False], '{"v": false}'),
    ("any", [False, None], '{"v": null}'),
    ("any", [None, True], '{"v": true}'),
])
def test_quantifier_reads_items_as_kleene_truth_values_when_there_is_no_where(kind, items,
                                                                              expected):
    assert _value(comp(kind, "c", name("business.xs")), items) == expected


def test_quantifier_is_kleene_in_a_rule_condition_when_a_test_is_null():
    condition = comp("all", "c", name("business.xs"), where=binary(">", name("c"), 1))
    rs = ruleset(rule("r", condition, set_output("v", lit(1))), inputs={"business": "Any"})
    assert same_everywhere(rs, {"business": {"xs": [2, None]}})[4] == ()  # did not fire
    assert same_everywhere(rs, {"business": {"xs": [2, 3]}})[4] == ("r",)


def test_quantifier_still_refuses_a_non_boolean_test_when_an_item_is_null_first():
    found = same_everywhere(ruleset(rule("r", True, set_output("v", comp(
        "any", "c", name("business.xs")))), inputs={"business": "Any"}),
        {"business": {"xs": [None, 3]}})
    assert found == ("error", "type_mismatch")
