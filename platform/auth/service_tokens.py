"""The service as its own identity provider: short-lived tokens for the browser extension.

When no external provider is configured, a logged-in user asks `POST /api/auth/token/` for a
token the prospect routes accept. It is signed with the service's current key
(platform/records/signing_keys.py, ES256) and verified by the same path as an external
provider's tokens (platform/auth/jwt_tokens.py, `JwtVerifier.service`), against the keys the
service publishes at `/.well-known/jwks.json`. Claims and lifetime: docs/prospects.md.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass

import jwt
from cryptography.fernet import MultiFernet

from insureops.platform.config import Settings
from insureops.platform.data.database import UnitOfWork
from insureops.platform.records.signing_keys import current_signer

JWKS_PATH = "/.well-known/jwks.json"


@dataclass(frozen=True)
class IssuedToken:
    """A signed token and what a client needs to use and renew it."""

    token: str
    expires_in: int
    expires_at: int
    issuer: str
    audience: str
    kid: str


async def issue_token(uow: UnitOfWork, settings: Settings, fernet: MultiFernet, *,
                      user_id: str, email: str, now: float) -> IssuedToken:
    """A token for `user_id`, valid `service_token_seconds` from `now` (Unix seconds).

    `sub` is the user's id (stable; e-mail addresses change), `email` with `email_verified`
    true (only verified users can log in), so prospects saved with it join the user's
    workspaces exactly as an external provider's verified e-mail does.
    """
    issued = int(now)
    expires = issued + settings.service_token_seconds
    signer = await current_signer(uow, fernet, datetime.datetime.fromtimestamp(issued, datetime.UTC))
    claims = {"iss": settings.token_issuer, "aud": settings.service_token_audience,
              "sub": user_id, "email": email, "email_verified": True, "iat": issued,
              "nbf": issued, "exp": expires, "jti": secrets.token_urlsafe(16)}
    token = jwt.encode(claims, signer.private_key, algorithm=signer.algorithm,
                       headers={"kid": signer.kid, "typ": "JWT"})
    return IssuedToken(token, settings.service_token_seconds, expires, settings.token_issuer,
                       settings.service_token_audience, signer.kid)
