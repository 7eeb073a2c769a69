"""HTTP routes of the MCP v2 tenant API: clients and policies on the workspace's own database.

Every route authenticates with an API key (read scope for GET, write scope for POST, PATCH and
PUT); the tenant is always the key's workspace. Updates accept PATCH and PUT alike, both with
partial-update meaning.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.data.columns import storable_text
from insureops.platform.http.routing import Call, Handler, RouteTable
from insureops.platform.keys import CLOCK, SECRET_KEYS, TENANT_POOLS
from insureops.platform.mcp import endpoint
from insureops.platform.mcp import service as mcp_service
from insureops.platform.mcp.payloads import (
    DatabaseConnection,
    KeyValidation,
    RecordPath,
    UsageAccepted,
    UsageReport,
    WorkspaceInfo,
)
from insureops.platform.tenancy.book import service
from insureops.platform.tenancy.book.errors import (
    PayloadInvalidError,
    RecordMissingError,
    StateConflictError,
    TransitionRefusedError,
)
from insureops.platform.tenancy.book.payloads import (
    ClientCreate,
    ClientListQuery,
    ClientPage,
    ClientRecord,
    ClientUpdate,
    ListQuery,
    PolicyCreate,
    PolicyListQuery,
    PolicyPage,
    PolicyRecord,
    PolicyUpdate,
    RecordId,
    SchemaPayload,
    TaskListQuery,
    TaskPage,
    TaskRecord,
    UwScoreListQuery,
    UwScorePage,
    UwScoreRecord,
    UwSubmissionCreate,
    UwSubmissionListQuery,
    UwSubmissionPage,
    UwSubmissionRecord,
)
from insureops.platform.tenancy.book.store import TenantStore
from insureops.platform.tenancy.databases import uri_form
from insureops.platform.tenancy.workspaces import map_tenant_database_errors, request_tenant_store

routes = RouteTable("mcp", "The tenant API (MCP v2): clients, policies and underwriting "
                    "submissions, with an API key.")
routes.map_error(PayloadInvalidError, 400, "validation_error", details=lambda e: e.details)
routes.map_error(RecordMissingError, 404, "not_found")
routes.map_error(StateConflictError, 409, "conflict", details=lambda e: e.details)
routes.map_error(TransitionRefusedError, 409, "invalid_transition")
map_tenant_database_errors(routes)

READ = Auth.api_key(Scope.READ)
WRITE = Auth.api_key(Scope.WRITE)


@dataclass(frozen=True)
class Resource:
    """A record kind the API serves, with the shapes of its five operations."""

    kind: service.Kind
    singular: str
    plural: str  # also the path segment
    create: type[SchemaPayload]
    update: type[SchemaPayload]
    record: type[SchemaPayload]
    list_query: type[ListQuery]
    page: type[BaseModel]
    update_description: str = ""


RESOURCES = (
    Resource(service.CLIENT, "client", "clients", ClientCreate, ClientUpdate, ClientRecord,
             ClientListQuery, ClientPage),
    Resource(service.POLICY, "policy", "policies", PolicyCreate, PolicyUpdate, PolicyRecord,
             PolicyListQuery, PolicyPage,
             update_description="A `status` change must follow the policy state machine "
             "(409 invalid_transition otherwise)."),
)


async def _tenant_store(call: Call[Any, Any]) -> TenantStore:
    """The store of the caller's tenant database: the API key's workspace, never a payload's."""
    return await request_tenant_store(call.request, call.request.config_dict[TENANT_POOLS],
                                      call.principal.active_workspace_id)


def _actor(call: Call[Any, Any]) -> service.Actor:
    """Who writes, for the audit log. The User-Agent is kept as storable text: bytes that were
    not UTF-8 arrive as lone surrogates, which failed the log's insert (a 500, issue 28)."""
    request = call.request
    user_agent = request.headers.get("User-Agent")
    return service.Actor(key_id=call.principal.subject or "", method=request.method,
                         path=request.path, ip_address=request.remote,
                         user_agent=user_agent and storable_text(user_agent))


def _named(handler: Handler, name: str) -> Handler:
    """The handler under its operation's name (the OpenAPI operationId is built from it)."""
    handler.__name__ = handler.__qualname__ = name
    return handler


def _declare(resource: Resource) -> None:
    """Declare create, list, get and update (PATCH and PUT) of one resource."""
    kind, record, one, many = resource.kind, resource.record, resource.singular, resource.plural

    async def create(call: Call[Any, None]) -> BaseModel:
        store = await _tenant_store(call)
        row = await store.run(service.create, kind, call.principal.active_workspace_id,
                              _actor(call), call.body)
        return record.model_construct(**row)

    async def list_page(call: Call[None, Any]) -> BaseModel:
        store = await _tenant_store(call)
        page = await store.run(service.list_page, kind, call.principal.active_workspace_id,
                               call.query, read_only=True)
        return resource.page(items=[record.model_construct(**item) for item in page.items],
                             next_cursor=page.next_cursor)

    async def get(call: Call[None, None]) -> BaseModel:
        store = await _tenant_store(call)
        row = await store.run(service.get, kind, call.principal.active_workspace_id,
                              call.path.uuid, read_only=True)
        return record.model_construct(**row)

    async def update(call: Call[Any, None]) -> BaseModel:
        store = await _tenant_store(call)
        row = await store.run(service.update, kind, call.principal.active_workspace_id,
                              _actor(call), call.path.uuid, call.body)
        return record.model_construct(**row)

    async def update_put(call: Call[Any, None]) -> BaseModel:
        return await update(call)

    routes.post(f"/{many}/", body=resource.create, response=record, status=201, auth=WRITE,
                summary=f"Create a {one}", errors=(409,))(_named(create, f"create_{one}"))
    routes.get(f"/{many}/list/", query=resource.list_query, response=resource.page, auth=READ,
               summary=f"List {many}", description="Oldest first ((created, id) order); filters "
               "combine with AND; follow `next_cursor` for the next page.",
               )(_named(list_page, f"list_{many}"))
    routes.get(f"/{many}/{{uuid}}/", path_model=RecordPath, response=record, auth=READ,
               summary=f"Get a {one} by its uuid")(_named(get, f"get_{one}"))
    routes.patch(f"/{many}/{{uuid}}/update/", path_model=RecordPath, body=resource.update,
                 response=record, auth=WRITE, summary=f"Update a {one} (partial)",
                 description=resource.update_description, errors=(409,),
                 )(_named(update, f"update_{one}"))
    routes.put(f"/{many}/{{uuid}}/update/", path_model=RecordPath, body=resource.update,
               response=record, auth=WRITE, summary=f"Update a {one} (PUT = PATCH, partial)",
               errors=(409,))(_named(update_put, f"update_{one}_put"))


for _resource in RESOURCES:
    _declare(_resource)


# What rules and other applications write: tasks and uw_scores, read-only ----------------------

def _declare_listing(listing: service.Listing, plural: str, query: type[ListQuery],
                     page: type[BaseModel], record: type[BaseModel], filters: tuple[str, ...]
                     ) -> None:
    """Declare the list and the get of one read-only table (its rows are named by `id`)."""
    one = listing.entity_type

    async def list_rows(call: Call[None, Any]) -> BaseModel:
        store = await _tenant_store(call)
        equal = {name: getattr(call.query, name) for name in filters
                 if getattr(call.query, name) is not None}
        found = await store.run(service.read_page, listing, call.principal.active_workspace_id,
                                equal, call.query.limit, call.query.cursor, read_only=True)
        return page(items=[record.model_validate(item) for item in found.items],
                    next_cursor=found.next_cursor)

    async def get_row(call: Call[None, None]) -> BaseModel:
        store = await _tenant_store(call)
        row = await store.run(service.read_one, listing, call.principal.active_workspace_id,
                              call.path.id, read_only=True)
        return record.model_validate(row)

    routes.get(f"/{plural}/list/", query=query, response=page, auth=READ, summary=f"List "
               f"{plural}", description=f"Oldest first (({listing.order}, id) order); filters "
               "combine with AND; follow `next_cursor`.")(_named(list_rows, f"list_{plural}"))
    routes.get(f"/{plural}/{{id}}/", path_model=RecordId, response=record, auth=READ,
               summary=f"Get a {one} by its id")(_named(get_row, f"get_{one}"))


_declare_listing(service.TASKS, "tasks", TaskListQuery, TaskPage, TaskRecord,
                 ("status", "entity_type", "entity_id"))
_declare_listing(service.UW_SCORES, "uw_scores", UwScoreListQuery, UwScorePage, UwScoreRecord,
                 ("submission_id", "decision"))


# Underwriting submissions: created (the bindings on uw_submission score them), listed, read -----

@routes.post("/uw_submissions/", body=UwSubmissionCreate, response=UwSubmissionRecord,
             status=201, auth=WRITE, summary="Create an underwriting submission",
             description="`client_id` and `policy_id` name the workspace's own records (`id` or "
             "`uuid`; another workspace's is 400 as a missing one is). Bindings on "
             "`uw_submission` `created` then run (docs/rules-at-work.md).")
async def create_uw_submission(call: Call[UwSubmissionCreate, None]) -> UwSubmissionRecord:
    store = await _tenant_store(call)
    row = await store.run(service.create_submission, call.principal.active_workspace_id,
                          _actor(call), call.body)
    return UwSubmissionRecord.model_validate(row)


_declare_listing(service.UW_SUBMISSIONS, "uw_submissions", UwSubmissionListQuery,
                 UwSubmissionPage, UwSubmissionRecord, ("client_id", "lob"))


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
    return routes.build_app()


def create_endpoint_app() -> web.Application:
    """The remote MCP endpoint's sub-application (platform/mcp/endpoint.py), mounted at /mcp."""
    return endpoint.create_app()
