"""A tenant database that is down: 503 tenant_database_unavailable quickly, recovery after."""

from __future__ import annotations

import socket
import time

from insureops.platform.tenant_pools import PoolLimits, TenantPools


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nobody listens once the probe is closed


async def test_unreachable_database_is_503_quickly_and_recovers_when_back(
        client, tenant, make_tenant, save_url):
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
    await save_url(down.tenant_id, tenant.database_url)
    recovered = await client.post("/api/v2/mcp/clients/", json={"name": "Back"},
                                  headers=down.headers)
    assert recovered.status == 201


async def test_503_explains_what_to_do_when_no_database_is_saved(client, make_tenant):
    unconfigured = await make_tenant(None)
    response = await client.get("/api/v2/mcp/policies/list/", headers=unconfigured.headers)
    body = await response.json()
    assert response.status == 503 and body["error"]["code"] == "tenant_database_unavailable"
    assert "Settings" in body["error"]["message"]


async def test_pools_reuse_replace_and_evict_engines_when_urls_and_tenants_change(tmp_path):
    pools = TenantPools(PoolLimits(max_tenants=2))
    url_a, url_b = f"sqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db"
    first = pools.store_for("A", url_a)
    assert pools.store_for("A", url_a).engine is first.engine
    replaced = pools.store_for("A", url_b)
    assert replaced.engine is not first.engine and len(pools) == 1
    pools.store_for("B", url_a)
    pools.store_for("C", url_a)
    assert len(pools) == 2  # A, least recently used, was disposed
    await pools.dispose()
    assert len(pools) == 0
