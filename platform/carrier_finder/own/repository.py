"""The own sub-area's store: its port (`OwnRepository`, what the use cases and the market view
may ask) and its one implementation, this module's SQLAlchemy queries on a workspace's own
carriers and products; each receives the session, none opens one. The fast tests give the use
cases an in-memory fake of the port instead.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.carrier_finder.own.models import WorkspaceCarrier, WorkspaceProduct


class OwnRepository(Protocol):
    """A workspace's own entries: never another workspace's."""

    async def own_rows(self, session: AsyncSession, workspace_id: str
                       ) -> tuple[list[WorkspaceCarrier], list[WorkspaceProduct]]: ...

    async def carrier(self, session: AsyncSession, workspace_id: str,
                      slug: str) -> WorkspaceCarrier | None: ...

    async def product(self, session: AsyncSession, workspace_id: str,
                      slug: str) -> WorkspaceProduct | None: ...

    async def carrier_of(self, session: AsyncSession,
                         row: WorkspaceProduct) -> WorkspaceCarrier: ...

    async def add(self, session: AsyncSession,
                  row: WorkspaceCarrier | WorkspaceProduct) -> bool: ...

    async def saved(self, session: AsyncSession,
                    row: WorkspaceCarrier | WorkspaceProduct) -> None: ...


async def own_rows(session: AsyncSession, workspace_id: str
                   ) -> tuple[list[WorkspaceCarrier], list[WorkspaceProduct]]:
    """The workspace's carriers and products, by id (no products without a carrier)."""
    carriers = (await session.execute(
        select(WorkspaceCarrier).where(WorkspaceCarrier.workspace_id == workspace_id)
        .order_by(WorkspaceCarrier.slug))).scalars().all()
    if not carriers:
        return [], []
    products = (await session.execute(
        select(WorkspaceProduct).where(WorkspaceProduct.workspace_id == workspace_id)
        .order_by(WorkspaceProduct.slug))).scalars().all()
    return list(carriers), list(products)


async def carrier(session: AsyncSession, workspace_id: str, slug: str) -> WorkspaceCarrier | None:
    return (await session.execute(select(WorkspaceCarrier).where(
        WorkspaceCarrier.workspace_id == workspace_id, WorkspaceCarrier.slug == slug))
    ).scalar_one_or_none()


async def product(session: AsyncSession, workspace_id: str, slug: str) -> WorkspaceProduct | None:
    return (await session.execute(select(WorkspaceProduct).where(
        WorkspaceProduct.workspace_id == workspace_id, WorkspaceProduct.slug == slug))
    ).scalar_one_or_none()


async def carrier_of(session: AsyncSession, row: WorkspaceProduct) -> WorkspaceCarrier:
    return await session.get(WorkspaceCarrier, row.carrier_id)


async def add(session: AsyncSession, row: WorkspaceCarrier | WorkspaceProduct) -> bool:
    """Add the row; False when its id is taken (the unique constraint refused it)."""
    session.add(row)
    try:
        await session.flush()
    except IntegrityError:
        return False
    return True


async def saved(session: AsyncSession, row: WorkspaceCarrier | WorkspaceProduct) -> None:
    """Write the row's changes (flushed: the response reads what is stored)."""
    await session.flush()
