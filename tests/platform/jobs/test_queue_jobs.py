"""procrastinate's queue on a PostgreSQL platform database: jobs enqueued with a unit of work
exist only if it commits, and several workers share the jobs, each done once."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from sqlalchemy import text

from insureops.platform.data.database import Database
from insureops.platform.jobs import JobContext, job
from insureops.platform.jobs.engine import conninfo
from insureops.platform.jobs.queue import QueueJobs
from insureops.platform.jobs.services import JobServices

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
DONE: list[tuple[str, str]] = []


@job("tests.queue.record")
async def record(context: JobContext, *, name: str) -> None:
    await asyncio.sleep(0.01)
    DONE.append((name, context.services.extras["worker"]))


def services(worker: str) -> JobServices:
    return JobServices(None, None, None, None, None, None, lambda: 0.0,  # type: ignore
                       {"worker": worker})


async def until(predicate, seconds: float = 15.0) -> None:
    async with asyncio.timeout(seconds):
        while not predicate():
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("shared", [True, False], ids=["database_pool", "own_pool"])
async def test_job_exists_only_when_its_unit_of_work_commits(platform_database_urls, shared):
    """On the Database's own pool (the service and workers) or on a pool of the queue's."""
    DONE.clear()
    url = platform_database_urls.async_
    database = Database.connect(url)
    engine = QueueJobs(conninfo(url), concurrency=2,
                       shared=database.engine if shared else None)
    await engine.open()
    assert (engine._pool is None) == shared  # no second pool of platform connections
    stop = asyncio.Event()
    try:
        async with database.unit_of_work() as uow:
            await uow.session.execute(text("SELECT 1"))
            job_id = await engine.enqueue_in(uow, "tests.queue.record", name="kept")
        assert job_id is not None
        with pytest.raises(RuntimeError):
            async with database.unit_of_work() as uow:
                await engine.enqueue_in(uow, "tests.queue.record", name="dropped")
                raise RuntimeError("rolled back")
        async with database.engine.connect() as connection:
            waiting = (await connection.execute(text(
                "SELECT args->>'name' FROM procrastinate_jobs"))).scalars().all()
        assert waiting == ["kept"]
        runner = asyncio.create_task(engine.run(services("w1"), stop))
        await until(lambda: DONE)
        stop.set()
        await runner
        assert DONE == [("kept", "w1")]
    finally:
        stop.set()
        await engine.close()
        await database.dispose()


async def test_two_workers_share_the_jobs_when_both_run(platform_database_urls):
    DONE.clear()
    url = conninfo(platform_database_urls.async_)
    engines = [QueueJobs(url, concurrency=1), QueueJobs(url, concurrency=1)]
    stop = asyncio.Event()
    for engine in engines:
        await engine.open()
    try:
        for number in range(40):
            await engines[number % 2].enqueue("tests.queue.record", name=f"job-{number}")
        runners = [asyncio.create_task(engine.run(services(f"w{i}"), stop))
                   for i, engine in enumerate(engines)]
        await until(lambda: len(DONE) >= 40)
        stop.set()
        await asyncio.gather(*runners)
    finally:
        stop.set()
        for engine in engines:
            await engine.close()
    names = Counter(name for name, _ in DONE)
    assert len(names) == 40 and set(names.values()) == {1}  # each job once
    assert {worker for _, worker in DONE} == {"w0", "w1"}  # both took some
