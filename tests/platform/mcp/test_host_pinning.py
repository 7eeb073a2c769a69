"""Tenant pools against DNS rebinding: a saved PostgreSQL host is checked when its engine is made,
refused on loopback unless the settings allow it, and the engine is pinned to the checked address."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from insureops.platform.tenancy.book.errors import TenantDatabaseUnavailableError
from insureops.platform.tenancy.pools import TenantPools
from insureops.platform.tenancy.urls import check_addresses, parse_url


def _without_networks(settings):
    return settings.model_copy(update={"tenant_database_allowed_networks": ()})


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
async def test_saved_postgres_host_is_refused_with_503_when_loopback_is_not_allowed(
        make_client, settings, make_tenant, host):
    tenant = await make_tenant(f"postgresql://app:secret@{host}:5432/tenant")
    strict = await make_client(_without_networks(settings))
    response = await strict.get("/api/v2/mcp/clients/list/", headers=tenant.headers)
    body = await response.json()
    assert response.status == 503 and body["error"]["code"] == "tenant_database_unavailable"
    assert "host is refused" in body["error"]["message"]
    text = await response.text()
    assert "127.0.0.1" not in text and "secret" not in text and "localhost" not in text


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_loopback_tenant_database_works_when_its_network_is_allowed(
        client, make_client, settings, tenant):
    # `client` runs with 127.0.0.1/32 allowed (conftest); `strict` shares its platform database.
    strict = await make_client(_without_networks(settings))
    refused = await strict.post("/api/v2/mcp/clients/", json={"name": "Blocked"},
                                headers=tenant.headers)
    assert refused.status == 503
    created = await client.post("/api/v2/mcp/clients/", json={"name": "Allowed"},
                                headers=tenant.headers)
    assert created.status == 201
    listed = await (await client.get("/api/v2/mcp/clients/list/", headers=tenant.headers)).json()
    assert [item["name"] for item in listed["items"]] == ["Allowed"]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_engine_connects_to_the_checked_address_when_the_url_names_a_host(
        settings, make_tenant_database):
    url = make_url(make_tenant_database()).set(host="localhost").render_as_string(
        hide_password=False)
    allowing = settings.model_copy(update={
        "tenant_database_allowed_networks": ("127.0.0.1/32", "::1/128")})
    checked = await check_addresses(parse_url(url, allowing, tenant_id="A"), allowing)
    pools = TenantPools()
    try:
        store = await pools.store_for("A", url, allowing)
        host, address = await store.backend.run(_target, transaction=False)
    finally:
        await pools.dispose()
    assert address == checked.addresses[0]
    assert host == "localhost"  # kept for TLS verification


async def _target(connection) -> tuple[str, str]:
    """(host, address) the connection is connected to, once it answered."""
    await connection.first(sa.select(sa.literal(1).label("one")), {})
    return connection.info.host, connection.info.hostaddr


async def test_host_is_checked_only_when_the_pool_makes_an_engine_when_settings_change(settings):
    url = "postgresql://app:secret@localhost:5432/tenant"
    pools = TenantPools()
    try:
        first = await pools.store_for("A", url, settings)  # 127.0.0.1/32 allowed (conftest)
        again = await pools.store_for("A", url, _without_networks(settings))
        assert again is first  # kept: no resolution per request
        with pytest.raises(TenantDatabaseUnavailableError, match="host is refused"):
            await pools.store_for("A", url.replace("/tenant", "/other"),
                                  _without_networks(settings))
        assert len(pools) == 0  # the store of the replaced URL is gone too
    finally:
        await pools.dispose()


async def test_saved_url_is_refused_when_it_no_longer_passes_the_form_checks(settings):
    # A URL parameter such as host= would let the connection go elsewhere than the checked host.
    pools = TenantPools()
    with pytest.raises(TenantDatabaseUnavailableError, match="URL is refused"):
        await pools.store_for("A", "postgresql://app@localhost/tenant?host=10.0.0.1", settings)
    assert len(pools) == 0
