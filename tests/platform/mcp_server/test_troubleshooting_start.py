"""Each failure mode of the spec's troubleshooting list: the server prints the matching message
on stderr at start and exits instead of serving tools. Each mode is seen once through the SDK's
real client and a child `insureops mcp`; the variants of one mode (which text of a key, which
unusable URL) differ only in the message `serve` prints, so they call it in-process (a child
start costs seconds)."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from insureops.platform.mcp_server.config import LocalServerSettings
from insureops.platform.mcp_server.server import EXIT_CHECK_FAILED, serve
from insureops.platform.mcp_tools.registry import TOOLS

KEY_TIPS = ("stray spaces or line breaks", "starts with the service's prefix `iops_`",
            "Generate a new key")
DATABASE_TIPS = ("connection string", "pauses when idle", "URL-safe")
# Start-up refusals do not depend on the platform database's engine: run them once, on SQLite
# (the full tool session runs on both engines in test_session.py).
ONE_ENGINE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
KEY_MANGLES = [
    (lambda key: key + "\n", "spaces or line breaks"),
    (lambda key: " " + key, "spaces or line breaks"),
    (lambda key: "sk_" + key[5:], "does not start with `iops_`"),
    (lambda key: key[:-3], "instead of 45"),
]
UNUSABLE_DATABASES = [
    # the closed port is chosen when the test runs, so that test ids stay the same between runs
    ("postgresql://app:secret@127.0.0.1:{closed_port}/tenant", "database connection failed"),
    ("postgresql://app:p@ss#word@127.0.0.1:5432/tenant", "special characters"),
    ("mysql://app:secret@127.0.0.1/tenant", "use postgresql://"),
]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def _start_fails(params, errlog) -> str:
    """Start the server with the real client; it must exit; its stderr."""
    with pytest.raises(ExceptionGroup) as failure:  # the SDK: MCPError "Connection closed"
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write, read_timeout_seconds=30) as session:
            await session.initialize()
    assert failure.group_contains(MCPError, match="Connection closed")
    errlog.flush()
    return Path(errlog.name).read_text()


async def _serve_fails(**values: str) -> str:
    """`serve` in this process with these settings: it must refuse to start; what it printed."""
    err = io.StringIO()
    assert await serve(LocalServerSettings(**values), err=err) == EXIT_CHECK_FAILED
    return err.getvalue()


@ONE_ENGINE
@pytest.mark.parametrize("mangle, found", KEY_MANGLES)
async def test_start_explains_the_key_when_its_text_is_wrong(
        make_tenant, recording_service, tmp_path, mangle, found):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    log = await _serve_fails(service_api_key=mangle(tenant.key),
                             database_url=f"sqlite:///{tmp_path}/t.db", service_url=service_url)
    assert "invalid API key" in log and found in log
    assert all(tip in log for tip in KEY_TIPS)
    assert recorder.requests == []  # a visibly broken key is not even sent


@ONE_ENGINE
async def test_start_explains_the_key_when_its_text_is_wrong_in_the_child_s_environment(
        make_tenant, recording_service, server_parameters, errlog, tmp_path):
    """A line break copied with the key reaches the child through its environment."""
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    mangle, found = KEY_MANGLES[0]
    log = await _start_fails(server_parameters(
        SERVICE_API_KEY=mangle(tenant.key), DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
        SERVICE_URL=service_url), errlog)
    assert "invalid API key" in log and found in log
    assert all(tip in log for tip in KEY_TIPS)
    assert recorder.requests == []


@ONE_ENGINE
async def test_start_explains_the_key_when_the_service_refuses_it(
        make_tenant, recording_service, server_parameters, errlog, tmp_path):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    revoked = "iops_" + "Z" * 40  # well formed, never issued
    log = await _start_fails(server_parameters(
        SERVICE_API_KEY=revoked, DATABASE_URL=f"sqlite:///{tmp_path}/t.db",
        SERVICE_URL=service_url), errlog)
    assert "the service refused it" in log and all(tip in log for tip in KEY_TIPS)
    assert recorder.paths() == ["/api/v2/mcp/validate-key/"] and tenant.key not in log


@ONE_ENGINE
@pytest.mark.parametrize("database_url, found", UNUSABLE_DATABASES)
async def test_start_explains_the_database_when_it_cannot_connect(
        make_tenant, recording_service, database_url, found):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    database_url = database_url.replace("{closed_port}", str(_closed_port()))
    log = await _serve_fails(service_api_key=tenant.key, database_url=database_url,
                             service_url=service_url)
    assert "[ok] api_key" in log and found in log
    assert all(tip in log for tip in DATABASE_TIPS)
    assert "secret" not in log and "ss#word" not in log
    assert all("secret" not in request.body for request in recorder.requests)


@ONE_ENGINE
async def test_start_explains_the_database_when_it_cannot_connect_in_the_child(
        make_tenant, recording_service, server_parameters, errlog):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    database_url, found = UNUSABLE_DATABASES[0]
    database_url = database_url.replace("{closed_port}", str(_closed_port()))
    log = await _start_fails(server_parameters(
        SERVICE_API_KEY=tenant.key, DATABASE_URL=database_url, SERVICE_URL=service_url), errlog)
    assert "[ok] api_key" in log and found in log
    assert all(tip in log for tip in DATABASE_TIPS)
    assert "secret" not in log
    assert all("secret" not in request.body for request in recorder.requests)


@ONE_ENGINE
async def test_start_says_to_prepare_the_database_when_it_is_empty(
        make_tenant, recording_service, server_parameters, errlog, tmp_path):
    service_url, _ = recording_service
    tenant = await make_tenant(None)
    log = await _start_fails(server_parameters(
        SERVICE_API_KEY=tenant.key, DATABASE_URL=f"sqlite:///{tmp_path}/empty.db",
        SERVICE_URL=service_url), errlog)
    assert "insureops schema apply" in log


async def test_start_lists_the_tools_and_client_tips_when_everything_is_fine(
        make_tenant, make_tenant_database, recording_service, server_parameters, errlog):
    service_url, _ = recording_service
    tenant = await make_tenant(None)
    params = server_parameters(SERVICE_API_KEY=tenant.key, DATABASE_URL=make_tenant_database(),
                               SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
    errlog.flush()
    log = Path(errlog.name).read_text()
    assert "[ok] api_key" in log and "[ok] database" in log and f"{len(TOOLS)} tools" in log
    assert "Restart the desktop client" in log and "PATH" in log and "logs" in log
