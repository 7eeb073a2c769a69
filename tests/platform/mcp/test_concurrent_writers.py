"""Concurrent writers on SQLite: the embedded tenant database and a SQLite platform database take
many simultaneous creates without an error, and keep every row."""

from __future__ import annotations

import asyncio
import datetime

import pytest
import sqlalchemy as sa

from insureops.platform.identity import new_tenant_id
from insureops.platform.keys import DATABASE
from insureops.platform.records.api_keys import ApiKey, hash_api_key, new_api_key
from insureops.platform.tenancy.workspaces import embedded_database_url

BASE = "/api/v2/mcp/clients"
WRITERS = 48


async def test_concurrent_creates_on_the_embedded_tenant_database_all_succeed(
        client, make_tenant, settings):
    tenant = await make_tenant(None)  # nothing saved: the embedded SQLite default

    async def create(number: int) -> int:
        response = await client.post(f"{BASE}/", json={"name": f"Writer {number}"},
                                     headers=tenant.headers)
        return response.status

    statuses = await asyncio.gather(*(create(number) for number in range(WRITERS)))
    assert statuses == [201] * WRITERS
    url = embedded_database_url(settings.tenant_sqlite_root, tenant.tenant_id)
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            names = set(connection.execute(sa.text("SELECT name FROM clients")).scalars())
            audited = connection.execute(sa.text(
                "SELECT count(*) FROM audit_logs WHERE action = 'create'")).scalar()
    finally:
        engine.dispose()
    assert names == {f"Writer {number}" for number in range(WRITERS)}
    assert audited == WRITERS


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_concurrent_writes_on_a_sqlite_platform_database_all_succeed(client, make_tenant):
    tenant = await make_tenant(None)
    now = datetime.datetime.now(datetime.UTC)
    database = client.app[DATABASE]

    async def add_key(number: int) -> None:
        key = new_api_key()
        async with database.unit_of_work() as uow:
            uow.session.add(ApiKey(id=new_tenant_id(now.timestamp() + number),
                                   workspace_id=tenant.tenant_id, name=f"key {number}",
                                   display_prefix=key[:11], key_hash=hash_api_key(key),
                                   scopes="read", created_at=now))

    await asyncio.gather(*(add_key(number) for number in range(WRITERS)))
    async with database.unit_of_work() as uow:
        count = (await uow.session.execute(sa.select(sa.func.count()).select_from(ApiKey).where(
            ApiKey.workspace_id == tenant.tenant_id))).scalar()
    assert count == WRITERS + 1  # and the tenant's own key
