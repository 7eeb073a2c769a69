"""Book runs: asking for one (202: a row and a job), reading and cancelling it, and running it
batch by batch with a checkpoint after each, so a run killed half way goes on where it stopped.

Each batch is read from the workspace's tenant store as one page in id order after the
checkpoint (no connection held between batches), evaluated, folded into the summary (and the
impact), its effects written in one tenant transaction under the ledger's key, and then
checkpointed (last id, counts, accumulators). A crash between the effects and
the checkpoint redoes the batch: the ledger writes nothing twice and the counts come from the
checkpoint, so the final counts are exact. Budgets: docs/rules-at-work.md ("Budgets").
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import func, select
from ulid import ULID

from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.rules_studio import service as studio
from insureops.platform.rules_studio.errors import (
    RuleNotPublishedError,
    RunFinishedError,
    RunNotFoundError,
    RunsBusyError,
    RunTooLargeError,
)
from insureops.platform.rules_studio.models import Rule, RuleVersion
from insureops.platform.rules_studio.service import Actor
from insureops.platform.rules_studio.work import book
from insureops.platform.rules_studio.work.effects import Execution
from insureops.platform.rules_studio.work.models import FINISHED, RuleRun
from insureops.platform.tenancy.book.store import TenantStore

log = logging.getLogger("insureops.rules.runs")
RUN_JOB = "rules.run"


@dataclass(frozen=True)
class RunRequest:
    record_type: str
    mode: str
    version: int | None
    condition: str | None
    as_of: datetime.date | None


def job_arguments(run: RuleRun) -> dict:
    return {"run_id": run.id, "workspace_id": run.workspace_id}


async def create(database: Database, jobs, actor: Actor, rule_id: str, request: RunRequest,
                 check, settings, now: datetime.datetime, today: datetime.date) -> RuleRun:
    """A queued run of version `request.version` (default: the published one; an apply run
    runs the published one only), after `check(source, record_type, condition)`."""
    async with database.unit_of_work() as uow:
        rule = await studio.find(uow, actor.workspace_id, rule_id)
        number = request.version or rule.published_version
        if number is None or (request.mode == "apply" and number != rule.published_version):
            raise RuleNotPublishedError(
                "An apply run runs the rule's published version: publish the version first."
                if request.mode == "apply" and number is not None else
                "The rule has no published version: name a `version` for a dry run, or "
                "publish one.")
        version = await studio.version_of(uow, rule, number)
    await check(version.source, request.record_type, request.condition)
    baseline = (rule.published_version if request.mode == "dry_run"
                and rule.published_version not in (None, number) else None)
    async with database.unit_of_work() as uow:
        active = (await uow.session.execute(select(func.count()).select_from(RuleRun).where(
            RuleRun.workspace_id == actor.workspace_id,
            RuleRun.status.in_(("queued", "running"))))).scalar_one()
        if active >= settings.rules_run_active_per_workspace:
            raise RunsBusyError(
                f"This workspace already has {active} runs queued or running, the most it may "
                "have (INSUREOPS_RULES_RUN_ACTIVE_PER_WORKSPACE); cancel one or wait.")
        run = RuleRun(id=str(ULID()), workspace_id=actor.workspace_id, rule_id=rule.id,
                      version=number, baseline_version=baseline,
                      record_type=request.record_type, condition=request.condition,
                      mode=request.mode, status="queued", as_of=request.as_of or today,
                      created_by=actor.user_id, created_at=now, updated_at=now, done=0,
                      matched=0, errors=0, effects=0, elapsed_seconds=0.0,
                      cancel_requested=False)
        uow.session.add(run)
        await uow.session.flush()
        await jobs.enqueue_in(uow, RUN_JOB, **job_arguments(run))
    return run


async def find(uow: UnitOfWork, workspace_id: str, run_id: str) -> RuleRun:
    run = await uow.session.get(RuleRun, run_id)
    if run is None or run.workspace_id != workspace_id:
        raise RunNotFoundError("No such run in this workspace.")
    return run


async def listing(uow: UnitOfWork, workspace_id: str, rule_id: str | None,
                  limit: int) -> list[RuleRun]:
    statement = select(RuleRun).where(RuleRun.workspace_id == workspace_id)
    if rule_id is not None:
        statement = statement.where(RuleRun.rule_id == rule_id)
    statement = statement.order_by(RuleRun.id.desc()).limit(limit)
    return list((await uow.session.execute(statement)).scalars())


async def cancel(uow: UnitOfWork, workspace_id: str, run_id: str,
                 now: datetime.datetime) -> RuleRun:
    """Ask the run to stop: a queued run is cancelled at once, a running one at its next
    checkpoint (what it wrote stays: each effect is whole and audited)."""
    run = await find(uow, workspace_id, run_id)
    if run.status in FINISHED:
        raise RunFinishedError(f"The run has {run.status}; there is nothing to cancel.")
    run.cancel_requested, run.updated_at = True, now
    if run.status == "queued":
        run.status, run.finished_at = "cancelled", now
    return run


def progress(run: RuleRun) -> dict:
    """total, done, matched, errors, effects, rate (records/s), ETA (s), percent."""
    rate = run.done / run.elapsed_seconds if run.elapsed_seconds > 0 and run.done else None
    left = None if run.total is None else max(0, run.total - run.done)
    eta = 0.0 if run.status == "completed" else (
        round(left / rate, 1) if rate and left is not None else None)
    percent = (100.0 if run.status == "completed" else round(100 * run.done / run.total, 1)
               if run.total else None)
    return {"total": run.total, "done": run.done, "matched": run.matched,
            "errors": run.errors, "effects": run.effects,
            "rate": round(rate, 1) if rate else None, "eta_seconds": eta, "percent": percent}


# --- running a run (the job) ---------------------------------------------------------------


@dataclass(frozen=True)
class RunServices:
    """What performing a run needs (from the job's services)."""

    database: Database
    store: Callable[[str], Awaitable[TenantStore]]  # a workspace's tenant store (its pools)
    threads: BoundedExecutor
    gate: object | None  # the rules workers' WorkGate in the serve process, else None
    settings: object
    clock: object


async def _load(database: Database, run_id: str):
    async with database.unit_of_work() as uow:
        run = await uow.session.get(RuleRun, run_id)
        if run is None:
            return None
        rule = await uow.session.get(Rule, run.rule_id)
        source = await uow.session.get(RuleVersion, (run.rule_id, run.version))
        baseline = (await uow.session.get(RuleVersion, (run.rule_id, run.baseline_version))
                    if run.baseline_version is not None else None)
        return run, rule.name, source.source, baseline.source if baseline else None


@dataclass(frozen=True)
class RunHooks:
    """What a run tells the job around it: `transition(uow, run)` inside the platform
    transaction that changed its status (its webhook event, in that transaction), and
    `relay()` after a batch's effects (and their staged events) committed."""

    transition: Callable[[UnitOfWork, RuleRun], Awaitable[object]]
    relay: Callable[[], Awaitable[object]]


async def _update(database: Database, run_id: str, transition=None, **values) -> RuleRun:
    async with database.unit_of_work() as uow:
        await uow.session.execute(sa.update(RuleRun).where(RuleRun.id == run_id).values(
            **values))
        run = await uow.session.get(RuleRun, run_id, populate_existing=True)
        if transition is not None:
            await transition(uow, run)
    return run


def _now(services: RunServices) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(services.clock(), datetime.UTC)


async def _compute(services: RunServices, workspace_id: str, function, *args):
    if services.gate is None:
        return await services.threads.run(function, *args)
    async with services.gate.admit(workspace_id):
        return await services.threads.run(function, *args)


async def perform(services: RunServices, run_id: str, should_stop, hooks: RunHooks) -> None:
    """Run (or resume) the run `run_id` until it ends, is cancelled, or `should_stop()`;
    `hooks` publish its transitions and relay its effects' events."""
    loaded = await _load(services.database, run_id)
    if loaded is None or loaded[0].status in FINISHED:
        return
    run, ruleset, source, baseline = loaded
    if run.cancel_requested:
        await _update(services.database, run_id, hooks.transition, status="cancelled",
                      finished_at=_now(services), updated_at=_now(services))
        return
    if run.mode == "apply" and run.status == "running":
        await hooks.relay()  # resumed: events a crash left staged go out first
    if run.status == "queued":
        run = await _update(services.database, run_id, hooks.transition, status="running",
                            started_at=_now(services), updated_at=_now(services))
    if run.total is None:
        total = await book.count(await services.store(run.workspace_id), run.record_type,
                                 run.workspace_id)
        if total > services.settings.rules_run_max_records:
            raise RunTooLargeError(
                f"The book holds {total} {run.record_type} records, more than a run may cover "
                f"({services.settings.rules_run_max_records}, INSUREOPS_RULES_RUN_MAX_RECORDS); "
                "narrow it with `where`.")
        run = await _update(services.database, run_id, total=total, updated_at=_now(services))
    state = (book.RunState.load(run.state) if run.state else
             await services.threads.run(book.RunState.start, source, baseline))
    plan = book.RunPlan(run.workspace_id, run.record_type, source, baseline, run.condition,
                        run.as_of, run.mode == "apply",
                        Execution(run.rule_id, ruleset, run.version, "run", run.id))
    await _loop(services, run, plan, state, should_stop, hooks)


async def _loop(services: RunServices, run: RuleRun, plan: book.RunPlan,
                state: book.RunState, should_stop, hooks: RunHooks) -> None:
    done, matched, errors, effects = run.done, run.matched, run.errors, run.effects
    elapsed, cancelled, after = run.elapsed_seconds, False, run.checkpoint
    while not should_stop():
        started = time.perf_counter()
        # the store asked for again each batch: the pools may have closed the one of an hour
        # ago (least recently used, or its URL saved again)
        store = await services.store(run.workspace_id)
        page = await book.read_page(store, run.record_type, run.workspace_id, after,
                                    services.settings.rules_run_batch_size)
        if not page:
            break
        batch = await _compute(services, run.workspace_id, book.process_batch, plan, state,
                               page, _now(services))
        written = await book.write_batch(store, plan, batch.effects, _now(services))
        done += batch.done
        matched += batch.matched
        errors += batch.errors
        effects += written.effects
        elapsed += time.perf_counter() - started
        after = batch.last_id
        saved = await _update(
            services.database, run.id, done=done, matched=matched, errors=errors,
            effects=effects, elapsed_seconds=elapsed, checkpoint=after,
            state=state.dump(), summary=state.summary_dict(), updated_at=_now(services))
        if any(e.kind != "error" for e in written.written):
            await hooks.relay()
        if saved.cancel_requested:
            cancelled = True
            break
    if should_stop() and not cancelled:
        return  # shutting down: the run stays running and resumes from its checkpoint
    await _update(services.database, run.id, hooks.transition,
                  status="cancelled" if cancelled else "completed",
                  finished_at=_now(services), summary=state.summary_dict(),
                  impact=state.impact_dict(), updated_at=_now(services))


async def fail(database: Database, run_id: str, message: str, now: datetime.datetime,
               transition=None) -> RuleRun | None:
    """Mark the run failed with `message` (its effects so far stay); `transition(uow, run)`
    in that transaction."""
    async with database.unit_of_work() as uow:
        run = await uow.session.get(RuleRun, run_id)
        if run is None or run.status in FINISHED:
            return None
        run.status, run.error, run.finished_at, run.updated_at = "failed", message, now, now
        if transition is not None:
            await uow.session.flush()
            await transition(uow, run)
    return run


async def orphans(uow: UnitOfWork, older_than: datetime.datetime | None) -> list[RuleRun]:
    """Runs queued or running not touched since `older_than` (None: all of them)."""
    statement = select(RuleRun).where(RuleRun.status.in_(("queued", "running")))
    if older_than is not None:
        statement = statement.where(RuleRun.updated_at < older_than)
    return list((await uow.session.execute(statement)).scalars())


async def workspaces_running(uow: UnitOfWork, since: datetime.datetime) -> list[str]:
    """Workspaces with a run unfinished or changed since `since`."""
    rows = await uow.session.execute(select(RuleRun.workspace_id).where(sa.or_(
        RuleRun.status.in_(("queued", "running")), RuleRun.updated_at >= since)).distinct())
    return sorted(rows.scalars())
