"""The LLM key use cases: save (encrypted), status, delete and the connection test."""

from __future__ import annotations

import datetime
import logging

from cryptography.fernet import MultiFernet
from sqlalchemy import select, update

from insureops.platform.config import Settings
from insureops.platform.connectors.llm import (
    ProbeOutcome,
    Provider,
    normalise_base_url,
    probe_provider,
)
from insureops.platform.data.database import UnitOfWork, upsert
from insureops.platform.records.llm_keys import LlmProviderKey, decrypt_key, encrypt_key

logger = logging.getLogger("insureops.platform.connectors")


class LlmKeyNotFoundError(Exception):
    """The workspace has no key for the provider."""


async def save_key(uow: UnitOfWork, fernet: MultiFernet, settings: Settings, *,
                   workspace_id: str, user_id: str | None, provider: Provider, api_key: str,
                   base_url: str | None, model: str | None,
                   now: datetime.datetime) -> LlmProviderKey:
    """Store (or replace) the workspace's key for `provider`; a new key has no test outcome."""
    base = normalise_base_url(base_url, settings) if base_url else None
    key = {"workspace_id": workspace_id, "provider": provider.value}
    await upsert(uow.session, LlmProviderKey, key, {  # one statement: two first saves collided
        "key_encrypted": encrypt_key(fernet, api_key), "key_last_four": api_key[-4:],
        "base_url": base, "model": model, "saved_by": user_id, "saved_at": now,
        "last_test_at": None, "last_test_ok": None, "last_test_latency_ms": None,
        "last_test_error": None})
    row = await uow.session.get(LlmProviderKey, (workspace_id, provider.value),
                                populate_existing=True)
    logger.info("LLM key saved", extra={"workspace_id": workspace_id,
                                        "provider": provider.value})
    return row


async def list_keys(uow: UnitOfWork, workspace_id: str) -> dict[str, LlmProviderKey]:
    rows = (await uow.session.execute(select(LlmProviderKey).where(
        LlmProviderKey.workspace_id == workspace_id))).scalars()
    return {row.provider: row for row in rows}


async def delete_key(uow: UnitOfWork, workspace_id: str, provider: Provider) -> None:
    row = await uow.session.get(LlmProviderKey, (workspace_id, provider.value))
    if row is None:
        raise LlmKeyNotFoundError(provider.value)
    await uow.session.delete(row)
    logger.info("LLM key deleted", extra={"workspace_id": workspace_id,
                                          "provider": provider.value})


async def load_for_test(uow: UnitOfWork, fernet: MultiFernet, workspace_id: str,
                        provider: Provider) -> tuple[str, str | None, str | None, str]:
    """(key, base_url, model, the stored ciphertext) of the stored key; never log the key."""
    row = await uow.session.get(LlmProviderKey, (workspace_id, provider.value))
    if row is None:
        raise LlmKeyNotFoundError(provider.value)
    return decrypt_key(fernet, row.key_encrypted), row.base_url, row.model, row.key_encrypted


async def run_test(database_uow, fernet: MultiFernet, settings: Settings, workspace_id: str,
                   provider: Provider, now) -> ProbeOutcome:
    """Test the stored key with one real call, outside any transaction, and record it on the
    key tested only: one saved (or deleted) during the call keeps none of it (issue 28 audit:
    a key saved meanwhile showed the old key's outcome, untested). The ciphertext, different
    for every save, tells the two apart, in the recording UPDATE itself."""
    async with database_uow() as uow:
        api_key, base_url, model, tested = await load_for_test(uow, fernet, workspace_id,
                                                                provider)
    outcome = await probe_provider(provider, api_key, base_url, model, settings)
    async with database_uow() as uow:
        await uow.session.execute(
            update(LlmProviderKey)
            .where(LlmProviderKey.workspace_id == workspace_id,
                   LlmProviderKey.provider == provider.value,
                   LlmProviderKey.key_encrypted == tested)
            .values(last_test_at=now(), last_test_ok=outcome.ok,
                    last_test_latency_ms=outcome.latency_ms, last_test_error=outcome.error)
            .execution_options(synchronize_session=False))
    logger.info("LLM connection tested", extra={"workspace_id": workspace_id,
                                                "provider": provider.value, "ok": outcome.ok})
    return outcome
