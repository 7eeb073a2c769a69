"""Fixtures of the local MCP server tests: the tenant fixtures of tests/platform/mcp, a recording
proxy in front of the real service, and the child process's parameters."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from mcp.client.stdio import StdioServerParameters

from tests.platform.mcp.conftest import (  # noqa: F401 - fixtures used by these tests too
    Tenant,
    add_key,
    make_own_tenant,
    make_tenant,
    make_tenant_database,
    settings,
    tenant,
    tenant_sqlite_root,
)

INSUREOPS = str(Path(sys.executable).parent / "insureops")


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: str


@dataclass
class Recorder:
    """Every request the service received through the proxy, in order."""

    requests: list[Recorded] = field(default_factory=list)

    def paths(self) -> list[str]:
        return [request.path for request in self.requests]


def _proxy_app(target: TestClient, recorder: Recorder) -> web.Application:
    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        recorder.requests.append(Recorded(request.method, request.path,
                                          dict(request.headers), body.decode()))
        headers = {name: value for name, value in request.headers.items()
                   if name.lower() in ("authorization", "content-type", "user-agent", "accept",
                                       "mcp-protocol-version", "origin")}
        async with aiohttp.ClientSession() as session, session.request(
                request.method, target.make_url(request.path_qs), data=body,
                headers=headers) as response:
            return web.Response(status=response.status, body=await response.read(),
                                content_type=response.content_type)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    return app


@pytest.fixture
async def recording_service(client: TestClient, aiohttp_server) -> tuple[str, Recorder]:
    """The real service behind a recording proxy: (SERVICE_URL for the child, the recorder)."""
    recorder = Recorder()
    proxy = await aiohttp_server(_proxy_app(client, recorder), host="127.0.0.1")
    return str(proxy.make_url("")).rstrip("/"), recorder


@pytest.fixture
def server_parameters() -> Callable[..., StdioServerParameters]:
    """`server_parameters(SERVICE_API_KEY=..., DATABASE_URL=..., SERVICE_URL=...)`: the child
    `insureops mcp` with exactly those environment values (plus the SDK's safe defaults)."""
    def make(*args: str, **env: str) -> StdioServerParameters:
        return StdioServerParameters(command=INSUREOPS, args=["mcp", *args], env=env)
    return make


@pytest.fixture
def errlog(tmp_path: Path):
    """A file catching the child's stderr (the troubleshooting messages)."""
    path = tmp_path / "server-stderr.txt"
    with path.open("w") as file:
        yield file


