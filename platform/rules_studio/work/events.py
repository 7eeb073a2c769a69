"""The webhook events of rules at work: `decision.made` and `task.opened` for each effect
written (once, as the effects), `run.started|completed|failed|cancelled` for each run's
transitions, published in the platform database's transaction through the webhooks package's
outbox (`insureops.platform.webhooks.outbox.publish`, the `hooks` branch of issue 31).

This module is the one call site: the payloads follow the webhooks event catalogue.
"""

from __future__ import annotations

import datetime
import importlib
from typing import Any

from insureops.platform.data.database import UnitOfWork
from insureops.platform.rules_studio.work.effects import Effect, Execution

RUN_EVENTS = {"running": "run.started", "completed": "run.completed", "failed": "run.failed",
              "cancelled": "run.cancelled"}


def _publisher():
    """The webhooks outbox's `publish`, or None while that package is not part of this build
    (it is merged from its own branch: the lead's merge of issue 31 joins the two)."""
    try:
        return importlib.import_module("insureops.platform.webhooks.outbox").publish
    except ModuleNotFoundError:
        return None


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


async def effects_written(uow: UnitOfWork, workspace_id: str,
                          written: list[tuple[Execution, Effect]],
                          now: datetime.datetime) -> int:
    """Publish one decision.made per decision that wrote effects, and task.opened per task:
    how many events."""
    publish = _publisher()
    if publish is None or not written:
        return 0
    count, decided = 0, set()
    for execution, effect in written:
        key = (execution.execution_id(effect.record_id, effect.record_version))
        if key not in decided and effect.decided is not None:
            decided.add(key)
            await publish(uow.session, workspace_id, "decision.made",
                          decision_payload(execution, effect, now), now=now)
            count += 1
        if effect.kind == "task":
            await publish(uow.session, workspace_id, "task.opened",
                          task_payload(execution, effect, now), now=now)
            count += 1
    return count


async def run_changed(uow: UnitOfWork, run: Any, now: datetime.datetime) -> bool:
    """Publish the run's transition (started, completed, failed, cancelled)."""
    publish = _publisher()
    event = RUN_EVENTS.get(run.status)
    if publish is None or event is None:
        return False
    await publish(uow.session, run.workspace_id, event, run_payload(run, now), now=now)
    return True
