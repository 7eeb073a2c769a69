"""Clients through the tenant API: every field stored and read back, PATCH and PUT alike, the
error shape of refused bodies and queries, the listings' filters in SQL (both engines). The
rules (partial updates, paging, payloads) are the fast tier's:
tests/platform/tenancy/book/test_service.py."""

from __future__ import annotations

import pytest

from insureops.schema.jsonschemas import resource_schema

BASE = "/api/v2/mcp/clients"
FULL_CLIENT = {
    "email": "ann@example.org", "name": "Ann Smith", "company": "Smith Bakery",
    "phone": "+1 555 0100", "address": "1 Main St", "city": "Springfield", "region": "IL",
    "country": "US", "postal_code": "62701", "external_ref": "crm-17",
    "date_of_birth": "1980-02-29", "tax_id_last4": "1234", "preferred_language": "en",
    "marketing_opt_in": True, "kyc_level": "basic",
}


async def _create(client, tenant, **fields) -> dict:
    response = await client.post(f"{BASE}/", json={"name": "Someone", **fields},
                                 headers=tenant.headers)
    assert response.status == 201, await response.text()
    return await response.json()


async def test_create_returns_every_field_when_all_are_given(client, tenant):
    assert set(FULL_CLIENT) == set(resource_schema("Client", "create")["properties"])
    created = await _create(client, tenant, **FULL_CLIENT)
    assert {name: created[name] for name in FULL_CLIENT} == FULL_CLIENT
    assert created["tenant_id"] == tenant.tenant_id
    response = await client.get(f"{BASE}/{created['uuid']}/", headers=tenant.headers)
    assert response.status == 200 and await response.json() == created


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # test_store.py: both engines
@pytest.mark.parametrize("method", ["PATCH", "PUT"])
async def test_update_changes_only_the_given_fields_when_patch_or_put(client, tenant, method):
    created = await _create(client, tenant, **FULL_CLIENT)
    response = await client.request(method, f"{BASE}/{created['uuid']}/update/",
                                    json={"city": "Chicago", "phone": None},
                                    headers=tenant.headers)
    updated = await response.json()
    assert response.status == 200
    assert updated["city"] == "Chicago" and updated["phone"] is None
    assert {k: v for k, v in updated.items() if k not in ("city", "phone", "modified")} == {
        k: v for k, v in created.items() if k not in ("city", "phone", "modified")}
    assert updated["modified"] >= created["modified"]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # never reaches the database
async def test_create_refuses_with_field_details_when_the_body_breaks_the_schema(client, tenant):
    response = await client.post(f"{BASE}/", json={
        "name": "x" * 256, "email": 5, "date_of_birth": "29/02/1980", "shoe_size": 44,
        "tenant_id": "01HZZZZZZZZZZZZZZZZZZZZZZZ"}, headers=tenant.headers)
    body = await response.json()
    assert response.status == 400 and body["error"]["code"] == "validation_error"
    fields = {detail["field"]: detail["message"] for detail in body["error"]["details"]}
    assert set(fields) == {"name", "email", "date_of_birth", "shoe_size", "tenant_id"}
    assert "too long" in fields["name"] and "unknown field" in fields["tenant_id"]
    assert "x" * 256 not in await response.text()  # values are never echoed


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # never reaches the database
async def test_create_refuses_when_name_is_missing(client, tenant):
    response = await client.post(f"{BASE}/", json={"email": "a@b.c"}, headers=tenant.headers)
    body = await response.json()
    assert body["error"]["details"] == [{"field": "name", "message": "is required"}]


async def test_get_is_404_when_the_uuid_is_unknown_or_malformed(client, tenant):
    unknown = await client.get(f"{BASE}/6f1c0f5e-0000-4000-8000-000000000000/",
                               headers=tenant.headers)
    malformed = await client.get(f"{BASE}/nope/", headers=tenant.headers)
    assert unknown.status == malformed.status == 404
    assert (await unknown.json())["error"]["code"] == "not_found"


async def test_list_filters_combine_when_several_are_given(client, tenant):
    await _create(client, tenant, name="Ann Baker", email="Ann@Example.org", country="US")
    await _create(client, tenant, name="Bob Baker", email="bob@example.org", country="US")
    await _create(client, tenant, name="Ann Miller", email="ann2@example.org", country="FR")

    async def names(**query) -> list[str]:
        page = await (await client.get(f"{BASE}/list/", params=query,
                                       headers=tenant.headers)).json()
        return [item["name"] for item in page["items"]]

    assert await names(name_contains="baker") == ["Ann Baker", "Bob Baker"]
    assert await names(name_contains="ann", country="FR") == ["Ann Miller"]
    assert await names(email="ann@example.org") == ["Ann Baker"]
    assert await names(name_contains="%") == []
    assert await names(created_from="2000-01-01T00:00:00Z", created_to="2000-01-02T00:00:00Z") == []
    assert len(await names(created_from="2000-01-01T00:00:00Z")) == 3


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # never reaches the database
@pytest.mark.parametrize("query, field", [({"limit": "201"}, "limit"), ({"limit": "0"}, "limit"),
                                          ({"cursor": "garbage"}, "cursor"),
                                          ({"colour": "red"}, "colour")])
async def test_list_refuses_when_the_query_is_invalid(client, tenant, query, field):
    response = await client.get(f"{BASE}/list/", params=query, headers=tenant.headers)
    body = await response.json()
    assert response.status == 400 and body["error"]["code"] == "validation_error"
    assert body["error"]["details"][0]["field"] == field
