"""The rule studio's CPU work as jobs of the rules worker processes (platform.compute).

Each is a module-level function of plain arguments with a plain (picklable) result, so it can
cross to a worker process and back; each worker keeps its compiled rulesets cached between
jobs (the engine's process-wide cache, keyed by source).
"""

from __future__ import annotations

import datetime

from insureops.dsl import compile_ruleset
from insureops.platform.rules_studio import assist, checking, simulation
from insureops.platform.rules_studio.checking import FILENAME, Analysis
from insureops.platform.rules_studio.execution import Evaluation, evaluate
from insureops.platform.rules_studio.records import record_input
from insureops.platform.rules_studio.work.conditions import compile_condition


def check(source: str) -> dict:
    """The check route's answer for `source`."""
    return checking.check_response(source)


def complete(source: str, line: int, column: int, known_source: str | None) -> dict:
    """The completion route's answer: what may be typed at (line, column)."""
    return assist.completion(source, line, column, known_source)


def hover(source: str, line: int, column: int) -> dict:
    """The hover route's answer: what the name at (line, column) is."""
    return assist.hover(source, line, column)


def analyse(source: str, today: datetime.date) -> Analysis:
    """A saved source's name, title, warnings and embedded tests' outcomes."""
    return checking.analyse(source, today)


def simulate(job: simulation.SimulationInput, time_budget: float) -> str:
    """The simulation's JSON text."""
    return simulation.simulate(job, time_budget)


def execute(source: str, inputs: dict | None, record: tuple[str, dict] | None,
            as_of: datetime.date, explain: bool) -> tuple[dict, Evaluation]:
    """One evaluation of `source`, on `inputs` or on a (record type, record) given to the
    ruleset's only input; the inputs it was given, and the outcome."""
    compiled = compile_ruleset(source, filename=FILENAME)
    if record is not None:
        record_type, values = record
        inputs = {record_input(compiled, record_type): values}
    return inputs or {}, evaluate(compiled, inputs or {}, as_of, explain)


def record_input_name(source: str, record_type: str) -> str:
    """The input of `source` a record of `record_type` is given to (RecordNotApplicableError
    when there is none), asked before the record is read."""
    return record_input(compile_ruleset(source, filename=FILENAME), record_type)


def check_target(source: str, record_type: str, condition: str | None) -> None:
    """A binding's or run's target, checked before it is saved: `source` takes a record of
    `record_type` (RecordNotApplicableError) and `condition` checks
    (ConditionInvalidError with line and column)."""
    record_input(compile_ruleset(source, filename=FILENAME), record_type)
    if condition:
        compile_condition(record_type, condition)
