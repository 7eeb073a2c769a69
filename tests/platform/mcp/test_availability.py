"""A tenant database that is down: 503 tenant_database_unavailable quickly, recovery after."""

from __future__ import annotations

import asyncio
import datetime
import socket
import time

import pytest
from sqlalchemy.engine import make_url

from insureops.platform.identity import Workspace
from insureops.platform.keys import DATABASE, TENANT_POOLS
from insureops.platform.tenancy.pools import PoolLimits, TenantPools
from tests.platform.mcp.conftest import add_key


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nobody listens once the probe is closed


async def test_unreachable_database_is_503_quickly_and_recovers_when_back(
        client, tenant, make_tenant, make_tenant_database, save_url):
    down = await make_tenant(f"postgresql://app:secret@127.0.0.1:{_closed_port()}/tenant")
    for _ in range(2):  # the second attempt must not hang on a poisoned pool either
        started = time.monotonic()
        response = await client.get("/api/v2/mcp/clients/list/", headers=down.headers)
        assert time.monotonic() - started < 3.0
        body = await response.json()
        assert response.status == 503 and body["error"]["code"] == "tenant_database_unavailable"
        assert "secret" not in await response.text()
    healthy = await client.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
    assert healthy.status == 200  # other tenants are not affected
    await save_url(down.tenant_id, make_tenant_database(down.tenant_id))
    recovered = await client.post("/api/v2/mcp/clients/", json={"name": "Back"},
                                  headers=down.headers)
    assert recovered.status == 201


async def test_503_explains_what_to_do_when_no_database_is_saved(
        make_client, settings, make_tenant):
    unconfigured = await make_tenant(None)
    no_sqlite = await make_client(settings.model_copy(update={
        "tenant_sqlite_directory": None, "embedded_tenant_databases": False}))
    response = await no_sqlite.get("/api/v2/mcp/policies/list/", headers=unconfigured.headers)
    body = await response.json()
    assert response.status == 503 and body["error"]["code"] == "tenant_database_unavailable"
    assert "Settings" in body["error"]["message"]


async def test_pools_reuse_replace_and_evict_stores_when_urls_and_tenants_change(settings):
    pools = TenantPools(PoolLimits(max_tenants=2))
    url_a, url_b = "sqlite:///a.db", "sqlite:///b.db"  # in each workspace's own directory
    first = await pools.store_for("A", url_a, settings)
    assert (await pools.store_for("A", url_a, settings)) is first
    replaced = await pools.store_for("A", url_b, settings)
    assert replaced is not first and len(pools) == 1
    await pools.store_for("B", url_a, settings)
    await pools.store_for("C", url_a, settings)
    assert len(pools) == 2  # A, least recently used, was disposed
    await pools.dispose()
    assert len(pools) == 0


async def test_unprepared_database_is_503_with_the_command_when_tables_are_missing(
        client, make_tenant, database_urls, tenant_sqlite_root):
    # An empty database, never prepared: the test's PostgreSQL schema, or a new SQLite file in
    # the workspace's own directory.
    tenant_id = "01J00000000000000000000EMP"
    empty_url = database_urls.sync
    if database_urls.backend == "sqlite":
        (tenant_sqlite_root / tenant_id).mkdir(parents=True)
        empty_url = f"sqlite:///{tenant_sqlite_root / tenant_id / 'empty.sqlite3'}"
    empty = await make_tenant(empty_url, tenant_id=tenant_id)
    response = await client.get("/api/v2/mcp/clients/list/", headers=empty.headers)
    body = await response.json()
    assert response.status == 503 and "insureops schema apply" in body["error"]["message"]


class TcpRelay:
    """A TCP relay in front of PostgreSQL that can be taken down and brought back on one port."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = _closed_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        self._writers |= {writer, upstream_writer}
        await asyncio.gather(self._pipe(reader, upstream_writer),
                             self._pipe(upstream_reader, writer))

    async def up(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    async def down(self) -> None:
        self._server.close()
        for writer in self._writers:
            writer.transport.abort()  # established connections die too, as in a restart
        self._writers.clear()
        await self._server.wait_closed()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_same_url_works_again_when_the_database_comes_back(
        client, make_tenant, make_tenant_database):
    url = make_url(make_tenant_database())
    relay = TcpRelay(url.host or "127.0.0.1", url.port or 5432)
    await relay.up()
    tenant = await make_tenant(url.set(host="127.0.0.1", port=relay.port).render_as_string(
        hide_password=False))
    first = await client.post("/api/v2/mcp/clients/", json={"name": "Before"},
                              headers=tenant.headers)
    assert first.status == 201
    await relay.down()
    started = time.monotonic()
    down = await client.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
    assert down.status == 503 and time.monotonic() - started < 3.0
    await relay.up()
    try:
        back = await client.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
        assert back.status == 200
        assert [item["name"] for item in (await back.json())["items"]] == ["Before"]
    finally:
        await relay.down()


async def test_embedded_sqlite_database_is_made_on_first_use_when_none_is_saved(
        make_client, settings, tmp_path):
    directory = tmp_path / "tenants"
    client = await make_client(settings.model_copy(update={"tenant_sqlite_directory": directory}))
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id="01J00000000000000000000000", name="Solo",
                                  created_at=datetime.datetime.now(datetime.UTC)))
    key, _ = await add_key(client, "01J00000000000000000000000")
    headers = {"Authorization": f"Bearer {key}"}
    created = await client.post("/api/v2/mcp/clients/", json={"name": "First"}, headers=headers)
    assert created.status == 201
    own_file = directory / "01J00000000000000000000000" / "01J00000000000000000000000.sqlite3"
    assert own_file.is_file()
    connection = await (await client.get("/api/v2/mcp/database/connection/",
                                          headers=headers)).json()
    assert connection["backend"] == "sqlite"
    assert connection["connection_string"] == f"sqlite:///{own_file.resolve()}"


async def test_tenant_stores_are_closed_when_the_app_shuts_down(client, tenant):
    response = await client.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
    assert response.status == 200
    pools = client.app[TENANT_POOLS]  # one for the instance: every area's stores
    assert len(pools) == 1
    await client.close()
    assert len(pools) == 0


async def test_tenant_database_unavailable_carries_retry_after_when_the_database_is_down(
        client, make_client, settings, make_tenant):
    """Issue 17: tenant_database_unavailable carried no Retry-After."""
    down = await make_tenant(f"postgresql://app:secret@127.0.0.1:{_closed_port()}/tenant")
    unconfigured = await make_tenant(None)
    no_embedded = await make_client(settings.model_copy(update={
        "tenant_sqlite_directory": None, "embedded_tenant_databases": False}))

    for service, tenant in ((client, down), (no_embedded, unconfigured)):
        response = await service.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
        assert response.status == 503
        assert response.headers["Retry-After"] == "5"
