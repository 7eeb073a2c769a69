"""The rules worker processes: where user-written rulesets are checked, compiled, tested,
simulated and executed by the service.

A ruleset is code its author controls. Run in the service's process, a costly one holds the
interpreter (and with it the event loop) for as long as it runs. Here it runs in a worker
process of lower scheduling priority, with an address-space bound, under a hard deadline after
which the worker is killed and replaced: the serving process keeps the CPU it needs for every
other request, and no job outlives its budget, whatever it does inside one step.
Workers start on first use (a fork server keeps the start cheap) and live on, so each keeps
its compiled rulesets cached between jobs.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
from collections.abc import Callable
from typing import Any, TypeVar

import pebble

T = TypeVar("T")

# Imported once by the fork server, so a new worker starts with them loaded.
PRELOAD = ["insureops.dsl", "insureops.platform.rules_studio.jobs"]
WORKER_NICENESS = 10  # below the serving process (0): its requests come first on a busy CPU


class WorkDeadlineError(Exception):
    """A job ran past its hard deadline; its worker was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"The job did not finish within {seconds:g} s.")
        self.seconds = seconds


class WorkerLostError(Exception):
    """A job's worker died (past its memory bound, or killed) before answering."""


def _start_worker(memory_bytes: int, niceness: int) -> None:
    os.nice(niceness)
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


class RulesWorkers:
    """`workers` processes, each bounded to `memory_bytes` of address space (0: unbounded)."""

    def __init__(self, workers: int, memory_bytes: int) -> None:
        self.workers = workers
        self.memory_bytes = memory_bytes
        self._pool: pebble.ProcessPool | None = None
        self._starting: asyncio.Lock | None = None

    async def _started(self) -> pebble.ProcessPool:
        """The pool, started on first use in a thread: starting the fork server and the
        workers takes seconds, which must not stall the event loop."""
        if self._pool is None:
            self._starting = self._starting or asyncio.Lock()
            async with self._starting:
                if self._pool is None:
                    self._pool = await asyncio.to_thread(self._start)
        return self._pool

    def _start(self) -> pebble.ProcessPool:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        pool = pebble.ProcessPool(max_workers=self.workers, initializer=_start_worker,
                                  initargs=(self.memory_bytes, WORKER_NICENESS), context=context)
        pool.schedule(os.getpid).result()  # the fork server and the workers are up
        return pool

    async def run(self, function: Callable[..., T], *args: Any, deadline: float) -> T:
        """`function(*args)` in a worker; WorkDeadlineError past `deadline` seconds of running
        (the worker is killed), WorkerLostError if the worker dies. Cancelling the await
        (the client went away) kills a running job too. `function` and its arguments and
        result cross a process boundary: module-level functions and picklable values."""
        future = (await self._started()).schedule(function, args, timeout=deadline)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except TimeoutError as exc:
            if exc.args[:1] == ("Task timeout",):  # pebble's, not one the job raised
                raise WorkDeadlineError(deadline) from None
            raise
        except pebble.ProcessExpired as exc:
            raise WorkerLostError(f"The worker stopped ({exc}).") from None

    def close(self) -> None:
        """Stop the workers (running jobs are killed)."""
        if self._pool is not None:
            self._pool.stop()
            self._pool.join(timeout=5)
            self._pool = None

