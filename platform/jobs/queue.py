"""The job queue of a PostgreSQL platform database: procrastinate's, shared by any number of
`insureops worker` processes (and serve); `enqueue_in` writes the job on the unit of work's own
connection, so it exists iff the transaction commits; the jobs of a worker whose heartbeat
stopped are retried by the others. Imported only when the platform database is PostgreSQL
(engine.build_job_engine)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import procrastinate
import psycopg_pool
from procrastinate import exceptions as queue_errors
from sqlalchemy.ext.asyncio import AsyncEngine

from insureops.platform.data.database import UnitOfWork
from insureops.platform.jobs import registry
from insureops.platform.jobs.engine import JobEngine, lock_keys, periodically, stopped
from insureops.platform.jobs.kinds import load_job_kinds
from insureops.platform.jobs.registry import JobContext, JobKind
from insureops.platform.jobs.services import JobServices
from insureops.platform.jobs.shared_pool import EnginePool

log = logging.getLogger("insureops.jobs")


class QueueJobs(JobEngine):
    """procrastinate on the platform database (`conninfo`: a libpq connection string)."""

    def __init__(self, conninfo: str, *, concurrency: int = 4, stalled_seconds: float = 30.0,
                 pool_size: int = 4, shared: AsyncEngine | None = None) -> None:
        """`shared`: the platform Database's engine, whose pool the queue then uses (the
        service and workers: `build_job_engine`); without it the queue opens a pool of its
        own of at most `pool_size` connections."""
        load_job_kinds()
        self._shared = shared
        self._conninfo = conninfo
        connector = procrastinate.PsycopgConnector(conninfo=conninfo, min_size=1,
                                                   max_size=max(2, pool_size))
        self.app = procrastinate.App(connector=connector)
        self._pool_args = {"conninfo": conninfo, "min_size": 1, "max_size": max(2, pool_size)}
        self._pool: psycopg_pool.AsyncConnectionPool | None = None
        self.concurrency = concurrency
        self.stalled_seconds = stalled_seconds
        for kind in registry.JOB_KINDS.values():
            self._register(kind)

    def _register(self, kind: JobKind) -> None:
        async def perform(context: procrastinate.JobContext, **arguments: Any) -> object:
            services = context.additional_context["services"]
            own = JobContext(services, context.job.id, context.job.attempts,
                             context.should_abort)
            return await kind.function(own, **arguments)
        perform.__name__ = perform.__qualname__ = kind.name.replace(".", "_")
        self.app.task(name=kind.name, queue=kind.queue, retry=kind.retry.strategy() if kind.retry else False,
                      pass_context=True)(perform)

    async def open(self) -> None:
        """Open without waiting for the database (procrastinate's own pool would wait for it,
        and a service whose platform database is down must still start and answer 503): the
        shared engine connects on use, an own pool in the background; jobs and duties fail
        and retry until the database answers."""
        if self._shared is not None:
            await self.app.open_async(pool=EnginePool(self._shared, self._conninfo))
            return
        self._pool = psycopg_pool.AsyncConnectionPool(
            **self._pool_args, open=False, check=psycopg_pool.AsyncConnectionPool.check_connection)
        await self._pool.open(wait=False)
        await self.app.open_async(pool=self._pool)

    async def close(self) -> None:
        await self.app.close_async()
        if self._pool is not None:
            await self._pool.close()

    def _deferrer(self, name: str, arguments: dict[str, Any], connection: Any = None):
        kind = registry.kind(name)
        lock, queueing = lock_keys(kind, arguments)
        options: dict[str, Any] = {"lock": lock, "queueing_lock": queueing}
        if connection is not None:
            options["connection"] = connection
        return self.app.configure_task(name, **options)

    async def enqueue(self, name: str, /, **arguments: Any) -> int | None:
        try:
            return await self._deferrer(name, arguments).defer_async(**arguments)
        except queue_errors.AlreadyEnqueued:
            return None

    async def enqueue_in(self, uow: UnitOfWork, name: str, /, **arguments: Any) -> int | None:
        session = uow.session
        connection = await (await session.connection()).get_raw_connection()
        try:
            async with session.begin_nested():  # a refused queueing lock spares the caller
                return await self._deferrer(name, arguments,
                                            connection.driver_connection).defer_async(
                    **arguments)
        except queue_errors.AlreadyEnqueued:
            return None

    async def recover_stalled(self) -> int:
        """Put back in the queue the jobs of workers silent for `stalled_seconds` (killed):
        how many."""
        manager = self.app.job_manager
        stalled = list(await manager.get_stalled_jobs(
            seconds_since_heartbeat=self.stalled_seconds))
        for job in stalled:
            log.warning("job %s (%s) was running on a worker that stopped; retrying it",
                        job.id, job.task_name)
            await manager.retry_job(job)
        return len(stalled)

    async def _recovering(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.recover_stalled()
            except Exception:  # noqa: BLE001 - the database may be away for a moment
                log.exception("recovering stalled jobs failed")
            try:
                await asyncio.wait_for(stop.wait(), max(1.0, self.stalled_seconds / 3))
            except TimeoutError:
                pass

    async def run(self, services: JobServices, stop: asyncio.Event) -> None:
        heartbeat = max(0.5, self.stalled_seconds / 3)
        worker = asyncio.create_task(self.app.run_worker_async(
            concurrency=self.concurrency, wait=True, install_signal_handlers=False,
            additional_context={"services": services}, fetch_job_polling_interval=1.0,
            abort_job_polling_interval=1.0, update_heartbeat_interval=heartbeat,
            stalled_worker_timeout=self.stalled_seconds, shutdown_graceful_timeout=10.0,
            delete_jobs="successful"))
        duties = [asyncio.create_task(periodically(duty, services, stop))
                  for duty in registry.PERIODIC.values()]
        duties.append(asyncio.create_task(self._recovering(stop)))
        try:
            await stop.wait()
        finally:
            await stopped(duties)
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)
