"""`insureops market load DIR`: check a market folder and store it in the platform database."""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import click


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--database-url", default=None,
              help="Platform database URL [INSUREOPS_DATABASE_URL, ./insureops.db].")
@click.option("--workspace", "workspace_id", default=None, metavar="TENANT_ID",
              help="Load as this workspace's own market; default: the shared market.")
def load(folder: Path, database_url: str | None, workspace_id: str | None) -> None:
    """Check FOLDER and store it in the platform database (safe to run again: unchanged files
    are no-ops, changed appetites get a new version, removed products are deactivated)."""
    from sqlalchemy.exc import SQLAlchemyError

    from insureops.carrier_matching import MarketInvalidError
    from insureops.platform.carrier_finder.startup import load_folder
    from insureops.platform.cli.serve import _settings
    from insureops.platform.data.database import Database

    # env_models: every model, so that the market tables' foreign keys (workspaces) resolve; on a
    # database already at head the migrations import none (issue 17: load failed after migrate).
    from insureops.platform.migrations import (
        env_models,  # noqa: F401
        upgrade,
    )

    settings = _settings(database_url=database_url)
    started = time.perf_counter()

    async def run():
        database = Database.connect(settings.database_url)
        try:
            await upgrade(database.engine)
            # the CLI is the platform shell: the one place allowed to read the local clock
            return await load_folder(database, folder, now=datetime.now(UTC),
                                     workspace_id=workspace_id)
        finally:
            await database.engine.dispose()

    try:
        summary = asyncio.run(run())
    except MarketInvalidError as exc:
        for problem in exc.problems:
            click.echo(replace(problem, file=f"{folder}/{problem.file}").render(), err=True)
        click.echo(f"{folder}: {len(exc.problems)} problem(s); nothing loaded", err=True)
        sys.exit(1)
    except (OSError, UnicodeDecodeError, SQLAlchemyError) as exc:
        click.echo(f"error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(1)
    verb = "loaded" if summary.changed else "unchanged"
    click.echo(f"{folder}: {verb} in {time.perf_counter() - started:.2f}s: {summary.render()}")
