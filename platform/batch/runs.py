"""Cases' expectations and batch runs of a ruleset, shared by `insureops rules simulate|diff`
and the rule studio's simulate route: one evaluation, summary, diff and `expect` check for both.

A case's `expect` is an object whose keys name what to compare: `decision`, `score`,
`reasons`, `tags`, `fired` (equal), `outputs` (each named output equal), or `error` (the case
must fail with this error code). Numbers compare by value (`10` equals `10.00`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from insureops.engine.evaluation.simulation import (
    DiffAccumulator,
    ImpactDiff,
    SimulationSummary,
    SummaryAccumulator,
)
from insureops.engine.inputs import jsonio
from insureops.platform.batch.cases import (
    Case,
    CaseError,
    CaseEvaluator,
    paired_outcomes,
    result_line,
)

RESULT_KEYS = ("decision", "score", "reasons", "tags", "fired")
MAX_KEPT_FAILURES = 1000  # mismatching cases an ExpectationTally keeps to report


def _normal(value: object) -> object:
    """`value` with every number as a Decimal, so 10, 10.0 and Decimal("10.00") are equal."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | Decimal):
        try:
            return Decimal(str(value)).normalize()
        except InvalidOperation:
            return value
    if isinstance(value, Mapping):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


def _mismatch(key: str, expected: object, actual: object) -> dict | None:
    if _normal(expected) == _normal(actual):
        return None
    return {"field": key, "expected": expected, "actual": actual}


def expectation_mismatches(expect: object, outcome: Any) -> list[dict]:
    """What of `expect` the outcome (an engine Result or a CaseError) does not meet:
    `[{"field", "expected", "actual"}]`, empty when every expectation is met."""
    if not isinstance(expect, Mapping):
        return [{"field": "expect", "expected": "an object", "actual": expect}]
    failed = isinstance(outcome, CaseError)
    found: list[dict | None] = []
    for key, wanted in expect.items():
        if key == "error":
            found.append(_mismatch("error", wanted, outcome.code if failed else None))
        elif failed:
            found.append({"field": key, "expected": wanted,
                          "actual": f"error {outcome.code}: {outcome.message}"})
        elif key in RESULT_KEYS:
            found.append(_mismatch(key, wanted, getattr(outcome, key)))
        elif key == "outputs" and isinstance(wanted, Mapping):
            found += [_mismatch(f"outputs.{name}", value, outcome.outputs.get(name))
                      for name, value in wanted.items()]
        else:
            found.append({"field": key, "expected": wanted,
                          "actual": "not an expectation: use decision, score, reasons, tags, "
                          "fired, outputs or error"})
    return [item for item in found if item is not None]


def error_expected(expect: object, outcome: Any) -> bool:
    """True when `outcome` is a case error whose code the case's `expect` names as its `error`.

    Such a case did what it was written to check: it is a met expectation, not a failed run
    (`rules simulate` and `rules diff` exited 1 on the shipped examples, issue 33)."""
    return (type(outcome) is CaseError and isinstance(expect, Mapping)
            and expect.get("error") == outcome.code)


def unexpected_error(case: Case, outcome: Any) -> bool:
    """The case failed, and its `expect` does not name that error."""
    return type(outcome) is CaseError and not error_expected(case.expect, outcome)


@dataclass
class ExpectationTally:
    """Counts the cases with an `expect` and keeps the first MAX_KEPT_FAILURES mismatches."""

    checked: int = 0
    met: int = 0
    failures: list[tuple[object, list[dict]]] = field(default_factory=list)

    @property
    def not_met(self) -> int:
        return self.checked - self.met

    def check(self, case_id: object, expect: object, outcome: Any) -> list[dict]:
        self.checked += 1
        mismatches = expectation_mismatches(expect, outcome)
        if not mismatches:
            self.met += 1
        elif len(self.failures) < MAX_KEPT_FAILURES:
            self.failures.append((case_id, mismatches))
        return mismatches

    def to_dict(self) -> dict:
        return {"checked": self.checked, "met": self.met, "not_met": self.not_met}


def describe_mismatch(case_id: object, mismatches: list[dict]) -> str:
    """One line for people: `case Q-3: decision: expected "accept", got "refer"; ...`."""
    parts = [f"{m['field']}: expected {jsonio.dumps(m['expected'])}, got "
             f"{jsonio.dumps(m['actual'])}" for m in mismatches]
    return f"case {jsonio.dumps(case_id)}: {'; '.join(parts)}"


@dataclass
class BatchRun:
    """The outcome of running cases: per-case entries as JSON texts (when kept), the summary,
    the expectations and, against a baseline, the impact diff."""

    summary: SimulationSummary
    expectations: ExpectationTally
    impact: ImpactDiff | None
    results: list[str]


def run_cases(compiled: Any, cases: Iterable[Case], *, filename: str, explain: bool = False,
              baseline: Any = None, examples: int = 3, keep_results: bool = True,
              on_case: Callable[[int, int], None] | None = None) -> BatchRun:
    """Evaluate `compiled` (and `baseline`, when given) on each case, as `rules simulate` and
    `rules diff` do. Each kept entry is the text of the CLI's result line (`{"id", "result"}`
    or `{"id", "error"}`), plus `"expect": {"met", "mismatches"}` for a case with an `expect`.
    `on_case(n, size)` is called after each case with the characters its kept entry takes
    (a caller's time and size budgets raise from it)."""
    evaluator = CaseEvaluator(compiled, filename=filename, explain=explain)
    summary = SummaryAccumulator.for_ruleset(compiled.ir)
    tally = ExpectationTally()
    impact = evaluator_old = None
    if baseline is not None:
        evaluator_old = CaseEvaluator(baseline, filename=filename)
        impact = DiffAccumulator.for_rulesets(baseline.ir, compiled.ir, examples=examples)
    results: list[str] = []
    memo: dict = {}
    pairs = paired_outcomes(evaluator, evaluator_old, cases)  # through evaluate_many
    for number, (case, outcome, before) in enumerate(pairs, start=1):
        entry = ""
        failed = type(outcome) is CaseError
        if failed:
            summary.add_error(outcome.code)
        else:
            summary.add(outcome)
        if impact is not None:
            impact.add(case.id, before.code if type(before) is CaseError else before,
                       outcome.code if failed else outcome)
        mismatches = (tally.check(case.id, case.expect, outcome)
                       if case.expect is not None else None)
        if keep_results:
            entry = result_line(case, outcome, memo)[:-1]  # the CLI's line, without "\n"
            if mismatches is not None:
                entry = "".join((entry[:-1], ', "expect": ', jsonio.dumps(
                    {"met": not mismatches, "mismatches": mismatches}), "}"))
            results.append(entry)
        if on_case is not None:
            on_case(number, len(entry))
    return BatchRun(summary.summary(), tally, impact.diff() if impact is not None else None,
                    results)
