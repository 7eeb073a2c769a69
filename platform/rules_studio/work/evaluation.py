"""Evaluating a ruleset version on a batch of tenant records: the condition first, then the
ruleset, through `evaluate_many` (one compiled form, cached by source in each process).

Module-level functions of plain arguments with picklable results, so a batch can run in a
rules worker process (platform.compute: the serve process keeps its CPU for requests) or in
the thread of an `insureops worker` job, the same way.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from insureops.dsl import compile_ruleset
from insureops.platform.rules_studio.records import record_input
from insureops.platform.rules_studio.work.conditions import compile_condition, holds

FILENAME = "ruleset.rules"


@dataclass(frozen=True)
class Outcome:
    """One record's evaluation: whether the condition held (False: nothing else was done),
    the version's Result or (code, message) of its error, and the baseline's likewise
    (dry runs against the published version)."""

    matched: bool
    result: Any = None
    error: tuple[str, str] | None = None
    baseline: Any = None
    baseline_error: tuple[str, str] | None = None


def _outcomes(compiled, name: str, records: list[dict], as_of: datetime.date):
    for item in compiled.evaluate_many(({name: record} for record in records), as_of=as_of):
        if isinstance(item, Exception):
            yield None, (getattr(item, "code", "error"), getattr(item, "message", str(item)))
        else:
            yield item, None


def evaluate_records(source: str, record_type: str, records: list[dict],
                     as_of: datetime.date, condition: str | None = None,
                     baseline: str | None = None) -> list[Outcome]:
    """The outcome of `source` (and `baseline`) on each of `records` (JSON values), in order;
    records failing `condition` are not evaluated (matched False)."""
    compiled = compile_ruleset(source, filename=FILENAME)
    name = record_input(compiled, record_type)
    matched = [True] * len(records)
    if condition:
        check = compile_condition(record_type, condition)
        matched = [result is not None and holds(result) for result, _ in
                   _outcomes(check, record_type, records, as_of)]
    chosen = [record for record, keep in zip(records, matched, strict=True) if keep]
    results = iter(list(_outcomes(compiled, name, chosen, as_of)))
    olds = None
    if baseline is not None:
        old = compile_ruleset(baseline, filename=FILENAME)
        olds = iter(list(_outcomes(old, record_input(old, record_type), chosen, as_of)))
    found = []
    for keep in matched:
        if not keep:
            found.append(Outcome(False))
            continue
        result, error = next(results)
        before, before_error = next(olds) if olds is not None else (None, None)
        found.append(Outcome(True, result, error, before, before_error))
    return found


def input_name(source: str, record_type: str) -> str:
    """The input a record of `record_type` is given to (RecordNotApplicableError if none)."""
    return record_input(compile_ruleset(source, filename=FILENAME), record_type)
