"""The service as its own identity provider (issue 33): with no external provider configured, a
logged-in user gets a short-lived token from POST /api/auth/token/, signed with the service's
key (published at /.well-known/jwks.json, rotated by `rotate-keys` with an overlap window), and
the prospect routes accept it through the same verifier as an external provider's tokens."""

from __future__ import annotations

import datetime

import jwt
import pytest

from insureops.platform.keys import DATABASE, SECRET_KEYS
from insureops.platform.records.signing_keys import current_signer, rotate_signing_key
from tests.platform.accounts.conftest import FakeClock
from tests.platform.prospects.conftest import BASE
from tests.platform.workspaces import start_tenancy

TOKEN, JWKS = "/api/auth/token/", "/.well-known/jwks.json"
ISSUER = "http://127.0.0.1:8080"  # the default: no public_url, the default host and port


@pytest.fixture
async def tenancy(aiohttp_client, settings):
    return await start_tenancy(aiohttp_client, settings, FakeClock())


async def _token(tenancy, member) -> dict:
    response = await tenancy.client.post(TOKEN, headers=member.headers)
    assert response.status == 200, await response.text()
    assert response.headers["Cache-Control"] == "no-store"
    return await response.json()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _jwks(tenancy) -> dict:
    response = await tenancy.client.get(JWKS)
    assert response.status == 200
    return await response.json()


def _verify_with_published_keys(token: str, jwks: dict) -> dict:
    """What any relying party does with the JWKS alone (PyJWT, not the service's verifier)."""
    kid = jwt.get_unverified_header(token)["kid"]
    key = jwt.PyJWKSet.from_dict(jwks)[kid]
    return jwt.decode(token, key.key, algorithms=["ES256"], audience="insureops-extension",
                      issuer=ISSUER, options={"verify_exp": False, "verify_iat": False,
                                                       "verify_nbf": False})  # app clock


async def test_a_logged_in_user_gets_a_token_the_prospect_routes_accept_when_no_idp_is_set(
        tenancy):
    ann = await tenancy.owner("ann@example.com")
    assert (await _jwks(tenancy)) == {"keys": []}  # no key until the first token
    issued = await _token(tenancy, ann)
    assert issued["token_type"] == "Bearer" and issued["expires_in"] == 600
    assert issued["issuer"] == ISSUER and issued["audience"] == "insureops-extension"
    assert issued["jwks_uri"] == ISSUER + JWKS
    claims = _verify_with_published_keys(issued["access_token"], await _jwks(tenancy))
    assert claims["sub"] == ann.user_id and claims["email"] == "ann@example.com"
    assert claims["email_verified"] is True and claims["exp"] == issued["expires_at"]
    assert claims["exp"] - claims["iat"] == 600 and claims["nbf"] == claims["iat"]
    assert jwt.get_unverified_header(issued["access_token"])["alg"] == "ES256"
    headers = _bearer(issued["access_token"])
    accepted = await tenancy.client.post(f"{BASE}/accept-terms/", json={"version": "2026-11-01"},
                                         headers=headers)
    assert accepted.status == 200, await accepted.text()
    saved = await tenancy.client.post(f"{BASE}/", json={"company_name": "Bright Spark"},
                                      headers=headers)
    assert saved.status == 201, await saved.text()
    listed = await tenancy.client.get(f"{BASE}/", headers=headers)
    assert [p["company_name"] for p in (await listed.json())["items"]] == ["Bright Spark"]


async def test_each_user_sees_only_their_own_prospects_when_using_service_tokens(tenancy):
    ann, bob = await tenancy.owner("ann@example.com"), await tenancy.owner("bob@example.com")
    for member in (ann, bob):
        headers = _bearer((await _token(tenancy, member))["access_token"])
        await tenancy.client.post(f"{BASE}/accept-terms/", json={"version": "2026-11-01"},
                                  headers=headers)
        await tenancy.client.post(f"{BASE}/", json={"company_name": member.email},
                                  headers=headers)
    listed = await tenancy.client.get(f"{BASE}/", headers=_bearer(
        (await _token(tenancy, bob))["access_token"]))
    assert [p["company_name"] for p in (await listed.json())["items"]] == ["bob@example.com"]


async def test_the_token_expires_after_its_lifetime_and_the_leeway(tenancy):
    ann = await tenancy.owner("ann@example.com")
    headers = _bearer((await _token(tenancy, ann))["access_token"])
    status = f"{BASE}/terms-status/"
    tenancy.clock.advance(600 + 30)
    assert (await tenancy.client.get(status, headers=headers)).status == 200
    tenancy.clock.advance(1)
    refused = await tenancy.client.get(status, headers=headers)
    assert refused.status == 401
    assert (await refused.json())["error"]["code"] == "token_expired"


@pytest.mark.parametrize(("claim", "value", "code"), [
    ("aud", "another-audience", "token_audience_invalid"),
    ("iss", "https://evil.example/", "token_issuer_invalid"),
])
async def test_a_token_signed_by_the_service_key_for_another_audience_or_issuer_is_refused(
        tenancy, claim, value, code):
    ann = await tenancy.owner("ann@example.com")
    await _token(tenancy, ann)  # the key exists
    app = tenancy.client.app
    now = datetime.datetime.fromtimestamp(tenancy.clock(), datetime.UTC)
    async with app[DATABASE].unit_of_work() as uow:
        signer = await current_signer(uow, app[SECRET_KEYS].fernet, now)
    claims = {"iss": ISSUER, "aud": "insureops-extension", "sub": ann.user_id,
              "exp": int(tenancy.clock()) + 60, claim: value}
    forged = jwt.encode(claims, signer.private_key, algorithm="ES256",
                        headers={"kid": signer.kid})
    refused = await tenancy.client.get(f"{BASE}/terms-status/", headers=_bearer(forged))
    assert refused.status == 401
    assert (await refused.json())["error"]["code"] == code


async def test_token_route_needs_a_session_and_is_rate_limited_per_user(tenancy):
    anonymous = await tenancy.client.post(TOKEN)
    assert anonymous.status == 401
    ann, bob = await tenancy.owner("ann@example.com"), await tenancy.owner("bob@example.com")
    for _ in range(60):
        assert (await tenancy.client.post(TOKEN, headers=ann.headers)).status == 200
    limited = await tenancy.client.post(TOKEN, headers=ann.headers)
    assert limited.status == 429 and "Retry-After" in limited.headers
    assert (await tenancy.client.post(TOKEN, headers=bob.headers)).status == 200


async def test_a_rotated_key_keeps_verifying_its_tokens_through_the_overlap_window(tenancy):
    ann = await tenancy.owner("ann@example.com")
    app, status = tenancy.client.app, f"{BASE}/terms-status/"
    old = (await _token(tenancy, ann))["access_token"]
    old_kid = jwt.get_unverified_header(old)["kid"]
    assert (await tenancy.client.get(status, headers=_bearer(old))).status == 200  # cached
    now = datetime.datetime.fromtimestamp(tenancy.clock(), datetime.UTC)
    async with app[DATABASE].unit_of_work() as uow:
        old_signer = await current_signer(uow, app[SECRET_KEYS].fernet, now)
        rotation = await rotate_signing_key(uow, app[SECRET_KEYS].fernet, now,
                                            datetime.timedelta(hours=1))
    assert rotation.retired == 1 and rotation.deleted == 0
    new = (await _token(tenancy, ann))["access_token"]
    assert jwt.get_unverified_header(new)["kid"] == rotation.kid != old_kid
    assert {key["kid"] for key in (await _jwks(tenancy))["keys"]} == {old_kid, rotation.kid}
    tenancy.clock.advance(2)  # past the one-second refetch of an unknown kid
    for token in (old, new):
        assert (await tenancy.client.get(status, headers=_bearer(token))).status == 200
    tenancy.clock.advance(3600)  # the overlap is over: the old key is no longer published
    assert [key["kid"] for key in (await _jwks(tenancy))["keys"]] == [rotation.kid]
    late = jwt.encode({"iss": ISSUER, "aud": "insureops-extension", "sub": ann.user_id,
                       "exp": int(tenancy.clock()) + 60}, old_signer.private_key,
                      algorithm="ES256", headers={"kid": old_kid})
    refused = await tenancy.client.get(status, headers=_bearer(late))
    assert (await refused.json())["error"]["code"] == "token_key_unknown"
    async with app[DATABASE].unit_of_work() as uow:
        again = await rotate_signing_key(uow, app[SECRET_KEYS].fernet,
                                         now + datetime.timedelta(hours=2),
                                         datetime.timedelta(hours=1))
    assert again.deleted == 1 and again.retired == 1


async def test_the_private_key_is_stored_encrypted(tenancy):
    from sqlalchemy import text

    ann = await tenancy.owner("ann@example.com")
    await _token(tenancy, ann)
    async with tenancy.database.engine.connect() as connection:
        stored = (await connection.execute(text(
            "SELECT private_key_encrypted FROM service_signing_keys"))).scalar_one()
    assert "PRIVATE KEY" not in stored and stored.startswith("gAAAA")  # a Fernet token


async def test_token_route_is_409_and_the_providers_tokens_work_when_an_idp_is_configured(
        aiohttp_client, jwt_settings, identity_provider):
    tenancy = await start_tenancy(aiohttp_client, jwt_settings, identity_provider.clock)
    ann = await tenancy.owner("ann@example.com")
    response = await tenancy.client.post(TOKEN, headers=ann.headers)
    assert response.status == 409
    assert (await response.json())["error"]["code"] == "identity_provider_external"
    status = await tenancy.client.get(f"{BASE}/terms-status/", headers=identity_provider.headers())
    assert status.status == 200
