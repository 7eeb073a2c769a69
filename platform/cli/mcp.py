"""`insureops mcp`: run the local MCP server (stdio); `doctor` checks it; `config` prints its entry."""

from __future__ import annotations

import json
import shutil
import sys

import click

PLACEHOLDER_KEY = "iops_your_api_key"
PLACEHOLDER_URL = "postgresql://user:password@host:5432/database"


@click.group(invoke_without_command=True)
@click.option("--validate-every", type=float, default=300.0, hidden=True,
              help="Seconds between key re-validations.")
@click.option("--usage-every", type=float, default=60.0, hidden=True,
              help="Seconds between usage reports.")
@click.pass_context
def mcp(ctx: click.Context, validate_every: float, usage_every: float) -> None:
    """The local MCP server: SERVICE_API_KEY, DATABASE_URL (and SERVICE_URL) from the environment.

    Without a subcommand it serves the tools over stdio (started by a desktop AI client).
    """
    if ctx.invoked_subcommand is not None:
        return
    import anyio

    from insureops.platform.mcp_server.config import LocalServerSettings
    from insureops.platform.mcp_server.server import serve

    settings = LocalServerSettings.from_env()
    status = anyio.run(lambda: serve(settings, validate_every=validate_every,
                                     flush_every=usage_every))
    ctx.exit(status)


@mcp.command()
def doctor() -> None:
    """Check the key, the database and the tools (local way) and the service's /mcp/ endpoint
    (remote way); print what to fix."""
    import anyio

    from insureops.platform.mcp_server.config import LocalServerSettings
    from insureops.platform.mcp_server.server import doctor as run_doctor

    findings = anyio.run(run_doctor, LocalServerSettings.from_env())
    for finding in findings:
        click.echo(finding.render())
    if not all(finding.ok for finding in findings):
        sys.exit(1)


@mcp.command()
@click.option("--name", default="insureops", show_default=True, help="The server entry's name.")
def config(name: str) -> None:
    """Print the desktop client's configuration entry (command, args, the two variables).

    The values come from SERVICE_API_KEY and DATABASE_URL when set, else placeholders. Add the
    entry under "mcpServers" of the client's configuration file and restart the client.
    """
    from insureops.platform.mcp_server.config import LocalServerSettings

    settings = LocalServerSettings.from_env()
    entry = {"command": shutil.which("insureops") or "insureops", "args": ["mcp"],
             "env": {"SERVICE_API_KEY": settings.api_key or PLACEHOLDER_KEY,
                     "DATABASE_URL": settings.database or PLACEHOLDER_URL}}
    if settings.service_url != "http://127.0.0.1:8080":
        entry["env"]["SERVICE_URL"] = settings.service_url
    click.echo(json.dumps({"mcpServers": {name: entry}}, indent=2))
