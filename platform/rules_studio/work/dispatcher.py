"""The bindings' dispatcher: drains a workspace's tenant outbox and runs every matching active
binding's published version on the records written, writing their effects once.

Short polling, not LISTEN/NOTIFY (docs/rules-at-work.md): every `rules_dispatch_seconds`
each process that runs jobs asks each workspace with an active binding whether its
outbox holds rows (one indexed query), and enqueues one drain job per such workspace under a
queueing lock (one waiting at most) and a lock (one running at most). A drain takes the oldest
rows (PostgreSQL: FOR UPDATE SKIP LOCKED), reads the records as they are now, evaluates, writes
the effects under the ledger's unique key and their webhook events in the event outbox
(events.py), and deletes the rows, in one tenant transaction:
a crash before the commit leaves the rows for the next drain, and the ledger makes the replay
write nothing twice.
"""

from __future__ import annotations

import datetime
import logging
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.rules_studio.work import events as webhook_events
from insureops.platform.rules_studio.work import tenant_side
from insureops.platform.rules_studio.work.bindings import BindingPlan
from insureops.platform.rules_studio.work.effects import Effect, Execution, effects_for
from insureops.platform.rules_studio.work.evaluation import evaluate_records
from insureops.platform.tenancy.book.repository import RecordsConnection
from insureops.platform.tenancy.book.store import TenantStore, off_the_loop

log = logging.getLogger("insureops.rules.dispatcher")
DRAIN_BATCH = 500  # outbox rows per tenant transaction


@dataclass
class BindingTally:
    evaluated: int = 0
    effects: int = 0
    errors: int = 0
    last_error: str | None = None
    written: list[tuple[Execution, Effect]] = field(default_factory=list)


@dataclass
class DrainReport:
    """What one drain did: outbox rows taken, and per binding its counts and new effects."""

    taken: int = 0
    bindings: dict[str, BindingTally] = field(default_factory=lambda: defaultdict(BindingTally))


async def _records(connection: RecordsConnection, tenant_id: str, rows: list[dict]):
    """(record type -> {id: values}) and (type, id) -> events, of the outbox rows."""
    wanted: dict[str, set[uuid.UUID]] = defaultdict(set)
    events: dict[tuple[str, uuid.UUID], set[str]] = defaultdict(set)
    for row in rows:
        wanted[row["record_type"]].add(row["record_id"])
        events[(row["record_type"], row["record_id"])].add(row["event"])
    found = {record_type: await tenant_side.records_by_id(connection, record_type, tenant_id,
                                                          ids)
             for record_type, ids in wanted.items()}
    return found, events


def _effects(plan: BindingPlan, execution: Execution, tenant_id: str,
             records: list[tuple[uuid.UUID, dict]], as_of: datetime.date,
             now: datetime.datetime) -> tuple[int, list[Effect]]:
    """How many records the binding's `where` took, and their effects (CPU: off the loop)."""
    outcomes = evaluate_records(plan.source, plan.record_type, [v for _, v in records], as_of,
                                plan.condition)
    evaluated, effects = 0, []
    for (record_id, values), outcome in zip(records, outcomes, strict=True):
        if not outcome.matched:
            continue
        evaluated += 1
        effects += effects_for(outcome.result, outcome.error, execution, tenant_id,
                               plan.record_type, record_id, values, now)
    return evaluated, effects


async def _run_plan(connection: RecordsConnection, threads: BoundedExecutor | None,
                    plan: BindingPlan, tenant_id: str, records: list[tuple[uuid.UUID, dict]],
                    as_of: datetime.date, now: datetime.datetime, tally: BindingTally) -> None:
    execution = Execution(plan.rule_id, plan.ruleset, plan.version, "binding", plan.binding_id)
    evaluated, effects = await off_the_loop(threads, _effects, plan, execution, tenant_id,
                                            records, as_of, now)
    tally.evaluated += evaluated
    for effect in await tenant_side.write_effects(connection, execution, tenant_id, effects):
        if effect.kind == "error":
            tally.errors += 1
            tally.last_error = f"{effect.record_type} {effect.record_id}: {effect.error}"
        else:
            tally.effects += 1
            tally.written.append((execution, effect))


async def _drain(connection: RecordsConnection, tenant_id: str, plans: list[BindingPlan],
                 as_of: datetime.date, now: datetime.datetime, limit: int,
                 threads: BoundedExecutor | None) -> DrainReport:
    report = DrainReport()  # made again if the store runs the work once more
    rows = await tenant_side.take_pending(connection, tenant_id, limit)
    if not rows:
        return report
    report.taken = len(rows)
    found, events = await _records(connection, tenant_id, rows)
    for plan in plans:
        chosen = [(record_id, values)
                  for record_id, values in found.get(plan.record_type, {}).items()
                  if plan.events & events[(plan.record_type, record_id)]]
        if chosen:
            await _run_plan(connection, threads, plan, tenant_id, chosen, as_of, now,
                            report.bindings[plan.binding_id])
    written = [w for tally in report.bindings.values() for w in tally.written]
    await webhook_events.stage(connection, tenant_id, written, now)  # with the effects
    await tenant_side.forget(connection, (row["id"] for row in rows))
    return report


async def drain_once(store: TenantStore, tenant_id: str, plans: list[BindingPlan],
                     as_of: datetime.date, now: datetime.datetime,
                     threads: BoundedExecutor | None = None,
                     limit: int = DRAIN_BATCH) -> DrainReport:
    """One batch of the tenant's outbox, in one transaction of its store (the evaluation on
    `threads`)."""
    return await store.run_statements(_drain, tenant_id, plans, as_of, now, limit, threads)


async def _pending(connection: RecordsConnection, tenant_id: str) -> bool:
    return (await tenant_side.has_pending(connection, tenant_id)
            or await tenant_side.has_events(connection, tenant_id))


async def pending(store: TenantStore, tenant_id: str) -> bool:
    """Whether the tenant's outbox holds writes to drain, or its event outbox events to
    relay (a drain job does both)."""
    return await store.run_statements(_pending, tenant_id, read_only=True)
