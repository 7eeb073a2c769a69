"""The settings area's store: its port (`SettingsRepository`, what the use cases may ask) and its
one implementation, this module's SQLAlchemy queries; every function receives the session it
works in. The fast tests give the use cases an in-memory fake of the port instead.
"""

from __future__ import annotations

import datetime
from typing import Protocol

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.data.database import upsert
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.tenancy.databases import TenantDatabase


class SettingsRepository(Protocol):
    """What the API key and tenant database use cases ask of their store (this module answers
    it)."""

    async def add_key(self, session: AsyncSession, key: ApiKey) -> None: ...

    async def live_keys(self, session: AsyncSession, workspace_id: str) -> list[ApiKey]: ...

    async def revoke_key(self, session: AsyncSession, workspace_id: str, key_id: str,
                         now: datetime.datetime) -> bool: ...

    async def database_of(self, session: AsyncSession,
                          workspace_id: str) -> TenantDatabase | None: ...

    async def record_test(self, session: AsyncSession, workspace_id: str, url_encrypted: str,
                          values: dict[str, object]) -> bool: ...

    async def put_database(self, session: AsyncSession,
                           row: TenantDatabase) -> TenantDatabase: ...


async def add_key(session: AsyncSession, key: ApiKey) -> None:
    session.add(key)
    await session.flush()


async def live_keys(session: AsyncSession, workspace_id: str) -> list[ApiKey]:
    """The workspace's keys that are not revoked (expired ones included), newest first."""
    statement = (select(ApiKey)
                 .where(ApiKey.workspace_id == workspace_id, ApiKey.revoked_at.is_(None))
                 .order_by(ApiKey.created_at.desc(), ApiKey.id.desc()))
    return list((await session.execute(statement)).scalars())


async def revoke_key(session: AsyncSession, workspace_id: str, key_id: str,
                     now: datetime.datetime) -> bool:
    """Revoke an unrevoked key of the workspace in one conditional UPDATE; False when there
    is none (unknown, another workspace's, or revoked already, also by a request at the same
    moment: of two revokes exactly one changes the row, on both engines)."""
    result = await session.execute(
        update(ApiKey)
        .where(ApiKey.id == key_id, ApiKey.workspace_id == workspace_id,
               ApiKey.revoked_at.is_(None))
        .values(revoked_at=now).execution_options(synchronize_session=False))
    return result.rowcount == 1


async def database_of(session: AsyncSession, workspace_id: str) -> TenantDatabase | None:
    return await session.get(TenantDatabase, workspace_id)


async def record_test(session: AsyncSession, workspace_id: str, url_encrypted: str,
                      values: dict[str, object]) -> bool:
    """Write a test's outcome (`values`) to the workspace's connection only while it is still
    the one tested (its ciphertext, different for every save, as read before the test): one
    saved or deleted during the test keeps none of it. False when nothing was written."""
    result = await session.execute(
        update(TenantDatabase)
        .where(TenantDatabase.workspace_id == workspace_id,
               TenantDatabase.url_encrypted == url_encrypted)
        .values(**values).execution_options(synchronize_session=False))
    return result.rowcount == 1


async def put_database(session: AsyncSession, row: TenantDatabase) -> TenantDatabase:
    """Insert or replace the workspace's connection, in one upsert (`db.upsert`: two first
    saves at once both inserted, one a 500)."""
    values = {column.key: getattr(row, column.key) for column in TenantDatabase.__table__.columns
              if column.key != "workspace_id"}
    await upsert(session, TenantDatabase, {"workspace_id": row.workspace_id}, values)
    return await session.get(TenantDatabase, row.workspace_id, populate_existing=True)
