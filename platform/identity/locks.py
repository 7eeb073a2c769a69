"""Holding a workspace's row to the commit: how a check-then-write on a workspace's rows (its
owners, its invitations, its webhook endpoints) sees every change committed before it."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.identity.models import Workspace


async def hold_workspace(session: AsyncSession, workspace_id: str) -> None:
    """Hold the workspace's row to the commit: an UPDATE that changes nothing, so that the
    checks and writes after it see every change committed before, on both engines (SQLite
    ignores FOR UPDATE; there the UPDATE waits for the write lock, on PostgreSQL for the row
    lock). Two invitations of one address at once: the second sees the first; two owners
    demoting each other: the second counts one owner."""
    await session.execute(update(Workspace).where(Workspace.tenant_id == workspace_id)
                          .values(name=Workspace.name)
                          .execution_options(synchronize_session=False))
