"""API keys of a workspace: the key format and the stored row (SHA-256 only), with its reads.

Shared by the settings area (which creates, lists and revokes keys) and the API key
authenticator (`auth/api_keys.py`), whose one query reads a key's row together with its
workspace's saved tenant database token.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
import string
from collections.abc import Mapping
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, String, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.auth.requirements import Scope
from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, Database, UnitOfWork
from insureops.platform.tenancy.databases import TenantDatabase

KEY_PREFIX = "iops_"
KEY_RANDOM_LENGTH = 40
KEY_LENGTH = len(KEY_PREFIX) + KEY_RANDOM_LENGTH
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
DISPLAY_PREFIX_LENGTH = len(KEY_PREFIX) + 6  # "iops_AbC123": enough to tell keys apart
# last_used_at moves at most once a minute per key: one write per minute, not per request.
LAST_USED_STEP = datetime.timedelta(minutes=1)


class ApiKey(Base):
    """One API key of a workspace. Only the SHA-256 of the key is kept (migration 0003)."""

    __tablename__ = "api_keys"
    __table_args__ = (CheckConstraint("scopes IN ('read', 'read write')", name="scopes"),)

    id: Mapped[str] = mapped_column(String(26), primary_key=True)  # a ULID
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    display_prefix: Mapped[str] = mapped_column(String(16))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[str] = mapped_column(String(16))  # space-separated, sorted
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    last_used_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)

    @property
    def scope_set(self) -> frozenset[Scope]:
        return frozenset(Scope(part) for part in self.scopes.split())


def new_api_key() -> str:
    """`iops_` and 40 base62 characters from the OS's CSPRNG (about 238 bits)."""
    return KEY_PREFIX + "".join(secrets.choice(BASE62) for _ in range(KEY_RANDOM_LENGTH))


def hash_api_key(key: str) -> str:
    """What the database keeps: SHA-256 hex. The key's entropy makes a key or stretching
    unnecessary, and the lookup stays one indexed equality."""
    return hashlib.sha256(key.encode()).hexdigest()


def is_well_formed(key: str) -> bool:
    return (len(key) == KEY_LENGTH and key.startswith(KEY_PREFIX)
            and all(char in BASE62 for char in key[len(KEY_PREFIX):]))


def normalise_scopes(scopes: list[Scope] | tuple[Scope, ...] | frozenset[Scope]) -> str:
    """The stored form: write implies read, so a key has "read" or "read write"."""
    chosen = set(scopes)
    if Scope.WRITE in chosen:
        chosen.add(Scope.READ)
    return " ".join(sorted(scope.value for scope in chosen))


# The key and, in the same round trip, its workspace's saved tenant database token (the tenant
# API's connection cache compares it: a connection saved on any instance is seen at once).
_LOOKUP = select(ApiKey.id, ApiKey.workspace_id, ApiKey.scopes, ApiKey.last_used_at,
                 ApiKey.expires_at, ApiKey.revoked_at, TenantDatabase.url_encrypted).outerjoin(
    TenantDatabase, TenantDatabase.workspace_id == ApiKey.workspace_id).where(
    ApiKey.key_hash == bindparam("key_hash"))


async def lookup(database: Database, key_hash: str) -> Mapping[str, Any] | None:
    """The key's row (with its workspace's saved token), or None: one statement on the reads
    engine (`Database.read`: autocommit, a dead pooled connection replaced once)."""
    async def read(uow: UnitOfWork) -> Mapping[str, Any] | None:
        row = (await uow.session.execute(_LOOKUP, {"key_hash": key_hash})).first()
        return None if row is None else row._mapping
    return await database.read(read)


async def mark_used(database: Database, key_id: str, now: datetime.datetime) -> None:
    """Record that the key was used at `now` (its own short transaction)."""
    async with database.engine.begin() as connection:
        await connection.execute(update(ApiKey).where(ApiKey.id == key_id)
                                 .values(last_used_at=now))


async def key_creator(session: AsyncSession, key_id: str) -> str | None:
    """The user who created the key (None when that user was deleted): who a change made
    with the key is attributed to."""
    statement = select(ApiKey.created_by).where(ApiKey.id == key_id)
    return (await session.execute(statement)).scalar_one_or_none()
