"""The service's own token-signing keys at rest (migration 0015_service_signing_keys): the table,
the current key, the published set, rotation with an overlap window.

Read by the accounts area (signing the browser extension's tokens), the JWT authenticator
(verifying them), the JWKS route and `insureops rotate-keys`. The private key is a PEM encrypted
with the service's MultiFernet, so a dump of the platform database holds no secret in clear.
"""

from __future__ import annotations

import datetime
import json
import secrets
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import InvalidToken, MultiFernet
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from sqlalchemy import String, Text, or_, select
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, UnitOfWork

ALGORITHM = "ES256"  # P-256: small keys and tokens, fast to sign and verify


class ServiceSigningKey(Base):
    """One signing key. The current key is the newest without `retired_at`; a retired key is
    still published (tokens it signed keep verifying) until `published_until`."""

    __tablename__ = "service_signing_keys"

    kid: Mapped[str] = mapped_column(String(64), primary_key=True)
    algorithm: Mapped[str] = mapped_column(String(16))
    private_key_encrypted: Mapped[str] = mapped_column(Text)
    public_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    retired_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    published_until: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)


class SigningKeySecretError(Exception):
    """A stored signing key cannot be decrypted with any configured Fernet key."""


@dataclass(frozen=True)
class Signer:
    """The current key, ready to sign: its kid, algorithm and private key object."""

    kid: str
    algorithm: str
    private_key: Any


@dataclass(frozen=True)
class Rotation:
    """What `rotate_signing_key` did: the new kid, keys retired now, expired keys deleted."""

    kid: str
    retired: int
    deleted: int
    published_until: datetime.datetime


def _new_row(fernet: MultiFernet, now: datetime.datetime) -> ServiceSigningKey:
    private = ec.generate_private_key(ec.SECP256R1())
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    kid = secrets.token_urlsafe(16)
    jwk = {**json.loads(ECAlgorithm.to_jwk(private.public_key())), "kid": kid, "use": "sig",
           "alg": ALGORITHM}
    return ServiceSigningKey(kid=kid, algorithm=ALGORITHM,
                             private_key_encrypted=fernet.encrypt(pem).decode(),
                             public_jwk=json.dumps(jwk, sort_keys=True), created_at=now)


def _signer(fernet: MultiFernet, row: ServiceSigningKey) -> Signer:
    try:
        pem = fernet.decrypt(row.private_key_encrypted.encode())
    except InvalidToken:
        raise SigningKeySecretError("the service's signing key cannot be decrypted with the "
                                    "configured Fernet keys") from None
    return Signer(row.kid, row.algorithm, serialization.load_pem_private_key(pem, None))


async def current_signer(uow: UnitOfWork, fernet: MultiFernet, now: datetime.datetime) -> Signer:
    """The key that signs now; the first call on a fresh database creates it (two instances
    racing both create one: both are published, the newer signs)."""
    query = (select(ServiceSigningKey).where(ServiceSigningKey.retired_at.is_(None))
             .order_by(ServiceSigningKey.created_at.desc(), ServiceSigningKey.kid).limit(1))
    row = (await uow.session.execute(query)).scalar_one_or_none()
    if row is None:
        row = _new_row(fernet, now)
        uow.session.add(row)
        await uow.session.flush()
    return _signer(fernet, row)


async def published_jwks(uow: UnitOfWork, now: datetime.datetime) -> dict[str, list[dict]]:
    """The JWKS document of the keys that verify now: the current ones and the retired ones
    still inside their overlap window, newest first."""
    query = (select(ServiceSigningKey.public_jwk)
             .where(or_(ServiceSigningKey.published_until.is_(None),
                        ServiceSigningKey.published_until > now))
             .order_by(ServiceSigningKey.created_at.desc(), ServiceSigningKey.kid))
    return {"keys": [json.loads(text) for text in (await uow.session.execute(query)).scalars()]}


async def rotate_signing_key(uow: UnitOfWork, fernet: MultiFernet, now: datetime.datetime,
                             overlap: datetime.timedelta) -> Rotation:
    """A new current key; the current ones retire and stay published for `overlap`; keys past
    their window are deleted; every remaining private key is re-encrypted with the newest
    Fernet key. All readable, or nothing changes (SigningKeySecretError)."""
    rows = list((await uow.session.execute(select(ServiceSigningKey))).scalars())
    for row in rows:
        _signer(fernet, row)
    until, retired, deleted = now + overlap, 0, 0
    for row in rows:
        if row.published_until is not None and row.published_until <= now:
            await uow.session.delete(row)
            deleted += 1
            continue
        if row.retired_at is None:
            row.retired_at, row.published_until = now, until
            retired += 1
        row.private_key_encrypted = fernet.rotate(row.private_key_encrypted.encode()).decode()
    new = _new_row(fernet, now)
    uow.session.add(new)
    await uow.session.flush()
    return Rotation(new.kid, retired, deleted, until)
