"""The rule studio in the tenant API (MCP v2, API key): read rulesets, simulate, execute, read
the execution log. Mounted at /api/v2/mcp/rulesets with the studio's state (docs/mcp.md).

The session routes' handlers (routes.py), the same answers and errors; what differs is the
caller: an API key's workspace, read scope for the GET operations, write scope for the POST ones
(the spec's rule: simulate too, though it changes nothing; execute appends to the execution log,
`executed_by` null: the key is no user; a dry run over the book, `created_by` null, see
work/tenant_routes.py for why apply runs are refused). Authoring (create, change, publish, approvals) stays
with people in the studio.
"""

from __future__ import annotations

from aiohttp import web

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.http.routing import BodyLimit, Call, RouteTable
from insureops.platform.rules_studio import routes as studio
from insureops.platform.rules_studio import service
from insureops.platform.rules_studio.payloads import (
    ExecuteRequest,
    ExecuteResponse,
    ExecutionInfo,
    ExecutionListQuery,
    ExecutionPage,
    ExecutionPath,
    RuleInfo,
    RuleListQuery,
    RulePage,
    RulePath,
    SimulateRequest,
    SimulateResponse,
    VersionQuery,
)
from insureops.platform.rules_studio.work import routes as work
from insureops.platform.rules_studio.work.payloads import RunCreate, RunInfo
from insureops.platform.rules_studio.work.tenant_routes import refuse_apply

READ = Auth.api_key(Scope.READ)
WRITE = Auth.api_key(Scope.WRITE)
RULE = f"/{{rule_id:{studio.ULID}}}"

routes = RouteTable("mcp_rulesets", "Tenant API (API key): rulesets, simulate, execute and "
                    "the execution log.")
routes.errors.merge(studio.routes.errors)
routes.errors.merge(work.routes.errors)


def _actor(call: Call) -> service.Actor:
    """The key's workspace; no user (the execution log's `executed_by` stays null)."""
    return service.Actor(call.principal.active_workspace_id, None)


@routes.get("/", query=RuleListQuery, response=RulePage, auth=READ, summary="List rulesets",
            description="As GET /api/rules/rules/: oldest first, filters `kind`, `status`, "
            "`name`, `text`; follow `next_cursor`.")
async def list_rulesets(call: Call[None, RuleListQuery]) -> RulePage:
    return await studio.list_rules(call)


@routes.get(f"{RULE}/", path_model=RulePath, query=VersionQuery, response=RuleInfo, auth=READ,
            errors=(404,), summary="Get a ruleset",
            description="With its current version (source, tests), or version N (`version`).")
async def get_ruleset(call: Call[None, VersionQuery]) -> RuleInfo:
    return await studio.get_rule(call)


@routes.post("/simulate/", body=SimulateRequest, response=SimulateResponse, auth=WRITE,
             body_limit=BodyLimit.SIMULATION, errors=(400, 404, 413, 422, 503),
             summary="Simulate a ruleset on cases, without side effects",
             description="As POST /api/rules/rules/simulate/ (same bounds and answers).")
async def simulate_ruleset(call: Call[SimulateRequest, None]) -> web.Response:
    return await studio.simulate_rules(call)


@routes.post(f"{RULE}/execute/", path_model=RulePath, body=ExecuteRequest,
             response=ExecuteResponse, auth=WRITE, errors=(404, 409, 422, 503),
             summary="Execute a ruleset's published version",
             description="As POST /api/rules/rules/<id>/execute/; logged with `executed_by` "
             "null. 409 rule_not_published when no version is published.")
async def execute_ruleset(call: Call[ExecuteRequest, None]) -> web.Response:
    return await studio.execute_for(call, _actor(call))


@routes.get(f"{RULE}/executions/", path_model=RulePath, query=ExecutionListQuery,
            response=ExecutionPage, auth=READ, errors=(404,),
            summary="List a ruleset's executions", description="Newest first.")
async def list_ruleset_executions(call: Call[None, ExecutionListQuery]) -> ExecutionPage:
    return await studio.list_executions(call)


@routes.get(f"{RULE}/executions/{{execution_id:[0-9]+}}/", path_model=ExecutionPath,
            response=ExecutionInfo, auth=READ, errors=(404,), summary="Read one execution")
async def get_ruleset_execution(call: Call[None, None]) -> ExecutionInfo:
    return await studio.get_execution(call)


@routes.post(f"{RULE}/runs/", path_model=RulePath, body=RunCreate, response=RunInfo, status=202,
             auth=WRITE, errors=(400, 404, 409, 422, 429),
             summary="Dry-run a ruleset over the whole book",
             description="As POST /api/rules/rules/<id>/runs/ with mode dry_run (the default; "
             "writes nothing); follow it at GET /api/v2/mcp/runs/<id>/. 403 permission_denied "
             "for mode apply (an admin's, in the studio).")
async def start_ruleset_run(call: Call[RunCreate, None]) -> RunInfo:
    refuse_apply(call.body.mode)
    return await work.start_run_for(call, _actor(call))
