"""Rules at work's background jobs and duties (registered in platform/jobs' registry):

- duty `rules.dispatch` (every rules_dispatch_seconds): enqueue a drain of each workspace
  whose outbox (or event outbox) holds rows, and keep its outbox switches in step with its
  bindings;
- job `rules.drain`: run the workspace's bindings on the records written (dispatcher.py) and
  relay the staged webhook events (events.py);
- job `rules.run`: run or resume a book run (runs.py);
- duty `rules.resume`: enqueue again runs left queued or running by a process that stopped.
"""

from __future__ import annotations

import datetime
import logging
import time

from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.jobs import JobContext, Retry, every, job
from insureops.platform.jobs.services import JobServices
from insureops.platform.rules_studio.work import bindings, dispatcher, events, runs
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.book.store import TenantStore
from insureops.platform.tenancy.workspaces import tenant_store

log = logging.getLogger("insureops.rules.jobs")
SWITCH_SYNC_SECONDS = 10.0  # how often the dispatcher re-applies a workspace's switches
DRAIN_ROUNDS = 20  # outbox batches one drain job takes before leaving the rest to the next
# workspaces with a run this recent are asked for staged events too (a run that failed for good
# between its effects and their relay), besides those with an active binding
RELAY_AFTER_RUNS = datetime.timedelta(hours=1)
_KEY = "rules_work"


def _extras(services: JobServices) -> dict:
    """This process's threads and bookkeeping (made on first use)."""
    found = services.extras.get(_KEY)
    if found is None:
        found = services.extras[_KEY] = {
            "threads": BoundedExecutor("rules-runs", 1 if services.heavy_work is not None
                                       else services.settings.jobs_concurrency),
            "switched": {}, "resumed": False, "relay_checked": 0.0}
        services.closers += [found["threads"].close]
    return found


async def _store(services: JobServices, workspace_id: str) -> TenantStore:
    """The workspace's tenant store: the process's one TenantPools, as the tenant API's."""
    async with services.database.unit_of_work() as uow:
        return await tenant_store(uow, services.secret_keys.fernet, services.tenant_pools,
                                  workspace_id, services.settings)


async def _relay(services: JobServices, store: TenantStore, workspace_id: str) -> int:
    """Publish the workspace's staged webhook events (events.relay)."""
    return await events.relay(services.database, store, workspace_id,
                              services.settings.webhook_max_pending_per_endpoint)


def _now(services: JobServices) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(services.clock(), datetime.UTC)


@every("rules.dispatch", lambda settings: settings.rules_dispatch_seconds)
async def dispatch(context: JobContext) -> None:
    services = context.services
    extras = _extras(services)
    recent: list[str] = []
    async with services.database.unit_of_work() as uow:
        bound = await bindings.workspaces_bound(uow)
        if time.monotonic() - extras["relay_checked"] > SWITCH_SYNC_SECONDS:
            # runs relay their events themselves; this is for a run that failed for good
            recent = await runs.workspaces_running(uow, _now(services) - RELAY_AFTER_RUNS)
            extras["relay_checked"] = time.monotonic()
    for workspace_id in sorted(set(bound) | set(recent)):
        try:
            store = await _store(services, workspace_id)
            if workspace_id in bound and (time.monotonic() - extras["switched"].get(
                    workspace_id, 0) > SWITCH_SYNC_SECONDS):
                async with services.database.unit_of_work() as uow:
                    wanted = await bindings.switches(uow, workspace_id)
                await bindings.apply_switches(store, wanted)
                extras["switched"][workspace_id] = time.monotonic()
            if await dispatcher.pending(store, workspace_id):
                await services.jobs.enqueue("rules.drain", workspace_id=workspace_id)
        except Exception as exc:  # noqa: BLE001 - one workspace's database must not stop others
            log.warning("dispatching workspace %s failed: %s", workspace_id, exc)


# No retry of its own: the dispatcher enqueues the next drain while the outbox holds rows. A
# queue retry would also collide with that waiting drain's queueing lock (procrastinate cannot
# put the failed job back: UniqueViolation), leaving it `doing` and its lock held for good.
@job("rules.drain", queue="rules",
     lock=lambda args: f"drain:{args['workspace_id']}",
     queueing_lock=lambda args: f"drain:{args['workspace_id']}")
async def drain(context: JobContext, *, workspace_id: str) -> None:
    services = context.services
    extras = _extras(services)
    # what a crash left staged goes out first
    await _relay(services, await _store(services, workspace_id), workspace_id)
    for _ in range(DRAIN_ROUNDS):
        async with services.database.unit_of_work() as uow:
            plans = await bindings.plans(uow, workspace_id)
        store = await _store(services, workspace_id)
        now = _now(services)
        report = await dispatcher.drain_once(store, workspace_id, plans, now.date(), now,
                                             extras["threads"])
        if report.taken == 0:
            return
        # the effects and their events committed in the tenant database: a crash from here
        # until the relay's commit leaves the events staged for the next relay
        async with services.database.unit_of_work() as uow:
            for binding_id, tally in report.bindings.items():
                await bindings.record_outcome(uow, binding_id, tally.evaluated,
                                              len(tally.written), tally.errors,
                                              tally.last_error, now)
        await _relay(services, store, workspace_id)
        if context.should_stop():
            return


def _run_services(services: JobServices) -> runs.RunServices:
    extras = _extras(services)
    gate = services.heavy_work.gate if services.heavy_work is not None else None
    return runs.RunServices(services.database, lambda workspace_id: _store(
        services, workspace_id), extras["threads"], gate, services.settings, services.clock)


@job(runs.RUN_JOB, queue="rules", retry=Retry(max_attempts=3, exponential_wait=5),
     lock=lambda args: f"runs:{args['workspace_id']}")
async def run_book(context: JobContext, *, run_id: str, workspace_id: str) -> None:
    services = context.services
    max_pending = services.settings.webhook_max_pending_per_endpoint

    async def transition(uow, run) -> None:
        await events.run_changed(uow, run, _now(services), max_pending)

    async def relay() -> None:
        await _relay(services, await _store(services, workspace_id), workspace_id)

    try:
        await runs.perform(_run_services(services), run_id, context.should_stop,
                           runs.RunHooks(transition, relay))
    except (TenantDatabaseUnavailableError, OSError):
        raise  # retried by the kind's policy; the run resumes from its checkpoint
    except Exception as exc:  # noqa: BLE001 - the run fails with its reason, visibly
        log.exception("run %s failed", run_id)
        await runs.fail(services.database, run_id, f"{type(exc).__name__}: {exc}",
                        _now(services), transition)


@every("rules.resume", lambda settings: max(5.0, settings.jobs_stalled_seconds))
async def resume(context: JobContext) -> None:
    """Enqueue again the runs no process is working on: on the embedded default every
    unfinished run once at start (the jobs lived in the stopped process); with the queue,
    runs untouched for three stalled periods (their worker's job is retried as well; the
    run's lock and finished state make the two harmless together)."""
    services = context.services
    extras = _extras(services)
    older = None
    if not services.jobs.embedded or extras["resumed"]:
        if services.jobs.embedded:
            return
        older = _now(services) - datetime.timedelta(
            seconds=3 * services.settings.jobs_stalled_seconds)
    extras["resumed"] = True
    async with services.database.unit_of_work() as uow:
        found = await runs.orphans(uow, older)
    for run in found:
        await services.jobs.enqueue(runs.RUN_JOB, **runs.job_arguments(run))
