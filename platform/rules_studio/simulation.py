"""The studio's simulate: a ruleset over a request's cases, bounded in cases and time, with
the CLI's evaluation, summary, `expect` check and impact diff (batch.runs).

Pure CPU work without side effects: a job of the rules worker processes (platform.compute).
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass
from typing import Any

from insureops.dsl import CompiledRuleset, compile_ruleset
from insureops.engine.inputs import jsonio
from insureops.platform.batch.cases import Case
from insureops.platform.batch.runs import run_cases
from insureops.platform.rules_studio.checking import FILENAME
from insureops.platform.rules_studio.errors import SimulationTooLargeError, SimulationTooSlowError
from insureops.platform.rules_studio.records import record_input

MAX_CASES = 10_000
MAX_RECORD_CASES = 100  # cases naming a tenant record, read from its database per request
DEFAULT_TIME_BUDGET = 20.0  # seconds of one request's simulation
MAX_RESPONSE_CHARS = 32_000_000  # characters of one request's per-case results
CLI_HINT = ("simulate larger sets offline with `insureops rules simulate FILE --cases "
            "CASES.jsonl` (and `insureops rules diff OLD NEW --cases CASES.jsonl`)")
_CHECK_EVERY = 64  # cases between looks at the clock


@dataclass(frozen=True)
class SimulationInput:
    """One request's cases, as plain data: `cases` holds (id, inputs, as_of, expect) tuples."""

    source: str
    cases: list[tuple[Any, dict, datetime.date | None, Any]]
    as_of: datetime.date
    explain: bool = False
    baseline_source: str | None = None
    # (case index, record type, record): cases whose inputs are a tenant record, given to the
    # ruleset's only input as execute gives it
    records: tuple[tuple[int, str, dict], ...] = ()


def check_size(count: int) -> None:
    if count > MAX_CASES:
        raise SimulationTooLargeError(f"{count} cases is more than the {MAX_CASES:,} one request "
                                      f"may simulate; {CLI_HINT}.")


def check_records(count: int) -> None:
    if count > MAX_RECORD_CASES:
        raise SimulationTooLargeError(
            f"{count} cases naming a tenant record is more than the {MAX_RECORD_CASES} one "
            f"request may read; send their inputs instead, or split the request.")


def simulate(job: SimulationInput, time_budget: float = DEFAULT_TIME_BUDGET) -> str:
    """The simulation's JSON text (numbers exact, as engine.jsonio writes them). Raises RulesetInvalidError for a source (or baseline) with an error, and
    SimulationTooSlowError past `time_budget` seconds."""
    check_size(len(job.cases))
    compiled = compile_ruleset(job.source, filename=FILENAME)
    baseline = (compile_ruleset(job.baseline_source, filename=FILENAME)
                if job.baseline_source is not None else None)
    deadline = time.monotonic() + time_budget
    job_cases = _with_records(compiled, job)

    written = 0

    def on_case(number: int, size: int) -> None:
        nonlocal written
        written += size
        if written > MAX_RESPONSE_CHARS:
            raise SimulationTooLargeError(
                f"The simulation's results passed {MAX_RESPONSE_CHARS // 1_000_000} million "
                f"characters after {number} of {len(job.cases)} cases (reasons, outputs or "
                f"traces this large); send fewer cases or simulate without `explain`, or "
                f"{CLI_HINT}.")
        if number % _CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise SimulationTooSlowError(
                f"The simulation did not finish within {time_budget:g} s ({number} of "
                f"{len(job.cases)} cases done); send fewer cases, or {CLI_HINT}.")

    cases = (Case(number, case_id, inputs, as_of or job.as_of, None, expect)
             for number, (case_id, inputs, as_of, expect) in enumerate(job_cases, start=1))
    run = run_cases(compiled, cases, filename=FILENAME, explain=job.explain, baseline=baseline,
                    on_case=on_case)
    impact = None
    if run.impact is not None:
        impact = {"old": baseline.name, "new": compiled.name, **run.impact.to_dict()}
    # the per-case entries are already JSON text (the CLI's result lines): joined, not re-read
    return "".join(('{"ruleset": ', jsonio.dumps(compiled.name),
                    ', "results": [', ", ".join(run.results),
                    '], "summary": ', jsonio.dumps(run.summary.to_dict()),
                    ', "expectations": ', jsonio.dumps(run.expectations.to_dict()),
                    ', "impact": ', jsonio.dumps(impact), "}"))


def _with_records(compiled: CompiledRuleset, job: SimulationInput) -> list[tuple]:
    """The job's cases, each record case's inputs naming the ruleset's only input."""
    if not job.records:
        return job.cases
    cases = list(job.cases)
    for index, record_type, record in job.records:
        case_id, _, as_of, expect = cases[index]
        cases[index] = (case_id, {record_input(compiled, record_type): record}, as_of, expect)
    return cases
