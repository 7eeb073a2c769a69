"""A policy's line of business through the tenant API, given as the carrier finder's ACORD code
(issue 33): stored as the data model's line, filtered either way, published in the schema."""

from __future__ import annotations

BASE = "/api/v2/mcp/policies"


async def test_an_acord_code_is_stored_as_its_policy_line_when_created_updated_and_filtered(
        client, tenant):
    holder = await (await client.post("/api/v2/mcp/clients/", json={"name": "Holder"},
                                      headers=tenant.headers)).json()
    created = await client.post(f"{BASE}/", json={"client_id": holder["id"],
                                                  "line_of_business": "CGL"},
                                headers=tenant.headers)
    assert created.status == 201, await created.text()
    policy = await created.json()
    assert policy["line_of_business"] == "liability"
    updated = await client.patch(f"{BASE}/{policy['uuid']}/update/",
                                 json={"line_of_business": "WORK"},
                                 headers=tenant.headers)
    assert (await updated.json())["line_of_business"] == "workers_comp"
    for line in ("WORK", "workers_comp"):
        listed = await client.get(f"{BASE}/list/", params={"line_of_business": line},
                                  headers=tenant.headers)
        body = await listed.json()
        assert listed.status == 200, body
        assert [item["uuid"] for item in body["items"]] == [policy["uuid"]], body
    none = await client.get(f"{BASE}/list/", params={"line_of_business": "CGL"},
                            headers=tenant.headers)
    assert (await none.json())["items"] == []


async def test_a_line_that_is_neither_is_400_naming_the_field(client, tenant):
    response = await client.post(f"{BASE}/", json={"line_of_business": "cgl"},
                                 headers=tenant.headers)
    assert response.status == 400
    fields = [d["field"] for d in (await response.json())["error"]["details"]]
    assert "line_of_business" in fields


async def test_the_published_schema_lists_both_spellings(client):
    document = await (await client.get("/api/openapi.json")).json()
    schemas = document["components"]["schemas"]
    line = schemas["PolicyCreate"]["properties"]["line_of_business"]
    assert {"liability", "CGL", "WORK"} <= set(line["enum"])
