"""The local server's tools: the MCP v2 operations, one-to-one, on the tenant's own database.

Names and fields are the HTTP API's (the handler names of platform/mcp/routes.py); record inputs
are the same payload models, so a tool validates exactly like the HTTP endpoint (the data
model's JSON Schemas), and runs the same use cases (state machine, audit) on DATABASE_URL.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any
from uuid import UUID

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field
from sqlalchemy.engine import make_url

from insureops.platform.auth.requirements import Scope
from insureops.platform.mcp_server.service_client import KeyInfo
from insureops.platform.mcp_server.troubleshooting import DATABASE_TIPS, INVALID_KEY_TIPS
from insureops.platform.mcp_server.usage import UsageBatcher
from insureops.platform.tenancy.book import service
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError, TenantDataError
from insureops.platform.tenancy.book.payloads import (
    ClientCreate,
    ClientListQuery,
    ClientUpdate,
    PolicyCreate,
    PolicyListQuery,
    PolicyUpdate,
)
from insureops.platform.tenancy.book.store import TenantStore

INSTRUCTIONS = (
    "Create, read, list and update the workspace's clients and policies (insureops data model "
    "2.2.0) in the tenant's own database. Policy status changes follow the policy state "
    "machine. Lists are paged: pass next_cursor back as cursor.")


class KeyState:
    """The key as the service last confirmed it; None after the service refused it."""

    def __init__(self, info: KeyInfo) -> None:
        self.info: KeyInfo | None = info
        self.refusal: str | None = None

    def refuse(self, reason: str) -> None:
        self.info, self.refusal = None, reason


@dataclass
class ToolContext:
    """What every tool call uses: the store, the key, the usage counter, the database URL."""

    store: TenantStore
    key: KeyState
    usage: UsageBatcher
    database_url: str


Runner = Callable[[ToolContext, dict[str, Any], service.Actor, str], Awaitable[Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    scope: Scope
    parameters: tuple[inspect.Parameter, ...]
    run: Runner


def _param(name: str, annotation: Any, description: str, default: Any = inspect.Parameter.empty
           ) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[annotation, Field(description=description)])


def _query_params(model: type[BaseModel]) -> tuple[inspect.Parameter, ...]:
    """One parameter per field of a list query model (same names, types and limits)."""
    return tuple(
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info.default,
                          annotation=Annotated[(info.annotation, *info.metadata,
                                                Field(description=info.description))])
        for name, info in model.model_fields.items())


def _uuid_param(resource: str) -> inspect.Parameter:
    return _param("uuid", UUID, f"The {resource}'s `uuid` field.")


def _error_text(code: str, message: str, details: list | None = None,
                tips: tuple[str, ...] = ()) -> str:
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    if tips:
        error["troubleshooting"] = list(tips)
    return json.dumps({"error": error})


def _on_store(use_case: Callable[..., Awaitable[Any]],
              arguments: Callable[[dict[str, Any], service.Actor, str], tuple],
              read_only: bool = False) -> Runner:
    """A tool running `use_case(records, *arguments(args, actor, tenant_id))` on the store."""
    async def run(context: ToolContext, args: dict[str, Any], actor: service.Actor,
                  tenant_id: str) -> Any:
        return await context.store.run(use_case, *arguments(args, actor, tenant_id),
                                       read_only=read_only)
    return run


def _page(kind: service.Kind, query_model: type[BaseModel]) -> Runner:
    async def use_case(records, tenant_id: str, query: BaseModel) -> dict[str, Any]:
        page = await service.list_page(records, kind, tenant_id, query)
        return {"items": page.items, "next_cursor": page.next_cursor}
    return _on_store(use_case, lambda a, actor, t: (t, query_model(**a)), read_only=True)


def _record_tools(kind: service.Kind, resource: str, plural: str, create: type[BaseModel],
                  update: type[BaseModel], query: type[BaseModel]) -> list[ToolSpec]:
    body = (create, update)
    return [
        ToolSpec(f"create_{resource}", f"Create a {resource}.", Scope.WRITE,
                 (_param(resource, body[0], f"The new {resource}'s fields."),),
                 _on_store(service.create, lambda a, actor, t: (kind, t, actor, a[resource]))),
        ToolSpec(f"get_{resource}", f"Get a {resource} by its uuid.", Scope.READ,
                 (_uuid_param(resource),),
                 _on_store(service.get, lambda a, actor, t: (kind, t, a["uuid"]),
                           read_only=True)),
        ToolSpec(f"list_{plural}", f"List {plural} (filters, keyset pages, oldest first).",
                 Scope.READ, _query_params(query), _page(kind, query)),
        ToolSpec(f"update_{resource}", f"Update a {resource}: only the fields given change.",
                 Scope.WRITE, (_uuid_param(resource),
                               _param(resource, body[1], "The fields to change.")),
                 _on_store(service.update,
                           lambda a, actor, t: (kind, t, actor, a["uuid"], a[resource]))),
    ]


async def _validate_key(context: ToolContext, args: dict, actor: service.Actor,
                        tenant_id: str) -> dict[str, Any]:
    info = context.key.info
    return {"valid": True, "key_id": info.key_id, "tenant_id": info.tenant_id,
            "workspace": {"tenant_id": info.tenant_id, "name": info.workspace_name},
            "scopes": sorted(info.scopes)}


async def _database_connection(context: ToolContext, args: dict, actor: service.Actor,
                               tenant_id: str) -> dict[str, Any]:
    # The model sees the URL without its password: the secret stays in the environment.
    url = make_url(context.database_url)
    return {"connection_string": url.render_as_string(hide_password=True),
            "backend": url.get_backend_name()}


def tool_specs() -> list[ToolSpec]:
    """Every tool, in the order of the HTTP API's operations."""
    return [
        *_record_tools(service.CLIENT, "client", "clients", ClientCreate, ClientUpdate,
                       ClientListQuery),
        *_record_tools(service.POLICY, "policy", "policies", PolicyCreate, PolicyUpdate,
                       PolicyListQuery),
        ToolSpec("validate_key", "Which workspace, tenant and scopes the API key has.",
                 Scope.READ, (), _validate_key),
        ToolSpec("get_database_connection", "The tenant database this server uses (password "
                 "hidden).", Scope.WRITE, (), _database_connection),
    ]


async def invoke(spec: ToolSpec, context: ToolContext, args: dict[str, Any]) -> Any:
    """Run one tool call: count it, check key and scope, run it, turn failures into tool errors."""
    context.usage.count(spec.name)
    info = context.key.info
    if info is None:
        raise ToolError(_error_text("invalid_api_key", f"The service no longer accepts the API "
                                    f"key: {context.key.refusal}", tips=INVALID_KEY_TIPS))
    if not info.allows(spec.scope):
        raise ToolError(_error_text("insufficient_scope",
                                    f"This API key lacks the {spec.scope.value} scope."))
    actor = service.Actor(key_id=info.key_id, method="MCP", path=spec.name)
    try:
        return await spec.run(context, args, actor, info.tenant_id)
    except TenantDatabaseUnavailableError as exc:
        raise ToolError(_error_text(exc.code, exc.message, tips=DATABASE_TIPS)) from None
    except TenantDataError as exc:
        raise ToolError(_error_text(exc.code, exc.message, exc.details)) from None


def _bind(spec: ToolSpec, context: ToolContext) -> Callable[..., Awaitable[Any]]:
    async def call(**kwargs: Any) -> Any:
        return await invoke(spec, context, kwargs)
    call.__name__ = spec.name
    call.__doc__ = spec.description
    call.__signature__ = inspect.Signature(list(spec.parameters))  # type: ignore[attr-defined]
    return call


def build_server(context: ToolContext, **options: Any) -> MCPServer:
    """The MCPServer serving every tool on `context` (options go to MCPServer)."""
    server = MCPServer("insureops", instructions=INSTRUCTIONS, **options)
    for spec in tool_specs():
        server.add_tool(_bind(spec, context), name=spec.name, description=spec.description,
                        structured_output=False)
    return server
