"""Domains: the value sets the table and reachability checks reason with."""

from __future__ import annotations

from decimal import Decimal

import pytest

from insureops.dsl import domains as dm


def n(value: int | str) -> Decimal:
    return Decimal(value)


@pytest.mark.parametrize(("a", "b", "empty"), [
    (dm.compare("<", n(10)), dm.compare(">=", n(10)), True),
    (dm.compare("<=", n(10)), dm.compare(">=", n(10)), False),
    (dm.compare(">", n(10)), dm.compare("<", n(5)), True),
    (dm.compare("==", "A"), dm.compare("==", "B"), True),
    (dm.compare("!=", "A"), dm.compare("==", "B"), False),
    (dm.compare("not in", frozenset({"A", "B"})), dm.compare("in", frozenset({"B"})), True),
    (dm.NULL_ONLY, dm.compare("==", "A"), True),
    (dm.ANYTHING, dm.NULL_ONLY, False),
    (dm.between(n(1), n(5)), dm.compare(">", n(5)), True),
])
def test_intersection_is_empty_when_the_sets_are_disjoint(a, b, empty):
    assert a.intersect(b).is_empty() is empty


@pytest.mark.parametrize(("inner", "outer", "within"), [
    (dm.compare(">", n(20)), dm.compare(">", n(10)), True),
    (dm.compare(">", n(5)), dm.compare(">", n(10)), False),
    (dm.compare("in", frozenset({n(1), n(2)})), dm.between(n(1), n(2)), True),
    (dm.compare("==", "A"), dm.compare("not in", frozenset({"B"})), True),
    (dm.compare("!=", "A"), dm.compare("==", "B"), False),
])
def test_inclusion_holds_when_every_value_is_in_the_outer_set(inner, outer, within):
    assert inner.within(outer) is within


def test_kinds_are_not_comparable_when_numbers_meet_strings():
    assert dm.compare("<", n(1)).intersect(dm.compare("==", "A")) is None


def test_interval_describes_itself_in_the_language_when_shown():
    interval = dm.Interval(n(10), True, n(20), False)
    assert interval.describe("x") == "x >= 10 and x < 20"
    assert dm.Interval(n(3), True, n(3), True).describe("x") == "x == 3"
