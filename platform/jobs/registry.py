"""The one registry of job kinds and periodic duties, filled by the modules `kinds` lists.

A job kind is an async function `f(context: JobContext, **arguments)` whose arguments are JSON
values (they are stored in the queue), registered under a stable name with `@job(name, ...)`.
A periodic duty is an async function `f(context)` that whatever runs jobs calls every few
seconds (`@every(name, seconds)`): the bindings' dispatcher is one. Both engines (the queue and
the embedded runner, `engine`) run the same functions with the same retry policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from procrastinate import RetryStrategy

    from insureops.platform.jobs.services import JobServices

JobFunction = Callable[..., Awaitable[object]]
KeyOf = Callable[[dict[str, Any]], str | None]  # job arguments -> a lock key (or none)


@dataclass(frozen=True)
class Retry:
    """How often and when a failed job runs again, in both engines: the fields of
    procrastinate's RetryStrategy (`max_attempts`, `wait` seconds, `linear_wait`,
    `exponential_wait`, `retry_exceptions`), which `strategy()` makes. Kept apart so that
    registering kinds does not import the queue (the embedded runner seldom needs it)."""

    max_attempts: int | None = None
    wait: int = 0
    linear_wait: int = 0
    exponential_wait: int = 0
    retry_exceptions: Iterable[type[Exception]] | None = None

    def strategy(self) -> RetryStrategy:
        from procrastinate import RetryStrategy  # on first use: see the class docstring

        return RetryStrategy(max_attempts=self.max_attempts, wait=self.wait,
                             linear_wait=self.linear_wait,
                             exponential_wait=self.exponential_wait,
                             retry_exceptions=self.retry_exceptions)


@dataclass(frozen=True)
class JobContext:
    """What a running job is given besides its arguments: the services it may use, its id
    (None in the embedded runner), which attempt this is (0 the first), and whether someone
    asked it to stop (cancellation or shutdown: a long job checks between its steps)."""

    services: JobServices
    job_id: int | None = None
    attempt: int = 0
    should_stop: Callable[[], bool] = field(default=lambda: False)


@dataclass(frozen=True)
class JobKind:
    """A registered job: name, function, queue, retry policy, and the keys of procrastinate's
    `lock` (jobs with one key never run at once) and `queueing_lock` (at most one waiting)."""

    name: str
    function: JobFunction
    queue: str = "default"
    retry: Retry | None = None
    lock: KeyOf | None = None
    queueing_lock: KeyOf | None = None


@dataclass(frozen=True)
class Periodic:
    """A duty run every `seconds` by each process that runs jobs (it must be safe to run in
    several processes at once: the dispatcher only enqueues jobs under a queueing lock)."""

    name: str
    function: Callable[[JobContext], Awaitable[object]]
    seconds: float | Callable[[Any], float]  # or a function of the Settings

    def interval(self, settings: Any) -> float:
        return self.seconds(settings) if callable(self.seconds) else self.seconds


JOB_KINDS: dict[str, JobKind] = {}
PERIODIC: dict[str, Periodic] = {}


def job(name: str, *, queue: str = "default", retry: Retry | None = None,
        lock: KeyOf | None = None,
        queueing_lock: KeyOf | None = None) -> Callable[[JobFunction], JobFunction]:
    """Register the decorated async function as the job kind `name` (unique)."""
    def register(function: JobFunction) -> JobFunction:
        if name in JOB_KINDS and JOB_KINDS[name].function is not function:
            raise ValueError(f"job kind {name!r} is registered twice")
        JOB_KINDS[name] = JobKind(name, function, queue, retry, lock, queueing_lock)
        return function
    return register


def every(name: str, seconds: float | Callable[[Any], float]) -> Callable[[Callable], Callable]:
    """Register the decorated async function `f(context)` as a periodic duty, run every
    `seconds` (a number, or a function of the service's Settings)."""
    def register(function: Callable) -> Callable:
        PERIODIC[name] = Periodic(name, function, seconds)
        return function
    return register


def kind(name: str) -> JobKind:
    """The registered kind `name`; LookupError names the known ones."""
    try:
        return JOB_KINDS[name]
    except KeyError:
        raise LookupError(f"no job kind {name!r} (known: {', '.join(sorted(JOB_KINDS))}); "
                          "add its module to insureops.platform.jobs.kinds") from None
