"""Fixtures of the prospect tests: an identity provider (keys generated here, a JWKS served by a
local aiohttp server) and the service configured to trust it."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import jwt
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from insureops.platform.config import Settings
from tests.platform.accounts.conftest import FakeClock

ISSUER = "https://idp.insureops.test/"
AUDIENCE = "insureops-extension"
BASE = "/api/v1/carrier_finder/clients"


@dataclass
class SigningKey:
    kid: str
    algorithm: str
    private: Any

    def public_jwk(self) -> dict[str, Any]:
        encoder = RSAAlgorithm if self.algorithm == "RS256" else ECAlgorithm
        data = json.loads(encoder.to_jwk(self.private.public_key()))
        return {**data, "kid": self.kid, "use": "sig", "alg": self.algorithm}


def new_key(algorithm: str = "RS256") -> SigningKey:
    private = (rsa.generate_private_key(public_exponent=65537, key_size=2048)
               if algorithm == "RS256" else ec.generate_private_key(ec.SECP256R1()))
    return SigningKey(uuid.uuid4().hex[:12], algorithm, private)


@dataclass
class IdentityProvider:
    """Signs tokens with its current keys and publishes them as a JWKS (`url`)."""

    clock: FakeClock
    keys: list[SigningKey] = field(default_factory=lambda: [new_key()])
    url: str = ""
    fetches: int = 0
    failing: bool = False  # answer 500 instead of the JWKS

    def token(self, subject: str = "user-1", *, key: SigningKey | None = None,
              headers: dict[str, Any] | None = None, **claims: Any) -> str:
        key = key or self.keys[0]
        now = self.clock()
        payload = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": int(now),
                   "exp": int(now) + 600, **claims}
        payload = {name: value for name, value in payload.items() if value is not None}
        return jwt.encode(payload, key.private, algorithm=key.algorithm,
                          headers={"kid": key.kid, **(headers or {})})

    def headers(self, subject: str = "user-1", **claims: Any) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(subject, **claims)}"}

    def rotate(self) -> SigningKey:
        """Publish a new key in place of the old ones (the old kid disappears)."""
        self.keys = [new_key()]
        return self.keys[0]

    async def serve_jwks(self, request: web.Request) -> web.Response:
        self.fetches += 1
        if self.failing:
            return web.json_response({"error": "down"}, status=500)
        return web.json_response({"keys": [key.public_jwk() for key in self.keys]})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def identity_provider(aiohttp_server, clock) -> IdentityProvider:
    provider = IdentityProvider(clock)
    app = web.Application()
    app.router.add_get("/.well-known/jwks.json", provider.serve_jwks)
    server: TestServer = await aiohttp_server(app)
    provider.url = str(server.make_url("/.well-known/jwks.json"))
    return provider


@pytest.fixture
def jwt_settings(settings: Settings, identity_provider: IdentityProvider) -> Settings:
    return settings.model_copy(update={"jwt_jwks_url": identity_provider.url,
                                       "jwt_issuer": ISSUER, "jwt_audience": AUDIENCE})


@pytest.fixture
async def idp_client(make_client, jwt_settings, clock):
    """The real service trusting the test identity provider, on the app clock `clock`."""
    return await make_client(jwt_settings, clock=clock)


@dataclass
class Extension:
    """The browser extension of one user: its token headers and the calls it makes."""

    client: Any
    provider: IdentityProvider
    subject: str

    @property
    def headers(self) -> dict[str, str]:
        return self.provider.headers(self.subject)

    async def accept_terms(self, version: str = "2026-11-01"):
        return await self.client.post(f"{BASE}/accept-terms/", json={"version": version},
                                      headers=self.headers)

    async def save(self, **fields: Any):
        return await self.client.post(f"{BASE}/", json=fields, headers=self.headers)

    async def saved(self, **fields: Any) -> dict[str, Any]:
        response = await self.save(**fields)
        assert response.status == 201, await response.text()
        return await response.json()

    async def get(self, path: str, **params: Any):
        return await self.client.get(f"{BASE}{path}", params=params, headers=self.headers)

    async def patch(self, prospect_id: str, **fields: Any):
        return await self.client.patch(f"{BASE}/{prospect_id}/", json=fields,
                                       headers=self.headers)


@pytest.fixture
async def alice(idp_client, identity_provider) -> Extension:
    """A user who accepted the current terms."""
    user = Extension(idp_client, identity_provider, "alice")
    assert (await user.accept_terms()).status == 200
    return user


@pytest.fixture
async def bob(idp_client, identity_provider) -> Extension:
    user = Extension(idp_client, identity_provider, "bob")
    assert (await user.accept_terms()).status == 200
    return user
