"""Simulation summary and impact diff accumulators (engine/evaluation/simulation.py)."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from insureops.engine import ir
from insureops.engine.evaluation import simulation
from insureops.engine.evaluation.simulation import (
    DiffAccumulator,
    ScoreHistogram,
    SummaryAccumulator,
    item_kinds,
)
from insureops.engine.ir.result import Result


def _result(decision: str | None, score: Decimal, fired: list[str] | None = None) -> Result:
    """An engine Result with the three fields the accumulators read."""
    return Result("t", decision, score, {}, [], [], list(fired or []))


def _ruleset(*items: ir.Rule | ir.Table) -> ir.Ruleset:
    return ir.Ruleset(name="t", inputs=(), items=items)


RULESET = _ruleset(
    ir.Rule("core", ir.Literal(True), ()),
    ir.Table("territory", "first", (), ("factor",), ()),
    ir.Rule("never", ir.Literal(False), ()),
)


def test_item_kinds_lists_rules_and_tables_in_file_order():
    assert item_kinds(RULESET) == {"core": "rule", "territory": "table", "never": "rule"}


def test_summary_counts_decisions_firings_and_errors_when_cases_mix():
    acc = SummaryAccumulator.for_ruleset(RULESET)
    acc.add(_result("accept", Decimal(40), ["core", "territory"]))
    acc.add(_result("decline", Decimal(-5), ["territory"]))
    acc.add(_result(None, Decimal(0), []))
    acc.add(_result("accept", Decimal(40), ["core", "territory"]))
    acc.add_error("missing_input")

    summary = acc.summary()

    assert summary.cases == 5
    assert summary.evaluated == 4
    assert summary.error_count == 1
    assert summary.decisions == {"accept": 2, "decline": 1, "none": 1}
    assert list(summary.decisions) == ["accept", "decline", "none"]
    assert summary.fired == {"core": 2, "territory": 3, "never": 0}
    assert summary.errors == {"missing_input": 1}
    assert summary.scores.minimum == Decimal(-5)
    assert summary.scores.maximum == Decimal(40)
    assert summary.scores.mean == Decimal("18.75")
    assert summary.scores.percentiles == {50: Decimal(0), 90: Decimal(40)}
    assert summary.scores.exact


def test_summary_dict_names_the_kind_of_each_fired_item():
    acc = SummaryAccumulator.for_ruleset(RULESET)
    acc.add(_result("refer", Decimal("1.5"), ["territory"]))
    as_dict = acc.summary().to_dict()
    assert as_dict["fired"][1] == {"name": "territory", "kind": "table", "count": 1}
    assert as_dict["scores"]["p50"] == Decimal("1.5")


def test_summary_of_no_cases_has_no_score_statistics():
    stats = SummaryAccumulator().summary().scores
    assert (stats.count, stats.minimum, stats.mean, stats.percentiles) == (0, None, None, {})


def test_summary_lists_unknown_fired_names_after_declared_ones():
    acc = SummaryAccumulator({"a": "rule"})
    acc.add(_result("accept", Decimal(1), ["z", "a"]))
    assert list(acc.summary().fired) == ["a", "z"]


def test_percentiles_are_exact_when_scores_fit_the_bins():
    histogram = ScoreHistogram(max_bins=200)
    for value in range(1, 101):
        histogram.add(Decimal(value))
    stats = histogram.stats()
    assert stats.exact
    assert stats.percentiles == {50: Decimal(50), 90: Decimal(90)}
    assert stats.mean == Decimal("50.5")


def test_percentiles_stay_close_when_distinct_scores_exceed_the_bins():
    rng = random.Random(7)
    values = [Decimal(rng.randint(0, 100_000)) / 100 for _ in range(20_000)]
    histogram = ScoreHistogram(max_bins=64)
    for value in values:
        histogram.add(value)
    stats = histogram.stats()
    ordered = sorted(values)

    assert not stats.exact
    assert len(histogram._bins) <= 64
    assert stats.minimum == ordered[0] and stats.maximum == ordered[-1]
    assert stats.mean == sum(values) / len(values)
    width = (ordered[-1] - ordered[0]) / 16  # 64 bins over the spread, doubled twice at most
    assert abs(stats.percentiles[50] - ordered[len(ordered) // 2 - 1]) <= width
    assert abs(stats.percentiles[90] - ordered[int(len(ordered) * 0.9) - 1]) <= width


def test_histogram_rejects_fewer_than_two_bins():
    with pytest.raises(ValueError):
        ScoreHistogram(max_bins=1)


def test_diff_counts_transitions_and_keeps_first_examples_when_decisions_change():
    acc = DiffAccumulator(item_kinds(RULESET), {"core": "rule", "fresh": "rule"}, examples=2)
    for case_id in range(5):
        acc.add(case_id, _result("accept", Decimal(40), ["core"]),
                _result("refer", Decimal(25), ["fresh"]))
    acc.add("same", _result("decline", Decimal(0), ["core"]), _result("decline", Decimal(0), ["core"]))

    diff = acc.diff()

    assert diff.cases == 6
    assert diff.decisions_changed == 5
    assert diff.transitions == {("accept", "refer"): 5, ("decline", "decline"): 1}
    assert next(iter(diff.transitions)) == ("accept", "refer")  # changed transitions first
    assert diff.examples == {("accept", "refer"): [0, 1]}
    by_name = {r.name: (r.old, r.new, r.delta) for r in diff.rules}
    assert by_name == {"core": (6, 1, -5), "fresh": (0, 5, 5), "territory": (0, 0, 0),
                       "never": (0, 0, 0)}
    assert [r.name for r in diff.rules][:2] == ["core", "fresh"]
    shift = diff.scores
    assert (shift.compared, shift.changed, shift.increased, shift.decreased) == (6, 5, 0, 5)
    assert (shift.mean_delta, shift.min_delta, shift.max_delta) == (-15, -15, -15)


def test_diff_counts_a_failing_version_as_the_error_decision():
    acc = DiffAccumulator()
    acc.add("c1", _result("accept", Decimal(1)), "evaluation_error")
    acc.add("c2", "invalid_json", "invalid_json")
    diff = acc.diff()
    assert diff.transitions == {("accept", "error"): 1, ("error", "error"): 1}
    assert diff.examples == {("accept", "error"): ["c1"]}
    assert diff.new_errors == {"evaluation_error": 1, "invalid_json": 1}
    assert diff.old_errors == {"invalid_json": 1}
    assert diff.scores.compared == 0 and diff.scores.mean_delta is None


def test_diff_dict_is_plain_json_shaped():
    acc = DiffAccumulator({"core": "rule"}, {"core": "rule"})
    acc.add(1, _result("accept", Decimal(2), ["core"]), _result("accept", Decimal(5), ["core"]))
    as_dict = acc.diff().to_dict()
    assert as_dict["transitions"] == [{"from": "accept", "to": "accept", "count": 1,
                                       "examples": []}]
    assert as_dict["scores"]["increased"] == 1 and as_dict["scores"]["mean_delta"] == 3
    assert as_dict["rules"] == [{"name": "core", "kind": "rule", "old": 1, "new": 1, "delta": 0}]


def test_summary_is_the_same_when_distinct_outcomes_exceed_what_is_counted_apart(monkeypatch):
    rng = random.Random(3)
    names = ["a", "b", "c", "d"]
    results = [Result("r", rng.choice([None, "accept", "refer"]), Decimal(rng.randint(0, 9)), {},
                      [], [], rng.sample(names, rng.randint(0, 4))) for _ in range(500)]

    def summary_dict():
        accumulator = SummaryAccumulator({"a": "rule", "b": "table"})
        for position, result in enumerate(results):
            accumulator.add(result)
            if position == 250:
                middle = accumulator.summary().to_dict()  # a summary midway changes nothing
        return middle, accumulator.summary().to_dict()

    expected = summary_dict()
    monkeypatch.setattr(simulation, "_MAX_OUTCOMES", 3)
    assert summary_dict() == expected
