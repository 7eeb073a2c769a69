"""The connectors area's store: its port (`ConnectorsRepository`, what the LLM key and e-mail
log use cases may ask) and its one implementation, this module's SQLAlchemy queries; every
function receives the session it works in. The fast tests give the use cases an in-memory fake
of the port instead. The key table is `records/llm_keys.py`'s, the log `email/log.py`'s.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.data.database import upsert
from insureops.platform.email.log import EmailLogEntry
from insureops.platform.records.llm_keys import LlmProviderKey


class ConnectorsRepository(Protocol):
    """What the connectors use cases ask of their store (this module answers it)."""

    async def put_key(self, session: AsyncSession, workspace_id: str, provider: str,
                      values: dict[str, object]) -> LlmProviderKey: ...

    async def keys(self, session: AsyncSession, workspace_id: str) -> list[LlmProviderKey]: ...

    async def key(self, session: AsyncSession, workspace_id: str,
                  provider: str) -> LlmProviderKey | None: ...

    async def delete_key(self, session: AsyncSession, row: LlmProviderKey) -> None: ...

    async def record_test(self, session: AsyncSession, workspace_id: str, provider: str,
                          key_encrypted: str, values: dict[str, object]) -> bool: ...

    async def log_page(self, session: AsyncSession, workspace_id: str, status: str | None,
                       offset: int, limit: int) -> tuple[list[EmailLogEntry], int]: ...


async def put_key(session: AsyncSession, workspace_id: str, provider: str,
                  values: dict[str, object]) -> LlmProviderKey:
    """Insert or replace the workspace's key for `provider` in one upsert (two first saves
    at once collided) and read it back as stored."""
    key = {"workspace_id": workspace_id, "provider": provider}
    await upsert(session, LlmProviderKey, key, values)
    return await session.get(LlmProviderKey, (workspace_id, provider), populate_existing=True)


async def keys(session: AsyncSession, workspace_id: str) -> list[LlmProviderKey]:
    return list((await session.execute(select(LlmProviderKey).where(
        LlmProviderKey.workspace_id == workspace_id))).scalars())


async def key(session: AsyncSession, workspace_id: str, provider: str) -> LlmProviderKey | None:
    return await session.get(LlmProviderKey, (workspace_id, provider))


async def delete_key(session: AsyncSession, row: LlmProviderKey) -> None:
    await session.delete(row)


async def record_test(session: AsyncSession, workspace_id: str, provider: str,
                      key_encrypted: str, values: dict[str, object]) -> bool:
    """Write a test's outcome to the key only while it is still the one tested (its
    ciphertext, different for every save, in the UPDATE itself); False when nothing was."""
    result = await session.execute(
        update(LlmProviderKey)
        .where(LlmProviderKey.workspace_id == workspace_id,
               LlmProviderKey.provider == provider,
               LlmProviderKey.key_encrypted == key_encrypted)
        .values(**values).execution_options(synchronize_session=False))
    return result.rowcount == 1


async def log_page(session: AsyncSession, workspace_id: str, status: str | None, offset: int,
                   limit: int) -> tuple[list[EmailLogEntry], int]:
    """`limit` of the workspace's log entries after `offset`, newest first, and their total."""
    where = [EmailLogEntry.tenant_id == workspace_id]
    if status is not None:
        where.append(EmailLogEntry.status == status)
    total = (await session.execute(
        select(func.count()).select_from(EmailLogEntry).where(*where))).scalar_one()
    rows = (await session.execute(
        select(EmailLogEntry).where(*where)
        .order_by(EmailLogEntry.created_at.desc(), EmailLogEntry.id.desc())
        .offset(offset).limit(limit))).scalars()
    return list(rows), total
