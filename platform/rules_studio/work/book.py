"""One book run's computing, batch by batch: the summary and impact accumulators (pickled at
each checkpoint, so a resumed run goes on from them), reading the book a page at a time on the
tenant store, and writing the effects of an apply run there. The evaluation is sync code, run
in threads; the reads and writes are the store's use cases."""

from __future__ import annotations

import datetime
import json
import pickle
from dataclasses import dataclass, field

from insureops.dsl import compile_ruleset
from insureops.engine.evaluation.simulation import DiffAccumulator, SummaryAccumulator
from insureops.engine.inputs import jsonio
from insureops.platform.rules_studio.work import events, tenant_side
from insureops.platform.rules_studio.work.effects import Effect, Execution, effects_for
from insureops.platform.rules_studio.work.evaluation import FILENAME, evaluate_records
from insureops.platform.tenancy.book.repository import RecordsConnection
from insureops.platform.tenancy.book.store import TenantStore

MAX_ERROR_EXAMPLES = 20


@dataclass
class RunState:
    """What a run has gathered so far (pickled into rule_runs.state at each checkpoint)."""

    summary: SummaryAccumulator
    impact: DiffAccumulator | None
    failures: list[dict] = field(default_factory=list)  # the first failed records

    @classmethod
    def start(cls, source: str, baseline: str | None) -> RunState:
        new = compile_ruleset(source, filename=FILENAME)
        impact = None
        if baseline is not None:
            old = compile_ruleset(baseline, filename=FILENAME)
            impact = DiffAccumulator.for_rulesets(old.ir, new.ir, examples=3)
        return cls(SummaryAccumulator.for_ruleset(new.ir), impact)

    def dump(self) -> bytes:
        return pickle.dumps(self, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, data: bytes) -> RunState:
        # rule_runs.state is written by this code alone, in the platform database
        return pickle.loads(data)  # noqa: S301

    def summary_dict(self) -> dict:
        found = jsonio_plain(self.summary.summary().to_dict())
        found["failed_examples"] = self.failures
        return found

    def impact_dict(self) -> dict | None:
        return None if self.impact is None else jsonio_plain(self.impact.diff().to_dict())


def jsonio_plain(value: object) -> dict:
    """`value` as plain JSON values (exact decimals written as numbers)."""
    return json.loads(jsonio.dumps(value))


@dataclass
class BatchOutcome:
    done: int = 0
    matched: int = 0
    errors: int = 0
    effects: list[Effect] = field(default_factory=list)
    last_id: str | None = None


@dataclass(frozen=True)
class RunPlan:
    """What a run evaluates: the version's source, the baseline's (dry run), the condition."""

    tenant_id: str
    record_type: str
    source: str
    baseline: str | None
    condition: str | None
    as_of: datetime.date
    apply: bool
    execution: Execution


def process_batch(plan: RunPlan, state: RunState, page: list[dict],
                  now: datetime.datetime) -> BatchOutcome:
    """Evaluate one page of the book (rows as the store read them) and fold it into `state`;
    for an apply run, the effects to write."""
    rows = [(row["id"], tenant_side.row_json(row)) for row in page]
    outcome = BatchOutcome(done=len(rows), last_id=str(rows[-1][0]) if rows else None)
    evaluated = evaluate_records(plan.source, plan.record_type, [v for _, v in rows],
                                 plan.as_of, plan.condition, plan.baseline)
    for (record_id, values), found in zip(rows, evaluated, strict=True):
        if not found.matched:
            continue
        outcome.matched += 1
        if found.result is None:
            code, message = found.error
            outcome.errors += 1
            state.summary.add_error(code)
            if len(state.failures) < MAX_ERROR_EXAMPLES:
                state.failures.append({"record": str(record_id), "code": code,
                                       "message": message})
        else:
            state.summary.add(found.result)
        if state.impact is not None:
            before = found.baseline if found.baseline is not None else found.baseline_error[0]
            after = found.result if found.result is not None else found.error[0]
            state.impact.add(str(record_id), before, after)
        if plan.apply:
            outcome.effects += effects_for(found.result, found.error, plan.execution,
                                           plan.tenant_id, plan.record_type, record_id,
                                           values, now)
    return outcome


@dataclass(frozen=True)
class BatchWrite:
    """An apply batch written: the effects written now (their events staged with them), and
    how many of the batch's effects (errors aside) the run holds, counting those it wrote
    before a crash made it redo the batch."""

    written: list[Effect]
    effects: int


async def _write_batch(connection: RecordsConnection, plan: RunPlan, effects: list[Effect],
                       now: datetime.datetime, with_events: bool) -> BatchWrite:
    written = await tenant_side.write_effects(connection, plan.execution, plan.tenant_id,
                                              effects)
    if with_events:
        await events.stage(connection, plan.tenant_id,
                           [(plan.execution, e) for e in written if e.kind != "error"], now)
    new = {id(e) for e in written}
    held = await tenant_side.held_before(connection, plan.execution, plan.tenant_id,
                                         [e for e in effects if id(e) not in new])
    counted = sum(1 for e in [*written, *held] if e.kind != "error")
    return BatchWrite(written, counted)


async def write_batch(store: TenantStore, plan: RunPlan, effects: list[Effect],
                      now: datetime.datetime, *, with_events: bool = True) -> BatchWrite:
    """Write an apply batch's effects and (`with_events`: the service's runs) their webhook
    events into the event outbox, in one tenant transaction."""
    if not effects:
        return BatchWrite([], 0)
    return await store.run_statements(_write_batch, plan, effects, now, with_events)


async def read_page(store: TenantStore, record_type: str, tenant_id: str, after: str | None,
                    limit: int) -> list[dict]:
    """The next page of the book after the record `after` (a checkpoint), in id order."""
    return await store.run_statements(tenant_side.page_records, record_type, tenant_id,
                                      after, limit, read_only=True)


async def count(store: TenantStore, record_type: str, tenant_id: str) -> int:
    return await store.run_statements(tenant_side.count_records, record_type, tenant_id,
                                      read_only=True)
