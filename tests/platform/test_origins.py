"""The Origin check: unsafe cookie-borne requests from foreign pages are refused with 403."""

from __future__ import annotations

import time

import pytest

from insureops.platform.config import Settings
from insureops.platform.http.origins import origin_allowed
from tests.conftest import SQLITE_ONLY
from tests.platform.workspaces import start_tenancy

pytestmark = SQLITE_ONLY  # a middleware: the store is not the point

ALLOWED = "https://app.insureops.test"


@pytest.fixture
async def service(make_client, settings):
    return await make_client(Settings(**{**settings.model_dump(), "allowed_origins": (ALLOWED,)}))


def login_body() -> dict:
    return {"email": "ann@example.com", "password": "wrong password!"}


async def test_unsafe_request_is_403_when_origin_is_foreign(service):
    response = await service.post("/api/auth/login/", json=login_body(),
                                  headers={"Origin": "https://evil.example"})

    assert response.status == 403
    body = await response.json()
    assert body["error"]["code"] == "origin_not_allowed"


async def test_unsafe_request_is_403_when_origin_is_null(service):
    response = await service.post("/api/auth/signup/", json={}, headers={"Origin": "null"})

    assert response.status == 403


async def test_unsafe_request_passes_when_origin_is_configured(service):
    response = await service.post("/api/auth/login/", json=login_body(),
                                  headers={"Origin": ALLOWED})

    assert response.status == 401  # past the check, refused by the login itself


async def test_unsafe_request_passes_when_origin_is_the_service_itself(service):
    own = f"http://{service.host}:{service.port}"
    response = await service.post("/api/auth/login/", json=login_body(),
                                  headers={"Origin": own})

    assert response.status == 401


async def test_unsafe_request_passes_when_there_is_no_origin_header(service):
    response = await service.post("/api/auth/login/", json=login_body())

    assert response.status == 401


async def test_safe_request_passes_when_origin_is_foreign(service):
    response = await service.get("/api/auth/profile/", headers={"Origin": "https://evil.example"})

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "not_authenticated"


async def test_bearer_request_passes_when_origin_is_foreign_on_an_api_key_route(service):
    response = await service.post("/api/v2/mcp/clients/", json={}, headers={
        "Origin": "chrome-extension://abcdef", "Authorization": "Bearer token"})

    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_api_key"


async def test_login_is_403_when_origin_is_foreign_even_with_an_authorization_header(service):
    response = await service.post("/api/auth/login/", json=login_body(), headers={
        "Origin": "https://evil.example", "Authorization": "Bearer token"})

    assert response.status == 403
    assert (await response.json())["error"]["code"] == "origin_not_allowed"


async def test_origin_check_is_not_skipped_when_authorization_header_is_present_but_cookie_authenticates(
        aiohttp_client, settings):
    """Issue 17: `Authorization: x` skipped the Origin check while the session cookie still
    authenticated the request, so a foreign page could act with the user's session."""
    tenancy = await start_tenancy(aiohttp_client, Settings(**{
        **settings.model_dump(), "allowed_origins": (ALLOWED,)}), time.time)
    owner = await tenancy.owner("ann@example.com")

    forged = await tenancy.client.post("/api/auth/logout/", headers={
        **owner.headers, "Authorization": "x", "Origin": "https://evil.example"})

    assert forged.status == 403
    assert (await forged.json())["error"]["code"] == "origin_not_allowed"
    profile = await tenancy.client.get("/api/auth/profile/", headers=owner.headers)
    assert profile.status == 200  # the forged logout did not end the session


@pytest.mark.parametrize(("origin", "expected"), [
    ("https://app.insureops.test", True),
    ("https://app.insureops.test/", True),
    ("http://app.insureops.test", False),
    ("https://app.insureops.test:8443", False),
    ("https://app.insureops.test.evil.example", False),
    ("http://127.0.0.1:8080", True),
    ("null", False),
])
def test_origin_allowed_matches_exactly_when_compared(origin, expected):
    assert origin_allowed(origin, "http://127.0.0.1:8080", (ALLOWED,)) is expected
