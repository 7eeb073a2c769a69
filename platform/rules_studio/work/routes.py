"""HTTP routes of rules at work (included in the rule studio's table, under /api/rules):
bindings and book runs. Members read; admins (owners satisfy it) create, pause, resume,
delete, start and cancel. Every route acts on the session's active workspace only."""

from __future__ import annotations

import contextlib
import datetime
import uuid
from collections.abc import AsyncIterator

from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import CLOCK, DATABASE, HEAVY_WORK, JOBS, TENANT_POOLS
from insureops.platform.rules_studio.errors import (
    BindingNotFoundError,
    FailureNotFoundError,
    RunFinishedError,
    RunNotFoundError,
    RunsBusyError,
    RunTooLargeError,
)
from insureops.platform.rules_studio.offload import StudioWork
from insureops.platform.rules_studio.payloads import RulePath
from insureops.platform.rules_studio.service import Actor
from insureops.platform.rules_studio.work import bindings, events, failures, runs
from insureops.platform.rules_studio.work.conditions import ConditionInvalidError
from insureops.platform.rules_studio.work.models import RuleBinding, RuleRun
from insureops.platform.rules_studio.work.payloads import (
    BindingCreate,
    BindingFailurePath,
    BindingInfo,
    BindingList,
    BindingPath,
    FailureError,
    FailureInfo,
    FailureList,
    FailureQuery,
    RetryInfo,
    RunCreate,
    RunFailurePath,
    RunInfo,
    RunList,
    RunListQuery,
    RunPath,
    RunProgress,
)
from insureops.platform.tenancy.book.errors import TenantDatabaseUnpreparedError
from insureops.platform.tenancy.book.store import TenantStore
from insureops.platform.tenancy.workspaces import request_tenant_store


class TenantOutdatedError(Exception):
    """The workspace's tenant database lacks rules at work's outbox tables (saved before
    them): `insureops schema apply URL` once. Only these routes say so (409); elsewhere a
    missing table is the tenant API's 503."""


ULID = "[0-9A-HJKMNP-TV-Z]+"
BINDING = f"/bindings/{{binding_id:{ULID}}}"
RUN = f"/runs/{{run_id:{ULID}}}"
RECORD = "{record_id:[0-9a-fA-F-]+}"
MEMBER, ADMIN = Auth.session(Role.MEMBER), Auth.session(Role.ADMIN)

routes = RouteTable("rules_studio", "Rules at work: bindings and book runs.")
routes.map_error(BindingNotFoundError, 404, "not_found")
routes.map_error(RunNotFoundError, 404, "not_found")
routes.map_error(FailureNotFoundError, 404, "not_found")
routes.map_error(RunFinishedError, 409, "run_finished")
routes.map_error(RunTooLargeError, 422, "run_too_large")
routes.map_error(RunsBusyError, 429, "workspace_busy", headers={"Retry-After": "30"})
routes.map_error(TenantOutdatedError, 409, "tenant_database_outdated")
routes.map_error(ConditionInvalidError, 400, "validation_error",
                 details=lambda exc: exc.details)


def _actor(call: Call) -> Actor:
    return Actor(call.principal.active_workspace_id, call.principal.user.id)


def _now(call: Call) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), datetime.UTC)


def _check(call: Call):
    settings, config = call.settings, call.request.config_dict
    work = StudioWork(config[HEAVY_WORK], settings.rules_check_seconds,
                      settings.rules_execute_seconds, 0.0)

    async def check(source: str, record_type: str, condition: str | None) -> None:
        await work.check_target(call.principal.active_workspace_id, source, record_type,
                                condition)
    return check


async def _switch(call: Call, extra: set[tuple[str, str]] = frozenset()) -> None:
    """Set the tenant outbox switches to the workspace's active bindings (plus `extra`)."""
    workspace_id = call.principal.active_workspace_id
    async with call.unit_of_work() as uow:
        wanted = await bindings.switches(uow, workspace_id) | set(extra)
    async with _outdated():
        await bindings.apply_switches(await _store(call), wanted)


async def _store(call: Call) -> TenantStore:
    """The workspace's one tenant store (the pools the tenant API uses)."""
    return await request_tenant_store(call.request, call.request.config_dict[TENANT_POOLS],
                                      call.principal.active_workspace_id)


@contextlib.asynccontextmanager
async def _outdated() -> AsyncIterator[None]:
    """A tenant database without the outbox tables as TenantOutdatedError (409)."""
    try:
        yield
    except TenantDatabaseUnpreparedError:
        raise TenantOutdatedError(
            "The workspace's tenant database predates rules at work: run `insureops schema "
            "apply URL` on it once (it adds the outbox), then retry.") from None


def binding_info(binding: RuleBinding) -> BindingInfo:
    return BindingInfo(
        id=binding.id, rule_id=binding.rule_id, record_type=binding.record_type,
        on=binding.events, where=binding.condition, status=binding.status,
        created_by=binding.created_by, created_at=binding.created_at,
        updated_at=binding.updated_at, evaluated=binding.evaluated, effects=binding.effects,
        errors=binding.errors, last_error=binding.last_error,
        last_evaluated_at=binding.last_evaluated_at)


def run_info(run: RuleRun) -> RunInfo:
    return RunInfo(
        id=run.id, rule_id=run.rule_id, version=run.version,
        baseline_version=run.baseline_version, record_type=run.record_type,
        where=run.condition, mode=run.mode, status=run.status, as_of=run.as_of,
        created_by=run.created_by, created_at=run.created_at, started_at=run.started_at,
        finished_at=run.finished_at, cancel_requested=run.cancel_requested,
        progress=RunProgress(**runs.progress(run)), summary=run.summary, impact=run.impact,
        error=run.error)


@routes.post("/bindings/", body=BindingCreate, response=BindingInfo, status=201, auth=ADMIN,
             errors=(400, 404, 409, 422, 503), summary="Bind a rule to record writes",
             description="Every client, policy, claim or uw_submission created or updated in "
             "the workspace's tenant database (by any application) runs the rule's published "
             "version within about 2 s, when `where` holds; decisions write uw_scores and "
             "tasks rows, each once. 409 rule_not_published; 400 with line and column for a "
             "`where` that does not check; 422 record_not_applicable.")
async def create_binding(call: Call[BindingCreate, None]) -> BindingInfo:
    body = call.body
    spec = bindings.BindingSpec(body.rule_id, body.record_type, body.on, body.where)
    binding = await bindings.check_and_create(
        call.request.config_dict[DATABASE], _actor(call), spec, _check(call), _now(call))
    await _switch(call)
    return binding_info(binding)


@routes.get("/bindings/", response=BindingList, auth=MEMBER, summary="List bindings")
async def list_bindings(call: Call[None, None]) -> BindingList:
    async with call.unit_of_work() as uow:
        found = await bindings.listing(uow, call.principal.active_workspace_id)
    return BindingList(items=[binding_info(b) for b in found])


@routes.get(f"{BINDING}/", path_model=BindingPath, response=BindingInfo, auth=MEMBER,
            errors=(404,), summary="Read a binding",
            description="With its counters: records evaluated, effects written, errors and "
            "the last error (record and engine error).")
async def get_binding(call: Call[None, None]) -> BindingInfo:
    async with call.unit_of_work() as uow:
        binding = await bindings.find(uow, call.principal.active_workspace_id,
                                      call.path.binding_id)
    return binding_info(binding)


async def _set_status(call: Call, status: str) -> BindingInfo:
    async with call.unit_of_work() as uow:
        binding = await bindings.set_status(uow, call.principal.active_workspace_id,
                                            call.path.binding_id, status, _now(call))
    await _switch(call)
    return binding_info(binding)


@routes.post(f"{BINDING}/pause/", path_model=BindingPath, response=BindingInfo, auth=ADMIN,
             errors=(404, 503), summary="Pause a binding",
             description="It runs nothing until resumed; writes meanwhile are not replayed.")
async def pause_binding(call: Call[None, None]) -> BindingInfo:
    return await _set_status(call, "paused")


@routes.post(f"{BINDING}/resume/", path_model=BindingPath, response=BindingInfo, auth=ADMIN,
             errors=(404, 503), summary="Resume a paused binding")
async def resume_binding(call: Call[None, None]) -> BindingInfo:
    return await _set_status(call, "active")


@routes.delete(f"{BINDING}/", path_model=BindingPath, response=None, status=204, auth=ADMIN,
               errors=(404, 503), summary="Delete a binding",
               description="The effects it wrote stay (each is audited).")
async def delete_binding(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await bindings.delete(uow, call.principal.active_workspace_id, call.path.binding_id)
    await _switch(call)


@routes.post(f"/rules/{{rule_id:{ULID}}}/runs/", path_model=RulePath, body=RunCreate,
             response=RunInfo, status=202, auth=ADMIN, errors=(400, 404, 409, 422, 429),
             summary="Run a rule over the whole book",
             description="202 with the queued run; follow it at GET /api/rules/runs/<id>/. "
             "dry_run (default) writes nothing and reports the summary and, for a version "
             "other than the published one, the impact against it; apply runs the published "
             "version and writes its effects, each once per record version.")
async def start_run(call: Call[RunCreate, None]) -> RunInfo:
    return await start_run_for(call, _actor(call))


async def start_run_for(call: Call[RunCreate, None], actor: Actor) -> RunInfo:
    """Queue the run `call.body` asks for, as `actor` (the tenant API's key: no user)."""
    body = call.body
    request = runs.RunRequest(body.record_type, body.mode, body.version, body.where,
                              body.as_of)
    now = _now(call)
    run = await runs.create(call.request.config_dict[DATABASE], call.request.config_dict[JOBS],
                            actor, call.path.rule_id, request,
                            _check(call), call.settings, now, now.date())
    return run_info(run)


@routes.get("/runs/", query=RunListQuery, response=RunList, auth=MEMBER,
            summary="List book runs", description="Newest first; `rule_id` narrows.")
async def list_runs(call: Call[None, RunListQuery]) -> RunList:
    async with call.unit_of_work() as uow:
        found = await runs.listing(uow, call.principal.active_workspace_id,
                                   call.query.rule_id, call.query.limit)
    return RunList(items=[run_info(r) for r in found])


@routes.get(f"{RUN}/", path_model=RunPath, response=RunInfo, auth=MEMBER, errors=(404,),
            summary="Read a book run",
            description="Status, progress (total, done, rate, ETA), the summary so far and, "
            "for a dry run, the impact against the published version.")
async def get_run(call: Call[None, None]) -> RunInfo:
    async with call.unit_of_work() as uow:
        run = await runs.find(uow, call.principal.active_workspace_id, call.path.run_id)
    return run_info(run)


@routes.post(f"{RUN}/cancel/", path_model=RunPath, response=RunInfo, auth=ADMIN,
             errors=(404, 409), summary="Cancel a book run",
             description="A queued run stops at once, a running one at its next checkpoint; "
             "what it wrote stays. 409 run_finished.")
async def cancel_run(call: Call[None, None]) -> RunInfo:
    async with call.unit_of_work() as uow:
        run = await runs.cancel(uow, call.principal.active_workspace_id, call.path.run_id,
                                _now(call))
        if run.status == "cancelled":  # a queued run: cancelled now, its event with it
            await uow.session.flush()
            await events.run_changed(uow, run, _now(call),
                                     call.settings.webhook_max_pending_per_endpoint)
    return run_info(run)


# --- failed records: listed with their errors, one retried ---------------------------------


def _failure_info(failure: failures.Failure) -> FailureInfo:
    return FailureInfo(record_type=failure.record_type, record_id=failure.record_id,
                       record_version=failure.record_version,
                       error=FailureError(code=failure.code, message=failure.message),
                       failed_at=failure.failed_at)


async def _list_failures(call: Call, label: str, dry_run: dict | None,
                         record_type: str) -> FailureList:
    if dry_run is not None:
        return FailureList(items=[_failure_info(f) for f in failures.from_summary(
            dry_run, record_type)], next_cursor=None)
    store = await _store(call)
    async with _outdated():
        page, cursor = await store.run_statements(
            failures.listing, call.principal.active_workspace_id, label, call.query.limit,
            call.query.cursor, read_only=True)
    return FailureList(items=[_failure_info(f) for f in page], next_cursor=cursor)


async def _retry(call: Call, label: str, target: failures.RetryTarget, known: bool,
                 as_of: datetime.date) -> failures.RetryOutcome:
    workspace_id = call.principal.active_workspace_id
    record_id = uuid.UUID(call.path.record_id)
    store = await _store(call)
    async with _outdated():
        outcome = await store.run_statements(failures.retry, workspace_id, label, target,
                                             record_id, as_of, _now(call), known)
        if outcome.written:  # its events, as a drain relays them
            await events.relay(call.request.config_dict[DATABASE], store, workspace_id,
                               call.settings.webhook_max_pending_per_endpoint)
    return outcome


def _retry_info(target: failures.RetryTarget, record_id: str,
                outcome: failures.RetryOutcome) -> RetryInfo:
    return RetryInfo(record_type=target.record_type, record_id=str(uuid.UUID(record_id)),
                     status=outcome.status, decision=outcome.decision,
                     error=FailureError(**outcome.error) if outcome.error else None,
                     effects=outcome.effects)


@routes.get(f"{BINDING}/failures/", path_model=BindingPath, query=FailureQuery,
            response=FailureList, auth=MEMBER, errors=(404, 409, 503),
            summary="List a binding's failed records",
            description="Each record whose evaluation failed, with the engine's error code and "
            "message and the record version that failed, oldest first.")
async def list_binding_failures(call: Call[None, FailureQuery]) -> FailureList:
    async with call.unit_of_work() as uow:
        binding = await bindings.find(uow, call.principal.active_workspace_id,
                                      call.path.binding_id)
    return await _list_failures(call, f"binding:{binding.id}", None, binding.record_type)


@routes.post(f"{BINDING}/failures/{RECORD}/retry/", path_model=BindingFailurePath,
             response=RetryInfo, auth=ADMIN, errors=(404, 409, 503),
             summary="Retry one failed record of a binding",
             description="Evaluates the record as it is now with the rule's published version; "
             "on success writes its effects (each once) and resolves the failure. 404 when the "
             "binding recorded no failure of that record.")
async def retry_binding_failure(call: Call[None, None]) -> RetryInfo:
    workspace_id = call.principal.active_workspace_id
    async with call.unit_of_work() as uow:
        label, target = await failures.binding_scope(uow, workspace_id, call.path.binding_id)
    outcome = await _retry(call, label, target, False, _now(call).date())
    if outcome.status != "failed":
        async with call.unit_of_work() as uow:
            await failures.count_retry(uow, RuleBinding, call.path.binding_id, outcome.effects)
    return _retry_info(target, call.path.record_id, outcome)


@routes.get(f"{RUN}/failures/", path_model=RunPath, query=FailureQuery, response=FailureList,
            auth=MEMBER, errors=(404, 409, 503), summary="List a book run's failed records",
            description="An apply run's failed records with their errors (paged); a dry run's "
            "first failures, as its summary keeps them (`failed_examples`).")
async def list_run_failures(call: Call[None, FailureQuery]) -> FailureList:
    async with call.unit_of_work() as uow:
        found = await runs.find(uow, call.principal.active_workspace_id, call.path.run_id)
    return await _list_failures(call, f"run:{found.id}",
                                (found.summary or {}) if found.mode == "dry_run" else None,
                                found.record_type)


@routes.post(f"{RUN}/failures/{RECORD}/retry/", path_model=RunFailurePath, response=RetryInfo,
             auth=ADMIN, errors=(404, 409, 503), summary="Retry one failed record of a run",
             description="Evaluates the record as it is now with the run's version (as of the "
             "run's date); an apply run writes its effects (each once) and resolves the "
             "failure, a dry run only answers the outcome. 404 when the run recorded no "
             "failure of that record.")
async def retry_run_failure(call: Call[None, None]) -> RetryInfo:
    workspace_id = call.principal.active_workspace_id
    async with call.unit_of_work() as uow:
        label, target, found = await failures.run_scope(uow, workspace_id, call.path.run_id)
    record_id = str(uuid.UUID(call.path.record_id))
    known = found.mode == "dry_run" and any(
        f.record_id == record_id for f in failures.from_summary(found.summary,
                                                                found.record_type))
    if found.mode == "dry_run" and not known:
        raise FailureNotFoundError("The run recorded no failure of that record.")
    outcome = await _retry(call, label, target, known, found.as_of)
    if outcome.status != "failed" and target.writes:
        async with call.unit_of_work() as uow:
            await failures.count_retry(uow, RuleRun, found.id, outcome.effects)
    return _retry_info(target, call.path.record_id, outcome)
