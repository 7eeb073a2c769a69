"""Start-up, periodic key validation, usage batching and the stdio loop of the local MCP server.

At start the server checks the key (form, then the service), the database (connect, data-model
version) and prints what it found to stderr (stdout carries the MCP protocol only); a failed
check prints the troubleshooting message and exits with status 2.
"""

from __future__ import annotations

import sys
from typing import TextIO

import anyio
import sqlalchemy as sa
from mcp.server.stdio import stdio_server

from insureops.platform.mcp_server.config import LocalServerSettings
from insureops.platform.mcp_server.service_client import (
    KeyInfo,
    KeyRejectedError,
    ServiceClient,
    ServiceUnreachableError,
)
from insureops.platform.mcp_server.tools import KeyState, ToolContext, build_server
from insureops.platform.mcp_server.troubleshooting import (
    Finding,
    database_failed,
    invalid_key,
    key_problems,
    tools_finding,
    url_problem,
)
from insureops.platform.mcp_server.usage import UsageBatcher
from insureops.platform.mcp_tools.registry import TOOLS
from insureops.platform.tenancy.book.store import open_tenant_store
from insureops.platform.tenancy.probe import async_tenant_url, probe
from insureops.schema.model import DATA_MODEL_VERSION

VALIDATE_EVERY_SECONDS = 300.0
FLUSH_EVERY_SECONDS = 60.0
EXIT_CHECK_FAILED = 2


def _reason(exc: BaseException) -> str:
    """The driver's first line (no password: drivers never print it), or the error type."""
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


async def check_key(client: ServiceClient, key: str) -> tuple[Finding, KeyInfo | None]:
    """The key's form, then the service's verdict."""
    problems = key_problems(key)
    if problems:
        return invalid_key("; ".join(problems)), None
    try:
        info = await client.validate_key()
    except KeyRejectedError as exc:
        return invalid_key(f"the service refused it ({exc})"), None
    except ServiceUnreachableError as exc:
        return Finding("api_key", False, f"cannot validate the key: {exc}", (
            "Check SERVICE_URL and that the insureops service is running and reachable.",)), None
    scopes = " ".join(sorted(info.scopes))
    return Finding("api_key", True, f"valid for workspace {info.workspace_name!r} "
                   f"(tenant {info.tenant_id}, scopes: {scopes})"), info


async def check_database(url: str) -> Finding:
    """Connect to DATABASE_URL and read its data-model version."""
    problem = url_problem(url)
    if problem:
        return database_failed(problem)
    try:
        async_tenant_url(url)
    except (ValueError, sa.exc.ArgumentError) as exc:
        return database_failed(f"unusable URL ({exc})")
    try:
        with anyio.fail_after(15):
            _, version = await probe(url)
    except TimeoutError:
        return database_failed("no answer within 15 s")
    except (sa.exc.SQLAlchemyError, OSError) as exc:  # reported, never raised at the user
        return database_failed(_reason(exc))
    if version is None:
        return Finding("database", False, "the database is not prepared: run `insureops schema "
                       "apply \"$DATABASE_URL\"` once", ())
    if version != DATA_MODEL_VERSION:
        return Finding("database", False, f"the database holds data model {version}; this "
                       f"server serves {DATA_MODEL_VERSION} (run `insureops schema apply`)", ())
    return Finding("database", True, f"connected; data model {version}")


async def _revalidate(client: ServiceClient, key: KeyState, every: float) -> None:
    while True:
        await anyio.sleep(every)
        try:
            info = await client.validate_key()
        except KeyRejectedError as exc:
            key.refuse(str(exc))
            continue
        except ServiceUnreachableError:
            continue  # keep the last verdict while the service is briefly away
        key.info, key.refusal = info, None


async def _flush_periodically(usage: UsageBatcher, every: float) -> None:
    while True:
        await anyio.sleep(every)
        await usage.flush()


async def serve(settings: LocalServerSettings, *, err: TextIO = sys.stderr,
                validate_every: float = VALIDATE_EVERY_SECONDS,
                flush_every: float = FLUSH_EVERY_SECONDS) -> int:
    """Check, then serve the tools over stdio until the client closes; the exit status."""
    async with ServiceClient(settings.service_url, settings.api_key) as client:
        key_finding, info = await check_key(client, settings.api_key)
        print(key_finding.render(), file=err, flush=True)
        if info is None:
            return EXIT_CHECK_FAILED
        database = await check_database(settings.database)
        print(database.render(), file=err, flush=True)
        if not database.ok:
            return EXIT_CHECK_FAILED
        store = open_tenant_store(settings.database)
        usage = UsageBatcher(client)
        context = ToolContext(store, KeyState(info), usage, settings.database, client)
        server = build_server(context)
        print(tools_finding([tool.name for tool in TOOLS]).render(), file=err, flush=True)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_revalidate, client, context.key, validate_every)
                tasks.start_soon(_flush_periodically, usage, flush_every)
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream,
                                     server.create_initialization_options())
                tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await usage.flush()
                await store.close()
    return 0


async def doctor(settings: LocalServerSettings) -> list[Finding]:
    """The three checks of the troubleshooting list (the local way), then the remote way
    (the service's /mcp/ endpoint with the same key), whatever the first ones found."""
    # the SDK's HTTP client only for this check: `insureops mcp` starts without it
    from insureops.platform.mcp_server.remote_check import check_remote

    async with ServiceClient(settings.service_url, settings.api_key) as client:
        key_finding, _ = await check_key(client, settings.api_key)
    remote = (await check_remote(settings.service_url, settings.api_key) if key_finding.ok
              else Finding("remote", False, "not checked: the key is refused (above)", ()))
    return [key_finding, await check_database(settings.database),
            tools_finding([tool.name for tool in TOOLS]), remote]
