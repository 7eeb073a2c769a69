"""`insureops mcp doctor`'s check of the remote way: the service's /mcp/ endpoint, reached with
the SDK's own Streamable HTTP client and the key, lists the same tools as this program."""

from __future__ import annotations

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from insureops.platform.mcp_server.troubleshooting import Finding
from insureops.platform.mcp_tools.registry import TOOLS

REMOTE_TIPS = (
    "Check SERVICE_URL: the endpoint is SERVICE_URL + /mcp/ (e.g. https://insureops.example/mcp/).",
    "A 401 means the key is refused there too: generate a new key in Settings -> API keys.",
    "A 403 origin_not_allowed comes from a browser page's Origin; desktop clients send none.",
    "Behind a proxy, let POST /mcp/ through with its Authorization header.",
)


def _reason(exc: BaseException) -> str:
    """The innermost cause of a failed session (task groups wrap it)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, httpx2.HTTPStatusError):
        return f"the endpoint answered {exc.response.status_code}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def endpoint_url(service_url: str) -> str:
    return service_url.rstrip("/") + "/mcp/"


PING = {"jsonrpc": "2.0", "id": 0, "method": "ping"}


async def _refusal(http: httpx2.AsyncClient, url: str) -> str | None:
    """The endpoint's HTTP refusal (status and the service's error message), or None: the SDK
    client reports a refused request only as "Server returned an error response"."""
    response = await http.post(url, json=PING, headers={
        "Accept": "application/json, text/event-stream"})
    if response.status_code < 400:
        return None
    try:
        error = response.json()["error"]
        return f"{response.status_code} {error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        return f"the endpoint answered {response.status_code}"


async def check_remote(service_url: str, key: str, *, seconds: float = 15.0) -> Finding:
    """Initialize a session at the endpoint with the key and list its tools."""
    url = endpoint_url(service_url)
    try:
        with anyio.fail_after(seconds):
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
                refusal = await _refusal(http, url)
                if refusal is not None:
                    return Finding("remote", False, f"{url}: {refusal}", REMOTE_TIPS)
                async with streamable_http_client(url, http_client=http) as (read, write), \
                        ClientSession(read, write) as session:
                    await session.initialize()
                    listed = await session.list_tools()
    except Exception as exc:  # every failure is a finding the user reads, never a trace
        return Finding("remote", False, f"{url}: {_reason(exc)}", REMOTE_TIPS)
    names = {tool.name for tool in listed.tools}
    expected = {tool.name for tool in TOOLS}
    if names != expected:
        return Finding("remote", False, f"{url} serves {len(names)} tools, this program "
                       f"{len(expected)}: the service and this install differ in version", ())
    return Finding("remote", True, f"{url} serves the same {len(names)} tools")
