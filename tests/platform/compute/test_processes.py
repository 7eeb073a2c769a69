"""The rules worker processes: a hard deadline, a memory bound, a lower priority, and jobs
killed when their request goes away."""

from __future__ import annotations

import asyncio
import datetime
import os
import time

import pytest

from insureops.dsl import RulesetInvalidError
from insureops.platform.compute.processes import (
    WORKER_NICENESS,
    RulesWorkers,
    WorkDeadlineError,
)
from insureops.platform.rules_studio import jobs

MIB = 1024 * 1024


@pytest.fixture
async def workers():
    workers = RulesWorkers(workers=1, memory_bytes=768 * MIB)
    yield workers
    workers.close()


async def test_a_job_is_killed_when_past_its_deadline_and_the_next_one_runs(workers):
    first = await workers.run(os.getpid, deadline=30)
    started = time.monotonic()
    with pytest.raises(WorkDeadlineError):
        await workers.run(time.sleep, 60, deadline=0.5)
    assert time.monotonic() - started < 10
    assert await workers.run(os.getpid, deadline=30) != first  # a fresh worker


async def test_a_job_fails_with_memory_error_when_past_the_memory_bound(workers):
    with pytest.raises(MemoryError):
        await workers.run(bytearray, 2048 * MIB, deadline=30)
    assert await workers.run(len, "still serving", deadline=30) == 13


async def test_workers_run_below_the_service_priority_when_started(workers):
    assert await workers.run(os.nice, 0, deadline=30) == os.nice(0) + WORKER_NICENESS


async def test_a_running_job_is_killed_when_its_caller_is_cancelled(workers):
    first = await workers.run(os.getpid, deadline=30)
    sleeping = asyncio.create_task(workers.run(time.sleep, 60, deadline=120))
    await asyncio.sleep(0.5)
    sleeping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sleeping
    # the one worker is free again at once (its job was not left running for a minute)
    second = await asyncio.wait_for(workers.run(os.getpid, deadline=30), 10)
    assert second != first


async def test_a_ruleset_error_crosses_back_whole_when_raised_in_a_worker(workers):
    with pytest.raises(RulesetInvalidError) as raised:
        await workers.run(jobs.analyse, "ruleset broken {", datetime.date(2026, 1, 1),
                          deadline=30)
    assert raised.value.diagnostics and raised.value.filename == "ruleset.rules"


async def test_the_event_loop_keeps_turning_when_the_first_job_starts_the_workers():
    workers = RulesWorkers(workers=1, memory_bytes=768 * MIB)
    lags: list[float] = []

    async def tick() -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - started - 0.01)
    ticking = asyncio.create_task(tick())
    try:
        await workers.run(os.getpid, deadline=30)
    finally:
        ticking.cancel()
        workers.close()
    assert lags and max(lags) < 0.5  # starting the workers took seconds: not on the loop
