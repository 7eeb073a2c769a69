"""`publish`: record an event's deliveries in the transaction of the change that caused it.

The outbox pattern: the event and one pending delivery per subscribed, enabled endpoint of the
workspace are rows written with the caller's own session or connection, so they commit (or
roll back) with the change; the delivery job (delivery.py) sends them afterwards. Nothing is
sent here and nothing outside the transaction happens, so a rolled-back change never notifies
and a committed one always does (at least once: receivers dedupe on `webhook-id`).
"""

from __future__ import annotations

import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import Session
from ulid import ULID

from insureops.platform.webhooks.events import envelope
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

Payload = BaseModel | dict[str, Any]


def _subscribers(workspace_id: str):
    return select(WebhookEndpoint.id, WebhookEndpoint.event_types).where(
        WebhookEndpoint.workspace_id == workspace_id, WebhookEndpoint.enabled.is_(True))


def _rows(workspace_id: str, event_type: str, body: bytes, endpoints: list[str],
          now: datetime.datetime) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    event_id = str(ULID.from_timestamp(now.timestamp()))
    event = {"id": event_id, "workspace_id": workspace_id, "event_type": event_type,
             "body": body, "created_at": now}
    deliveries = [{"id": str(ULID.from_timestamp(now.timestamp())), "workspace_id": workspace_id,
                   "endpoint_id": endpoint_id, "event_id": event_id, "event_type": event_type,
                   "status": "pending", "attempts": 0, "next_attempt_at": now,
                   "created_at": now} for endpoint_id in endpoints]
    return event, deliveries


def _prepare(workspace_id: str, event_type: str, payload: Payload,
             now: datetime.datetime | None) -> tuple[bytes, datetime.datetime]:
    now = now or datetime.datetime.now(datetime.UTC)
    return envelope(event_type, payload, now), now


async def publish(executor: AsyncSession | AsyncConnection, workspace_id: str, event_type: str,
                  payload: Payload, *, now: datetime.datetime | None = None) -> str | None:
    """Record `event_type` with `payload` (the catalogue's model, or a dict of its shape) for
    every enabled endpoint of the workspace that takes it, in `executor`'s transaction. Answers
    the event id (the deliveries' `webhook-id`), or None when no endpoint takes it.

    Raises EventPayloadError (before writing anything) for an unknown type or a payload that
    is not its type's: a publisher's bug, which its tests should meet.
    """
    body, now = _prepare(workspace_id, event_type, payload, now)
    found = (await executor.execute(_subscribers(workspace_id))).all()
    endpoints = [row.id for row in found if event_type in row.event_types]
    if not endpoints:
        return None
    event, deliveries = _rows(workspace_id, event_type, body, endpoints, now)
    await executor.execute(insert(WebhookEvent), [event])
    await executor.execute(insert(WebhookDelivery), deliveries)
    return event["id"]


def publish_sync(executor: Session | Connection, workspace_id: str, event_type: str,
                 payload: Payload, *, now: datetime.datetime | None = None) -> str | None:
    """`publish` for a synchronous SQLAlchemy session or connection (work running in a thread)."""
    body, now = _prepare(workspace_id, event_type, payload, now)
    found = executor.execute(_subscribers(workspace_id)).all()
    endpoints = [row.id for row in found if event_type in row.event_types]
    if not endpoints:
        return None
    event, deliveries = _rows(workspace_id, event_type, body, endpoints, now)
    executor.execute(insert(WebhookEvent), [event])
    executor.execute(insert(WebhookDelivery), deliveries)
    return event["id"]
