"""The job engines, running the registry's job kinds and periodic duties with the same
functions (docs/jobs.md):

- `QueueJobs` (platform database on PostgreSQL): procrastinate's queue in the platform
  database, shared by any number of `insureops worker` processes; `enqueue_in` writes the job
  on the unit of work's own connection, so it exists iff the transaction commits; the jobs of
  a worker whose heartbeat stopped are retried by the others.
- `EmbeddedJobs` (SQLite): no queue; the serve process runs each job as an asyncio task (after
  the commit for `enqueue_in`) under the kind's lock and retry policy. What must survive a
  restart lives in the areas' own tables, which their periodic duties pick up again.
"""

from __future__ import annotations

import abc
import asyncio
import datetime
import logging
from collections.abc import Callable
from typing import Any

import procrastinate
import psycopg_pool
from procrastinate import exceptions as queue_errors
from procrastinate.jobs import Job
from sqlalchemy.ext.asyncio import AsyncEngine

from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.jobs import registry
from insureops.platform.jobs.kinds import load_job_kinds
from insureops.platform.jobs.registry import JobContext, JobKind, Periodic
from insureops.platform.jobs.services import JobServices
from insureops.platform.jobs.shared_pool import EnginePool

log = logging.getLogger("insureops.jobs")


def _keys(kind: JobKind, arguments: dict[str, Any]) -> tuple[str | None, str | None]:
    lock = kind.lock(arguments) if kind.lock else None
    queueing = kind.queueing_lock(arguments) if kind.queueing_lock else None
    return lock, queueing


async def _stopped(duties: list[asyncio.Task], seconds: float = 5.0) -> None:
    """Let the duties finish the round they are in (a round cut in the middle of a database
    call leaves the driver's thread answering a closed loop); cancel what is still running."""
    if duties:
        _, pending = await asyncio.wait(duties, timeout=seconds)
        for task in pending:
            task.cancel()
        await asyncio.gather(*duties, return_exceptions=True)


async def _periodically(duty: Periodic, services: JobServices,
                        stop: asyncio.Event) -> None:
    """Run `duty` every `duty.seconds` until `stop`; a failure is logged, not fatal."""
    context = JobContext(services, should_stop=stop.is_set)
    while not stop.is_set():
        try:
            await duty.function(context)
        except Exception:  # noqa: BLE001 - a duty that failed once runs again next time
            log.exception("periodic duty %s failed", duty.name)
        try:
            interval = duty.interval(services.settings)
        except AttributeError:  # services without settings (tests of the engine itself)
            interval = 1.0
        try:
            await asyncio.wait_for(stop.wait(), interval)
        except TimeoutError:
            pass


class JobEngine(abc.ABC):
    """What enqueues jobs and runs them (see the module docstring for the two engines)."""

    embedded: bool = False

    async def open(self) -> None:
        """Connect (the queue's pool); jobs can be enqueued afterwards."""

    async def close(self) -> None:
        """Disconnect."""

    @abc.abstractmethod
    async def enqueue(self, name: str, /, **arguments: Any) -> int | None:
        """Enqueue the job kind `name` with JSON `arguments`; its id (None in the embedded
        runner, or when the kind's queueing lock already holds a waiting job)."""

    @abc.abstractmethod
    async def enqueue_in(self, uow: UnitOfWork, name: str, /, **arguments: Any) -> int | None:
        """Enqueue with the commit of `uow` (a platform-database unit of work): never when
        it rolls back."""

    @abc.abstractmethod
    async def run(self, services: JobServices, stop: asyncio.Event) -> None:
        """Run jobs and the periodic duties until `stop` is set."""


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
        self.app.task(name=kind.name, queue=kind.queue, retry=kind.retry or False,
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
        lock, queueing = _keys(kind, arguments)
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
        duties = [asyncio.create_task(_periodically(duty, services, stop))
                  for duty in registry.PERIODIC.values()]
        duties.append(asyncio.create_task(self._recovering(stop)))
        try:
            await stop.wait()
        finally:
            await _stopped(duties)
            worker.cancel()
            await asyncio.gather(worker, return_exceptions=True)


class _KeyedLocks:
    """asyncio locks by key, forgotten when nobody holds or waits for them."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def hold(self, key: str | None, body: Callable[[], Any]) -> Any:
        if key is None:
            return await body()
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                return await body()
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


class EmbeddedJobs(JobEngine):
    """The serve process runs jobs itself (the SQLite default): each at once, as a task."""

    embedded = True

    def __init__(self, *, concurrency: int = 4) -> None:
        load_job_kinds()
        self._slots = asyncio.Semaphore(concurrency)
        self._locks = _KeyedLocks()
        self._waiting: set[str] = set()  # queueing locks of jobs not yet started
        self._pending: list[tuple[JobKind, dict[str, Any]]] = []  # before run() starts
        self._tasks: set[asyncio.Task] = set()
        self._services: JobServices | None = None
        self._stop: asyncio.Event | None = None

    async def enqueue(self, name: str, /, **arguments: Any) -> int | None:
        kind = registry.kind(name)
        _, queueing = _keys(kind, arguments)
        if queueing is not None:
            if queueing in self._waiting:
                return None
            self._waiting.add(queueing)
        if self._services is None:
            self._pending.append((kind, arguments))
        else:
            self._start(kind, arguments)
        return None

    async def enqueue_in(self, uow: UnitOfWork, name: str, /, **arguments: Any) -> int | None:
        registry.kind(name)  # an unknown kind fails now, inside the transaction

        async def later() -> None:
            await self.enqueue(name, **arguments)
        uow.after_commit(later)
        return None

    def _start(self, kind: JobKind, arguments: dict[str, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._perform(kind, arguments),
                                                      name=f"job {kind.name}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _perform(self, kind: JobKind, arguments: dict[str, Any]) -> None:
        lock, queueing = _keys(kind, arguments)
        attempt = 0
        while True:
            try:
                await self._locks.hold(lock, lambda: self._attempt(kind, arguments, attempt,
                                                                   queueing))
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the kind's retry policy decides
                delay = self._retry_delay(kind, exc, attempt)
                if delay is None:
                    log.exception("job %s failed for good (attempt %d)", kind.name, attempt)
                    return
                log.warning("job %s failed (attempt %d: %s); retrying in %.0f s", kind.name,
                            attempt, exc, delay)
                attempt += 1
                await asyncio.sleep(delay)

    async def _attempt(self, kind: JobKind, arguments: dict[str, Any], attempt: int,
                       queueing: str | None) -> None:
        async with self._slots:
            if queueing is not None:
                self._waiting.discard(queueing)  # running: another may wait behind it now
            stop = self._stop
            context = JobContext(self._services, None, attempt,
                                 stop.is_set if stop is not None else (lambda: False))
            await kind.function(context, **arguments)

    @staticmethod
    def _retry_delay(kind: JobKind, exc: Exception, attempt: int) -> float | None:
        if kind.retry is None:
            return None
        job = Job(id=None, queue=kind.queue, lock=None, queueing_lock=None,
                  task_name=kind.name, attempts=attempt)
        decision = kind.retry.get_retry_decision(exception=exc, job=job)
        if decision is None:
            return None
        now = datetime.datetime.now(datetime.UTC)
        return max(0.0, ((decision.retry_at or now) - now).total_seconds())

    async def run(self, services: JobServices, stop: asyncio.Event) -> None:
        self._services, self._stop = services, stop
        pending, self._pending = self._pending, []
        for kind, arguments in pending:
            self._start(kind, arguments)
        duties = [asyncio.create_task(_periodically(duty, services, stop))
                  for duty in registry.PERIODIC.values()]
        try:
            await stop.wait()
        finally:
            await _stopped(duties)
            # the running jobs saw should_stop(): let them end their step (a step cut while
            # its thread holds a connection would leave it to a pool about to be disposed)
            await _stopped(list(self._tasks))
            self._services = None


def conninfo(database_url: str) -> str:
    """A SQLAlchemy postgresql+psycopg URL as the libpq connection string procrastinate takes."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def build_job_engine(settings: Any, database: Database | None = None) -> JobEngine:
    """The engine the service's Settings call for: the queue on a PostgreSQL platform
    database (on `database`'s connection pool when given), the embedded runner on SQLite."""
    if settings.is_sqlite:
        return EmbeddedJobs(concurrency=settings.jobs_concurrency)
    return QueueJobs(conninfo(settings.database_url), concurrency=settings.jobs_concurrency,
                     stalled_seconds=settings.jobs_stalled_seconds,
                     shared=database.engine if database is not None else None)
