"""The local server's way of running the registry's tools (platform/mcp_tools).

Operations on the tenant's own records (`Tool.book`) run here, on DATABASE_URL, with the same
use cases as the service (validation, state machine, audit) and nothing of them is sent to the
service. Every other tool is a service operation (the market, rulesets): it is asked of the
service's tenant API with the key, and carries only what the tool's arguments say. Each call is
counted for the usage report and checked against the key's scopes first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.lowlevel.server import Server
from pydantic import BaseModel
from sqlalchemy.engine import make_url

from insureops.platform.mcp_server.service_client import (
    KeyInfo,
    KeyRejectedError,
    ServiceClient,
    ServiceUnreachableError,
)
from insureops.platform.mcp_server.troubleshooting import DATABASE_TIPS, INVALID_KEY_TIPS
from insureops.platform.mcp_server.usage import UsageBatcher
from insureops.platform.mcp_tools.calls import ToolFailure
from insureops.platform.mcp_tools.registry import Tool
from insureops.platform.mcp_tools.server import build_server as build_tool_server
from insureops.platform.tenancy.book import service
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError, TenantDataError
from insureops.platform.tenancy.book.store import TenantStore


class KeyState:
    """The key as the service last confirmed it; None after the service refused it."""

    def __init__(self, info: KeyInfo) -> None:
        self.info: KeyInfo | None = info
        self.refusal: str | None = None

    def refuse(self, reason: str) -> None:
        self.info, self.refusal = None, reason


@dataclass
class ToolContext:
    """What every tool call uses: the store, the key, the usage counter, the database URL, and
    the service client for the service's operations."""

    store: TenantStore
    key: KeyState
    usage: UsageBatcher
    database_url: str
    client: ServiceClient | None = None


BookRun = Callable[[TenantStore, BaseModel, service.Actor, str], Awaitable[Any]]


def _page(page: service.Page) -> dict[str, Any]:
    return {"items": page.items, "next_cursor": page.next_cursor}


def _records(one: str, many: str, kind: service.Kind) -> dict[str, BookRun]:
    """The use cases of one record kind's tools, on the local store."""
    async def create(store, args, actor, tenant):
        return await store.run(service.create, kind, tenant, actor, getattr(args, one))

    async def get(store, args, actor, tenant):
        return await store.run(service.get, kind, tenant, args.uuid, read_only=True)

    async def listed(store, args, actor, tenant):
        return _page(await store.run(service.list_page, kind, tenant, args, read_only=True))

    async def update(store, args, actor, tenant):
        return await store.run(service.update, kind, tenant, actor, args.uuid,
                               getattr(args, one))
    return {f"create_{one}": create, f"get_{one}": get, f"list_{many}": listed,
            f"update_{one}": update}


def _listings(one: str, many: str, listing: service.Listing,
              filters: tuple[str, ...]) -> dict[str, BookRun]:
    """The use cases of one read-only table's tools (tasks, uw_scores), on the local store."""
    async def listed(store, args, actor, tenant):
        equal = {name: getattr(args, name) for name in filters
                 if getattr(args, name) is not None}
        return _page(await store.run(service.read_page, listing, tenant, equal, args.limit,
                                     args.cursor, read_only=True))

    async def get(store, args, actor, tenant):
        return await store.run(service.read_one, listing, tenant, args.id, read_only=True)
    return {f"list_{many}": listed, f"get_{one}": get}


# The book tools' use cases, by tool name (the registry's `book` tools; a test holds them equal).
BOOK_RUNS: dict[str, BookRun] = {
    **_records("client", "clients", service.CLIENT),
    **_records("policy", "policies", service.POLICY),
    **_listings("task", "tasks", service.TASKS, ("status", "entity_type", "entity_id")),
    **_listings("uw_score", "uw_scores", service.UW_SCORES, ("submission_id", "decision")),
    **_listings("uw_submission", "uw_submissions", service.UW_SUBMISSIONS, ("client_id", "lob")),
    "create_uw_submission": lambda store, args, actor, tenant: store.run(
        service.create_submission, tenant, actor, args.uw_submission),
}


def _validation(context: ToolContext) -> dict[str, Any]:
    info = context.key.info
    return {"valid": True, "key_id": info.key_id, "tenant_id": info.tenant_id,
            "workspace": {"tenant_id": info.tenant_id, "name": info.workspace_name},
            "scopes": sorted(info.scopes)}


def _database_connection(context: ToolContext) -> dict[str, Any]:
    # The model sees the URL without its password: the secret stays in the environment.
    url = make_url(context.database_url)
    return {"connection_string": url.render_as_string(hide_password=True),
            "backend": url.get_backend_name()}


class LocalTools:
    """`ToolBackend` of the local server."""

    def __init__(self, context: ToolContext) -> None:
        self.context = context

    async def call(self, tool: Tool, arguments: BaseModel, raw: dict[str, Any]) -> str:
        context = self.context
        context.usage.count(tool.name)
        info = context.key.info
        if info is None:
            raise ToolFailure("invalid_api_key", f"The service no longer accepts the API key: "
                              f"{context.key.refusal}", troubleshooting=INVALID_KEY_TIPS)
        if not info.allows(tool.scope):
            raise ToolFailure("insufficient_scope",
                              f"This API key lacks the {tool.scope.value} scope.")
        if tool.name == "validate_key":  # the service's answer at start or last re-validation
            return json.dumps(_validation(context))
        if tool.name == "get_database_connection":
            return json.dumps(_database_connection(context))
        if tool.book:
            return json.dumps(await self._on_store(tool, arguments, info), default=str)
        return await self._from_service(tool, raw)

    async def _on_store(self, tool: Tool, arguments: BaseModel, info: KeyInfo) -> Any:
        actor = service.Actor(key_id=info.key_id, method="MCP", path=tool.name)
        try:
            return await BOOK_RUNS[tool.name](self.context.store, arguments, actor,
                                              info.tenant_id)
        except TenantDatabaseUnavailableError as exc:
            raise ToolFailure(exc.code, exc.message, troubleshooting=DATABASE_TIPS) from None
        except TenantDataError as exc:
            raise ToolFailure(exc.code, exc.message, exc.details) from None

    async def _from_service(self, tool: Tool, raw: dict[str, Any]) -> str:
        client = self.context.client
        if client is None:
            raise ToolFailure("service_unavailable", "This server has no service connection.")
        request = tool.request(raw)
        try:
            status, text = await client.call(request.method, request.path, request.query,
                                             request.body)
        except KeyRejectedError as exc:
            raise ToolFailure("invalid_api_key", str(exc),
                              troubleshooting=INVALID_KEY_TIPS) from None
        except ServiceUnreachableError as exc:
            raise ToolFailure("service_unavailable", f"{exc}; check SERVICE_URL and that the "
                              "insureops service is running.") from None
        if status >= 400:
            raise _service_failure(status, text)
        return text


def _service_failure(status: int, text: str) -> ToolFailure:
    """The service's error object as a tool failure (its code, message and details)."""
    try:
        error = json.loads(text)["error"]
        return ToolFailure(str(error["code"]), str(error["message"]), error.get("details"))
    except (ValueError, KeyError, TypeError):
        return ToolFailure("service_unavailable", f"The service answered {status} without an error object.")


def build_server(context: ToolContext) -> Server:
    """The MCP server of every tool, run by the local server on `context`."""
    backend = LocalTools(context)
    return build_tool_server(lambda ctx: backend)
