"""POST /api-keys/, GET /api-keys/list/, DELETE /api-keys/<id>/ and the keys they make."""

from __future__ import annotations

import datetime
import re

import pytest

from insureops.platform.records.api_keys import hash_api_key
from tests.platform.settings.conftest import KEY_PROBE
from tests.platform.workspaces import Member, Tenancy

BASE = "/api/v2/settings"
KEY = re.compile(r"^iops_[0-9A-Za-z]{40}$")


async def create(tenancy: Tenancy, member: Member, **body):
    return await tenancy.client.post(f"{BASE}/api-keys/", json={"name": "Claude", **body},
                                     headers=member.headers)


async def listed(tenancy: Tenancy, member: Member) -> list[dict]:
    response = await tenancy.client.get(f"{BASE}/api-keys/list/", headers=member.headers)
    assert response.status == 200
    return (await response.json())["keys"]


async def whoami(tenancy: Tenancy, key: str):
    """A tenant-API call (API key, read scope) made with `key`."""
    return await tenancy.client.get(f"{KEY_PROBE}/whoami/",
                                    headers={"Authorization": f"Bearer {key}"})


async def test_created_key_is_shown_once_with_both_scopes_when_none_are_given(tenancy):
    ann = await tenancy.owner("ann@example.com")
    response = await create(tenancy, ann)
    assert response.status == 201
    body = await response.json()
    assert KEY.match(body["key"])
    assert body["scopes"] == ["read", "write"] and body["expired"] is False
    assert body["prefix"] == body["key"][:11]
    keys = await listed(tenancy, ann)
    assert [key["id"] for key in keys] == [body["id"]]
    assert "key" not in keys[0] and body["key"] not in str(keys)
    assert keys[0]["prefix"] == body["prefix"] and keys[0]["last_used_at"] is None
    assert (await whoami(tenancy, body["key"])).status == 200
    assert (await listed(tenancy, ann))[0]["last_used_at"] is not None


async def test_only_the_sha256_is_stored_when_a_key_is_created(tenancy):
    ann = await tenancy.owner("ann@example.com")
    key = (await (await create(tenancy, ann)).json())["key"]
    async with tenancy.database.engine.connect() as connection:
        rows = (await connection.exec_driver_sql("SELECT key_hash FROM api_keys")).all()
    assert rows == [(hash_api_key(key),)]


# The bodies' bounds, scopes and the expiry's rule are the fast tier's (test_service.py); here
# the two ways a refusal reaches the answer: the payload's, and the use case's own.
@pytest.mark.parametrize("body", [{"scopes": []}, {"expires_at": "2020-01-01T00:00:00Z"}])
async def test_key_creation_is_400_validation_error_when_the_body_is_wrong(tenancy, body):
    ann = await tenancy.owner("ann@example.com")
    response = await create(tenancy, ann, **body)
    assert response.status == 400
    error = (await response.json())["error"]
    assert error["code"] == "validation_error" and error["details"][0]["field"] == next(
        iter(body))


async def test_key_lists_its_expiry_and_expires_when_the_time_comes(tenancy):
    ann = await tenancy.owner("ann@example.com")
    expires = datetime.datetime.fromtimestamp(tenancy.clock() + 3600, tz=datetime.UTC)
    body = await (await create(tenancy, ann, expires_at=expires.isoformat())).json()
    assert datetime.datetime.fromisoformat(body["expires_at"]) == expires
    tenancy.clock.advance(3600)
    assert (await listed(tenancy, ann))[0]["expired"] is True


async def test_revoked_key_disappears_and_stops_authenticating_when_deleted(tenancy):
    ann = await tenancy.owner("ann@example.com")
    body = await (await create(tenancy, ann)).json()
    accepted = await whoami(tenancy, body["key"])
    assert accepted.status == 200
    assert await accepted.json() == {"workspace_id": ann.workspace_id, "key_id": body["id"],
                                     "scopes": ["read", "write"]}
    response = await tenancy.client.delete(f"{BASE}/api-keys/{body['id']}/", headers=ann.headers)
    assert response.status == 204
    assert await listed(tenancy, ann) == []
    refused = await whoami(tenancy, body["key"])
    assert refused.status == 401
    assert (await refused.json())["error"]["code"] == "invalid_api_key"
    again = await tenancy.client.delete(f"{BASE}/api-keys/{body['id']}/", headers=ann.headers)
    assert again.status == 404


async def test_other_workspace_sees_and_revokes_nothing_when_it_holds_the_key_id(tenancy):
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.owner("bob@example.com", "Bob Brokers")
    body = await (await create(tenancy, ann)).json()
    assert await listed(tenancy, bob) == []
    response = await tenancy.client.delete(f"{BASE}/api-keys/{body['id']}/", headers=bob.headers)
    assert response.status == 404
    assert [key["id"] for key in await listed(tenancy, ann)] == [body["id"]]


async def test_members_list_keys_but_only_admins_create_and_revoke_when_roles_differ(tenancy):
    ann = await tenancy.owner("ann@example.com")
    admin = await tenancy.member(ann, "ada@example.com", "admin")
    member = await tenancy.member(ann, "max@example.com", "member")
    created = await create(tenancy, admin)
    assert created.status == 201
    key_id = (await created.json())["id"]
    assert len(await listed(tenancy, member)) == 1
    refused = await create(tenancy, member)
    assert refused.status == 403
    assert (await refused.json())["error"]["code"] == "permission_denied"
    delete = await tenancy.client.delete(f"{BASE}/api-keys/{key_id}/", headers=member.headers)
    assert delete.status == 403


async def test_list_path_allows_only_get_when_another_method_is_tried(tenancy):
    # Found by schemathesis: /api-keys/list/ also matched DELETE /api-keys/{key_id}/ (key_id
    # "list"), so a 405 there advertised `Allow: DELETE, GET`.
    ann = await tenancy.owner("ann@example.com")
    response = await tenancy.client.post(f"{BASE}/api-keys/list/", headers=ann.headers)
    assert response.status == 405
    assert response.headers["Allow"] == "GET"
    deleted = await tenancy.client.delete(f"{BASE}/api-keys/list/", headers=ann.headers)
    assert deleted.status == 405
