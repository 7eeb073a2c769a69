"""Executing a rule's published version, on given inputs or on a client or policy of the
workspace's tenant database, and the append-only execution log."""

from __future__ import annotations

import datetime
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

from insureops.dsl import CompiledRuleset, EngineError, Result
from insureops.platform.data.columns import column_integer
from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.rules_studio import repository
from insureops.platform.rules_studio.errors import (
    EvaluationFailedError,
    ExecutionNotFoundError,
    InvalidCursorError,
    RuleArchivedError,
    RuleNotFoundError,
    RuleNotPublishedError,
)
from insureops.platform.rules_studio.models import Rule, RuleExecution, RuleVersion
from insureops.platform.rules_studio.records import RecordReader, RecordRef
from insureops.platform.rules_studio.service import (
    Actor,
    Page,
    Store,
    StudioDeps,
    decode_cursor,
    encode_cursor,
    find,
)
from insureops.platform.tenancy.book import service as tenant_records
from insureops.platform.tenancy.book.repository import TenantRecords

_KINDS = {"client": tenant_records.CLIENT, "policy": tenant_records.POLICY}


@dataclass(frozen=True)
class ExecuteCommand:
    """What to execute the published version on: `inputs`, or a tenant `record`."""

    inputs: dict | None
    record: RecordRef | None
    as_of: datetime.date | None
    explain: bool = False


@dataclass(frozen=True)
class Evaluation:
    """What one evaluation gave: the engine's result, or its error code and message."""

    result: Result | None
    error_code: str | None
    error_message: str | None
    duration_us: int


def input_digest(inputs: Any) -> str:
    """SHA-256 of the inputs as canonical JSON (sorted keys): equal inputs, equal digests."""
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


async def published(uow: UnitOfWork, workspace_id: str, rule_id: str, *,
                    store: Store = repository) -> tuple[Rule, RuleVersion]:
    """The rule and its published version, read together; 409s for an archived or
    unpublished rule."""
    found = await store.rule_with_version(uow.session, workspace_id, rule_id, published=True)
    if found is None:
        raise RuleNotFoundError("No such rule in this workspace.")
    rule, version = found
    if rule.status == "archived":
        raise RuleArchivedError("The rule is archived; it cannot be executed.")
    if rule.published_version is None or version is None:
        raise RuleNotPublishedError("The rule has no published version: publish one with "
                                    "PATCH {\"published_version\": N} first.")
    return rule, version


async def read_records(records: TenantRecords, tenant_id: str,
                       refs: list[RecordRef]) -> list[dict]:
    """The tenant's clients and policies, in the order of `refs` (one transaction); the
    first missing one is RecordMissingError."""
    return [await tenant_records.get(records, _KINDS[ref.type], tenant_id, ref.uuid)
            for ref in refs]


def evaluate(compiled: CompiledRuleset, inputs: dict, as_of: datetime.date,
             explain: bool) -> Evaluation:
    """One evaluation, timed; an engine error is an outcome, not an exception."""
    started = time.perf_counter()
    try:
        result = compiled.evaluate(inputs, as_of=as_of, explain=explain)
        error = None
    except EngineError as exc:
        result, error = None, exc
    duration = round((time.perf_counter() - started) * 1_000_000)
    if error is not None:
        return Evaluation(None, error.code, error.message, duration)
    return Evaluation(result, None, None, duration)


async def log(uow: UnitOfWork, deps: StudioDeps, actor: Actor, rule: Rule, version: int,
              inputs: dict, record: RecordRef | None, as_of: datetime.date,
              outcome: Evaluation, *, store: Store = repository) -> RuleExecution:
    """Append the execution to the log."""
    result = outcome.result
    row = RuleExecution(
        rule_id=rule.id, version=version, executed_by=actor.user_id, executed_at=deps.now(),
        input_digest=input_digest(inputs), record_type=record and record.type,
        record_uuid=record and str(record.uuid), as_of=as_of,
        decision=result.decision if result else None,
        score=format(result.score, "f") if result else None,
        fired=list(result.fired) if result else [], error=outcome.error_code,
        duration_us=outcome.duration_us)
    await store.add(uow.session, row)
    return row


async def execution_page(uow: UnitOfWork, workspace_id: str, rule_id: str, limit: int,
                         cursor: str | None,
                         filters: repository.ExecutionFilters = repository.ExecutionFilters(),
                         *, store: Store = repository) -> Page:
    """The rule's executions matching `filters`, newest first (Page.rules holds the log
    entries); the cursor is the last entry's id, so a page goes on with the same filters."""
    rule = await find(uow, workspace_id, rule_id, store=store)
    before = None
    if cursor:  # an execution id: "²" passed isdigit() and failed int(); 2**31 failed the
        before = column_integer(decode_cursor(cursor))  # database (500s, issue 28)
        if before is None:
            raise InvalidCursorError("The cursor is invalid.")
    rows = await store.executions(uow.session, rule.id, limit + 1, before, filters)
    more = len(rows) > limit
    rows = rows[:limit]
    return Page(rows, encode_cursor(str(rows[-1].id)) if more else None)


async def execution(uow: UnitOfWork, workspace_id: str, rule_id: str,
                    execution_id: int, *, store: Store = repository) -> RuleExecution:
    rule = await find(uow, workspace_id, rule_id, store=store)
    row = await store.execution(uow.session, rule.id, execution_id)
    if row is None:
        raise ExecutionNotFoundError("No such execution of this rule.")
    return row



async def execute(database: Database, deps: StudioDeps, records: RecordReader, actor: Actor,
                  rule_id: str, command: ExecuteCommand, *,
                  store: Store = repository) -> tuple[RuleExecution, Result]:
    """Execute the rule's published version on the command's inputs or tenant record and log
    it: the log entry and the result. EvaluationFailedError (logged too) when the version
    cannot be evaluated on them."""
    rule, version = await database.read(
        lambda uow: published(uow, actor.workspace_id, rule_id, store=store))
    given = None
    if command.record is not None:  # refused before the record is read when it cannot apply
        await deps.work.record_input(actor.workspace_id, version.source, command.record.type)
        given = (command.record.type, (await records([command.record]))[0])
    as_of = command.as_of or deps.today()
    inputs, outcome = await deps.work.execute(actor.workspace_id, version.source,
                                              command.inputs, given, as_of, command.explain)
    async with database.unit_of_work() as uow:
        row = await log(uow, deps, actor, rule, version.number, inputs, command.record, as_of,
                        outcome, store=store)
    if outcome.result is None:
        raise EvaluationFailedError(
            f"Version {version.number} could not be evaluated on these inputs "
            f"({outcome.error_code}: {outcome.error_message}); logged as execution {row.id}.",
            outcome.error_code, row.id)
    return row, outcome.result


def execution_filters(decision: str | None, failed: bool | None,
                      executed_from: datetime.date | None, executed_to: datetime.date | None,
                      record_uuid: object | None) -> repository.ExecutionFilters:
    """The log's filters, days (UTC) as a half-open range of instants: `executed_to` whole."""
    def start(day: datetime.date) -> datetime.datetime:
        return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
    return repository.ExecutionFilters(
        decision=decision, failed=failed,
        executed_from=start(executed_from) if executed_from else None,
        executed_before=(start(executed_to) + datetime.timedelta(days=1)
                         if executed_to and executed_to < datetime.date.max else None),
        record_uuid=str(record_uuid) if record_uuid is not None else None)
