"""The job engines, running the registry's job kinds and periodic duties with the same
functions (docs/jobs.md):

- `QueueJobs` (platform database on PostgreSQL, `queue`): procrastinate's queue in the platform
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

from insureops.platform.data.database import Database, UnitOfWork
from insureops.platform.jobs import registry
from insureops.platform.jobs.kinds import load_job_kinds
from insureops.platform.jobs.registry import JobContext, JobKind, Periodic
from insureops.platform.jobs.services import JobServices

log = logging.getLogger("insureops.jobs")


def lock_keys(kind: JobKind, arguments: dict[str, Any]) -> tuple[str | None, str | None]:
    lock = kind.lock(arguments) if kind.lock else None
    queueing = kind.queueing_lock(arguments) if kind.queueing_lock else None
    return lock, queueing


async def stopped(duties: list[asyncio.Task], seconds: float = 5.0) -> None:
    """Let the duties finish the round they are in (a round cut in the middle of a database
    call leaves the driver's thread answering a closed loop); cancel what is still running."""
    if duties:
        _, pending = await asyncio.wait(duties, timeout=seconds)
        for task in pending:
            task.cancel()
        await asyncio.gather(*duties, return_exceptions=True)


async def periodically(duty: Periodic, services: JobServices,
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
        _, queueing = lock_keys(kind, arguments)
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
        lock, queueing = lock_keys(kind, arguments)
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
        from procrastinate.jobs import Job  # the queue's retry policy, imported on a failure

        job = Job(id=None, queue=kind.queue, lock=None, queueing_lock=None,
                  task_name=kind.name, attempts=attempt)
        decision = kind.retry.strategy().get_retry_decision(exception=exc, job=job)
        if decision is None:
            return None
        now = datetime.datetime.now(datetime.UTC)
        return max(0.0, ((decision.retry_at or now) - now).total_seconds())

    async def run(self, services: JobServices, stop: asyncio.Event) -> None:
        self._services, self._stop = services, stop
        pending, self._pending = self._pending, []
        for kind, arguments in pending:
            self._start(kind, arguments)
        duties = [asyncio.create_task(periodically(duty, services, stop))
                  for duty in registry.PERIODIC.values()]
        try:
            await stop.wait()
        finally:
            await stopped(duties)
            # the running jobs saw should_stop(): let them end their step (a step cut while
            # its thread holds a connection would leave it to a pool about to be disposed)
            await stopped(list(self._tasks))
            self._services = None


def conninfo(database_url: str) -> str:
    """A SQLAlchemy postgresql+psycopg URL as the libpq connection string procrastinate takes."""
    return database_url.replace("postgresql+psycopg://", "postgresql://", 1)


def build_job_engine(settings: Any, database: Database | None = None) -> JobEngine:
    """The engine the service's Settings call for: the queue on a PostgreSQL platform
    database (on `database`'s connection pool when given), the embedded runner on SQLite."""
    if settings.is_sqlite:
        return EmbeddedJobs(concurrency=settings.jobs_concurrency)
    from insureops.platform.jobs.queue import QueueJobs  # procrastinate: only for the queue

    return QueueJobs(conninfo(settings.database_url), concurrency=settings.jobs_concurrency,
                     stalled_seconds=settings.jobs_stalled_seconds,
                     shared=database.engine if database is not None else None)
