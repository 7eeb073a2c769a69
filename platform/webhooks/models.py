"""The webhook tables (migration 0013_webhooks): endpoints, events (the outbox's payloads) and
deliveries (one per event and endpoint: the outbox rows the delivery job works off, and the
delivery log the settings API lists)."""

from __future__ import annotations

import datetime

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base


class WebhookEndpoint(Base):
    """A workspace's receiver: its URL, the event types it takes, and its signing secret
    (Fernet-encrypted; during a rotation the previous one too, until it expires)."""

    __tablename__ = "webhook_endpoints"

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(String(200))
    event_types: Mapped[list[str]] = mapped_column(JSON)
    secret_encrypted: Mapped[str] = mapped_column(Text)
    previous_secret_encrypted: Mapped[str | None] = mapped_column(Text)
    previous_secret_expires_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    enabled: Mapped[bool] = mapped_column(Boolean)
    disabled_reason: Mapped[str | None] = mapped_column(String(16))  # manual | failing
    disabled_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    failing_since: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    last_success_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)


class WebhookEvent(Base):
    """One published event: the exact bytes every delivery of it sends. Its id is the
    `webhook-id` header, the same on every attempt and redelivery (receivers dedupe on it)."""

    __tablename__ = "webhook_events"

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"), index=True)
    event_type: Mapped[str] = mapped_column(String(64))
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
    # what caused it, when the publisher may publish it again (a relay after a crash): the
    # second publish finds the key and writes nothing (migration 0016)
    dedupe_key: Mapped[str | None] = mapped_column(String(200), unique=True)


class WebhookDelivery(Base):
    """An event to one endpoint: `pending` (due at `next_attempt_at`), `delivered` or `failed`
    (the schedule ran out, or the endpoint was disabled). `lease_until` marks an attempt in
    flight, so two workers never send the same delivery at once."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        Index("ix_webhook_deliveries_endpoint_id_id", "endpoint_id", "id"),
        Index("ix_webhook_deliveries_endpoint_id_status", "endpoint_id", "status"),
    )

    id: Mapped[str] = mapped_column(String(26), primary_key=True)
    workspace_id: Mapped[str] = mapped_column(
        ForeignKey("workspaces.tenant_id", ondelete="CASCADE"))
    endpoint_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_events.id", ondelete="CASCADE"), index=True)
    event_type: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    lease_until: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    last_attempt_at: Mapped[datetime.datetime | None] = mapped_column(UtcDateTime)
    response_status: Mapped[int | None] = mapped_column(Integer)
    latency_ms: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime)
