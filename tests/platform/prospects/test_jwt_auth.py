"""Identity-provider JWTs on the prospect routes: JWKS fetching and rotation, a PEM key, and every
refusal with its own code (issue 15)."""

from __future__ import annotations

import asyncio
import base64
import json

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from insureops.platform.auth.jwt_tokens import verified_email
from insureops.platform.config import Settings
from tests.conftest import SQLITE_ONLY
from tests.platform.prospects.conftest import AUDIENCE, BASE, ISSUER, new_key

pytestmark = SQLITE_ONLY  # token checks: the store is not the point

STATUS = f"{BASE}/terms-status/"


async def status_with(client, token: str):
    return await client.get(STATUS, headers={"Authorization": f"Bearer {token}"})


async def assert_refused(response, code: str, status: int = 401) -> None:
    assert response.status == status, await response.text()
    assert (await response.json())["error"]["code"] == code


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


async def test_valid_token_is_accepted_when_signed_by_a_published_key(idp_client,
                                                                        identity_provider):
    response = await status_with(idp_client, identity_provider.token())
    assert response.status == 200
    assert (await response.json())["accepted"] is False
    assert identity_provider.fetches == 1


async def test_jwks_is_cached_when_tokens_name_known_keys(idp_client, identity_provider):
    for subject in ("a", "b", "c"):
        assert (await status_with(idp_client, identity_provider.token(subject))).status == 200
    assert identity_provider.fetches == 1


async def test_rotated_key_is_picked_up_when_a_token_names_a_new_kid(idp_client,
                                                                     identity_provider, clock):
    old = identity_provider.keys[0]
    assert (await status_with(idp_client, identity_provider.token())).status == 200
    clock.advance(61)  # past the refetch interval
    new = identity_provider.rotate()
    assert (await status_with(idp_client, identity_provider.token(key=new))).status == 200
    assert identity_provider.fetches == 2
    # The old key is no longer published, so its tokens are now unknown-key.
    clock.advance(61)
    await assert_refused(await status_with(idp_client, identity_provider.token(key=old)),
                         "token_key_unknown")


async def test_unknown_kid_refetches_at_most_once_a_minute_when_tokens_keep_coming(
        idp_client, identity_provider, clock):
    assert (await status_with(idp_client, identity_provider.token())).status == 200
    stranger = new_key()
    for _ in range(3):
        await assert_refused(await status_with(idp_client, identity_provider.token(key=stranger)),
                             "token_key_unknown")
    assert identity_provider.fetches == 1  # within the minute of the first fetch: no refetch
    clock.advance(60)
    await assert_refused(await status_with(idp_client, identity_provider.token(key=stranger)),
                         "token_key_unknown")
    assert identity_provider.fetches == 2


async def test_concurrent_tokens_with_a_new_kid_cause_one_fetch_when_keys_rotate(
        idp_client, identity_provider, clock):
    assert (await status_with(idp_client, identity_provider.token())).status == 200
    clock.advance(61)
    new = identity_provider.rotate()
    responses = await asyncio.gather(*(status_with(idp_client, identity_provider.token(
        f"user-{n}", key=new)) for n in range(5)))
    assert [response.status for response in responses] == [200] * 5
    assert identity_provider.fetches == 2


async def test_rotation_within_the_minute_is_picked_up_when_the_first_fetch_is_older(
        idp_client, identity_provider, clock):
    """The first unknown kid after a quiet minute refetches; a rotation is then seen at once."""
    assert (await status_with(idp_client, identity_provider.token())).status == 200
    new = identity_provider.rotate()
    await assert_refused(await status_with(idp_client, identity_provider.token(key=new)),
                         "token_key_unknown")
    clock.advance(60)
    assert (await status_with(idp_client, identity_provider.token(key=new))).status == 200


@pytest.mark.parametrize(("claims", "code"), [
    ({"exp": -3600}, "token_expired"),
    ({"nbf": 3600}, "token_not_yet_valid"),
    ({"aud": "someone-else"}, "token_audience_invalid"),
    ({"iss": "https://evil.example/"}, "token_issuer_invalid"),
    ({"sub": None}, "token_claims_missing"),
    ({"exp": None}, "token_claims_missing"),
    ({"aud": None}, "token_claims_missing"),
    ({"iss": None}, "token_claims_missing"),
    ({"sub": ""}, "token_claims_missing"),
])
async def test_token_is_refused_with_its_code_when_a_claim_is_wrong(idp_client, identity_provider,
                                                                     clock, claims, code):
    now = int(clock())
    claims = {name: (now + value if name in ("exp", "nbf") and value is not None else value)
              for name, value in claims.items()}
    response = await status_with(idp_client, identity_provider.token(**claims))
    await assert_refused(response, code)
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


async def test_expiry_within_the_leeway_is_accepted_when_clocks_drift(idp_client,
                                                                      identity_provider, clock):
    token = identity_provider.token(exp=int(clock()) - 10)
    assert (await status_with(idp_client, token)).status == 200


async def test_unsigned_token_is_refused_when_alg_is_none(idp_client, identity_provider):
    header = {"alg": "none", "typ": "JWT", "kid": identity_provider.keys[0].kid}
    claims = jwt.decode(identity_provider.token(), options={"verify_signature": False})
    await assert_refused(await status_with(idp_client, f"{_b64(header)}.{_b64(claims)}."),
                         "token_unsigned")


async def test_hs256_token_is_refused_when_signed_with_the_public_key(idp_client,
                                                                      identity_provider):
    key = identity_provider.keys[0]
    pem = key.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                serialization.PublicFormat.SubjectPublicKeyInfo)
    claims = jwt.decode(identity_provider.token(), options={"verify_signature": False})
    header = {"alg": "HS256", "typ": "JWT", "kid": key.kid}
    signing_input = f"{_b64(header)}.{_b64(claims)}".encode()
    from jwt.algorithms import HMACAlgorithm
    signature = HMACAlgorithm(HMACAlgorithm.SHA256).sign(signing_input, pem)
    token = f"{signing_input.decode()}.{base64.urlsafe_b64encode(signature).decode().rstrip('=')}"
    await assert_refused(await status_with(idp_client, token), "token_algorithm_refused")


async def test_tampered_token_is_refused_when_its_claims_were_edited(idp_client,
                                                                     identity_provider):
    header, _, signature = identity_provider.token("victim").split(".")
    claims = jwt.decode(identity_provider.token("victim"), options={"verify_signature": False})
    forged = f"{header}.{_b64({**claims, 'sub': 'attacker'})}.{signature}"
    await assert_refused(await status_with(idp_client, forged), "token_signature_invalid")


async def test_token_is_refused_when_signed_by_another_key_under_a_published_kid(
        idp_client, identity_provider):
    impostor = new_key()
    impostor.kid = identity_provider.keys[0].kid
    await assert_refused(await status_with(idp_client, identity_provider.token(key=impostor)),
                         "token_signature_invalid")


@pytest.mark.parametrize("extra", [{"kid": 5}, {"kid": None}, {"crit": ["exp"]},
                                   {"crit": ["b64"]}, {"crit": ["b64"], "b64": False}],
                         ids=["kid 5", "kid null", "crit exp", "crit b64", "crit b64 false"])
async def test_token_is_refused_as_malformed_when_its_header_has_a_non_string_kid_or_crit(
        idp_client, identity_provider, extra):
    """Issue 28: PyJWT refused these headers with an InvalidTokenError the verifier did not
    catch (a 500). RFC 7515 has a recipient refuse critical extensions it does not understand:
    this service understands none. The token is otherwise valid, signed by a published key."""
    key = identity_provider.keys[0]
    claims = jwt.decode(identity_provider.token(), options={"verify_signature": False})
    header = {"alg": key.algorithm, "typ": "JWT", "kid": key.kid, **extra}
    signing_input = f"{_b64(header)}.{_b64(claims)}"
    algorithm = jwt.algorithms.get_default_algorithms()[key.algorithm]
    signature = base64.urlsafe_b64encode(algorithm.sign(signing_input.encode(), key.private))
    token = f"{signing_input}.{signature.decode().rstrip('=')}"
    await assert_refused(await status_with(idp_client, token), "token_malformed")


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "x" * 8050, "é²³.e30.e30"])
async def test_token_is_refused_as_malformed_when_it_is_not_a_jwt(idp_client, token):
    await assert_refused(await status_with(idp_client, token), "token_malformed")


async def test_request_is_refused_when_no_bearer_token_is_sent(idp_client):
    await assert_refused(await idp_client.get(STATUS), "not_authenticated")
    await assert_refused(await idp_client.get(STATUS, headers={"Authorization": "Basic eDp5"}),
                         "not_authenticated")


async def test_another_providers_token_is_401_when_the_service_is_the_provider(client,
                                                                            identity_provider):
    # No external provider configured: the service is the provider (issue 33; it was 503
    # identity_provider_not_configured), so a token it did not sign is refused.
    for method, path in (("GET", STATUS), ("GET", f"{BASE}/"), ("POST", f"{BASE}/accept-terms/"),
                         ("GET", f"{BASE}/search-prospects/?q=a")):
        response = await client.request(method, path, headers=identity_provider.headers(),
                                        json={"version": "x"})
        await assert_refused(response, "token_algorithm_refused")


async def test_routes_answer_503_when_the_jwks_cannot_be_fetched(make_client, settings,
                                                                 identity_provider):
    unreachable = settings.model_copy(update={
        "jwt_jwks_url": "http://127.0.0.1:9/jwks.json", "jwt_issuer": ISSUER,
        "jwt_audience": AUDIENCE})
    client = await make_client(unreachable)
    for _ in range(2):  # the second, within the refetch interval, does not fetch: still 503
        response = await status_with(client, identity_provider.token())
        await assert_refused(response, "identity_provider_unavailable", 503)
        assert response.headers["Retry-After"] == "5"


async def test_cached_keys_still_verify_when_a_refetch_fails(idp_client, identity_provider,
                                                             clock):
    assert (await status_with(idp_client, identity_provider.token())).status == 200
    identity_provider.failing = True
    clock.advance(61)
    await assert_refused(await status_with(idp_client, identity_provider.token(key=new_key())),
                         "token_key_unknown")
    assert identity_provider.fetches == 2
    assert (await status_with(idp_client, identity_provider.token())).status == 200


async def test_es256_token_is_accepted_when_the_jwks_publishes_an_ec_key(idp_client,
                                                                         identity_provider):
    ec_key = new_key("ES256")
    identity_provider.keys.append(ec_key)
    assert (await status_with(idp_client, identity_provider.token(key=ec_key))).status == 200


async def test_pem_public_key_verifies_tokens_when_configured_instead_of_a_jwks(
        make_client, settings, identity_provider, clock):
    key = identity_provider.keys[0]
    pem = key.private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    with_pem = settings.model_copy(update={"jwt_public_key": pem, "jwt_issuer": ISSUER,
                                           "jwt_audience": AUDIENCE})
    client = await make_client(with_pem, clock=clock)
    assert (await status_with(client, identity_provider.token())).status == 200
    await assert_refused(await status_with(client, identity_provider.token(key=new_key())),
                         "token_signature_invalid")
    assert identity_provider.fetches == 0


def test_settings_refuse_symmetric_algorithms_when_configured():
    for algorithms in ("HS256", "none", ""):
        with pytest.raises(ValueError):
            Settings(jwt_algorithms=algorithms)
    assert Settings(jwt_algorithms="RS256, ES256").jwt_algorithms == ("RS256", "ES256")


def test_settings_refuse_a_public_key_when_it_is_not_pem():
    with pytest.raises(ValueError, match="PEM public key"):
        Settings(jwt_public_key="-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----")


@pytest.mark.parametrize(("claims", "email"), [
    ({"email": " Ann@Example.COM ", "email_verified": True}, "ann@example.com"),
    ({"email": "ann@example.com", "email_verified": "true"}, "ann@example.com"),
    ({"email": "ann@example.com", "email_verified": False}, None),
    ({"email": "ann@example.com", "email_verified": "false"}, None),
    ({"email": "ann@example.com"}, None),
    ({"email": ["ann@example.com"], "email_verified": True}, None),
    ({"email": "not-an-address", "email_verified": True}, None),
])
def test_verified_email_is_read_only_when_the_provider_vouches_for_it(claims, email):
    assert verified_email(claims) == email
