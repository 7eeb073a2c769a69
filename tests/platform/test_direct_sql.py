"""The direct pool (`platform/data/direct.py`), how the service reaches a PostgreSQL tenant
database: it keeps an engine's bounds (size, waits, a dead connection replaced before COMMIT and
never after, nothing left open). Each connection dies at a point the test chooses: its server
process ended between two statements, or the connection cut by a relay around the COMMIT."""

from __future__ import annotations

import asyncio
import time
import uuid

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from insureops.platform.data.direct import DirectPool, prepared
from insureops.platform.data.retry import CommitOutcomeUnknownError
from insureops.platform.http.errors import is_database_unavailable
from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.book.store import TenantStore
from insureops.schema.sql.tables import sa_table
from tests.databases import Template, plain_conninfo
from tests.platform.faults.relay import TcpRelay

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

TENANT = "01JTESTTENANT0000000000000"
_PID = sa.select(sa.func.pg_backend_pid().label("pid"))


@pytest.fixture
async def tenant_url(test_databases) -> str:
    return test_databases.copy(Template.TENANT).async_


async def test_the_pool_is_bounded_and_a_full_one_answers_unavailable_in_time(tenant_url):
    pool = DirectPool(tenant_url, max_size=1, pool_timeout=0.3)
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold(connection):
        holding.set()
        await release.wait()

    try:
        held = asyncio.create_task(pool.run(hold, transaction=False))
        await holding.wait()
        started = time.monotonic()
        with pytest.raises(sa.exc.TimeoutError) as waited:
            await pool.run(lambda connection: connection.one(prepared(_PID), {}),
                           transaction=False)
        assert 0.25 < time.monotonic() - started < 2.0
        assert is_database_unavailable(waited.value)
        release.set()
        await held
        assert (await pool.run(lambda connection: connection.one(prepared(_PID), {}),
                               transaction=False))["pid"] > 0
    finally:
        await pool.close()


async def test_an_unreachable_database_is_unavailable_at_once(backend):
    pool = DirectPool("postgresql+psycopg://nobody@127.0.0.1:1/none", connect_timeout=1)
    started = time.monotonic()
    with pytest.raises(sa.exc.OperationalError) as refused:
        await pool.run(lambda connection: connection.one(prepared(_PID), {}), transaction=False)
    assert is_database_unavailable(refused.value) and time.monotonic() - started < 2.0
    await pool.close()


def _terminate(url: str, pid: int) -> None:
    """End the server process `pid` and wait until it is gone (the signal is asynchronous).
    Its socket closes a moment later, so the client may see the death at its next send or its
    next read: the tests below hold whichever it is."""
    with psycopg.connect(plain_conninfo(url), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 5
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s",
                            (pid,)).fetchone() is not None:
            assert time.monotonic() < deadline
            time.sleep(0.01)


_AUDIT = sa_table("audit_logs")
_WRITE_STATEMENT = sa.insert(_AUDIT).values(
    tenant_id=sa.bindparam("tenant_id"), action="create", entity_type="client",
    entity_id=sa.bindparam("entity_id")).returning(_AUDIT.c.id)
_WRITE = prepared(_WRITE_STATEMENT)
_COUNT = sa.select(sa.func.count().label("rows")).select_from(_AUDIT)


async def _pid(pool: DirectPool) -> int:
    return (await pool.run(lambda connection: connection.one(prepared(_PID), {}),
                           transaction=False))["pid"]


async def _rows(url: str) -> int:
    """The audit rows committed, read past any pool or relay."""
    async with await psycopg.AsyncConnection.connect(plain_conninfo(url),
                                                     autocommit=True) as admin:
        return (await (await admin.execute(str(_COUNT))).fetchone())[0]


@pytest.mark.parametrize("dies", ["while pooled", "between two statements"])
async def test_the_work_runs_once_more_on_a_new_connection_when_its_connection_dies_before_commit(
        tenant_url, dies):
    pool = DirectPool(tenant_url, max_size=1)
    pids: list[int] = []  # the server process of each run that got an answer

    async def write(connection):
        # pipelined with BEGIN: a connection already dead fails here, at the latest
        pids.append((await connection.one(prepared(_PID), {}))["pid"])
        if dies == "between two statements" and len(pids) == 1:
            await asyncio.to_thread(_terminate, tenant_url, pids[0])
        await connection.one(_WRITE, {"tenant_id": TENANT, "entity_id": uuid.uuid4()})

    try:
        pooled = await _pid(pool)
        if dies == "while pooled":
            await asyncio.to_thread(_terminate, tenant_url, pooled)
        await pool.run(write, transaction=True)
        if dies == "while pooled":
            assert len(pids) == 1 and pids[0] != pooled
        else:
            assert len(pids) == 2 and pids[0] == pooled and pids[1] != pooled
        assert await _rows(tenant_url) == 1  # the dead connection's work was never committed
    finally:
        await pool.close()


async def test_the_work_runs_once_more_on_a_new_connection_when_every_pooled_one_is_dead(
        tenant_url):
    pool = DirectPool(tenant_url, max_size=2)
    both = asyncio.Barrier(2)

    async def hold(connection):
        pid = (await connection.one(prepared(_PID), {}))["pid"]
        await both.wait()  # two connections out at once: both pooled afterwards
        return pid

    try:
        pooled = await asyncio.gather(pool.run(hold, transaction=False),
                                      pool.run(hold, transaction=False))
        for pid in pooled:  # a database restart: every pooled connection dead
            await asyncio.to_thread(_terminate, tenant_url, pid)
        assert await _pid(pool) not in pooled  # not a second dead one from the pool
    finally:
        await pool.close()


@pytest.mark.parametrize("lost", ["before COMMIT arrives", "after COMMIT was applied"])
async def test_a_commit_is_never_retried_and_its_outcome_unknown_when_its_answer_is_lost(
        tenant_url, lost):
    """The connection is cut (a relay in front of the server) after the work's last statement:
    before the COMMIT sent next reaches the server, or once the server has applied it and only
    its answer is missing. The pool cannot tell the two apart, so it runs the work again in
    neither (which in the second would write twice) and says the outcome is unknown."""
    server = make_url(tenant_url)
    async with TcpRelay(server.host or "127.0.0.1", server.port or 5432) as relay:
        pool = DirectPool(server.set(host="127.0.0.1", port=relay.port), max_size=1)
        runs = 0

        async def write(connection):
            nonlocal runs
            runs += 1
            await connection.one(_WRITE, {"tenant_id": TENANT, "entity_id": uuid.uuid4()})
            if lost == "before COMMIT arrives":
                await relay.drop()
            else:
                relay.hold_replies()

        try:
            running = asyncio.create_task(pool.run(write, transaction=True))
            if lost == "after COMMIT was applied":
                deadline = time.monotonic() + 5
                while await _rows(tenant_url) == 0:  # committed, the answer held
                    assert time.monotonic() < deadline and not running.done()
                    await asyncio.sleep(0.01)
                await relay.drop()
            with pytest.raises(CommitOutcomeUnknownError) as at_commit:
                await running
        finally:
            await pool.close()
    assert at_commit.value.connection_invalidated and is_database_unavailable(at_commit.value)
    assert runs == 1
    assert await _rows(tenant_url) == (1 if lost == "after COMMIT was applied" else 0)


async def test_a_lost_commit_is_unavailable_saying_the_outcome_is_unknown_on_both_paths(
        tenant_url):
    # (named as docs/security.md cites it; there is one path now, the direct pool)
    async def write_and_die(records):  # on the store's port, the connection underneath
        connection = records._connection
        await connection.one(_WRITE, {"tenant_id": TENANT, "entity_id": uuid.uuid4()})
        pid = (await connection.one(prepared(_PID), {}))["pid"]
        await asyncio.to_thread(_terminate, tenant_url, pid)

    store = TenantStore(DirectPool(tenant_url))
    try:
        with pytest.raises(TenantDatabaseUnavailableError) as lost:
            await store.run(write_and_die)
    finally:
        await store.close()
    assert "may or may not have been saved" in str(lost.value)
    assert await _rows(tenant_url) == 0


async def test_a_cancelled_run_closes_its_connection_and_frees_its_slot(tenant_url):
    pool = DirectPool(tenant_url, max_size=1, pool_timeout=1)
    sleep = prepared(sa.select(sa.func.pg_sleep(30).label("slept")))
    try:
        task = asyncio.create_task(pool.run(lambda connection: connection.first(sleep, {}),
                                            transaction=True))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not pool._idle  # closed, not returned mid-statement
        started = time.monotonic()
        assert (await pool.run(lambda connection: connection.one(prepared(_PID), {}),
                               transaction=False))["pid"] > 0
        assert time.monotonic() - started < 1.0
    finally:
        await pool.close()
