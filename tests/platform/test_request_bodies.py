"""Request bodies from an attack (issue 17): bounded JSON reading and validation on real routes."""

from __future__ import annotations

import time

import pytest

from insureops.platform.http.errors import MAX_DETAILS
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


def unknown_keys_body(count: int) -> bytes:
    """`count` distinct unknown keys in few bytes (105,000 fit in 980 KB, as in the attack)."""
    return ("{" + ",".join(f'"{i:x}":1' for i in range(count)) + "}").encode()


async def test_body_of_105000_unknown_keys_is_refused_small_and_cheap_when_posted_to_mcp_clients(
        client, key_headers):
    """Issue 17: a 980 KB body of 105,000 unknown keys took 2.8 s of CPU and answered 8.5 MB."""
    body = unknown_keys_body(105_000)
    assert len(body) < 1024 * 1024
    started = time.process_time()  # client and server share this process (and its threads)

    response = await client.post("/api/v2/mcp/clients/", data=body, headers={
        "Content-Type": "application/json", **key_headers})

    spent = time.process_time() - started
    text = await response.text()
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "invalid_json"
    assert "more than 10000 values" in text
    assert len(text) < 1_000
    assert spent < 1.0, f"{spent:.2f} s of CPU for one refused body"


@pytest.mark.parametrize("path", ["/api/v2/mcp/clients/", "/api/v2/mcp/usage/",
                                  "/api/auth/login/"])
async def test_validation_details_are_capped_at_20_with_the_total_when_a_body_has_9000_errors(
        client, key_headers, path):
    response = await client.post(path, data=unknown_keys_body(9_000), headers={
        "Content-Type": "application/json", **key_headers})

    error = (await response.json())["error"]
    assert response.status == 400
    assert error["code"] == "validation_error"
    assert len(error["details"]) == MAX_DETAILS
    assert "problems were found; the first 20 are listed" in error["message"]
    assert len(await response.read()) < 4_000
