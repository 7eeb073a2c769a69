"""Rules at work in the tenant API (MCP v2, API key): read bindings and book runs, start and
cancel dry runs. Mounted at /api/v2/mcp/bindings and /api/v2/mcp/runs with the studio's state;
starting a run is POST /api/v2/mcp/rulesets/<id>/runs/ (rules_studio/tenant_routes.py).

The session routes' handlers (routes.py), the same answers and errors; what differs is the
caller: an API key's workspace, read scope for GET, write scope for POST (the spec's rule). The
session routes' writes are admin-only; a key's write scope does only what changes no record:
dry runs (they write nothing to the book) and cancelling them. Apply runs, and creating, pausing,
resuming or deleting bindings, write or steer writes to every record of the book, so they stay
with an admin in the studio: an apply run is refused 403 permission_denied (docs/mcp.md).
"""

from __future__ import annotations

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.http.errors import ApiError
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.rules_studio.work import routes as work
from insureops.platform.rules_studio.work import runs
from insureops.platform.rules_studio.work.payloads import (
    BindingInfo,
    BindingList,
    BindingPath,
    RunInfo,
    RunList,
    RunListQuery,
    RunPath,
)

READ = Auth.api_key(Scope.READ)
WRITE = Auth.api_key(Scope.WRITE)
APPLY_REFUSED = ("An API key starts and cancels dry runs only; an admin starts or cancels apply "
                 "runs in the studio.")

binding_routes = RouteTable("mcp_bindings", "Tenant API (API key): the workspace's bindings.")
binding_routes.errors.merge(work.routes.errors)
run_routes = RouteTable("mcp_runs", "Tenant API (API key): the workspace's book runs.")
run_routes.errors.merge(work.routes.errors)


def refuse_apply(mode: str) -> None:
    """403 permission_denied for an apply run: a key's write scope covers dry runs only."""
    if mode != "dry_run":
        raise ApiError(403, "permission_denied", APPLY_REFUSED)


@binding_routes.get("/", response=BindingList, auth=READ, summary="List bindings",
                    description="As GET /api/rules/bindings/.")
async def list_workspace_bindings(call: Call[None, None]) -> BindingList:
    return await work.list_bindings(call)


@binding_routes.get(f"/{{binding_id:{work.ULID}}}/", path_model=BindingPath,
                    response=BindingInfo, auth=READ, errors=(404,), summary="Read a binding",
                    description="As GET /api/rules/bindings/<id>/, with its counters.")
async def get_workspace_binding(call: Call[None, None]) -> BindingInfo:
    return await work.get_binding(call)


@run_routes.get("/", query=RunListQuery, response=RunList, auth=READ, summary="List book runs",
                description="As GET /api/rules/runs/: newest first; `rule_id` narrows.")
async def list_workspace_runs(call: Call[None, RunListQuery]) -> RunList:
    return await work.list_runs(call)


@run_routes.get(f"/{{run_id:{work.ULID}}}/", path_model=RunPath, response=RunInfo, auth=READ,
                errors=(404,), summary="Read a book run",
                description="As GET /api/rules/runs/<id>/: status, progress, summary, impact.")
async def get_workspace_run(call: Call[None, None]) -> RunInfo:
    return await work.get_run(call)


@run_routes.post(f"/{{run_id:{work.ULID}}}/cancel/", path_model=RunPath, response=RunInfo,
                 auth=WRITE, errors=(404, 409), summary="Cancel a dry run",
                 description="As POST /api/rules/runs/<id>/cancel/, for a dry run; 403 "
                 "permission_denied for an apply run (an admin's, in the studio).")
async def cancel_workspace_run(call: Call[None, None]) -> RunInfo:
    async with call.unit_of_work() as uow:
        run = await runs.find(uow, call.principal.active_workspace_id, call.path.run_id)
    refuse_apply(run.mode)  # a run's mode never changes: checked before the cancel's own unit
    return await work.cancel_run(call)
