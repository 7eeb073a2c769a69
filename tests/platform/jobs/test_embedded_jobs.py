"""The embedded job runner (SQLite default): jobs run in the serve process, after the commit
of the unit of work that enqueued them, under their kind's lock and retry policy."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from insureops.platform.data.database import Database
from insureops.platform.jobs import JobContext, Retry, job
from insureops.platform.jobs.engine import EmbeddedJobs
from insureops.platform.jobs.services import JobServices

RAN: list[tuple[str, int]] = []
ATTEMPTS: dict[str, int] = {}
FLAKY: dict[str, int] = {}


@job("tests.embedded.record", lock=lambda args: args.get("lock"))
async def record(context: JobContext, *, name: str, pause: float = 0.0,
                 lock: str | None = None) -> None:
    RAN.append((f"start {name}", context.attempt))
    await asyncio.sleep(pause)
    RAN.append((f"end {name}", context.attempt))


@job("tests.embedded.flaky", retry=Retry(max_attempts=3, wait=0))
async def flaky(context: JobContext, *, name: str, failures: int) -> None:
    ATTEMPTS[name] = context.attempt
    if context.attempt < failures:
        raise RuntimeError("not yet")
    FLAKY[name] = context.attempt


@job("tests.embedded.once", queueing_lock=lambda args: args["key"])
async def once(context: JobContext, *, key: str) -> None:
    RAN.append((f"once {key}", 0))


def services() -> JobServices:
    return JobServices(None, None, None, None, None, None, lambda: 0.0, {})  # type: ignore


async def until(predicate, seconds: float = 5.0) -> None:
    async with asyncio.timeout(seconds):
        while not predicate():
            await asyncio.sleep(0.01)


@pytest.fixture
async def running():
    RAN.clear()
    engine, stop = EmbeddedJobs(concurrency=4), asyncio.Event()
    task = asyncio.create_task(engine.run(services(), stop))
    yield engine
    stop.set()
    await task


async def test_job_runs_after_the_commit_when_enqueued_in_a_unit_of_work(running, tmp_path):
    database = Database.connect(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
    try:
        async with database.unit_of_work() as uow:
            await uow.session.execute(text("SELECT 1"))
            await running.enqueue_in(uow, "tests.embedded.record", name="committed")
            await asyncio.sleep(0.05)
            assert RAN == []  # not before the commit
        await until(lambda: ("end committed", 0) in RAN)
        with pytest.raises(RuntimeError):
            async with database.unit_of_work() as uow:
                await running.enqueue_in(uow, "tests.embedded.record", name="rolled back")
                raise RuntimeError("the transaction fails")
        await asyncio.sleep(0.1)
        assert ("start rolled back", 0) not in RAN
    finally:
        await database.dispose()


async def test_jobs_of_one_lock_never_overlap_when_enqueued_together(running):
    for name in ("a", "b"):
        await running.enqueue("tests.embedded.record", name=name, pause=0.05, lock="same")
    await until(lambda: len(RAN) == 4)
    assert [entry for entry, _ in RAN] in (["start a", "end a", "start b", "end b"],
                                           ["start b", "end b", "start a", "end a"])


async def test_failed_job_runs_again_by_its_retry_policy_when_it_raises(running):
    await running.enqueue("tests.embedded.flaky", name="twice", failures=2)
    await running.enqueue("tests.embedded.flaky", name="never", failures=10)
    await until(lambda: "twice" in FLAKY and ATTEMPTS.get("never") == 3)
    assert FLAKY["twice"] == 2  # attempts 0 and 1 failed
    await asyncio.sleep(0.05)
    assert "never" not in FLAKY and ATTEMPTS["never"] == 3  # max_attempts reached


async def test_second_job_is_dropped_when_its_queueing_lock_already_waits():
    RAN.clear()
    engine, stop = EmbeddedJobs(concurrency=1), asyncio.Event()
    for _ in range(3):  # enqueued before the runner starts: they wait
        await engine.enqueue("tests.embedded.once", key="k")
    task = asyncio.create_task(engine.run(services(), stop))
    await until(lambda: RAN)
    await asyncio.sleep(0.05)
    stop.set()
    await task
    assert RAN == [("once k", 0)]


async def test_unknown_kind_is_refused_when_enqueued(running):
    with pytest.raises(LookupError, match="no job kind"):
        await running.enqueue("tests.embedded.nothing")
