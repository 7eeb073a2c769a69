"""Keys of workspace A never read or write workspace B's data, through any endpoint."""

from __future__ import annotations

import pytest

from insureops.platform.auth.requirements import Scope
from insureops.platform.tenancy.databases import uri_form
from tests.platform.mcp.conftest import add_key


@pytest.fixture(params=["own databases", "one shared database"])
async def two_tenants(request, backend, make_tenant, make_own_tenant):
    if request.param == "own databases":
        return await make_own_tenant(name="A"), await make_own_tenant(name="B")
    if backend == "sqlite":
        pytest.skip("a SQLite tenant database is only ever one workspace's (issue 17, fix 3)")
    first = await make_own_tenant(name="A")
    return first, await make_tenant(first.database_url, name="B")


async def test_other_workspace_cannot_reach_records_when_it_knows_their_uuids(
        client, two_tenants):
    a, b = two_tenants
    holder = await (await client.post("/api/v2/mcp/clients/", json={"name": "A's client"},
                                      headers=a.headers)).json()
    policy = await (await client.post("/api/v2/mcp/policies/", json={
        "client_id": holder["id"], "policy_number": "A-1"}, headers=a.headers)).json()
    attempts = [
        client.get(f"/api/v2/mcp/clients/{holder['uuid']}/", headers=b.headers),
        client.get(f"/api/v2/mcp/policies/{policy['uuid']}/", headers=b.headers),
        client.patch(f"/api/v2/mcp/clients/{holder['uuid']}/update/", json={"name": "x"},
                     headers=b.headers),
        client.put(f"/api/v2/mcp/policies/{policy['uuid']}/update/", json={"notes": "x"},
                   headers=b.headers),
    ]
    for attempt in attempts:
        assert (await attempt).status == 404
    linked = await client.post("/api/v2/mcp/policies/", json={"client_id": holder["id"]},
                               headers=b.headers)
    assert linked.status == 400
    for path in ("/api/v2/mcp/clients/list/", "/api/v2/mcp/policies/list/"):
        page = await (await client.get(path, headers=b.headers)).json()
        assert page["items"] == []
    filtered = await client.get("/api/v2/mcp/policies/list/",
                                params={"client_uuid": holder["uuid"]}, headers=b.headers)
    assert (await filtered.json())["items"] == []
    same_number = await client.post("/api/v2/mcp/policies/", json={"policy_number": "A-1"},
                                    headers=b.headers)
    assert same_number.status == 201  # unique per tenant only
    unchanged = await (await client.get(f"/api/v2/mcp/clients/{holder['uuid']}/",
                                        headers=a.headers)).json()
    assert unchanged["name"] == "A's client"


async def test_connection_and_key_answers_are_the_callers_own_when_two_tenants_exist(
        client, two_tenants):
    a, b = two_tenants
    for tenant in (a, b):
        info = await (await client.post("/api/v2/mcp/validate-key/",
                                        headers=tenant.headers)).json()
        assert info["tenant_id"] == tenant.tenant_id
        connection = await (await client.get("/api/v2/mcp/database/connection/",
                                             headers=tenant.headers)).json()
        assert connection["connection_string"] == uri_form(tenant.database_url)


async def test_scopes_are_enforced_when_the_key_is_read_only(client, tenant):
    key, _ = await add_key(client, tenant.tenant_id, (Scope.READ,))
    reader = {"Authorization": f"Bearer {key}"}
    write = await client.post("/api/v2/mcp/clients/", json={"name": "x"}, headers=reader)
    connection = await client.get("/api/v2/mcp/database/connection/", headers=reader)
    listing = await client.get("/api/v2/mcp/clients/list/", headers=reader)
    assert (write.status, connection.status, listing.status) == (403, 403, 200)
    assert (await write.json())["error"]["code"] == "insufficient_scope"
