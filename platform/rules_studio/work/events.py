"""The webhook events of rules at work, none lost and none doubled across two databases:

- `decision.made` and `task.opened` of each effect are staged (`staged`) in the tenant
  database's event outbox **in the effects' own transaction**, keyed by the effect's ledger
  key; `relay` then publishes them into the platform database's webhook outbox under that key
  (idempotent: a second publish of a key writes nothing) and deletes them from the tenant
  outbox. A crash before the relay leaves them staged, a crash between its two commits
  publishes them again harmlessly; the drain and run jobs and the dispatcher relay again.
- `run.started|completed|failed|cancelled` are published in the platform transaction that
  changes the run's status (`run_changed`): one database, one transaction.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.rules_studio.work import tenant_side
from insureops.platform.rules_studio.work.effects import Effect, Execution
from insureops.platform.tenancy.book.repository import RecordsConnection
from insureops.platform.tenancy.book.store import TenantStore
from insureops.platform.webhooks.outbox import publish

RUN_EVENTS = {"running": "run.started", "completed": "run.completed", "failed": "run.failed",
              "cancelled": "run.cancelled"}
RELAY_BATCH = 200  # staged events published per platform transaction


def _ruleset(execution: Execution) -> dict[str, Any]:
    return {"rule_id": execution.rule_id, "name": execution.ruleset,
            "version": execution.version}


def decision_payload(execution: Execution, effect: Effect,
                     now: datetime.datetime) -> dict[str, Any]:
    decided = effect.decided or {}
    return {"ruleset": _ruleset(execution),
            "record": {"type": effect.record_type, "id": str(effect.record_id)},
            "decision": decided.get("decision"), "score": decided.get("score"),
            "fired": decided.get("fired", []), "reasons": decided.get("reasons", []),
            "outputs": decided.get("outputs", {}),
            "execution_id": execution.execution_id(effect.record_id, effect.record_version),
            "source": execution.source,
            "binding_id": execution.source_id if execution.source == "binding" else None,
            "run_id": execution.source_id if execution.source == "run" else None,
            "decided_at": now}


def task_payload(execution: Execution, effect: Effect, now: datetime.datetime) -> dict:
    values = effect.values
    return {"task": {"id": str(values["id"]), "subject": values["subject"],
                     "priority": values["priority"], "status": values["status"]},
            "record": {"type": effect.record_type, "id": str(effect.record_id)},
            "ruleset": _ruleset(execution),
            "execution_id": execution.execution_id(effect.record_id, effect.record_version),
            "opened_at": now}


def run_payload(run: Any, now: datetime.datetime) -> dict[str, Any]:
    return {"run": {"id": run.id, "rule_id": run.rule_id, "version": run.version,
                    "mode": run.mode, "record_type": run.record_type, "status": run.status,
                    "total": run.total, "done": run.done, "errors": run.errors},
            "summary": run.summary if run.status != "running" else None, "at": now}


def _text(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"), default=lambda value: value.isoformat())


def staged(tenant_id: str, written: list[tuple[Execution, Effect]],
           now: datetime.datetime) -> list[dict[str, Any]]:
    """The event outbox rows of effects just written: one decision.made per decision that
    wrote effects, one task.opened per task, keyed by the effect's ledger key."""
    rows, decided = [], set()
    for execution, effect in written:
        execution_id = execution.execution_id(effect.record_id, effect.record_version)
        if execution_id not in decided and effect.decided is not None:
            decided.add(execution_id)
            rows.append({"tenant_id": tenant_id, "event_key": f"decision:{execution_id}",
                         "event_type": "decision.made", "created_at": now,
                         "payload": _text(decision_payload(execution, effect, now))})
        if effect.kind == "task":
            rows.append({"tenant_id": tenant_id, "event_key": f"task:{execution_id}",
                         "event_type": "task.opened", "created_at": now,
                         "payload": _text(task_payload(execution, effect, now))})
    return rows


async def stage(connection: RecordsConnection, tenant_id: str,
                written: list[tuple[Execution, Effect]], now: datetime.datetime) -> None:
    """Stage the events of `written` in the caller's tenant transaction (the effects')."""
    await tenant_side.stage_events(connection, staged(tenant_id, written, now))


async def _forget(connection: RecordsConnection, event_ids: list[int]) -> None:
    await tenant_side.forget_events(connection, event_ids)


def _aware(moment: datetime.datetime) -> datetime.datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=datetime.UTC)


async def relay(database: Database, store: TenantStore, workspace_id: str, max_pending: int,
                limit: int = RELAY_BATCH) -> int:
    """Publish the workspace's staged events into the platform database's webhook outbox
    (under their keys: a key published before writes nothing), then delete them from the
    tenant's event outbox; how many were relayed. Safe to run in several processes at once:
    two relays that took the same events publish each once (the key) and delete it twice."""
    relayed = 0
    while True:
        rows = await store.run_statements(tenant_side.take_events, workspace_id, limit,
                                          read_only=True)
        if not rows:
            return relayed
        async with database.unit_of_work() as uow:
            counts: dict[str, int] = {}  # each endpoint's queue counted once a round
            for row in rows:
                await publish(uow.session, workspace_id, row["event_type"],
                              json.loads(row["payload"]), now=_aware(row["created_at"]),
                              key=row["event_key"], max_pending=max_pending, counts=counts)
        await store.run_statements(_forget, [row["id"] for row in rows])
        relayed += len(rows)
        if len(rows) < limit:
            return relayed


async def pending(store: TenantStore, tenant_id: str) -> bool:
    """Whether the tenant's event outbox holds events to relay."""
    return await store.run_statements(tenant_side.has_events, tenant_id, read_only=True)


async def run_changed(uow: UnitOfWork, run: Any, now: datetime.datetime,
                      max_pending: int) -> bool:
    """Publish the run's transition (started, completed, failed, cancelled) in `uow`, the
    platform transaction that changed the run's status."""
    event = RUN_EVENTS.get(run.status)
    if event is None:
        return False
    await publish(uow.session, run.workspace_id, event, run_payload(run, now), now=now,
                  key=f"run:{run.id}:{run.status}", max_pending=max_pending)
    return True
