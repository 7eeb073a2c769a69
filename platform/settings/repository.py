"""SQLAlchemy queries of the settings area; every function receives the session it works in."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.api_keys import ApiKey
from insureops.platform.tenant_databases import TenantDatabase


async def add_key(session: AsyncSession, key: ApiKey) -> None:
    session.add(key)
    await session.flush()


async def live_keys(session: AsyncSession, workspace_id: str) -> list[ApiKey]:
    """The workspace's keys that are not revoked (expired ones included), newest first."""
    statement = (select(ApiKey)
                 .where(ApiKey.workspace_id == workspace_id, ApiKey.revoked_at.is_(None))
                 .order_by(ApiKey.created_at.desc(), ApiKey.id.desc()))
    return list((await session.execute(statement)).scalars())


async def live_key(session: AsyncSession, workspace_id: str, key_id: str) -> ApiKey | None:
    """One unrevoked key, only when it belongs to `workspace_id`."""
    statement = select(ApiKey).where(ApiKey.id == key_id, ApiKey.workspace_id == workspace_id,
                                     ApiKey.revoked_at.is_(None))
    return (await session.execute(statement)).scalar_one_or_none()


async def database_of(session: AsyncSession, workspace_id: str) -> TenantDatabase | None:
    return await session.get(TenantDatabase, workspace_id)


async def put_database(session: AsyncSession, row: TenantDatabase) -> TenantDatabase:
    """Insert or replace the workspace's connection."""
    merged = await session.merge(row)
    await session.flush()
    return merged
