"""`insureops serve` (run the service) and `insureops migrate` (migrate the platform database)."""

from __future__ import annotations

import asyncio
import gc

import click


def _settings(**overrides):
    from pydantic import ValidationError

    from insureops.platform.config import Settings

    try:
        return Settings.from_env(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}"
                             for e in exc.errors(include_url=False, include_input=False))
        raise click.ClickException(f"invalid configuration: {problems}") from None


def _service(host: str | None, port: int | None):
    """The service's app and settings (logging configured)."""
    from insureops.platform.app import create_app
    from insureops.platform.auth.secret_keys import ConfigurationError
    from insureops.platform.http.log import configure_logging

    settings = _settings(host=host, port=port)
    configure_logging(settings.log_format, settings.log_level)
    try:
        return create_app(settings), settings
    except ConfigurationError as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@click.option("--host", default=None, help="Address to listen on [INSUREOPS_HOST, 127.0.0.1].")
@click.option("--port", type=int, default=None, help="Port to listen on [INSUREOPS_PORT, 8080].")
def serve(host: str | None, port: int | None) -> None:
    """Run the HTTP service (migrates the platform database first). Ctrl-C stops it."""
    # A start allocates objects that live as long as the process (modules, classes, the app);
    # the collector's passes over them as they pile up were a large part of a start's CPU
    # (docs/performance.md). No passes during the start; then they are frozen: never scanned.
    gc.disable()
    try:
        app, settings = _service(host, port)
    finally:
        gc.freeze()
        gc.enable()
    from aiohttp import web

    from insureops.platform.http import server
    from insureops.platform.http.log import AccessLogger

    shown_host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    base = f"http://{shown_host}:{settings.port}"
    database = settings.sqlite_path or "PostgreSQL (INSUREOPS_DATABASE_URL)"

    async def announce(_app: web.Application) -> None:
        click.echo(f"insureops serving on {base}  (platform database: {database})")
        click.echo(f"Swagger UI: {base}/api/docs   OpenAPI: {base}/api/openapi.json")
        click.echo("Press Ctrl-C to stop.")

    app.on_startup.append(announce)
    # Not web.run_app: server.run adds the connection cap, the header timeout and parser
    # errors in the service's error shape (platform/http/server.py).
    server.run(app, settings, access_log_class=AccessLogger)
    click.echo("insureops stopped.")


@click.command()
@click.option("--database-url", default=None,
              help="Platform database URL [INSUREOPS_DATABASE_URL, ./insureops.db].")
def migrate(database_url: str | None) -> None:
    """Apply the platform database migrations (safe to run again)."""
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from insureops.platform.data.database import create_engine
    from insureops.platform.migrations import head_revision, upgrade

    settings = _settings(database_url=database_url)

    async def run() -> str | None:
        engine = create_engine(settings.database_url)
        try:
            return await upgrade(engine)
        finally:
            await engine.dispose()

    try:
        revision = asyncio.run(run())
    except (SQLAlchemyError, CommandError, OSError) as exc:  # a message, not a trace
        raise click.ClickException(f"migration failed: {type(exc).__name__}: {exc}") from None
    click.echo(f"platform database at revision {revision} (head {head_revision()})")
