"""Failed records of a binding or a book run: listed with their errors, and one retried.

A failed evaluation is a ledger row of kind `error` (source `binding:<id>` or `run:<id>`, the
engine's code and message); a dry run keeps its first failures in its summary instead
(`failed_examples`: it writes nothing to the tenant database). A retry evaluates the record as
it is **now** with the binding's published version (or the run's version) and, for a binding
or an apply run, writes its effects and their events as a drain does, under the ledger's key;
when it succeeds (or the `where` no longer holds) the failure rows are deleted. The tenant
side runs on the workspace's tenant store (`TenantStore.run_statements`); docs/rules-at-work.md
("Failed records").
"""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass, field

import sqlalchemy as sa

from insureops.platform.data.database import UnitOfWork
from insureops.platform.rules_studio.errors import FailureNotFoundError, RuleNotPublishedError
from insureops.platform.rules_studio.execution import published
from insureops.platform.rules_studio.models import Rule, RuleVersion
from insureops.platform.rules_studio.work import bindings, events, ledger, runs, tenant_side
from insureops.platform.rules_studio.work.effects import Execution, effects_for
from insureops.platform.rules_studio.work.evaluation import evaluate_records
from insureops.platform.tenancy.book.repository import RecordsConnection
from insureops.platform.tenancy.book.store import off_the_loop


@dataclass(frozen=True)
class Failure:
    record_type: str
    record_id: str
    record_version: str | None
    code: str
    message: str
    failed_at: datetime.datetime | None


@dataclass(frozen=True)
class RetryTarget:
    """What a retry runs: the execution (rule, version, binding or run), the version's
    source, the record type and condition, and whether it writes (binding, apply run)."""

    execution: Execution
    source: str
    record_type: str
    condition: str | None
    writes: bool


@dataclass
class RetryOutcome:
    status: str  # succeeded | failed | not_matched
    decision: str | None = None
    error: dict | None = None
    effects: int = 0
    written: list = field(default_factory=list)


def _split(text: str | None) -> tuple[str, str]:
    code, _, message = (text or "error").partition(": ")
    return code, message or code


def _errors(label: str, record_id: uuid.UUID | None = None):
    table = ledger.effects
    query = sa.select(table).where(table.c.source == label, table.c.effect == "error")
    return query if record_id is None else query.where(table.c.record_id == record_id)


async def listing(connection: RecordsConnection, tenant_id: str, label: str, limit: int,
                  after: int | None) -> tuple[list[Failure], int | None]:
    """The failures `label` (binding:<id>, run:<id>) recorded, oldest first, `limit` after the
    cursor `after`; and the next cursor (None at the end)."""
    table = ledger.effects
    query = _errors(label).where(table.c.tenant_id == tenant_id).order_by(table.c.id)
    if after is not None:
        query = query.where(table.c.id > after)
    rows = await connection.all(query.limit(limit + 1), {})
    page = [Failure(row["record_type"], str(row["record_id"]), row["record_version"],
                    *_split(row["error"]), row["created_at"]) for row in rows[:limit]]
    return page, (rows[limit - 1]["id"] if len(rows) > limit else None)


def from_summary(summary: dict | None, record_type: str) -> list[Failure]:
    """A dry run's failures: the first ones its summary kept."""
    return [Failure(record_type, item["record"], None, item["code"], item["message"], None)
            for item in (summary or {}).get("failed_examples", [])]


async def retry(connection: RecordsConnection, tenant_id: str, label: str,
                target: RetryTarget, record_id: uuid.UUID, as_of: datetime.date,
                now: datetime.datetime, known: bool) -> RetryOutcome:
    """Evaluate the failed record `record_id` again (see the module docstring), in one
    transaction of the tenant store. `known`: the failure is known without the ledger (a dry
    run's summary); else the ledger must hold one of `label` for the record
    (FailureNotFoundError)."""
    failed = await connection.first(_errors(label, record_id).where(
        ledger.effects.c.tenant_id == tenant_id).limit(1), {})
    if failed is None and not known:
        raise FailureNotFoundError("This binding or run recorded no failure of that record.")
    found = await tenant_side.records_by_id(connection, target.record_type, tenant_id,
                                            [record_id])
    if record_id not in found:
        raise FailureNotFoundError("The record is no longer in the tenant database.")
    values = found[record_id]
    outcome = (await off_the_loop(None, evaluate_records, target.source, target.record_type,
                                  [values], as_of, target.condition))[0]
    if not outcome.matched:
        result = RetryOutcome("not_matched")
    elif outcome.result is None:
        code, message = outcome.error
        result = RetryOutcome("failed", error={"code": code, "message": message})
    else:
        result = RetryOutcome("succeeded", decision=outcome.result.decision)
    if target.writes and result.status != "not_matched":
        effects = effects_for(outcome.result, outcome.error, target.execution, tenant_id,
                              target.record_type, record_id, values, now)
        written = await tenant_side.write_effects(connection, target.execution, tenant_id,
                                                  effects)
        result.written = [(target.execution, e) for e in written if e.kind != "error"]
        result.effects = len(result.written)
        await events.stage(connection, tenant_id, result.written, now)
    if target.writes and result.status != "failed":
        table = ledger.effects
        await connection.execute(sa.delete(table).where(
            table.c.source == label, table.c.effect == "error",
            table.c.record_id == record_id, table.c.tenant_id == tenant_id), {})
    return result


# --- the use cases (platform database, then the tenant database's work in a thread) ---------


async def binding_scope(uow: UnitOfWork, workspace_id: str, binding_id: str):
    """(label, RetryTarget) of the workspace's binding: its rule's published version now."""
    binding = await bindings.find(uow, workspace_id, binding_id)
    plan = next((p for p in await bindings.plans(uow, workspace_id) if p.binding_id ==
                 binding.id), None)
    if plan is None:
        _, version = await published(uow, workspace_id, binding.rule_id)  # raises its 409
        raise RuleNotPublishedError(f"The rule has no published version ({version.number}).")
    execution = Execution(plan.rule_id, plan.ruleset, plan.version, "binding", plan.binding_id)
    return execution.label, RetryTarget(execution, plan.source, plan.record_type,
                                        plan.condition, True)


async def run_scope(uow: UnitOfWork, workspace_id: str, run_id: str):
    """(label, RetryTarget, run) of the workspace's run: its version, its mode."""
    run = await runs.find(uow, workspace_id, run_id)
    rule = await uow.session.get(Rule, run.rule_id)
    version = await uow.session.get(RuleVersion, (run.rule_id, run.version))
    execution = Execution(run.rule_id, rule.name, run.version, "run", run.id)
    return execution.label, RetryTarget(execution, version.source, run.record_type,
                                        run.condition, run.mode == "apply"), run


async def count_retry(uow: UnitOfWork, model, object_id: str, effects: int) -> None:
    """A failure retried with success: one error fewer, its effects more (one UPDATE)."""
    await uow.session.execute(sa.update(model).where(model.id == object_id).values(
        errors=sa.case((model.errors > 0, model.errors - 1), else_=0),
        effects=model.effects + effects))
