"""The remote endpoint's way of running a tool: its tenant API operation, called in-process.

A tool is a v2 operation (platform/mcp_tools/registry.py). The endpoint finds that operation's
declared route among the app's mounts and calls its handler with the caller's principal and the
inputs validated by the route's own models: the same handler, scope check, validation and
error table as an HTTP request to that path, with no second HTTP round trip. The handler sees a
clone of the MCP request resolved to the operation's path, so it reads the state of the
operation's own sub-application (its area's stores) and writes the operation's method and path
into audit rows.
"""

from __future__ import annotations

import logging
from typing import Any

from aiohttp import web
from pydantic import BaseModel
from sqlalchemy.engine import make_url

from insureops.platform.auth.requirements import AuthKind, Principal
from insureops.platform.http.bodies import validate
from insureops.platform.http.errors import ApiError, is_database_unavailable
from insureops.platform.http.routing import Call, Mount, Route
from insureops.platform.keys import ERROR_TABLE, MOUNTS
from insureops.platform.mcp_tools.calls import ToolFailure
from insureops.platform.mcp_tools.registry import Tool

logger = logging.getLogger("insureops.mcp.remote")


def operation_route(mounts: tuple[Mount, ...], tool: Tool) -> Route:
    """The declared route of `tool`'s operation (an API-key route); LookupError otherwise."""
    for mount in mounts:
        for route in mount.table.routes:
            if route.method == tool.method and mount.full_path(route) == tool.path:
                if route.auth.kind is not AuthKind.API_KEY:
                    raise LookupError(f"{tool.name}: {tool.path} is not a tenant API route")
                return route
    raise LookupError(f"{tool.name}: no route {tool.method} {tool.path}")


async def _resolved(request: web.Request, method: str, path: str) -> web.Request:
    """A clone of `request` as `method path`, matched by the root router (its sub-app chain)."""
    clone = request.clone(method=method, rel_url=path)
    app = request.match_info.apps[0]  # the root application
    match_info = await app.router.resolve(clone)
    match_info.add_app(app)
    match_info.freeze()
    clone._match_info = match_info  # what aiohttp's Application._handle sets on a request
    return clone


def _to_text(result: BaseModel | web.StreamResponse | None) -> str:
    if isinstance(result, web.Response) and result.text is not None:
        return result.text
    if isinstance(result, BaseModel):
        return result.model_dump_json(by_alias=True)
    raise TypeError(f"an operation answered {type(result).__name__}")


def _hidden(text: str) -> str:
    """The connection answer with the URI's password hidden (it would enter the model's
    context; the local server's tool hides it the same way)."""
    connection = DatabaseAnswer.model_validate_json(text)
    url = make_url(connection.connection_string)
    return connection.model_copy(update={"connection_string": url.render_as_string(
        hide_password=True)}).model_dump_json()


class DatabaseAnswer(BaseModel):
    connection_string: str
    backend: str


class RemoteTools:
    """`ToolBackend` of the /mcp/ endpoint for one request's caller."""

    def __init__(self, request: web.Request, principal: Principal) -> None:
        self.request = request
        self.principal = principal

    async def call(self, tool: Tool, arguments: BaseModel, raw: dict[str, Any]) -> str:
        route = operation_route(self.request.config_dict[MOUNTS], tool)
        if route.auth.scope is not None and not self.principal.has_scope(route.auth.scope):
            raise ToolFailure("insufficient_scope",
                              f"This API key lacks the {route.auth.scope.value} scope.")
        try:
            text = _to_text(await self._run(route, tool, raw))
        except ApiError as error:
            raise ToolFailure(error.code, error.message, error.details) from None
        except Exception as exc:
            raise self._mapped(exc) from None
        return _hidden(text) if tool.hide_password else text

    async def _run(self, route: Route, tool: Tool, raw: dict[str, Any]) -> Any:
        wanted = tool.request(raw)
        request = await _resolved(self.request, wanted.method, wanted.path)
        path = (validate(route.path_model, dict(request.match_info), "path")
                if route.path_model else request.match_info)
        query = validate(route.query, wanted.query, "query") if route.query else None
        body = validate(route.body, wanted.body, "arguments") if route.body else None
        return await route.handler(Call(request, body, query, path, self.principal))

    def _mapped(self, exc: Exception) -> ToolFailure:
        error = self.request.config_dict[ERROR_TABLE].lookup(exc)
        if error is not None:
            return ToolFailure(error.code, error.message, error.details)
        if is_database_unavailable(exc):
            logger.warning("platform database unavailable during a tool call: %s",
                           type(exc).__name__)
            return ToolFailure("service_unavailable", "The service's database is unavailable; "
                               "retry shortly.")
        logger.error("tool call failed", exc_info=exc)
        return ToolFailure("internal_error", "The tool failed; the service logged the error.")
