"""HTTP routes of the MCP v2 tenant API: clients and policies on the workspace's own database.

Every route authenticates with an API key (read scope for GET, write scope for POST, PATCH and
PUT); the tenant is always the key's workspace. Updates accept PATCH and PUT alike, both with
partial-update meaning.
"""

from __future__ import annotations

import datetime
from typing import Any

from aiohttp import web

from insureops.platform.auth import Auth, Scope
from insureops.platform.keys import CLOCK, SECRET_KEYS, TENANT_POOLS
from insureops.platform.mcp import service as mcp_service
from insureops.platform.mcp.payloads import (
    DatabaseConnection,
    KeyValidation,
    RecordPath,
    UsageAccepted,
    UsageReport,
    WorkspaceInfo,
)
from insureops.platform.routing import Call, RouteTable
from insureops.platform.tenant_data import service
from insureops.platform.tenant_data.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
    TenantDatabaseUnavailableError,
    TransitionRefusedError,
)
from insureops.platform.tenant_data.payloads import (
    ClientCreate,
    ClientListQuery,
    ClientPage,
    ClientRecord,
    ClientUpdate,
    PolicyCreate,
    PolicyListQuery,
    PolicyPage,
    PolicyRecord,
    PolicyUpdate,
)
from insureops.platform.tenant_databases import uri_form
from insureops.platform.tenant_pools import TenantPools, tenant_pools_context

routes = RouteTable("mcp", "The tenant API (MCP v2): clients and policies, with an API key.")
routes.map_error(PayloadInvalidError, 400, "validation_error", details=lambda e: e.details)
routes.map_error(RecordMissingError, 404, "not_found")
routes.map_error(StateConflictError, 409, "conflict", details=lambda e: e.details)
routes.map_error(TransitionRefusedError, 409, "invalid_transition")
routes.map_error(TenantDatabaseUnavailableError, 503, "tenant_database_unavailable")

READ = Auth.api_key(Scope.READ)
WRITE = Auth.api_key(Scope.WRITE)


async def _run(call: Call[Any, Any], use_case: Any, *args: Any) -> Any:
    """Run a tenant_data use case on the caller's tenant database, in one transaction."""
    tenant_id = call.principal.active_workspace_id
    async with call.unit_of_work() as uow:
        store = await mcp_service.tenant_store(
            uow, call.request.config_dict[SECRET_KEYS].fernet,
            call.request.config_dict[TENANT_POOLS], tenant_id, call.settings)
    return await store.run(use_case, *args, tenant_id)


def _actor(call: Call[Any, Any]) -> service.Actor:
    request = call.request
    return service.Actor(key_id=call.principal.subject or "", method=request.method,
                         path=request.path, ip_address=request.remote,
                         user_agent=request.headers.get("User-Agent"))


def _create(kind: service.Kind, actor: service.Actor, payload: Any):
    return lambda connection, tenant_id: service.create(connection, kind, tenant_id, actor,
                                                        payload)


def _update(kind: service.Kind, actor: service.Actor, call: Call[Any, Any]):
    return lambda connection, tenant_id: service.update(
        connection, kind, tenant_id, actor, call.path.uuid, call.body)


def _get(kind: service.Kind, call: Call[Any, Any]):
    return lambda connection, tenant_id: service.get(connection, kind, tenant_id, call.path.uuid)


def _list(kind: service.Kind, call: Call[Any, Any]):
    return lambda connection, tenant_id: service.list_page(connection, kind, tenant_id,
                                                           call.query)


# Clients ----------------------------------------------------------------------------------------

@routes.post("/clients/", body=ClientCreate, response=ClientRecord, status=201, auth=WRITE,
             summary="Create a client", errors=(409,))
async def create_client(call: Call[ClientCreate, None]) -> ClientRecord:
    record = await _run(call, _create(service.CLIENT, _actor(call), call.body))
    return ClientRecord.model_construct(**record)


@routes.get("/clients/list/", query=ClientListQuery, response=ClientPage, auth=READ,
            summary="List clients", description="Oldest first ((created, id) order); filters "
            "combine with AND; follow `next_cursor` for the next page.")
async def list_clients(call: Call[None, ClientListQuery]) -> ClientPage:
    page = await _run(call, _list(service.CLIENT, call))
    return ClientPage(items=[ClientRecord.model_construct(**item) for item in page.items],
                      next_cursor=page.next_cursor)


@routes.get("/clients/{uuid}/", path_model=RecordPath, response=ClientRecord, auth=READ,
            summary="Get a client by its uuid")
async def get_client(call: Call[None, None]) -> ClientRecord:
    return ClientRecord.model_construct(**await _run(call, _get(service.CLIENT, call)))


@routes.patch("/clients/{uuid}/update/", path_model=RecordPath, body=ClientUpdate,
              response=ClientRecord, auth=WRITE, summary="Update a client (partial)",
              errors=(409,))
async def update_client(call: Call[ClientUpdate, None]) -> ClientRecord:
    record = await _run(call, _update(service.CLIENT, _actor(call), call))
    return ClientRecord.model_construct(**record)


@routes.put("/clients/{uuid}/update/", path_model=RecordPath, body=ClientUpdate,
            response=ClientRecord, auth=WRITE, summary="Update a client (PUT = PATCH, partial)",
            errors=(409,))
async def update_client_put(call: Call[ClientUpdate, None]) -> ClientRecord:
    return await update_client(call)


# Policies ---------------------------------------------------------------------------------------

@routes.post("/policies/", body=PolicyCreate, response=PolicyRecord, status=201, auth=WRITE,
             summary="Create a policy", errors=(409,))
async def create_policy(call: Call[PolicyCreate, None]) -> PolicyRecord:
    record = await _run(call, _create(service.POLICY, _actor(call), call.body))
    return PolicyRecord.model_construct(**record)


@routes.get("/policies/list/", query=PolicyListQuery, response=PolicyPage, auth=READ,
            summary="List policies", description="Oldest first ((created, id) order); filters "
            "combine with AND; follow `next_cursor` for the next page.")
async def list_policies(call: Call[None, PolicyListQuery]) -> PolicyPage:
    page = await _run(call, _list(service.POLICY, call))
    return PolicyPage(items=[PolicyRecord.model_construct(**item) for item in page.items],
                      next_cursor=page.next_cursor)


@routes.get("/policies/{uuid}/", path_model=RecordPath, response=PolicyRecord, auth=READ,
            summary="Get a policy by its uuid")
async def get_policy(call: Call[None, None]) -> PolicyRecord:
    return PolicyRecord.model_construct(**await _run(call, _get(service.POLICY, call)))


@routes.patch("/policies/{uuid}/update/", path_model=RecordPath, body=PolicyUpdate,
              response=PolicyRecord, auth=WRITE, summary="Update a policy (partial)",
              description="A `status` change must follow the policy state machine "
              "(409 invalid_transition otherwise).", errors=(409,))
async def update_policy(call: Call[PolicyUpdate, None]) -> PolicyRecord:
    record = await _run(call, _update(service.POLICY, _actor(call), call))
    return PolicyRecord.model_construct(**record)


@routes.put("/policies/{uuid}/update/", path_model=RecordPath, body=PolicyUpdate,
            response=PolicyRecord, auth=WRITE, summary="Update a policy (PUT = PATCH, partial)",
            errors=(409,))
async def update_policy_put(call: Call[PolicyUpdate, None]) -> PolicyRecord:
    return await update_policy(call)


# Utilities --------------------------------------------------------------------------------------

@routes.post("/validate-key/", response=KeyValidation, auth=Auth.api_key(),
             summary="Validate an API key", description="Any valid key: its workspace, "
             "tenant_id and scopes.")
async def validate_key(call: Call[None, None]) -> KeyValidation:
    tenant_id = call.principal.active_workspace_id or ""
    async with call.unit_of_work() as uow:
        name = await mcp_service.workspace_name(uow, tenant_id)
    return KeyValidation(key_id=call.principal.subject or "", tenant_id=tenant_id,
                         workspace=WorkspaceInfo(tenant_id=tenant_id, name=name),
                         scopes=sorted(call.principal.scopes))


@routes.get("/database/connection/", response=DatabaseConnection, auth=WRITE,
            summary="Get the database connection string", description="Write scope. The "
            "string holds the password; the service never logs it.")
async def database_connection(call: Call[None, None]) -> DatabaseConnection:
    async with call.unit_of_work() as uow:
        url, _ = await mcp_service.tenant_database_url(
            uow, call.request.config_dict[SECRET_KEYS].fernet,
            call.principal.active_workspace_id, mcp_service.embedded_root(call.settings))
    return DatabaseConnection(connection_string=uri_form(url), backend=mcp_service.backend_of(url))


@routes.post("/usage/", body=UsageReport, response=UsageAccepted, status=202,
             auth=Auth.api_key(), summary="Report local MCP server usage (billing)")
async def report_usage(call: Call[UsageReport, None]) -> UsageAccepted:
    now = datetime.datetime.fromtimestamp(call.request.config_dict[CLOCK](), tz=datetime.UTC)
    async with call.unit_of_work() as uow:
        accepted = await mcp_service.report_usage(
            uow, tenant_id=call.principal.active_workspace_id, key_id=call.principal.subject,
            counts=[(item.tool, item.count) for item in call.body.counts],
            period_start=call.body.period_start, period_end=call.body.period_end, now=now)
    return UsageAccepted(accepted=accepted)


def create_app() -> web.Application:
    """The area's sub-application, mounted by insureops.platform.app.create_app."""
    app = routes.build_app()
    app[TENANT_POOLS] = TenantPools()
    app.cleanup_ctx.append(tenant_pools_context)
    return app
