"""The identity-provider JWT authenticator: key sources, pinned algorithms, claims.

One verification path for two providers: an external one (its JWKS URL or a PEM key) when the
operator configures it, else the service itself (its own signing keys, read from the platform
database as the JWKS it publishes; platform/auth/service_tokens.py signs). Both key sources give
a JWKS document, parsed, cached and refetched on an unknown `kid` the same way.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import aiohttp
import jwt
from aiohttp import web
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from insureops.platform.auth.requirements import AuthKind, Principal
from insureops.platform.config import Settings
from insureops.platform.data.database import Database
from insureops.platform.http.errors import ApiError
from insureops.platform.keys import JWT_VERIFIER
from insureops.platform.records.signing_keys import ALGORITHM, published_jwks

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


class KeySource(Protocol):
    """Where a verifier's keys come from: a JWKS document, fetched when asked."""

    refetch_seconds: float  # least time between two fetches an unknown `kid` causes
    max_age_seconds: float | None  # fetch again when the cache is this old (None: never)
    may_be_empty: bool  # an empty key set is an answer (no key yet), not a failure

    async def fetch(self) -> Any:
        """The JWKS document; raises ValueError, TypeError, TimeoutError or aiohttp's errors."""


class JwksUrl:
    """An external provider's JWKS, fetched with aiohttp: timeout, no redirects, at most 1 MiB."""

    may_be_empty = False
    max_age_seconds = None

    def __init__(self, settings: Settings) -> None:
        self._url = settings.jwt_jwks_url
        self._timeout = aiohttp.ClientTimeout(total=settings.jwt_jwks_timeout_seconds)
        self.refetch_seconds = settings.jwt_jwks_refetch_seconds

    async def fetch(self) -> Any:
        async with aiohttp.ClientSession(timeout=self._timeout) as session, \
                session.get(self._url, allow_redirects=False) as response:
            if response.status != 200:
                raise ValueError(f"HTTP {response.status}")
            raw = await response.content.read(MAX_JWKS_BYTES + 1)
            if len(raw) > MAX_JWKS_BYTES:
                raise ValueError("the JWKS is larger than 1 MiB")
        return json.loads(raw)


class ServiceKeys:
    """The service's own published keys, read from the platform database (what
    `/.well-known/jwks.json` serves). Cheap to read, so an unknown kid (a key another instance
    just made current) is looked up again after a second, and the cache is renewed every minute
    so a retired key stops verifying soon after its overlap window ends."""

    may_be_empty = True
    refetch_seconds = 1.0
    max_age_seconds = 60.0

    def __init__(self, database: Database, clock: Callable[[], float]) -> None:
        self._database = database
        self._clock = clock

    async def fetch(self) -> Any:
        now = datetime.datetime.fromtimestamp(self._clock(), datetime.UTC)
        return await self._database.read(lambda uow: published_jwks(uow, now))


class JwtVerifier:
    """Verifies tokens of one provider: its issuer, audience and pinned algorithms.

    Keys come from one PEM key (`static_key`) or a `KeySource`, fetched on first use, cached,
    and fetched again when a token names a `kid` the cache lacks, at most once per the source's
    `refetch_seconds` (so a key rotation is picked up and unknown-kid tokens cannot make the
    service hammer the provider). Time checks (`exp`, `nbf`) use the app's clock with `leeway`
    seconds of skew.
    """

    def __init__(self, *, issuer: str, audience: str, algorithms: tuple[str, ...],
                 leeway: float, clock: Callable[[], float], source: KeySource | None = None,
                 static_key: Any = None) -> None:
        if (source is None) == (static_key is None):
            raise ValueError("give a key source or a static key")
        self.issuer, self.audience = issuer, audience
        self._algorithms = algorithms
        self._leeway = leeway
        self._clock = clock
        self._source = source
        self._static_key = static_key
        self._keys: dict[str | None, _Key] = {}
        self._fetched = False  # a fetch has succeeded (an empty set may be an answer)
        self._last_fetch: float | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def external(cls, settings: Settings, clock: Callable[[], float]) -> JwtVerifier:
        """The operator's identity provider: INSUREOPS_JWT_* (a JWKS wins over a PEM key)."""
        if not settings.jwt_configured:
            raise ValueError("the identity provider is not configured")
        static = (load_pem_public_key(settings.jwt_public_key.encode())
                  if settings.jwt_public_key and not settings.jwt_jwks_url else None)
        return cls(issuer=settings.jwt_issuer, audience=settings.jwt_audience,
                   algorithms=settings.jwt_algorithms, leeway=settings.jwt_leeway_seconds,
                   clock=clock, static_key=static,
                   source=JwksUrl(settings) if static is None else None)

    @classmethod
    def service(cls, settings: Settings, clock: Callable[[], float],
                database: Database) -> JwtVerifier:
        """The service as the provider: its own keys, issuer and audience (docs/prospects.md)."""
        return cls(issuer=settings.token_issuer, audience=settings.service_token_audience,
                   algorithms=(ALGORITHM,), leeway=settings.jwt_leeway_seconds, clock=clock,
                   source=ServiceKeys(database, clock))

    async def verify(self, token: str) -> TokenOwner:
        """The token's owner, or ApiError 401 (a distinct code per refusal) or 503."""
        if len(token) > MAX_TOKEN_CHARS:
            raise _refused("token_malformed", "The token is too long to be a JWT.")
        header = _header(token)
        algorithm = header.get("alg")
        if not isinstance(algorithm, str) or algorithm.lower() == "none":
            raise _refused("token_unsigned", "Unsigned tokens (alg none) are refused.")
        if algorithm not in self._algorithms:
            raise _refused("token_algorithm_refused", f"The algorithm {algorithm[:20]} is not "
                           "accepted.")
        key = await self._key_for(header.get("kid"), algorithm)
        claims = self._decode(token, key, algorithm)
        self._check_times(claims)
        return TokenOwner(issuer=claims["iss"], subject=claims["sub"],
                          email=verified_email(claims))

    def _decode(self, token: str, key: Any, algorithm: str) -> dict[str, Any]:
        options = {"require": REQUIRED_CLAIMS, "verify_exp": False, "verify_nbf": False,
                   "verify_iat": False}
        try:
            claims = jwt.decode(token, key, algorithms=[algorithm], audience=self.audience,
                                issuer=self.issuer, options=options)
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
        now, leeway = self._clock(), self._leeway
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
        jwk = None if self._stale() else self._cached(kid)
        if jwk is None:
            async with self._lock:
                jwk = None if self._stale() else self._cached(kid)
                if jwk is None and (self._stale() or self._may_fetch()):
                    await self._fetch()
                    jwk = self._cached(kid)
        if jwk is None and not self._fetched:  # the last fetch failed and nothing is cached
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

    def _stale(self) -> bool:
        """The cache is older than the source's max age (the service's own keys)."""
        age = self._source.max_age_seconds
        return (age is not None and self._last_fetch is not None
                and self._clock() - self._last_fetch >= age)

    def _may_fetch(self) -> bool:
        return (self._last_fetch is None
                or self._clock() - self._last_fetch >= self._source.refetch_seconds)

    async def _fetch(self) -> None:
        """Replace the cached keys with the source's; on failure keep them (503 when none)."""
        self._last_fetch = self._clock()
        try:
            keys = _parse_jwks(await self._source.fetch(), self._source.may_be_empty)
        except (aiohttp.ClientError, TimeoutError, ValueError, TypeError) as exc:
            log.warning("identity provider JWKS fetch failed: %s", exc)
            if not self._fetched:
                raise _unavailable() from None
            return
        self._keys, self._fetched = keys, True


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


def _parse_jwks(document: Any, may_be_empty: bool = False) -> dict[str | None, _Key]:
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
    if not keys and not may_be_empty:
        raise ValueError("the JWKS holds no usable signing key")
    return keys


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def build_verifier(settings: Settings, clock: Callable[[], float],
                   database: Database) -> JwtVerifier:
    """The app's verifier: the configured external provider's, else the service's own."""
    if settings.jwt_configured:
        return JwtVerifier.external(settings, clock)
    return JwtVerifier.service(settings, clock, database)


async def authenticate_jwt(request: web.Request) -> Principal:
    """The JWT authenticator: `Authorization: Bearer <JWT>` -> a principal owned by (iss, sub)."""
    verifier = request.config_dict[JWT_VERIFIER]
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "not_authenticated", "Send Authorization: Bearer <identity-provider "
                       "token>.", headers=_CHALLENGE)
    owner = await verifier.verify(token.strip())
    return Principal(AuthKind.JWT, subject=owner.subject, issuer=owner.issuer, email=owner.email)
