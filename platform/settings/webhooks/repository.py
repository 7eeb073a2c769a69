"""The webhook settings' store: its port (`WebhookSettingsRepository`) and its one
implementation, this module's queries; every function receives the session it works in and the
workspace, so no query reaches another workspace's endpoints or deliveries. The fast tests give
the use cases an in-memory fake of the port instead."""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from insureops.platform.identity import locks
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint


class WebhookSettingsRepository(Protocol):
    """What the webhook settings' use cases ask of their store (this module answers it)."""

    async def hold_workspace(self, session: AsyncSession, workspace_id: str) -> None: ...

    async def count_endpoints(self, session: AsyncSession, workspace_id: str) -> int: ...

    async def add(self, session: AsyncSession, row: WebhookEndpoint | WebhookDelivery) -> None: ...

    async def endpoints(self, session: AsyncSession,
                        workspace_id: str) -> list[WebhookEndpoint]: ...

    async def endpoint(self, session: AsyncSession, workspace_id: str, endpoint_id: str, *,
                       fresh: bool = False) -> WebhookEndpoint | None: ...

    async def change_endpoint(self, session: AsyncSession, workspace_id: str, endpoint_id: str,
                              values: dict[str, object]) -> bool: ...

    async def delete_endpoint(self, session: AsyncSession, row: WebhookEndpoint) -> None: ...

    async def deliveries(self, session: AsyncSession, workspace_id: str, endpoint_id: str,
                         status: str | None, after: str | None,
                         limit: int) -> list[WebhookDelivery]: ...

    async def delivery(self, session: AsyncSession, workspace_id: str, endpoint_id: str,
                       delivery_id: str) -> WebhookDelivery | None: ...


async def hold_workspace(session: AsyncSession, workspace_id: str) -> None:
    """Hold the workspace's row to the commit (identity/locks.py): two creations at once
    count each other's endpoints."""
    await locks.hold_workspace(session, workspace_id)


async def count_endpoints(session: AsyncSession, workspace_id: str) -> int:
    return (await session.execute(select(func.count()).select_from(WebhookEndpoint).where(
        WebhookEndpoint.workspace_id == workspace_id))).scalar_one()


async def add(session: AsyncSession, row: WebhookEndpoint | WebhookDelivery) -> None:
    session.add(row)
    await session.flush()


async def delete_endpoint(session: AsyncSession, row: WebhookEndpoint) -> None:
    """Delete the endpoint; its deliveries go with it (ON DELETE CASCADE)."""
    await session.delete(row)


async def endpoints(session: AsyncSession, workspace_id: str) -> list[WebhookEndpoint]:
    return list((await session.execute(
        select(WebhookEndpoint).where(WebhookEndpoint.workspace_id == workspace_id)
        .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id))).scalars())


async def endpoint(session: AsyncSession, workspace_id: str, endpoint_id: str, *,
                   fresh: bool = False) -> WebhookEndpoint | None:
    """The workspace's endpoint; `fresh`: as stored now (after `change_endpoint`)."""
    statement = select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id,
                                              WebhookEndpoint.workspace_id == workspace_id)
    if fresh:
        statement = statement.execution_options(populate_existing=True)
    return (await session.execute(statement)).scalar_one_or_none()


async def change_endpoint(session: AsyncSession, workspace_id: str, endpoint_id: str,
                          values: dict[str, object]) -> bool:
    result = await session.execute(
        update(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id,
                                      WebhookEndpoint.workspace_id == workspace_id)
        .values(**values).execution_options(synchronize_session=False))
    return result.rowcount == 1


async def deliveries(session: AsyncSession, workspace_id: str, endpoint_id: str,
                     status: str | None, after: str | None, limit: int) -> list[WebhookDelivery]:
    """The endpoint's deliveries, newest first, after the key `after`; one more than `limit`
    tells the caller there is a next page."""
    statement = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id,
                                              WebhookDelivery.workspace_id == workspace_id)
    if status is not None:
        statement = statement.where(WebhookDelivery.status == status)
    if after is not None:
        statement = statement.where(WebhookDelivery.id < after)
    return list((await session.execute(
        statement.order_by(WebhookDelivery.id.desc()).limit(limit + 1))).scalars())


async def delivery(session: AsyncSession, workspace_id: str, endpoint_id: str,
                   delivery_id: str) -> WebhookDelivery | None:
    return (await session.execute(select(WebhookDelivery).where(
        WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint_id,
        WebhookDelivery.workspace_id == workspace_id))).scalar_one_or_none()
