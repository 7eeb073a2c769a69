"""HTTP routes of the rule studio (its sub-application, mounted at /api/rules).

Roles: members read, check and simulate; admins (owners satisfy it) create, change, publish,
archive and execute. Every route acts on the session's active workspace only.
"""

from __future__ import annotations

from aiohttp import web

from insureops.dsl import RulesetInvalidError
from insureops.engine.inputs import jsonio
from insureops.platform.auth.requirements import Auth, Role
from insureops.platform.compute.heavy_work import map_heavy_work_errors
from insureops.platform.http.bodies import if_match_version
from insureops.platform.http.routing import BodyLimit, Call, RouteTable
from insureops.platform.keys import DATABASE, SIMULATION_BUDGET
from insureops.platform.rules_studio import (
    approvals,
    assist,
    calls,
    case_set_routes,
    checking,
    execution,
    key_routes,
    service,
    simulation,
    views,
)
from insureops.platform.rules_studio.errors import (
    ApprovalDecidedError,
    ApprovalNotFoundError,
    ApprovalRequiredError,
    ApprovalStateError,
    CaseSetLimitError,
    CaseSetNameTakenError,
    CaseSetNotFoundError,
    CaseSetTooLargeError,
    EvaluationFailedError,
    ExecutionNotFoundError,
    InvalidCursorError,
    PreconditionRequiredError,
    PublishRequestError,
    RecordNotApplicableError,
    RuleArchivedError,
    RuleChangedError,
    RuleNameTakenError,
    RuleNotFoundError,
    RuleNotPublishedError,
    SelfApprovalError,
    SimulationTooLargeError,
    SimulationTooSlowError,
    StaleVersionError,
    TestsFailingError,
    VersionNotFoundError,
)
from insureops.platform.rules_studio.payloads import (
    ApprovalDecision,
    ApprovalInfo,
    ApprovalList,
    ApprovalPath,
    ApprovalRequest,
    AssistRequest,
    CheckRequest,
    CheckResponse,
    CompleteRequest,
    CompleteResponse,
    ExecuteRequest,
    ExecuteResponse,
    ExecutionInfo,
    ExecutionListQuery,
    ExecutionPage,
    ExecutionPath,
    HoverResponse,
    PublicationEvent,
    PublicationHistory,
    RuleCreate,
    RuleInfo,
    RuleListQuery,
    RulePage,
    RulePath,
    RuleUpdate,
    SimulateRequest,
    SimulateResponse,
    StudioSettingsInfo,
    VersionList,
    VersionQuery,
)
from insureops.platform.rules_studio.records import RecordRef
from insureops.platform.rules_studio.work import routes as work_routes
from insureops.platform.tenancy.book.errors import RecordMissingError
from insureops.platform.tenancy.workspaces import map_tenant_database_errors

ULID = "[0-9A-HJKMNP-TV-Z]+"  # a rule or approval id (26 long): lower-case words (check/) are not
RULE = f"/rules/{{rule_id:{ULID}}}"
APPROVAL = f"{RULE}/approvals/{{approval_id:{ULID}}}"
MEMBER, ADMIN, OWNER = (Auth.session(role) for role in (Role.MEMBER, Role.ADMIN, Role.OWNER))

routes = RouteTable("rules_studio", "Rules: CRUD, simulate and execute.")
routes.map_error(RulesetInvalidError, 400, "rule_invalid",
                 message="The ruleset does not check; error.details lists every diagnostic.",
                 details=checking.invalid_details)
routes.map_error(RuleNotFoundError, 404, "not_found")
routes.map_error(VersionNotFoundError, 404, "version_not_found")
routes.map_error(RuleNameTakenError, 409, "conflict")
routes.map_error(StaleVersionError, 409, "version_conflict")
routes.map_error(RuleArchivedError, 409, "rule_archived")
routes.map_error(TestsFailingError, 409, "tests_failing")
routes.map_error(ApprovalRequiredError, 409, "approval_required")
routes.map_error(SelfApprovalError, 403, "self_approval")
routes.map_error(ApprovalNotFoundError, 404, "not_found")
routes.map_error(ApprovalStateError, 409, "invalid_transition")
routes.map_error(RuleChangedError, 409, "conflict")
routes.map_error(ApprovalDecidedError, 409, "conflict")
routes.map_error(SimulationTooLargeError, 413, "simulation_too_large")
routes.map_error(SimulationTooSlowError, 422, "simulation_too_slow")
routes.map_error(RuleNotPublishedError, 409, "rule_not_published")
routes.map_error(ExecutionNotFoundError, 404, "not_found")
routes.map_error(RecordMissingError, 404, "not_found")
routes.map_error(RecordNotApplicableError, 422, "record_not_applicable")
routes.map_error(CaseSetNotFoundError, 404, "not_found")
routes.map_error(CaseSetNameTakenError, 409, "conflict")
routes.map_error(CaseSetTooLargeError, 413, "case_set_too_large")
routes.map_error(CaseSetLimitError, 409, "case_set_limit")
routes.map_error(PreconditionRequiredError, 428, "precondition_required")
map_tenant_database_errors(routes)
map_heavy_work_errors(routes)
routes.map_error(EvaluationFailedError, 422, "evaluation_failed", details=lambda e: [
    {"field": "inputs", "message": f"{e.engine_code}: {e}"}])
routes.map_error(PublishRequestError, 400, "validation_error", details=lambda e: [
    {"field": "status", "message": str(e)}])
routes.map_error(assist.PositionError, 400, "validation_error", details=lambda e: [
    {"field": e.field, "message": str(e)}])
routes.map_error(InvalidCursorError, 400, "validation_error", details=lambda e: [
    {"field": "cursor", "message": "is not a cursor this service issued; pass next_cursor of "
     "the previous page unchanged"}])


_deps, _actor = calls.deps, calls.actor


@routes.get("/rules/", query=RuleListQuery, response=RulePage, auth=MEMBER,
            summary="List rules", description="Oldest first; filters combine with AND; follow "
            "`next_cursor` for the next page.")
async def list_rules(call: Call[None, RuleListQuery]) -> RulePage:
    return await calls.rule_page(call)


@routes.post("/rules/", body=RuleCreate, response=RuleInfo, status=201, auth=ADMIN,
             errors=(400, 409), summary="Create a rule",
             description="Checks the source (400 rule_invalid with every diagnostic), runs its "
             "embedded tests and saves version 1 as a draft; warnings and test results come "
             "back in `version`.")
async def create_rule(call: Call[RuleCreate, None]) -> RuleInfo:
    body = call.body
    async with call.unit_of_work() as uow:
        rule, version = await service.create(uow, _deps(call), _actor(call), body.source,
                                             body.title, body.kind)
    return views.rule_info(rule, version)


@routes.post("/rules/check/", body=CheckRequest, response=CheckResponse, auth=MEMBER,
             summary="Check a ruleset without saving it",
             description="Every diagnostic and the outline (inputs, rules, tables).")
async def check_rule(call: Call[CheckRequest, None]) -> CheckResponse:
    answer = await service.check(_deps(call), call.principal.active_workspace_id,
                                 call.body.source)
    return CheckResponse.model_validate(answer)


@routes.post("/rules/complete/", body=CompleteRequest, response=CompleteResponse,
             auth=MEMBER, errors=(400, 422),
             summary="Completion at a position of a source being edited",
             description="What the language server (`insureops rules lsp`) proposes there: "
             "fields of an input's type after `input.`, consts, inputs, outputs, built-ins, "
             "keywords, type names, hit policies, decisions. Saves nothing; runs in a rules "
             "worker under the check budget (422 work_budget_exceeded).")
async def complete_at(call: Call[CompleteRequest, None]) -> CompleteResponse:
    body = call.body
    answer = await service.complete(_deps(call), call.principal.active_workspace_id,
                                    body.source, body.line, body.column, body.known_source)
    return CompleteResponse.model_validate(answer)


@routes.post("/rules/hover/", body=AssistRequest, response=HoverResponse, auth=MEMBER,
             errors=(400, 422), summary="What the name at a position of a source is",
             description="The language server's hover: an input's or field's type and schema "
             "description, a const's declaration and type, an output's writers, a rule's or "
             "table's header, a built-in's signature. Saves nothing; runs in a rules worker "
             "under the check budget.")
async def hover_at(call: Call[AssistRequest, None]) -> HoverResponse:
    body = call.body
    answer = await service.hover(_deps(call), call.principal.active_workspace_id, body.source,
                                 body.line, body.column)
    return HoverResponse.model_validate(answer)


@routes.post("/rules/simulate/", body=SimulateRequest, response=SimulateResponse, auth=MEMBER,
             body_limit=BodyLimit.SIMULATION, errors=(400, 404, 413, 422, 503),
             summary="Simulate a ruleset on cases, without side effects",
             description="A `source` or a saved `rule_id` (+ `version`) on up to 10,000 cases: "
             "per-case results (traces with `explain`), the summary of `insureops rules "
             "simulate`, each case's `expect` checked, and with a `baseline` the impact diff "
             "(`cases`, or `case_set_id`: the cases of a saved case set, 404 not_found for "
             "one not of the workspace) "
             "of `insureops rules diff`. More cases is 413 simulation_too_large; past the "
             "time budget 422 simulation_too_slow (both name the CLI for larger runs). A case "
             "may name a client or policy of the workspace's tenant database (`record`, at "
             "most 100 per request) instead of `inputs`: read as execute reads it (404 "
             "not_found, 422 record_not_applicable, 503 tenant_database_unavailable).")
async def simulate_rules(call: Call[SimulateRequest, None]) -> web.Response:
    text = await service.simulate(call.request.config_dict[DATABASE], _deps(call),
                                  calls.record_reader(call), call.principal.active_workspace_id,
                                  call.body)
    return web.Response(text=text, content_type="application/json")


@routes.get("/rules/settings/", response=StudioSettingsInfo, auth=MEMBER,
            summary="The workspace's rule studio settings")
async def get_settings(call: Call[None, None]) -> StudioSettingsInfo:
    async with call.unit_of_work() as uow:
        found = await approvals.settings(uow, call.principal.active_workspace_id)
    return StudioSettingsInfo(four_eyes=bool(found and found.four_eyes))


@routes.put("/rules/settings/", body=StudioSettingsInfo, response=StudioSettingsInfo,
            auth=OWNER, summary="Change the workspace's rule studio settings",
            description="Owner only. `four_eyes: true`: versions are published only after an "
            "admin other than their author approves them.")
async def put_settings(call: Call[StudioSettingsInfo, None]) -> StudioSettingsInfo:
    async with call.unit_of_work() as uow:
        found = await approvals.set_four_eyes(uow, _deps(call), _actor(call),
                                              call.body.four_eyes)
    return StudioSettingsInfo(four_eyes=found.four_eyes)


@routes.get(f"{RULE}/", path_model=RulePath, query=VersionQuery, response=RuleInfo,
            auth=MEMBER, errors=(404,), summary="Get a rule",
            description="With its current version, or version N with `?version=N`. `ETag: "
            "\"N\"` names the current version, which `If-Match` of a change sends back.")
async def get_rule(call: Call[None, VersionQuery]) -> web.Response:
    return await calls.tagged_rule(call)


@routes.get(f"{RULE}/versions/", path_model=RulePath, response=VersionList,
            auth=MEMBER, errors=(404,), summary="List a rule's versions",
            description="Every version with its author, time and test outcome.")
async def list_versions(call: Call[None, None]) -> VersionList:
    async with call.unit_of_work() as uow:
        rows = await service.versions(uow, call.principal.active_workspace_id,
                                      call.path.rule_id)
    return VersionList(versions=[views.version_info(v) for v in rows])


@routes.patch(f"{RULE}/", path_model=RulePath, body=RuleUpdate, response=RuleInfo,
              auth=ADMIN, errors=(400, 404, 409), summary="Update a rule",
              description="A changed `source` is checked and tested and saved as a new "
              "version. `published_version: N` (or `status: published` for the current "
              "version) publishes; a version whose tests failed is 409 tests_failing. With `If-Match: \"N\"` the change is refused with 409 "
              "version_conflict unless N is still the current version.")
async def update_rule(call: Call[RuleUpdate, None]) -> web.Response:
    body = call.body
    changes = service.Changes(source=body.source, title=body.title, kind=body.kind,
                              published_version=body.published_version, status=body.status)
    if_match = if_match_version(call.request)
    async with call.unit_of_work() as uow:
        rule, version = await service.update(uow, _deps(call), _actor(call), call.path.rule_id,
                                             changes, if_match)
    return views.tagged(views.rule_info(rule, version), rule.current_version)


@routes.get(f"{RULE}/history/", path_model=RulePath, response=PublicationHistory,
            auth=MEMBER, errors=(404,), summary="A rule's publication history",
            description="Who published or withdrew which version when.")
async def publication_history(call: Call[None, None]) -> PublicationHistory:
    async with call.unit_of_work() as uow:
        rows = await service.history(uow, call.principal.active_workspace_id,
                                     call.path.rule_id)
    return PublicationHistory(events=[
        PublicationEvent(action=r.action, version=r.version, actor_id=r.actor_id, at=r.at)
        for r in rows])


@routes.post(f"{RULE}/approvals/", path_model=RulePath, body=ApprovalRequest,
             response=ApprovalInfo, status=201, auth=ADMIN, errors=(404, 409),
             summary="Request approval to publish a version (four eyes)")
async def request_approval(call: Call[ApprovalRequest, None]) -> ApprovalInfo:
    async with call.unit_of_work() as uow:
        row = await approvals.request(uow, _deps(call), _actor(call), call.path.rule_id,
                                      call.body.version)
    return views.approval(row)


@routes.get(f"{RULE}/approvals/", path_model=RulePath, response=ApprovalList,
            auth=MEMBER, errors=(404,), summary="List a rule's approval requests")
async def list_approvals(call: Call[None, None]) -> ApprovalList:
    async with call.unit_of_work() as uow:
        rows = await approvals.list_for(uow, call.principal.active_workspace_id,
                                        call.path.rule_id)
    return ApprovalList(approvals=[views.approval(row) for row in rows])


@routes.post(f"{APPROVAL}/approve/", path_model=ApprovalPath,
             body=ApprovalDecision, response=ApprovalInfo, auth=ADMIN, errors=(403, 404, 409),
             summary="Approve a request and publish its version",
             description="By an admin other than the version's author and the request's "
             "requester (403 self_approval).")
async def approve(call: Call[ApprovalDecision, None]) -> ApprovalInfo:
    async with call.unit_of_work() as uow:
        row = await approvals.approve(uow, _deps(call), _actor(call), call.path.rule_id,
                                      call.path.approval_id, call.body.comment)
    return views.approval(row)


@routes.post(f"{APPROVAL}/reject/", path_model=ApprovalPath,
             body=ApprovalDecision, response=ApprovalInfo, auth=ADMIN, errors=(404, 409),
             summary="Reject an approval request")
async def reject(call: Call[ApprovalDecision, None]) -> ApprovalInfo:
    async with call.unit_of_work() as uow:
        row = await approvals.reject(uow, _deps(call), _actor(call), call.path.rule_id,
                                     call.path.approval_id, call.body.comment)
    return views.approval(row)


@routes.post(f"{RULE}/execute/", path_model=RulePath, body=ExecuteRequest,
             response=ExecuteResponse, auth=ADMIN, errors=(404, 409, 422, 503),
             summary="Execute a rule's published version",
             description="On `inputs`, or on a client or policy of the workspace's tenant "
             "database (`record`); appends an entry to the execution log. 409 "
             "rule_not_published / rule_archived; 422 evaluation_failed (logged too); 503 "
             "tenant_database_unavailable.")
async def execute_rule(call: Call[ExecuteRequest, None]) -> web.Response:
    return await execute_for(call, _actor(call))


async def execute_for(call: Call[ExecuteRequest, None], actor: service.Actor) -> web.Response:
    """Execute the path's rule on the body's inputs or record as `actor`; the answer (numbers
    as exact decimals). Also the tenant API's execute."""
    body = call.body
    record = body.record and RecordRef(body.record.type, body.record.uuid)
    row, result = await execution.execute(
        call.request.config_dict[DATABASE], _deps(call), calls.record_reader(call), actor,
        call.path.rule_id, execution.ExecuteCommand(body.inputs, record, body.as_of, body.explain))
    payload = {"execution": views.execution_info(row).model_dump(mode="json"),
               "result": result.to_dict()}
    return web.Response(text=jsonio.dumps(payload), content_type="application/json")


@routes.get(f"{RULE}/executions/", path_model=RulePath, query=ExecutionListQuery,
            response=ExecutionPage, auth=MEMBER, errors=(404,),
            summary="List a rule's executions", description="Newest first; the filters "
            "(`decision`, `failed`, `executed_from`/`executed_to` as UTC days, `record_uuid`) "
            "combine with AND and `next_cursor` goes on with them.")
async def list_executions(call: Call[None, ExecutionListQuery]) -> ExecutionPage:
    query = call.query
    filters = execution.execution_filters(query.decision, query.failed, query.executed_from,
                                          query.executed_to, query.record_uuid)
    async with call.unit_of_work() as uow:
        page = await execution.execution_page(uow, call.principal.active_workspace_id,
                                              call.path.rule_id, query.limit, query.cursor,
                                              filters)
    return ExecutionPage(items=[views.execution_info(row) for row in page.rules],
                         next_cursor=page.next_cursor)


@routes.get(f"{RULE}/executions/{{execution_id:[0-9]+}}/", path_model=ExecutionPath,
            response=ExecutionInfo, auth=MEMBER, errors=(404,), summary="Read one execution")
async def get_execution(call: Call[None, None]) -> ExecutionInfo:
    async with call.unit_of_work() as uow:
        row = await execution.execution(uow, call.principal.active_workspace_id,
                                        call.path.rule_id, call.path.execution_id)
    return views.execution_info(row)


@routes.delete(f"{RULE}/", path_model=RulePath, response=None, status=204,
               auth=ADMIN, errors=(404,), summary="Archive a rule",
               description="The rule and its versions stay readable; it can no longer be "
               "changed or executed.")
async def archive_rule(call: Call[None, None]) -> None:
    async with call.unit_of_work() as uow:
        await service.archive(uow, _deps(call), _actor(call), call.path.rule_id)


routes.include(case_set_routes.routes)
routes.include(key_routes.routes)
routes.include(work_routes.routes)  # bindings and book runs (rules at work)


def create_app(simulation_budget: float = simulation.DEFAULT_TIME_BUDGET) -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app.
    `simulation_budget`: seconds one simulate request may compute (tests lower it)."""
    app = routes.build_app()
    app[SIMULATION_BUDGET] = simulation_budget
    return app
