"""Bring-your-own-key LLM provider keys at rest: the table, Fernet encryption with the service's
MultiFernet, and rotation (platform-level: the connectors area manages the keys, the carrier
finder's classifier and `insureops rotate-keys` read them)."""

from __future__ import annotations

import datetime

from cryptography.fernet import InvalidToken, MultiFernet
from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, UnitOfWork
from insureops.platform.outbound.llm_providers import Provider, ProviderKey


class LlmProviderKey(Base):
    """A workspace's key for one provider, Fernet-encrypted (migration 0008_connectors).

    Only the last four characters are kept in clear, to tell keys apart in the key status.
    """

    __tablename__ = "llm_provider_keys"

    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), primary_key=True)
    provider: Mapped[str] = mapped_column(String(16), primary_key=True)
    key_encrypted: Mapped[str] = mapped_column(Text)
    key_last_four: Mapped[str] = mapped_column(String(4))
    base_url: Mapped[str | None] = mapped_column(String(2048))
    model: Mapped[str | None] = mapped_column(String(200))
    saved_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    saved_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    last_test_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    last_test_ok: Mapped[bool | None] = mapped_column(Boolean)
    last_test_latency_ms: Mapped[int | None] = mapped_column(Integer)
    last_test_error: Mapped[str | None] = mapped_column(String(500))


class LlmKeySecretError(Exception):
    """A stored key cannot be decrypted with any configured Fernet key (one was dropped early)."""


def encrypt_key(fernet: MultiFernet, api_key: str) -> str:
    """The key as a Fernet token (text), encrypted with the newest key."""
    return fernet.encrypt(api_key.encode()).decode()


def decrypt_key(fernet: MultiFernet, token: str) -> str:
    """The key of a stored token. Never log or return the result."""
    try:
        return fernet.decrypt(token.encode()).decode()
    except InvalidToken:
        raise LlmKeySecretError("an LLM provider key cannot be decrypted with the configured "
                                "Fernet keys") from None


async def rotate_llm_keys(uow: UnitOfWork, fernet: MultiFernet) -> tuple[int, int]:
    """Re-encrypt every stored key with the newest Fernet key: (rows, rows changed).

    Raises LlmKeySecretError, changing nothing, when a row cannot be decrypted.
    """
    rows = list((await uow.session.execute(select(LlmProviderKey))).scalars())
    for row in rows:
        decrypt_key(fernet, row.key_encrypted)  # all readable, or nothing is rewritten
    changed = 0
    for row in rows:
        rotated = fernet.rotate(row.key_encrypted.encode()).decode()
        changed += rotated != row.key_encrypted
        row.key_encrypted = rotated
    return len(rows), changed


async def workspace_key(uow: UnitOfWork, fernet: MultiFernet, workspace_id: str) -> ProviderKey | None:
    """The key the workspace's features use (the carrier finder's classifier), or None.

    With keys for several providers: one whose last connection test did not fail, the most
    recently saved first. Raises LlmKeySecretError when the chosen key cannot be decrypted.
    """
    rows = list((await uow.session.execute(select(LlmProviderKey).where(
        LlmProviderKey.workspace_id == workspace_id))).scalars())
    known = [row for row in rows if row.provider in {p.value for p in Provider}]
    if not known:
        return None
    row = min(known, key=lambda r: (r.last_test_ok is False, -r.saved_at.timestamp(), r.provider))
    return ProviderKey(Provider(row.provider), decrypt_key(fernet, row.key_encrypted),
                       row.base_url, row.model)
