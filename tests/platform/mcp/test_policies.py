"""Policies through the tenant API on both engines: every field stored, references confined to
the tenant, a refused move rolled back, duplicates, the listings' filters in SQL. The rules
themselves (state machine, references, payloads) are the fast tier's:
tests/platform/tenancy/book/test_service.py."""

from __future__ import annotations

from insureops.schema.jsonschemas import resource_schema

BASE = "/api/v2/mcp/policies"
FULL_POLICY = {
    "created_by": "agent@example.org", "location": "Main office", "line_of_business": "property",
    "status": "quote", "is_endorsement": False, "policy_number": "HO-2026-0001",
    "certificate_number": "C-1", "master_policy_number": "M-1", "invoice_number": "INV-1",
    "start_date": "2026-01-01", "end_date": "2026-12-31", "purchased": "2025-12-20",
    "cancellation_date": None, "retroactive_date": "2025-01-01",
    "last_completed_endorsement": None, "premium": 1234.56, "service_fee": 25,
    "commission": 123.45, "override_premium": None, "override_service_fee": None,
    "override_taxes": 12.5, "commission_rate": 10, "insurer": "Acme Mutual",
    "underwriting_company": "Acme UW", "rating_tier": "A", "installment_plan": "monthly-12",
    "billing_email": "billing@example.org", "expiry_reminders_disabled": True,
    "policy_url": "https://example.org/p/1", "renewal_link": "https://example.org/r/1",
    "owner_policy_link": "https://example.org/o/1", "validation_log": "ok", "price_log": "base",
    "questions_answers": "{}", "policyholder": "Ann Smith", "endorsement_message": "",
    "notes": "first policy", "override_message": None,
}


async def _client(client, tenant) -> dict:
    response = await client.post("/api/v2/mcp/clients/", json={"name": "Holder"},
                                 headers=tenant.headers)
    return await response.json()


async def _create(client, tenant, **fields) -> dict:
    response = await client.post(f"{BASE}/", json=fields, headers=tenant.headers)
    assert response.status == 201, await response.text()
    return await response.json()


async def _producer(tenant) -> str:
    """A producer row in the tenant database (the tenant API has no producer endpoint)."""
    import sqlalchemy as sa

    from insureops.platform.tenancy.engine import create_tenant_engine
    from insureops.schema.sql.tables import sa_table

    engine = create_tenant_engine(tenant.database_url)
    try:
        with engine.begin() as connection:
            return str(connection.execute(sa.insert(sa_table("producers")).values(
                tenant_id=tenant.tenant_id, name="Pat Producer").returning(
                sa_table("producers").c.id)).scalar_one())
    finally:
        engine.dispose()


async def test_create_keeps_every_field_when_all_forty_are_given(client, tenant):
    holder = await _client(client, tenant)
    producer_id = await _producer(tenant)
    policy = await _create(client, tenant, **FULL_POLICY, client_id=holder["id"],
                           producer_id=producer_id)
    writable = set(resource_schema("Policy", "create")["properties"])
    assert {*FULL_POLICY, "client_id", "producer_id"} == writable  # every other payload field
    assert {name: policy[name] for name in FULL_POLICY} == FULL_POLICY
    assert policy["client_id"] == holder["id"] and policy["producer_id"] == producer_id
    read = await (await client.get(f"{BASE}/{policy['uuid']}/", headers=tenant.headers)).json()
    assert read == policy


async def test_create_refuses_when_client_or_producer_is_not_in_the_tenant(
        client, tenant, backend, make_tenant, make_own_tenant):
    # PostgreSQL: the same database; a SQLite file is only ever one workspace's.
    other = (await make_tenant(tenant.database_url, name="Other agency")
             if backend == "postgresql" else await make_own_tenant(name="Other agency"))
    foreign = await _client(client, other)
    response = await client.post(f"{BASE}/", json={
        "client_id": foreign["id"], "producer_id": "6f1c0f5e-0000-4000-8000-000000000000"},
        headers=tenant.headers)
    body = await response.json()
    assert response.status == 400
    assert {d["field"] for d in body["error"]["details"]} == {"client_id", "producer_id"}


async def test_refused_transition_changes_nothing_when_other_fields_came_with_it(client, tenant):
    policy = await _create(client, tenant, notes="before")
    response = await client.put(f"{BASE}/{policy['uuid']}/update/",
                                json={"status": "expired", "notes": "after"},
                                headers=tenant.headers)
    assert response.status == 409
    read = await (await client.get(f"{BASE}/{policy['uuid']}/", headers=tenant.headers)).json()
    assert read["notes"] == "before" and read["status"] == "quote"


async def test_duplicate_policy_number_is_a_conflict_when_in_the_same_tenant(client, tenant):
    await _create(client, tenant, policy_number="P-1")
    response = await client.post(f"{BASE}/", json={"policy_number": "P-1"},
                                 headers=tenant.headers)
    body = await response.json()
    assert response.status == 409 and body["error"]["code"] == "conflict"
    assert body["error"]["details"][0]["field"] == "policy_number"


async def test_list_filters_policies_when_given_status_lob_client_number_and_dates(
        client, tenant):
    holder = await _client(client, tenant)
    first = await _create(client, tenant, client_id=holder["id"], policy_number="A",
                          line_of_business="auto", start_date="2026-01-01",
                          end_date="2026-06-30")
    await _create(client, tenant, policy_number="B", line_of_business="cyber",
                  start_date="2026-03-01", end_date="2027-02-28")
    await client.patch(f"{BASE}/{first['uuid']}/update/", json={"status": "bound"},
                       headers=tenant.headers)

    async def numbers(**query) -> list[str]:
        response = await client.get(f"{BASE}/list/", params=query, headers=tenant.headers)
        assert response.status == 200, await response.text()
        return [item["policy_number"] for item in (await response.json())["items"]]

    assert await numbers() == ["A", "B"]
    assert await numbers(status="bound") == ["A"]
    assert await numbers(line_of_business="cyber") == ["B"]
    assert await numbers(client_uuid=holder["uuid"]) == ["A"]
    assert await numbers(policy_number="B") == ["B"]
    assert await numbers(start_date_from="2026-02-01") == ["B"]
    assert await numbers(end_date_to="2026-12-31") == ["A"]
    assert await numbers(start_date_from="2026-01-01", start_date_to="2026-01-01") == ["A"]
    bad = await client.get(f"{BASE}/list/", params={"status": "lost"}, headers=tenant.headers)
    assert bad.status == 400


# Issue 11: a policy's client_id needed the client's `id` while every client route takes its
# `uuid`; passing the uuid answered "no client with this id".
async def test_policy_names_its_client_by_uuid_when_created_and_updated(client, tenant):
    first, second = await _client(client, tenant), await _client(client, tenant)
    by_uuid = await _create(client, tenant, client_id=first["uuid"], policy_number="U-1")
    by_id = await _create(client, tenant, client_id=first["id"], policy_number="U-2")
    assert by_uuid["client_id"] == by_id["client_id"] == first["id"]
    moved = await client.patch(f"{BASE}/{by_uuid['uuid']}/update/",
                               json={"client_id": second["uuid"]}, headers=tenant.headers)
    assert moved.status == 200 and (await moved.json())["client_id"] == second["id"]
    listed = await (await client.get(f"{BASE}/list/", params={"client_uuid": second["uuid"]},
                                     headers=tenant.headers)).json()
    assert [item["policy_number"] for item in listed["items"]] == ["U-1"]


async def test_client_uuid_of_another_workspace_is_refused_when_a_policy_names_it(
        client, tenant, backend, make_tenant, make_own_tenant):
    other = (await make_tenant(tenant.database_url, name="Other agency")
             if backend == "postgresql" else await make_own_tenant(name="Other agency"))
    foreign = await _client(client, other)
    mine = await _create(client, tenant, policy_number="M-1")
    attempts = [client.post(f"{BASE}/", json={"client_id": foreign["uuid"]},
                            headers=tenant.headers),
                client.put(f"{BASE}/{mine['uuid']}/update/", json={"client_id": foreign["uuid"]},
                           headers=tenant.headers)]
    for attempt in attempts:
        response = await attempt
        body = await response.json()
        assert response.status == 400
        assert body["error"]["details"] == [
            {"field": "client_id", "message": "no client with this id or uuid in your workspace"}]
    unchanged = await (await client.get(f"{BASE}/{mine['uuid']}/", headers=tenant.headers)).json()
    assert unchanged["client_id"] is None


def test_published_policy_schema_says_a_client_is_named_by_id_or_uuid_when_read(settings):
    from insureops.platform.app import create_app
    from insureops.platform.keys import OPENAPI_DOCUMENT
    from insureops.platform.tenancy.book.payloads import PolicyCreate, PolicyUpdate
    schemas = create_app(settings)[OPENAPI_DOCUMENT].get()["components"]["schemas"]
    for payload in (PolicyCreate, PolicyUpdate):
        for schema in (payload.model_json_schema(), schemas[payload.__name__]):  # tool, OpenAPI
            assert "`id` or its `uuid`" in schema["properties"]["client_id"]["description"]
