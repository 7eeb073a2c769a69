"""The tenant API's caches: a key's row remembered for at most api_key_cache_seconds (a connection
saved or a key revoked through another instance is seen within that bound, through the same one at
once, expiry always checked), at most one platform query per request without it, and dead pooled
connections replaced without an error.

The bound is measured on the instance's monotonic clock (`create_app(monotonic=...)`), which these
tests move themselves: the bound is crossed when the test says, however slow the machine."""

from __future__ import annotations

import datetime
import time

import psycopg
import pytest
import sqlalchemy as sa
from aiohttp.test_utils import TestClient
from sqlalchemy import update

from insureops.platform.data.direct import DirectPool, prepared
from insureops.platform.identity import new_tenant_id
from insureops.platform.keys import API_KEY_CACHE, DATABASE, SETTINGS, TENANT_POOLS
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.tenancy.databases import TenantDatabase
from tests.databases import plain_conninfo
from tests.platform.mcp.conftest import NOW, save_database_url

BASE = "/api/v2/mcp/clients"


async def _names(client, tenant) -> list[str]:
    response = await client.get(f"{BASE}/list/", headers=tenant.headers)
    assert response.status == 200, await response.text()
    return [item["name"] for item in (await response.json())["items"]]


# Another instance remembers a key's row for this long (api_key_cache_seconds).
BOUND = 1.0
JUST_BEFORE = BOUND - 0.125  # exact in binary: the clock lands on the bound itself after it


class Monotonic:
    """An instance's monotonic clock, moved by the test alone."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _other_instance(make_client, settings) -> tuple[TestClient, Monotonic]:
    """Another instance on the same platform database, remembering keys for BOUND seconds of
    its own clock."""
    clock = Monotonic()
    other = await make_client(settings.model_copy(update={"api_key_cache_seconds": BOUND}),
                              monotonic=clock)
    return other, clock


async def test_a_connection_saved_on_one_instance_is_used_by_another_within_the_bound(
        client, make_client, settings, make_tenant, make_tenant_database):
    other, clock = await _other_instance(make_client, settings)
    tenant_id = new_tenant_id(NOW.timestamp())
    tenant = await make_tenant(make_tenant_database(tenant_id), tenant_id=tenant_id)
    created = await other.post(f"{BASE}/", json={"name": "In the first"}, headers=tenant.headers)
    assert created.status == 201
    assert await _names(other, tenant) == ["In the first"]  # the other instance's cache is warm

    await save_database_url(client, tenant_id, make_tenant_database(tenant_id))
    assert await _names(client, tenant) == []  # the saving instance: at once
    clock.now += JUST_BEFORE
    assert await _names(other, tenant) == ["In the first"]  # the other: from its memory...
    clock.now += BOUND - JUST_BEFORE
    assert await _names(other, tenant) == []  # ...for at most the bound
    created = await other.post(f"{BASE}/", json={"name": "In the second"}, headers=tenant.headers)
    assert created.status == 201
    assert await _names(client, tenant) == ["In the second"]


async def test_a_deleted_connection_falls_back_to_the_embedded_default_on_every_instance(
        client, make_client, settings, make_own_tenant):
    other, clock = await _other_instance(make_client, settings)
    tenant = await make_own_tenant()
    assert (await other.post(f"{BASE}/", json={"name": "Saved"}, headers=tenant.headers)).status \
        == 201
    async with client.app[DATABASE].unit_of_work() as uow:
        await uow.session.execute(sa.delete(TenantDatabase).where(
            TenantDatabase.workspace_id == tenant.tenant_id))
    clock.now += BOUND
    assert await _names(other, tenant) == []  # the workspace's embedded SQLite database


async def test_a_key_revoked_on_one_instance_is_refused_by_another_within_the_bound(
        client, make_client, settings, make_own_tenant):
    other, clock = await _other_instance(make_client, settings)
    tenant = await make_own_tenant()
    assert await _names(other, tenant) == []
    assert await _names(client, tenant) == []
    async with client.app[DATABASE].unit_of_work() as uow:
        await uow.session.execute(update(ApiKey).where(ApiKey.id == tenant.key_id)
                                  .values(revoked_at=NOW))
    client.app[API_KEY_CACHE].forget_all()  # as the settings area's revoke route does
    refused = await client.get(f"{BASE}/list/", headers=tenant.headers)
    assert refused.status == 401  # the revoking instance: at once
    clock.now += JUST_BEFORE
    assert await _names(other, tenant) == []  # the other: from its memory...
    clock.now += BOUND - JUST_BEFORE
    response = await other.get(f"{BASE}/list/", headers=tenant.headers)
    assert response.status == 401  # ...for at most the bound
    assert (await response.json())["error"]["code"] == "invalid_api_key"


async def test_an_expired_key_is_refused_at_once_even_when_remembered(
        client, make_client, settings, make_own_tenant):
    now = [time.time()]
    clocked = await make_client(settings.model_copy(update={"api_key_cache_seconds": 60}),
                                clock=lambda: now[0])
    tenant = await make_own_tenant()
    expires = datetime.datetime.fromtimestamp(now[0] + 3600, tz=datetime.UTC)
    async with client.app[DATABASE].unit_of_work() as uow:
        await uow.session.execute(update(ApiKey).where(ApiKey.id == tenant.key_id)
                                  .values(expires_at=expires))
    assert await _names(clocked, tenant) == []  # read and remembered, with its expiry
    now[0] += 3601
    response = await clocked.get(f"{BASE}/list/", headers=tenant.headers)
    assert response.status == 401


async def _platform_statements(client, requests) -> list[str]:
    """The statements the platform database received while `requests` ran."""
    statements: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    database = client.app[DATABASE]
    engines = {database.engine.sync_engine, database.reads.sync_engine}
    for engine in engines:
        sa.event.listen(engine, "before_cursor_execute", count)
    try:
        await requests()
    finally:
        for engine in engines:
            sa.event.remove(engine, "before_cursor_execute", count)
    return statements


async def test_steady_requests_send_at_most_one_statement_to_the_platform_database(
        make_client, settings, make_own_tenant):
    cached = await make_client(settings, monotonic=Monotonic())  # remembers throughout
    uncached = await make_client(settings.model_copy(update={"api_key_cache_seconds": 0}))
    tenant = await make_own_tenant()
    for instance in (cached, uncached):
        created = await instance.post(f"{BASE}/", json={"name": "Counted"},
                                      headers=tenant.headers)
        record = (await created.json())["uuid"]

        async def requests(instance=instance, record=record) -> None:
            response = await instance.get(f"{BASE}/{record}/", headers=tenant.headers)
            assert response.status == 200
            created = await instance.post(f"{BASE}/", json={"name": "Again"},
                                          headers=tenant.headers)
            assert created.status == 201

        statements = await _platform_statements(instance, requests)
        if instance is cached:  # the key's row remembered: nothing at all
            assert statements == []
        else:  # the key with its workspace's saved connection, once per request
            # (last_used_at moved already: it moves at most once a minute)
            assert len(statements) == 2, statements
            assert all("api_keys" in statement and "tenant_databases" in statement
                       for statement in statements)


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_pooled_connections_the_server_closed_are_replaced_without_an_error(
        make_client, settings, make_own_tenant):
    """No pre-ping round trip: a dead pooled connection (server restart, idle kill) is found on
    use and the read or the uncommitted use case runs once more on a new one; this holds for
    the platform database's reads engine (the key is read on every request here) and for the
    tenant database's direct pool alike (the one retry policy, platform/data/retry.py)."""
    client = await make_client(settings.model_copy(update={"api_key_cache_seconds": 0}))
    tenant = await make_own_tenant()
    created = await client.post(f"{BASE}/", json={"name": "Before"}, headers=tenant.headers)
    record = (await created.json())["uuid"]
    assert (await client.get(f"{BASE}/{record}/", headers=tenant.headers)).status == 200
    assert await _names(client, tenant) == ["Before"]
    database = client.app[DATABASE]
    store = await client.app[TENANT_POOLS].store_for(tenant.tenant_id, tenant.database_url,
                                                     client.app[SETTINGS])
    pids = [await _backend_pid(store.backend)]
    async with database.reads.connect() as connection:  # the key's read (pool of one in use)
        pids.append(await connection.scalar(_BACKEND_PID))
    with psycopg.connect(plain_conninfo(tenant.database_url), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", (pids,))
        deadline = time.monotonic() + 5  # the signals are asynchronous: dead before any request
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)",
                            (pids,)).fetchone() is not None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
    response = await client.get(f"{BASE}/{record}/", headers=tenant.headers)
    assert response.status == 200, await response.text()
    created = await client.post(f"{BASE}/", json={"name": "After"}, headers=tenant.headers)
    assert created.status == 201, await created.text()
    assert await _names(client, tenant) == ["Before", "After"]


_BACKEND_PID = sa.select(sa.func.pg_backend_pid().label("pid"))


async def _backend_pid(pool: DirectPool) -> int:
    """The server process of the connection the pool hands out next (its last returned)."""
    row = await pool.run(lambda connection: connection.one(prepared(_BACKEND_PID), {}),
                         transaction=False)
    return row["pid"]
