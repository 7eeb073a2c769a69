"""The scan sub-area's store: its port (`ScanRepository`) and its one implementation, a query
on the prospects a workspace sees (records/prospects.py's table). The fast tests give the use
cases an in-memory fake of the port instead.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.records.prospects import Prospect, in_workspace


class ScanRepository(Protocol):
    async def workspace_prospects(self, session: AsyncSession, workspace_id: str,
                                  limit: int) -> list[Prospect]: ...


async def workspace_prospects(
    session: AsyncSession, workspace_id: str, limit: int
) -> list[Prospect]:
    """The workspace's prospects (an owner e-mail that a member verified), those with a NAICS
    code or notes to compare, most recently updated first, at most `limit`."""
    rows = await session.execute(
        select(Prospect)
        .where(
            and_(
                in_workspace(workspace_id),
                (Prospect.naics.is_not(None)) | (Prospect.notes.is_not(None)),
            )
        )
        .order_by(Prospect.updated_at.desc(), Prospect.id)
        .limit(limit)
    )
    return list(rows.scalars())
