"""The direct path (`platform/direct_sql.py`, `tenant_data/direct.py`) against SQLAlchemy's: the
same rows, records, audit rows and refusals, and a pool that keeps the engine's bounds (size,
waits, a dead connection replaced before COMMIT and never after, nothing left open). Each
connection dies at a point the test chooses: its server process ended between two statements,
or the connection cut by a relay around the COMMIT."""

from __future__ import annotations

import asyncio
import time
import uuid

import psycopg
import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from insureops.platform.direct_sql import CommitOutcomeUnknownError, DirectPool, prepared
from insureops.platform.errors import is_database_unavailable
from insureops.platform.tenant_data import direct, service
from insureops.platform.tenant_data.errors import (
    PayloadInvalidError,
    StateConflictError,
    TenantDatabaseUnavailableError,
)
from insureops.platform.tenant_data.payloads import ClientCreate, PolicyCreate
from insureops.platform.tenant_data.store import TenantStore, create_async_tenant_engine
from insureops.schema.sql.tables import sa_table
from tests.databases import Template, plain_conninfo
from tests.platform.faults.relay import TcpRelay

pytestmark = pytest.mark.parametrize("backend", ["postgresql"], indirect=True)

TENANT = "01JTESTTENANT0000000000000"
ACTOR = service.Actor(key_id=str(uuid.uuid4()), method="POST", path="/api/v2/mcp/policies/",
                      ip_address="203.0.113.9", user_agent="test/1")
POLICY = {"policy_number": "P-1", "status": "quote", "premium": 1234.5, "service_fee": 0.1,
          "commission_rate": 0.125, "start_date": "2026-01-01", "notes": "ß ✓"}
_PID = sa.select(sa.func.pg_backend_pid().label("pid"))


@pytest.fixture
async def tenant_url(test_databases) -> str:
    return test_databases.copy(Template.TENANT).async_


@pytest.fixture
async def stores(tenant_url):
    """The same tenant database as a SQLAlchemy store and as a direct one."""
    engine = create_async_tenant_engine(tenant_url)
    pool = DirectPool(tenant_url)
    try:
        yield TenantStore(engine), TenantStore(engine, direct=pool)
    finally:
        await pool.close()
        await engine.dispose()


async def _both(stores, use_case, direct_form, *args, read_only=False):
    plain, fast = stores
    return (await plain.run(use_case, *args, read_only=read_only),
            await fast.run(use_case, *args, read_only=read_only, direct=direct_form))


def _audit(store: TenantStore):
    table = sa_table("audit_logs")
    return store.run(lambda connection: [dict(row._mapping) for row in connection.execute(
        sa.select(table).order_by(table.c.id))], read_only=True)


def _without_identity(record: dict) -> dict:
    return {name: value for name, value in record.items()
            if name not in ("id", "uuid", "created", "modified", "policy_number")}


async def test_a_create_stores_and_audits_the_same_record_on_both_paths(stores):
    client = ClientCreate.model_validate({"name": "Ann", "email": "ann@example.com",
                                          "date_of_birth": "1980-02-29"})
    plain_client, fast_client = await _both(stores, service.create, direct.create,
                                            service.CLIENT, TENANT, ACTOR, client)
    assert _without_identity(plain_client) == _without_identity(fast_client)
    records = []
    for number, owner in (("P-1", plain_client["uuid"]), ("P-2", plain_client["id"])):
        plain, fast = stores
        payloads = [PolicyCreate.model_validate({**POLICY, "policy_number": f"{number}{side}",
                                                 "client_id": owner}) for side in "ab"]
        records.append((
            await plain.run(service.create, service.POLICY, TENANT, ACTOR, payloads[0]),
            await fast.run(service.create, service.POLICY, TENANT, ACTOR, payloads[1],
                           direct=direct.create)))
    (plain_p1, fast_p1), (plain_p2, fast_p2) = records
    # named by the client's uuid or by its id, stored by its id on both paths
    assert {plain_p1["client_id"], fast_p1["client_id"], plain_p2["client_id"],
            fast_p2["client_id"]} == {plain_client["id"]}
    assert fast_p1["premium"] == 1234.5 and fast_p1["commission_rate"] == 0.13  # half-up
    assert _without_identity(plain_p1) == _without_identity(fast_p1)

    rows = await _audit(stores[0])
    assert len(rows) == 6
    for plain_row, fast_row in zip(rows[0::2], rows[1::2], strict=True):
        assert str(fast_row["ip_address"]) == "203.0.113.9"
        assert fast_row["created_at"].tzinfo is not None
        same = ("action", "entity_type", "actor_id", "actor_email", "ip_address", "user_agent",
                "request_method", "request_path", "old_values", "tenant_id")
        assert {name: plain_row[name] for name in same} == {name: fast_row[name] for name in same}
        assert _without_identity(plain_row["new_values"]) == _without_identity(
            fast_row["new_values"])
    assert [row["new_values"]["uuid"] for row in rows[1::2]] == [
        fast_client["uuid"], fast_p1["uuid"], fast_p2["uuid"]]  # the audit row is the record


async def test_a_get_reads_the_same_record_on_both_paths(stores):
    payload = PolicyCreate.model_validate(POLICY)
    created = await stores[1].run(service.create, service.POLICY, TENANT, ACTOR, payload,
                                  direct=direct.create)
    plain, fast = await _both(stores, service.get, direct.get, service.POLICY, TENANT,
                              uuid.UUID(created["uuid"]), read_only=True)
    assert plain == fast == created
    other_tenant = "01JOTHERTENANT000000000000"
    with pytest.raises(service.RecordMissingError):
        await stores[1].run(service.get, service.POLICY, other_tenant,
                            uuid.UUID(created["uuid"]), read_only=True, direct=direct.get)


async def test_refusals_name_the_field_and_leave_nothing_behind(stores):
    fast = stores[1]
    payload = PolicyCreate.model_validate(POLICY)
    await fast.run(service.create, service.POLICY, TENANT, ACTOR, payload, direct=direct.create)
    with pytest.raises(StateConflictError) as duplicate:
        await fast.run(service.create, service.POLICY, TENANT, ACTOR, payload,
                       direct=direct.create)
    assert duplicate.value.details[0]["field"] == "policy_number"
    dangling = PolicyCreate.model_validate({**POLICY, "policy_number": "P-9",
                                            "client_id": str(uuid.uuid4()),
                                            "producer_id": str(uuid.uuid4())})
    with pytest.raises(PayloadInvalidError) as missing:
        await fast.run(service.create, service.POLICY, TENANT, ACTOR, dangling,
                       direct=direct.create)
    assert [item["field"] for item in missing.value.details] == ["client_id", "producer_id"]
    assert len(await _audit(fast)) == 1  # the first create's, nothing of the refused ones
    assert fast.direct._idle and all(  # the refused transactions were rolled back
        connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        for connection in fast.direct._idle)


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
        stores, tenant_url):
    def plain(connection):  # SQLAlchemy's path: the use case runs in a greenlet, synchronously
        connection.execute(_WRITE_STATEMENT, {"tenant_id": TENANT, "entity_id": uuid.uuid4()})
        _terminate(tenant_url, connection.execute(_PID).scalar_one())

    async def fast(connection):
        await connection.one(_WRITE, {"tenant_id": TENANT, "entity_id": uuid.uuid4()})
        pid = (await connection.one(prepared(_PID), {}))["pid"]
        await asyncio.to_thread(_terminate, tenant_url, pid)

    for store, direct_form in ((stores[0], None), (stores[1], fast)):
        with pytest.raises(TenantDatabaseUnavailableError) as lost:
            await store.run(plain, direct=direct_form)
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
