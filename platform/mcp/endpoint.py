"""The remote MCP endpoint: the registry's tools over Streamable HTTP at /mcp/ (docs/mcp.md).

An AI client connects with the URL and an API key. The request passes the service's route
pipeline first (key authentication: 401 for an unknown, revoked or expired key; the per-key rate
limit and its X-RateLimit-* headers), then the MCP specification's Origin check and the body
cap, and only then reaches the official SDK's Streamable HTTP transport (stateless, JSON
responses), bridged here from aiohttp to its ASGI interface. Each tool call runs as its tenant
API operation in this process (dispatch.py) with the key's workspace and scopes. Stateless: no
Mcp-Session-Id, no server-to-client requests, GET answers 405 (as the specification allows),
so any instance behind a load balancer serves any request. The SDK is imported, and its
session manager started, on the first request (`Sessions`): a service that no AI client calls
does not pay for it at start.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from aiohttp import web
from multidict import CIMultiDict
from pydantic import BaseModel, ConfigDict

from insureops.platform.auth.requirements import Auth
from insureops.platform.config import Settings
from insureops.platform.http.bodies import OFF_LOOP_BYTES, decode_json, read_raw
from insureops.platform.http.errors import ApiError
from insureops.platform.http.ratelimit import RateKey, RateLimit
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import BODY_THREADS, MCP_SESSIONS
from insureops.platform.mcp.dispatch import RemoteTools

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

# Per API key: a tool call is one request, a session's start two (initialize, initialized).
MCP_LIMIT = RateLimit("mcp", 120, 60, key=RateKey.API_KEY)
CALLER = "insureops.caller"  # the ASGI scope's entry that carries the caller to the tools
# The body is read within the service's own cap (simulation_max_body_bytes) before the SDK sees
# it; the SDK's cap only has to be above that.
SDK_BODY_CAP = 64 * 1024 * 1024

routes = RouteTable("mcp_endpoint", "The remote MCP endpoint (Streamable HTTP, API key).")


def trusted_origins(settings: Settings) -> tuple[str, ...]:
    """The configured origins: `allowed_origins` and the origin of `public_url`. Never the
    request's own Host, which a DNS-rebinding page controls."""
    origins = list(settings.allowed_origins)
    if settings.public_url:
        parts = urlsplit(settings.public_url)
        origins.append(f"{parts.scheme}://{parts.netloc}")
    return tuple(origins)


def check_mcp_origin(request: web.Request, settings: Settings) -> None:
    """403 origin_not_allowed when an Origin header names an origin not configured (MCP
    specification, Streamable HTTP, "Security Warning": DNS rebinding). No Origin: not a
    browser, allowed."""
    origin = request.headers.get("Origin")
    if origin is not None and origin.strip().rstrip("/") not in trusted_origins(settings):
        raise ApiError(403, "origin_not_allowed", f"Requests from origin {origin} are refused "
                       "by the MCP endpoint (INSUREOPS_ALLOWED_ORIGINS lists the allowed ones).")


def _scope(request: web.Request, body: bytes, call: Call) -> dict[str, Any]:
    """The ASGI scope of the request, with the caller for the tools."""
    host, _, port = request.host.partition(":")
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": request.method, "scheme": request.scheme, "path": request.path,
        "raw_path": request.raw_path.encode(), "query_string": request.query_string.encode(),
        "root_path": "", "client": (request.remote or "", 0),
        "server": (host, int(port) if port.isdigit() else 80),
        "headers": [(name.lower(), value) for name, value in request.raw_headers],
        CALLER: RemoteTools(request, call.principal), "state": {},
    }


async def _asgi_response(app: Any, scope: dict[str, Any], body: bytes) -> web.Response:
    """Run one request through the ASGI `app` with `body`; its whole answer as a Response
    (stateless JSON responses end with the request)."""
    answered = asyncio.Event()
    start: dict[str, Any] = {}
    chunks: list[bytes] = []
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop()
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    try:
        await app(scope, receive, send)
    finally:
        answered.set()
    headers = [(name.decode("latin-1"), value.decode("latin-1"))
               for name, value in start.get("headers", ())]
    return web.Response(status=start.get("status", 500), body=b"".join(chunks),
                        headers=CIMultiDict(headers))


class JsonRpcMessage(BaseModel):
    """A JSON-RPC 2.0 message of the Model Context Protocol (a response, or a batch)."""

    model_config = ConfigDict(extra="allow")

    jsonrpc: str = "2.0"


@routes.post("/", response=JsonRpcMessage, auth=Auth.api_key(), rate_limit=MCP_LIMIT,
             errors=(401, 403, 413, 429),
             summary="The MCP endpoint (Streamable HTTP, stateless)",
             description="JSON-RPC messages of the Model Context Protocol; the tools of "
             "docs/mcp.md with the key's scopes. 403 origin_not_allowed for an Origin that is "
             "not configured.")
async def mcp_endpoint(call: Call[None, None]) -> web.Response:
    request, settings = call.request, call.settings
    check_mcp_origin(request, settings)
    body = await read_raw(request, settings.simulation_max_body_bytes,
                          settings.body_timeout_seconds)
    # the engine's bounded reader first (depth, number literals, value count): the SDK parses
    # with json.loads, which a 100,000-deep body or a 5,000-digit number costs dearly
    check = partial(decode_json, body, request.charset, settings.simulation_max_body_values)
    if len(body) <= OFF_LOOP_BYTES:
        check()
    else:
        await request.config_dict[BODY_THREADS].run(check)
    manager = await cast(Sessions, request.config_dict[MCP_SESSIONS]).manager()
    return await _asgi_response(manager.handle_request, _scope(request, body, call), body)


def _session_manager() -> StreamableHTTPSessionManager:
    """The SDK's session manager of the tool server (stateless, JSON responses)."""
    # imported here, on the first request: the SDK is a large part of a start's imports
    from insureops.platform.mcp_tools.server import build_server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    return StreamableHTTPSessionManager(
        build_server(lambda ctx: ctx.request.scope[CALLER]), json_response=True,
        stateless=True,
        # Origin is checked above against the configured origins; Host names are the proxy's
        # concern (the SDK's check needs a fixed list of host names).
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=SDK_BODY_CAP)


class Sessions:
    """The SDK's session manager, made and run from the first request to the app's end, in a
    task of its own: its task group must be entered and left by one task, which a request and
    clean-up are not."""

    def __init__(self) -> None:
        self._manager: StreamableHTTPSessionManager | None = None
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def manager(self) -> StreamableHTTPSessionManager:
        """The running manager (the first call imports the SDK, off the event loop, and starts
        it)."""
        async with self._starting:
            if self._manager is None:
                manager = await asyncio.to_thread(_session_manager)
                running = asyncio.Event()

                async def run() -> None:
                    async with manager.run():
                        running.set()
                        await self._stop.wait()

                task = asyncio.create_task(run())
                waiting = asyncio.create_task(running.wait())
                await asyncio.wait((waiting, task), return_when=asyncio.FIRST_COMPLETED)
                if not running.is_set():  # the manager did not start: raise why
                    waiting.cancel()
                    await task
                self._task, self._manager = task, manager
        return self._manager

    async def close(self) -> None:
        """Stop the manager if it was started."""
        self._stop.set()
        if self._task is not None:
            await self._task


async def _sessions(app: web.Application) -> AsyncIterator[None]:
    yield
    await cast(Sessions, app[MCP_SESSIONS]).close()


def create_app() -> web.Application:
    """The endpoint's sub-application (mounted at /mcp by the composition root)."""
    app = routes.build_app()
    app[MCP_SESSIONS] = Sessions()
    app.cleanup_ctx.append(_sessions)
    return app
