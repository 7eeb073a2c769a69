"""Batch simulation aggregates: a run's summary and two versions' impact diff, in O(rules) memory.

Pure bookkeeping over evaluation results (anything with `decision`, `score` and `fired`, such as
`engine.compiler.Result`); reading cases, timing and printing belong to the caller.
Memory does not grow with the number of cases: counters are keyed by rule names and decisions,
and the score distribution is a bounded histogram (exact until it holds more than `max_bins`
distinct scores, then binned with a width that doubles as needed; `exact` says which).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Protocol

from insureops.engine import ir
from insureops.engine.ir.numbers import SUMMARY as _SUMMARY
from insureops.engine.ir.numbers import WIDE

_WIDE_ADD = WIDE.add  # exact sums of scores, whatever the caller's decimal context

NO_DECISION = "none"
ERROR = "error"
DECISION_ORDER = ("accept", "refer", "decline", NO_DECISION, ERROR)
PERCENTILES = (50, 90)
_MAX_OUTCOMES = 4096  # distinct (decision, fired names) a SummaryAccumulator counts apart


class Outcome(Protocol):
    """What the accumulators read from one evaluation result."""

    decision: str | None
    score: Decimal
    fired: list[str]


def item_kinds(ruleset: ir.Ruleset) -> dict[str, str]:
    """Every rule and table of `ruleset` in file order: name -> "rule" or "table"."""
    return {item.name: "table" if isinstance(item, ir.Table) else "rule" for item in ruleset.items}


def decision_label(decision: str | None) -> str:
    """The key a decision is counted under: its name, or "none" when no rule decided."""
    return NO_DECISION if decision is None else decision


def _decision_sort_key(label: str) -> tuple[int, str]:
    rank = DECISION_ORDER.index(label) if label in DECISION_ORDER else len(DECISION_ORDER)
    return rank, label


# --- score distribution ------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreStats:
    """The distribution of scores: count, min, max, mean and percentiles (p50, p90)."""

    count: int
    minimum: Decimal | None
    maximum: Decimal | None
    mean: Decimal | None
    percentiles: dict[int, Decimal]
    exact: bool

    def to_dict(self) -> dict:
        return {
            "count": self.count, "min": self.minimum, "max": self.maximum, "mean": self.mean,
            **{f"p{p}": value for p, value in self.percentiles.items()}, "exact": self.exact,
        }


class ScoreHistogram:
    """Streaming score statistics in at most `max_bins` buckets.

    While fewer than `max_bins` distinct scores have been seen every bucket is one exact value,
    so the percentiles are exact. Beyond that, scores are binned to multiples of a width that
    doubles until they fit, and a percentile is its bin's lower edge (off by less than a width).
    """

    def __init__(self, max_bins: int = 4096) -> None:
        if max_bins < 2:
            raise ValueError("max_bins must be at least 2")
        self.max_bins = max_bins
        self._bins: Counter[Decimal] = Counter()
        self._width: Decimal | None = None
        self.count = 0
        self.total = Decimal(0)
        self.minimum: Decimal | None = None
        self.maximum: Decimal | None = None

    def add(self, score: Decimal) -> None:
        self.count += 1
        self.total = _WIDE_ADD(self.total, score)
        bins = self._bins
        if self._width is None and score in bins:  # a score seen before: min and max stand
            bins[score] += 1
            return
        self._add_new(score)

    def _add_new(self, score: Decimal) -> None:
        """`add` after count and total, for a score not seen before (or binned)."""
        if self.minimum is None or score < self.minimum:
            self.minimum = score
        if self.maximum is None or score > self.maximum:
            self.maximum = score
        self._bins[self._bin_of(score)] += 1
        if len(self._bins) > self.max_bins:
            self._coarsen()

    def _bin_of(self, score: Decimal) -> Decimal:
        if self._width is None:
            return score
        return _floor_to(score, self._width)

    def _coarsen(self) -> None:
        assert self.minimum is not None and self.maximum is not None
        spread = WIDE.subtract(self.maximum, self.minimum)
        width = self._width or _power_of_two_at_least(
            _SUMMARY.divide(spread, self.max_bins // 2))
        while True:
            bins: Counter[Decimal] = Counter()
            for value, count in self._bins.items():
                bins[_floor_to(value, width)] += count
            if len(bins) <= self.max_bins:
                self._bins, self._width = bins, width
                return
            width = WIDE.multiply(width, 2)

    def stats(self) -> ScoreStats:
        """The statistics of the scores added so far."""
        if self.count == 0:
            return ScoreStats(0, None, None, None, {}, True)
        ordered = sorted(self._bins.items())
        percentiles = {p: _nearest_rank(ordered, self.count, p) for p in PERCENTILES}
        mean = _SUMMARY.divide(self.total, self.count)
        return ScoreStats(self.count, self.minimum, self.maximum, mean, percentiles,
                          self._width is None)


def _power_of_two_at_least(value: Decimal) -> Decimal:
    width = Decimal(1)
    if value <= 0:
        return width
    while width < value:
        width = WIDE.multiply(width, 2)
    while _SUMMARY.divide(width, 2) >= value and width > Decimal("1e-12"):
        width = _SUMMARY.divide(width, 2)
    return width


def _floor_to(value: Decimal, width: Decimal) -> Decimal:
    """`value` rounded down to a multiple of `width` (its bin's lower edge)."""
    steps = _SUMMARY.divide(value, width).to_integral_value(rounding=ROUND_FLOOR,
                                                            context=_SUMMARY)
    return _SUMMARY.multiply(steps, width)


def _nearest_rank(ordered: list[tuple[Decimal, int]], total: int, percentile: int) -> Decimal:
    rank = max(1, math.ceil(percentile * total / 100))
    seen = 0
    for value, count in ordered:
        seen += count
        if seen >= rank:
            return value
    return ordered[-1][0]


# --- one ruleset over many cases ---------------------------------------------------------------


@dataclass(frozen=True)
class SimulationSummary:
    """The aggregate of a simulation run."""

    cases: int
    evaluated: int
    decisions: dict[str, int]
    scores: ScoreStats
    fired: dict[str, int]
    kinds: dict[str, str]
    errors: dict[str, int]

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def to_dict(self) -> dict:
        return {
            "cases": self.cases, "evaluated": self.evaluated, "decisions": self.decisions,
            "scores": self.scores.to_dict(),
            "fired": [{"name": name, "kind": self.kinds.get(name, "rule"), "count": count}
                      for name, count in self.fired.items()],
            "errors": self.errors,
        }


class SummaryAccumulator:
    """Counts decisions, scores, firings and errors of a simulation, one result at a time."""

    def __init__(self, kinds: Mapping[str, str] | None = None, *, max_bins: int = 4096) -> None:
        self.kinds = dict(kinds or {})
        self._fired: Counter[str] = Counter({name: 0 for name in self.kinds})
        self._decisions: Counter[str] = Counter()
        self._errors: Counter[str] = Counter()
        self._scores = ScoreHistogram(max_bins)
        self._cases = 0
        # (decision, fired names) -> cases: one count per case instead of one per name,
        # folded into the counters above when it grows large and for each summary
        self._outcomes: dict[tuple, int] = {}

    @classmethod
    def for_ruleset(cls, ruleset: ir.Ruleset, **options) -> SummaryAccumulator:
        """An accumulator that lists every rule and table of `ruleset`, even those never fired."""
        return cls(item_kinds(ruleset), **options)

    def add(self, result: Outcome) -> None:
        """Count one evaluated case."""
        self._cases += 1
        key = (result.decision, tuple(result.fired))
        outcomes = self._outcomes
        outcomes[key] = outcomes.get(key, 0) + 1
        if len(outcomes) > _MAX_OUTCOMES:
            self._fold(self._decisions, self._fired)
            outcomes.clear()
        scores = self._scores  # ScoreHistogram.add, its usual case inline (one call less)
        score = result.score
        scores.count += 1
        scores.total = _WIDE_ADD(scores.total, score)
        if scores._width is None and score in scores._bins:
            scores._bins[score] += 1
        else:
            scores._add_new(score)

    def _fold(self, decisions: Counter[str], fired: Counter[str]) -> None:
        """Add the counted (decision, fired names) outcomes to `decisions` and `fired`."""
        for (decision, names), count in self._outcomes.items():
            decisions[NO_DECISION if decision is None else decision] += count
            for name in names:
                fired[name] += count

    def add_error(self, code: str) -> None:
        """Count one case that could not be evaluated, by error code."""
        self._cases += 1
        self._errors[code] += 1

    def summary(self) -> SimulationSummary:
        """The aggregate so far; the accumulator can go on afterwards."""
        evaluated = self._cases - sum(self._errors.values())
        counted, counted_fired = Counter(self._decisions), Counter(self._fired)
        self._fold(counted, counted_fired)
        order = list(self.kinds)
        fired = {name: counted_fired[name] for name in order}
        fired.update({name: count for name, count in sorted(counted_fired.items())
                      if name not in fired})
        decisions = dict(sorted(counted.items(), key=lambda kv: _decision_sort_key(kv[0])))
        return SimulationSummary(self._cases, evaluated, decisions, self._scores.stats(), fired,
                                 dict(self.kinds), dict(sorted(self._errors.items())))


# --- two versions over the same cases ----------------------------------------------------------


@dataclass(frozen=True)
class RuleShift:
    """How often one rule or table fired under the old and the new version."""

    name: str
    kind: str
    old: int
    new: int

    @property
    def delta(self) -> int:
        return self.new - self.old


@dataclass(frozen=True)
class ScoreShift:
    """Score changes over the cases that both versions evaluated."""

    compared: int
    changed: int
    increased: int
    decreased: int
    mean_delta: Decimal | None
    min_delta: Decimal | None
    max_delta: Decimal | None


@dataclass(frozen=True)
class ImpactDiff:
    """The impact of replacing one ruleset version with another, over the same cases."""

    cases: int
    transitions: dict[tuple[str, str], int]
    examples: dict[tuple[str, str], list[object]]
    scores: ScoreShift
    rules: list[RuleShift]
    old_errors: dict[str, int]
    new_errors: dict[str, int]

    @property
    def decisions_changed(self) -> int:
        return sum(n for (old, new), n in self.transitions.items() if old != new)

    def to_dict(self) -> dict:
        shift = self.scores
        return {
            "cases": self.cases,
            "decisions_changed": self.decisions_changed,
            "transitions": [
                {"from": old, "to": new, "count": count,
                 "examples": self.examples.get((old, new), [])}
                for (old, new), count in self.transitions.items()],
            "scores": {"compared": shift.compared, "changed": shift.changed,
                       "increased": shift.increased, "decreased": shift.decreased,
                       "mean_delta": shift.mean_delta, "min_delta": shift.min_delta,
                       "max_delta": shift.max_delta},
            "rules": [{"name": r.name, "kind": r.kind, "old": r.old, "new": r.new,
                       "delta": r.delta} for r in self.rules],
            "errors": {"old": self.old_errors, "new": self.new_errors},
        }


class DiffAccumulator:
    """Compares two versions case by case: decision transitions, score shifts, rule firings.

    A case that fails under a version counts as the pseudo-decision "error" in the transition
    matrix, so a change that breaks cases shows up as an impact. The first `examples` case ids
    of each changed transition are kept.
    """

    def __init__(self, old_kinds: Mapping[str, str] | None = None,
                 new_kinds: Mapping[str, str] | None = None, *, examples: int = 3) -> None:
        self.kinds = {**dict(old_kinds or {}), **dict(new_kinds or {})}
        self.examples_per_transition = examples
        self._old_fired: Counter[str] = Counter()
        self._new_fired: Counter[str] = Counter()
        self._transitions: Counter[tuple[str, str]] = Counter()
        self._examples: dict[tuple[str, str], list[object]] = {}
        self._errors: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
        self._compared = self._increased = self._decreased = 0
        self._delta_total = Decimal(0)
        self._min_delta: Decimal | None = None
        self._max_delta: Decimal | None = None
        self._cases = 0

    @classmethod
    def for_rulesets(cls, old: ir.Ruleset, new: ir.Ruleset, **options) -> DiffAccumulator:
        return cls(item_kinds(old), item_kinds(new), **options)

    def add(self, case_id: object, old: Outcome | str, new: Outcome | str) -> None:
        """Count one case: each side is a result, or the error code of a failed evaluation."""
        self._cases += 1
        old_label = self._side(old, self._old_fired, self._errors[0])
        new_label = self._side(new, self._new_fired, self._errors[1])
        key = (old_label, new_label)
        self._transitions[key] += 1
        if old_label != new_label:
            kept = self._examples.setdefault(key, [])
            if len(kept) < self.examples_per_transition:
                kept.append(case_id)
        if not isinstance(old, str) and not isinstance(new, str):
            self._add_scores(old.score, new.score)

    @staticmethod
    def _side(outcome: Outcome | str, fired: Counter[str], errors: Counter[str]) -> str:
        if isinstance(outcome, str):
            errors[outcome] += 1
            return ERROR
        fired.update(outcome.fired)
        return decision_label(outcome.decision)

    def _add_scores(self, old: Decimal, new: Decimal) -> None:
        self._compared += 1
        delta = WIDE.subtract(new, old)
        if not delta:
            return
        if delta > 0:
            self._increased += 1
        else:
            self._decreased += 1
        self._delta_total = WIDE.add(self._delta_total, delta)
        if self._min_delta is None or delta < self._min_delta:
            self._min_delta = delta
        if self._max_delta is None or delta > self._max_delta:
            self._max_delta = delta

    def diff(self) -> ImpactDiff:
        """The impact so far."""
        changed = self._increased + self._decreased
        shift = ScoreShift(self._compared, changed, self._increased, self._decreased,
                           _SUMMARY.divide(self._delta_total, changed) if changed else None,
                           self._min_delta, self._max_delta)
        names = list(self.kinds) + sorted(
            (set(self._old_fired) | set(self._new_fired)) - set(self.kinds))
        rules = [RuleShift(n, self.kinds.get(n, "rule"), self._old_fired[n], self._new_fired[n])
                 for n in names]
        rules.sort(key=lambda r: -abs(r.delta))  # stable: file order among equal deltas
        transitions = dict(sorted(
            self._transitions.items(),
            key=lambda kv: (kv[0][0] == kv[0][1], _decision_sort_key(kv[0][0]),
                            _decision_sort_key(kv[0][1]))))
        return ImpactDiff(self._cases, transitions,
                          {k: list(v) for k, v in self._examples.items()}, shift, rules,
                          dict(sorted(self._errors[0].items())),
                          dict(sorted(self._errors[1].items())))


__all__ = [
    "DECISION_ORDER", "ERROR", "NO_DECISION", "DiffAccumulator", "ImpactDiff", "Outcome",
    "RuleShift", "ScoreHistogram", "ScoreShift", "ScoreStats", "SimulationSummary",
    "SummaryAccumulator", "decision_label", "item_kinds",
]
