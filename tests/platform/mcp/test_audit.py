"""Every create and update leaves an audit_logs row in the tenant database, in the same
transaction: actor = the API key, old and new values."""

from __future__ import annotations

import sqlalchemy as sa

from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.sql.tables import sa_table


def _audit_rows(url: str) -> list[dict]:
    engine = create_tenant_engine(url)
    try:
        with engine.connect() as connection:
            table = sa_table("audit_logs")
            return [dict(row._mapping) for row in
                    connection.execute(sa.select(table).order_by(table.c.id))]
    finally:
        engine.dispose()


async def test_create_and_update_are_audited_with_the_key_when_they_succeed(client, tenant):
    created = await (await client.post("/api/v2/mcp/clients/", json={"name": "Ann"},
                                       headers=tenant.headers)).json()
    await client.patch(f"/api/v2/mcp/clients/{created['uuid']}/update/", json={"city": "Oslo"},
                       headers={**tenant.headers, "User-Agent": "agent/1"})
    create, update = _audit_rows(tenant.database_url)
    assert (create["action"], update["action"]) == ("create", "update")
    assert create["entity_type"] == "client" and str(create["entity_id"]) == created["id"]
    assert create["tenant_id"] == update["tenant_id"] == tenant.tenant_id
    assert create["actor_email"] == update["actor_email"] == f"api-key:{tenant.key_id}"
    assert create["old_values"] is None and create["new_values"]["name"] == "Ann"
    assert update["old_values"]["city"] is None and update["new_values"]["city"] == "Oslo"
    assert update["request_method"] == "PATCH" and update["user_agent"] == "agent/1"
    assert update["request_path"] == f"/api/v2/mcp/clients/{created['uuid']}/update/"


async def test_nothing_is_audited_when_the_write_is_refused(client, tenant):
    first = await client.post("/api/v2/mcp/policies/", json={"policy_number": "P"},
                              headers=tenant.headers)
    policy = await first.json()
    duplicate = await client.post("/api/v2/mcp/policies/", json={"policy_number": "P"},
                                  headers=tenant.headers)
    refused = await client.patch(f"/api/v2/mcp/policies/{policy['uuid']}/update/",
                                 json={"status": "expired"}, headers=tenant.headers)
    assert (duplicate.status, refused.status) == (409, 409)
    assert [row["action"] for row in _audit_rows(tenant.database_url)] == ["create"]
