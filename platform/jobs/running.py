"""Where jobs run: inside `insureops serve` (the embedded default, or jobs_in_serve) and in
`insureops worker` processes; both build the same JobServices and run the same engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from aiohttp import web

from insureops.platform.jobs.engine import JobEngine
from insureops.platform.jobs.services import JobServices
from insureops.platform.keys import (
    CLOCK,
    DATABASE,
    HEAVY_WORK,
    JOBS,
    SECRET_KEYS,
    SETTINGS,
    TENANT_POOLS,
)


def app_services(app: web.Application) -> JobServices:
    """The serve process's services as jobs see them (the rules workers included)."""
    return JobServices(app[DATABASE], app[SETTINGS], app[SECRET_KEYS], app[TENANT_POOLS],
                       app[JOBS], app[HEAVY_WORK], app[CLOCK], {})


async def jobs_context(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx of the root app (after the database's: the tables exist): open the engine;
    when serve runs jobs, run them until shutdown."""
    engine: JobEngine = app[JOBS]
    await engine.open()
    stop = asyncio.Event()
    runner = services = None
    if app[SETTINGS].runs_jobs_in_serve:
        services = app_services(app)
        runner = asyncio.create_task(engine.run(services, stop), name="jobs")
    try:
        yield
    finally:
        stop.set()
        if runner is not None:
            await asyncio.gather(runner, return_exceptions=True)
            await asyncio.to_thread(services.close)
        await engine.close()
