"""Request bodies from an attack (issue 17): bounded JSON reading and validation on real routes."""

from __future__ import annotations

import pytest

from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.keys import DATABASE
from tests.platform.mcp.conftest import NOW, add_key

INVITATION = "01JBZZZZZZZZZZZZZZZZZZZZZZ"  # 26 characters: the path is valid, the body is read
NOT_AUTHENTICATED_ROUTES = [
    "/api/auth/login/", "/api/auth/verify/", "/api/auth/signup/",
    f"/api/team/invitations/{INVITATION}/accept/",
]
API_KEY_ROUTES = ["/api/v2/mcp/clients/", "/api/v2/mcp/policies/", "/api/v2/mcp/usage/"]


def deep_body(levels: int) -> bytes:
    return b'{"email":' + b"[" * levels + b"]" * levels + b"}"


def long_integer_body(digits: int) -> bytes:
    return b'{"email": "a@example.com", "password": ' + b"9" * digits + b"}"


@pytest.fixture
async def key_headers(client) -> dict[str, str]:
    tenant_id = new_tenant_id(NOW.timestamp())
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id=tenant_id, name="Agency", created_at=NOW))
    key, _ = await add_key(client, tenant_id)
    return {"Authorization": f"Bearer {key}"}


@pytest.mark.parametrize("body", [deep_body(200_000), long_integer_body(5_000), b"[1e999]",
                                  b'{"email": NaN}'], ids=["nested", "integer", "inf", "nan"])
async def test_json_body_is_400_invalid_json_when_nested_200000_levels_or_an_integer_of_5000_digits(
        client, key_headers, body):
    """Issue 17: such bodies answered 500 on login, verify, invitation accept and the MCP
    routes (RecursionError, int() over 4,300 digits)."""
    for path in [*NOT_AUTHENTICATED_ROUTES, *API_KEY_ROUTES]:
        response = await client.post(path, data=body, headers={
            "Content-Type": "application/json", **key_headers})
        assert response.status == 400, (path, await response.text())
        assert (await response.json())["error"]["code"] == "invalid_json", path


async def test_json_body_is_read_when_nested_within_the_limit(client):
    response = await client.post("/api/auth/login/", data=deep_body(40),
                                 headers={"Content-Type": "application/json"})

    assert response.status == 400
    assert (await response.json())["error"]["code"] == "validation_error"
