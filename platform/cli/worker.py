"""`insureops worker`: run the background jobs (rule bindings, book runs, deliveries) of a
service whose platform database is PostgreSQL; start as many, on as many machines, as needed."""

from __future__ import annotations

import asyncio
import signal
import time

import click


async def _work(settings) -> None:
    from insureops.platform.auth.secret_keys import load_secret_keys
    from insureops.platform.data.database import Database
    from insureops.platform.jobs.engine import build_job_engine
    from insureops.platform.jobs.services import JobServices
    from insureops.platform.tenancy.pools import TenantPools

    database = Database.connect(settings.database_url, settings.database_timeout_seconds)
    pools = TenantPools()
    engine = build_job_engine(settings, database)  # the queue on the database's pool
    services = JobServices(database, settings, load_secret_keys(settings), pools, engine,
                           None, time.time, {})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await engine.open()
    try:
        click.echo(f"insureops worker running {settings.jobs_concurrency} jobs at a time; "
                   "Ctrl-C stops it.")
        await engine.run(services, stop)
    finally:
        await engine.close()
        await asyncio.to_thread(services.close)
        await pools.dispose()
        await database.dispose()


@click.command()
@click.option("--concurrency", type=click.IntRange(1, 64), default=None,
              help="Jobs run at once [INSUREOPS_JOBS_CONCURRENCY, 4].")
def worker(concurrency: int | None) -> None:
    """Run background jobs from the PostgreSQL platform database until Ctrl-C (SIGTERM)."""
    from insureops.platform.cli.serve import _settings

    settings = _settings(jobs_concurrency=concurrency)
    if settings.is_sqlite:
        raise click.ClickException(
            "the platform database is SQLite: `insureops serve` runs the jobs itself there; "
            "workers share jobs through a PostgreSQL platform database (INSUREOPS_DATABASE_URL)")
    from insureops.platform.http.log import configure_logging

    configure_logging(settings.log_format, settings.log_level)
    asyncio.run(_work(settings))
    click.echo("insureops worker stopped.")
