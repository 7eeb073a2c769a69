"""Heavy work as the areas ask for it: admitted per workspace, then run in a rules worker
process under a deadline, with budget failures answered as one error naming the bound."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from insureops.platform.compute.admission import (
    RETRY_AFTER_SECONDS,
    ServiceBusyError,
    WorkGate,
    WorkspaceBusyError,
)
from insureops.platform.compute.executors import BoundedExecutor
from insureops.platform.compute.processes import RulesWorkers, WorkDeadlineError, WorkerLostError
from insureops.platform.keys import BODY_THREADS, HEAVY_WORK, MATCHING_WORK

T = TypeVar("T")
MIB = 1024 * 1024
MATCHING_THREADS = 2  # carrier matching is CPU work: more threads than cores buy nothing
BODY_THREAD_COUNT = 2  # large JSON bodies decoded and validated (CPU work likewise)


class WorkBudgetExceededError(Exception):
    """A job went past its time or memory bound (422); the message names the bound and how to
    change it. `memory`: it was the memory bound."""

    def __init__(self, message: str, memory: bool = False) -> None:
        super().__init__(message)
        self.memory = memory


@dataclass(frozen=True)
class Budget:
    """A kind of job's bound: `seconds` of running, the setting that changes it, and where
    larger work can go instead (the CLI)."""

    what: str  # "Checking the ruleset"
    seconds: float
    setting: str  # INSUREOPS_RULES_CHECK_SECONDS
    instead: str  # "check it offline with `insureops rules check FILE`"

    def too_slow(self) -> WorkBudgetExceededError:
        return WorkBudgetExceededError(
            f"{self.what} did not finish within {self.seconds:g} s ({self.setting}); "
            f"{self.instead}.")

    def too_big(self, megabytes: int) -> WorkBudgetExceededError:
        return WorkBudgetExceededError(
            f"{self.what} needed more memory than a rules worker may use ({megabytes} MB, "
            f"INSUREOPS_RULES_WORKER_MEMORY_MB); {self.instead}.", memory=True)


class HeavyWork:
    """The rules workers behind the admission gate."""

    def __init__(self, gate: WorkGate, workers: RulesWorkers) -> None:
        self.gate = gate
        self.workers = workers

    async def run(self, workspace_id: str, budget: Budget, function: Callable[..., T],
                  *args: Any) -> T:
        """`function(*args)` in a worker for `workspace_id`: WorkspaceBusyError (429) or
        ServiceBusyError (503) when it cannot be admitted, WorkBudgetExceededError (422) past
        the budget's seconds or the workers' memory bound."""
        async with self.gate.admit(workspace_id):
            try:
                return await self.workers.run(function, *args, deadline=budget.seconds)
            except WorkDeadlineError:
                raise budget.too_slow() from None
            except (MemoryError, WorkerLostError):
                raise budget.too_big(self.workers.memory_bytes // MIB) from None

    def close(self) -> None:
        self.workers.close()


def map_heavy_work_errors(routes: Any) -> None:
    """The answers of every area that runs heavy work (`routes`: its RouteTable)."""
    routes.map_error(WorkspaceBusyError, 429, "workspace_busy",
                     headers={"Retry-After": RETRY_AFTER_SECONDS})
    routes.map_error(ServiceBusyError, 503, "service_busy",
                     headers={"Retry-After": RETRY_AFTER_SECONDS})
    routes.map_error(WorkBudgetExceededError, 422, "work_budget_exceeded")


def build_heavy_work(settings: Any) -> HeavyWork:
    """The service's rules workers and their admission, from its Settings (nothing starts
    until the first job)."""
    workers = RulesWorkers(settings.rules_workers, settings.rules_worker_memory_mb * MIB)
    gate = WorkGate(capacity=settings.rules_workers,
                    per_workspace=settings.rules_jobs_per_workspace,
                    max_waiting=settings.rules_jobs_waiting)
    return HeavyWork(gate, workers)


async def heavy_work_context(app: Any) -> AsyncIterator[None]:
    """cleanup_ctx of the root app: the workers and threads of heavy work stop with the
    service."""
    yield
    app[HEAVY_WORK].close()
    app[MATCHING_WORK].close()
    app[BODY_THREADS].close()


class ThreadWork:
    """Heavy work that must run in the service's process (carrier matching reads the compiled
    market held there): on its own bounded threads, admitted per workspace as rules jobs are."""

    def __init__(self, name: str, threads: int, per_workspace: int, max_waiting: int) -> None:
        self.gate = WorkGate(capacity=threads, per_workspace=per_workspace,
                             max_waiting=max_waiting)
        self.threads = BoundedExecutor(name, threads)

    async def run(self, workspace_id: str, function: Callable[..., T], *args: Any) -> T:
        async with self.gate.admit(workspace_id):
            return await self.threads.run(function, *args)

    def close(self) -> None:
        self.threads.close()


def build_matching_work(settings: Any) -> ThreadWork:
    """Carrier matching's threads and admission, from the service's Settings."""
    return ThreadWork("matching", MATCHING_THREADS, settings.rules_jobs_per_workspace,
                      settings.rules_jobs_waiting)
