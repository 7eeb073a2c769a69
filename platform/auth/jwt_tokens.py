"""The identity-provider JWT authenticator: key sources (JWKS or PEM), pinned algorithms, claims."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import jwt
from aiohttp import web
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from insureops.platform.auth.requirements import AuthKind, Principal
from insureops.platform.config import Settings
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import JWT_VERIFIER

log = logging.getLogger("insureops.platform.jwt_auth")  # the name logs have carried

MAX_TOKEN_CHARS = 8000  # under the HTTP layer's 8,190-byte header line
MAX_JWKS_BYTES = 1024 * 1024
REQUIRED_CLAIMS = ["exp", "iss", "aud", "sub"]
_CHALLENGE = {"WWW-Authenticate": 'Bearer error="invalid_token"'}


def _refused(code: str, message: str) -> ApiError:
    return ApiError(401, code, message, headers=_CHALLENGE)


@dataclass(frozen=True)
class _Key:
    """A published signing key and the algorithm its JWK pins (`alg`), if any."""

    key: Any
    algorithm: str | None


@dataclass(frozen=True)
class TokenOwner:
    """Who a verified token speaks for: the pair (issuer, subject), and the e-mail address the
    identity provider vouches for (`email` with `email_verified` true), lower-cased."""

    issuer: str
    subject: str
    email: str | None = None


def verified_email(claims: dict[str, Any]) -> str | None:
    """The `email` claim when `email_verified` is true (or "true", as some providers send it)."""
    email, verified = claims.get("email"), claims.get("email_verified")
    if not isinstance(email, str) or not (verified is True or verified == "true"):
        return None
    email = email.strip().lower()
    return email if 3 <= len(email) <= 254 and "@" in email else None


class JwtVerifier:
    """Verifies identity-provider tokens against one configured provider.

    Keys come from `INSUREOPS_JWT_PUBLIC_KEY` (one PEM key) or from the JWKS at
    `INSUREOPS_JWT_JWKS_URL`, fetched with aiohttp on first use, cached, and fetched again when a
    token names a `kid` the cache lacks, at most once per `jwt_jwks_refetch_seconds` (so a key
    rotation is picked up and unknown-kid tokens cannot make the service hammer the provider).
    Time checks (`exp`, `nbf`) use the app's clock with `jwt_leeway_seconds` of skew.
    """

    def __init__(self, settings: Settings, clock: Callable[[], float]) -> None:
        if not settings.jwt_configured:
            raise ValueError("the identity provider is not configured")
        self._settings = settings
        self._clock = clock
        self._static_key = (load_pem_public_key(settings.jwt_public_key.encode())
                            if settings.jwt_public_key and not settings.jwt_jwks_url else None)
        self._keys: dict[str | None, _Key] = {}
        self._last_fetch: float | None = None
        self._lock = asyncio.Lock()

    async def verify(self, token: str) -> TokenOwner:
        """The token's owner, or ApiError 401 (a distinct code per refusal) or 503."""
        if len(token) > MAX_TOKEN_CHARS:
            raise _refused("token_malformed", "The token is too long to be a JWT.")
        header = _header(token)
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm.lower() == "none":
            raise _refused("token_unsigned", "Unsigned tokens (alg none) are refused.")
        if algorithm not in self._settings.jwt_algorithms:
            raise _refused("token_algorithm_refused", f"The algorithm {algorithm[:20]} is not "
                           "accepted.")
        key = await self._key_for(header.get("kid"), algorithm)
        claims = self._decode(token, key, algorithm)
        self._check_times(claims)
        return TokenOwner(issuer=claims["iss"], subject=claims["sub"],
                          email=verified_email(claims))

    def _decode(self, token: str, key: Any, algorithm: str) -> dict[str, Any]:
        settings = self._settings
        options = {"require": REQUIRED_CLAIMS, "verify_exp": False, "verify_nbf": False,
                   "verify_iat": False}
        try:
            claims = jwt.decode(token, key, algorithms=[algorithm], audience=settings.jwt_audience,
                                issuer=settings.jwt_issuer, options=options)
        except jwt.MissingRequiredClaimError as exc:
            raise _refused("token_claims_missing", f"The token lacks the {exc.claim} "
                           "claim.") from None
        except jwt.InvalidSignatureError:
            raise _refused("token_signature_invalid", "The token's signature does not "
                           "verify (tampered, or signed by another key).") from None
        except jwt.InvalidAudienceError:
            raise _refused("token_audience_invalid", "The token is for another audience.") \
                from None
        except jwt.InvalidIssuerError:
            raise _refused("token_issuer_invalid", "The token is from another issuer.") from None
        except (jwt.InvalidKeyError, TypeError, ValueError):
            raise _refused("token_signature_invalid", "The token's algorithm does not fit "
                           "its key.") from None
        except jwt.InvalidTokenError:  # DecodeError, a non-string sub, ...
            raise _refused("token_malformed", "The token's claims are malformed.") from None
        if not claims["sub"] or not isinstance(claims["iss"], str):
            raise _refused("token_claims_missing", "The token's sub claim is empty.")
        return claims

    def _check_times(self, claims: dict[str, Any]) -> None:
        now, leeway = self._clock(), self._settings.jwt_leeway_seconds
        exp, nbf = claims["exp"], claims.get("nbf")
        if not _is_number(exp) or (nbf is not None and not _is_number(nbf)):
            raise _refused("token_malformed", "The token's exp or nbf is not a number.")
        if now > exp + leeway:
            raise _refused("token_expired", "The token has expired; sign in again.")
        if nbf is not None and nbf > now + leeway:
            raise _refused("token_not_yet_valid", "The token is not valid yet (nbf).")

    async def _key_for(self, kid: str | None, algorithm: str) -> Any:
        if self._static_key is not None:
            return self._static_key
        jwk = self._cached(kid)
        if jwk is None:
            async with self._lock:
                jwk = self._cached(kid)
                if jwk is None and self._may_fetch():
                    await self._fetch()
                    jwk = self._cached(kid)
        if jwk is None and not self._keys:  # the last fetch failed and nothing is cached
            raise _unavailable()
        if jwk is None:
            raise _refused("token_key_unknown", "The token names a signing key the identity "
                           "provider does not publish.")
        if jwk.algorithm is not None and jwk.algorithm != algorithm:
            raise _refused("token_algorithm_refused", "The token's algorithm is not its key's.")
        return jwk.key

    def _cached(self, kid: str | None) -> _Key | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid) if kid is not None else None

    def _may_fetch(self) -> bool:
        return (self._last_fetch is None
                or self._clock() - self._last_fetch >= self._settings.jwt_jwks_refetch_seconds)

    async def _fetch(self) -> None:
        """Replace the cached keys with the JWKS; on failure keep them (503 when none)."""
        self._last_fetch = self._clock()
        timeout = aiohttp.ClientTimeout(total=self._settings.jwt_jwks_timeout_seconds)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session, \
                    session.get(self._settings.jwt_jwks_url, allow_redirects=False) as response:
                if response.status != 200:
                    raise ValueError(f"HTTP {response.status}")
                raw = await response.content.read(MAX_JWKS_BYTES + 1)
                if len(raw) > MAX_JWKS_BYTES:
                    raise ValueError("the JWKS is larger than 1 MiB")
            keys = _parse_jwks(json.loads(raw))
        except (aiohttp.ClientError, TimeoutError, ValueError, TypeError) as exc:
            log.warning("identity provider JWKS fetch failed: %s", exc)
            if not self._keys:
                raise _unavailable() from None
            return
        self._keys = keys


def _header(token: str) -> dict[str, Any]:
    """The token's JOSE header, read before any key is looked up; 401 token_malformed for a
    token that is not ASCII (a JWS is base64url and dots), a header PyJWT refuses, a kid that
    is not a string, and any `crit`. RFC 7515 (4.1.11) has a recipient refuse a token whose
    critical extensions it does not understand, and this service understands none. PyJWT's
    own refusals of kid and crit were InvalidTokenErrors, not the DecodeError caught here
    (500s, issue 28); older PyJWT releases let both through, hence the checks of our own."""
    if not token.isascii():  # bytes that were not UTF-8 broke PyJWT's encode (a 500)
        raise _refused("token_malformed", "The bearer token is not a JWT.")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.InvalidTokenError:
        raise _refused("token_malformed", "The bearer token is not a JWT.") from None
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise _refused("token_malformed", "The token's kid is not a string.")
    if "crit" in header:
        raise _refused("token_malformed", "The token's header lists critical extensions "
                       "(crit); this service understands none.")
    return header


def _unavailable() -> ApiError:
    return ApiError(503, "identity_provider_unavailable", "The identity provider's keys cannot "
                    "be fetched; retry later.", headers={"Retry-After": "5"})


def _parse_jwks(document: Any) -> dict[str | None, _Key]:
    """Signing keys by kid; keys of unsupported types or for encryption are left out."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise TypeError("not a JWKS document")
    keys: dict[str | None, _Key] = {}
    for data in document["keys"]:
        if not isinstance(data, dict) or data.get("use", "sig") != "sig":
            continue
        try:
            jwk = jwt.PyJWK(data)
        except (jwt.PyJWKError, jwt.InvalidKeyError, ValueError, TypeError, KeyError):
            continue
        alg = data.get("alg")
        keys[data.get("kid")] = _Key(jwk.key, alg if isinstance(alg, str) else None)
    if not keys:
        raise ValueError("the JWKS holds no usable signing key")
    return keys


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def build_verifier(settings: Settings, clock: Callable[[], float]) -> JwtVerifier | None:
    """The app's verifier, or None when no identity provider is configured."""
    return JwtVerifier(settings, clock) if settings.jwt_configured else None


async def authenticate_jwt(request: web.Request) -> Principal:
    """The JWT authenticator: `Authorization: Bearer <JWT>` -> a principal owned by (iss, sub)."""
    verifier = request.config_dict[JWT_VERIFIER]
    if verifier is None:
        raise ApiError(503, "identity_provider_not_configured", "No identity provider is "
                       "configured for these routes (docs/prospects.md).")
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "not_authenticated", "Send Authorization: Bearer <identity-provider "
                       "token>.", headers=_CHALLENGE)
    owner = await verifier.verify(token.strip())
    return Principal(AuthKind.JWT, subject=owner.subject, issuer=owner.issuer, email=owner.email)
