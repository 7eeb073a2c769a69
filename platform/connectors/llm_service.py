"""The LLM key use cases: save (encrypted), status, delete and the connection test.

Each reaches the store through its port (`store`: the SQL repository by default, a fake in
memory in the fast tests; repository.py), and the provider through `probe`.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Awaitable, Callable

from cryptography.fernet import MultiFernet

from insureops.platform.config import Settings
from insureops.platform.connectors import repository
from insureops.platform.connectors.llm import (
    ProbeOutcome,
    Provider,
    normalise_base_url,
    probe_provider,
)
from insureops.platform.connectors.repository import ConnectorsRepository
from insureops.platform.data.database import UnitOfWork
from insureops.platform.records.llm_keys import LlmProviderKey, decrypt_key, encrypt_key

logger = logging.getLogger("insureops.platform.connectors")
Store = ConnectorsRepository
# One call to the provider with a key: llm.probe_provider (outbound).
Probe = Callable[[Provider, str, "str | None", "str | None", Settings], Awaitable[ProbeOutcome]]


class LlmKeyNotFoundError(Exception):
    """The workspace has no key for the provider."""


async def save_key(uow: UnitOfWork, fernet: MultiFernet, settings: Settings, *,
                   workspace_id: str, user_id: str | None, provider: Provider, api_key: str,
                   base_url: str | None, model: str | None,
                   now: datetime.datetime, store: Store = repository) -> LlmProviderKey:
    """Store (or replace) the workspace's key for `provider`; a new key has no test outcome."""
    base = normalise_base_url(base_url, settings) if base_url else None
    row = await store.put_key(uow.session, workspace_id, provider.value, {
        "key_encrypted": encrypt_key(fernet, api_key), "key_last_four": api_key[-4:],
        "base_url": base, "model": model, "saved_by": user_id, "saved_at": now,
        "last_test_at": None, "last_test_ok": None, "last_test_latency_ms": None,
        "last_test_error": None})
    logger.info("LLM key saved", extra={"workspace_id": workspace_id,
                                        "provider": provider.value})
    return row


async def list_keys(uow: UnitOfWork, workspace_id: str, *,
                    store: Store = repository) -> dict[str, LlmProviderKey]:
    return {row.provider: row for row in await store.keys(uow.session, workspace_id)}


async def delete_key(uow: UnitOfWork, workspace_id: str, provider: Provider, *,
                     store: Store = repository) -> None:
    row = await store.key(uow.session, workspace_id, provider.value)
    if row is None:
        raise LlmKeyNotFoundError(provider.value)
    await store.delete_key(uow.session, row)
    logger.info("LLM key deleted", extra={"workspace_id": workspace_id,
                                          "provider": provider.value})


async def load_for_test(uow: UnitOfWork, fernet: MultiFernet, workspace_id: str,
                        provider: Provider, *, store: Store = repository
                        ) -> tuple[str, str | None, str | None, str]:
    """(key, base_url, model, the stored ciphertext) of the stored key; never log the key."""
    row = await store.key(uow.session, workspace_id, provider.value)
    if row is None:
        raise LlmKeyNotFoundError(provider.value)
    return decrypt_key(fernet, row.key_encrypted), row.base_url, row.model, row.key_encrypted


async def run_test(database_uow, fernet: MultiFernet, settings: Settings, workspace_id: str,
                   provider: Provider, now, *, store: Store = repository,
                   probe: Probe = probe_provider) -> ProbeOutcome:
    """Test the stored key with one real call, outside any transaction, and record it on the
    key tested only: one saved (or deleted) during the call keeps none of it (issue 28 audit:
    a key saved meanwhile showed the old key's outcome, untested). The ciphertext, different
    for every save, tells the two apart, in the recording UPDATE itself."""
    async with database_uow() as uow:
        api_key, base_url, model, tested = await load_for_test(uow, fernet, workspace_id,
                                                                provider, store=store)
    outcome = await probe(provider, api_key, base_url, model, settings)
    async with database_uow() as uow:
        await store.record_test(uow.session, workspace_id, provider.value, tested, {
            "last_test_at": now(), "last_test_ok": outcome.ok,
            "last_test_latency_ms": outcome.latency_ms, "last_test_error": outcome.error})
    logger.info("LLM connection tested", extra={"workspace_id": workspace_id,
                                                "provider": provider.value, "ok": outcome.ok})
    return outcome
