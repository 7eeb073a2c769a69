"""Request and response shapes of the webhook settings."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from insureops.platform.http.bodies import UNKNOWN_FIELDS_REFUSED
from insureops.platform.webhooks.events import EventType

ID_PATTERN = r"^[0-9A-HJKMNP-TV-Z]{26}$"  # ULIDs
DEFAULT_PAGE, MAX_PAGE = 50, 200

EventTypes = list[EventType]


class CreateWebhookRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    url: str = Field(min_length=1, max_length=2048, examples=["https://hooks.example.com/iops"])
    event_types: EventTypes = Field(min_length=1, max_length=len(EventType),
                                    description="The event types to deliver (catalogue: "
                                    "GET /webhooks/event-types/).")
    description: str | None = Field(None, max_length=200)


class UpdateWebhookRequest(BaseModel):
    """Fields to change; `enabled: true` switches an endpoint back on (also one the service
    switched off for failing) and forgets its failures."""

    model_config = UNKNOWN_FIELDS_REFUSED

    url: str | None = Field(None, min_length=1, max_length=2048)
    event_types: EventTypes | None = Field(None, min_length=1, max_length=len(EventType))
    description: str | None = Field(None, max_length=200)
    enabled: bool | None = None


class WebhookInfo(BaseModel):
    """An endpoint as listed: never its secret."""

    id: str
    url: str
    description: str | None
    event_types: list[EventType]
    enabled: bool
    disabled_reason: Literal["manual", "failing"] | None = Field(
        description="manual: an admin switched it off; failing: the service did "
        "(docs/webhooks.md, \"Switched off\").")
    disabled_at: datetime.datetime | None
    consecutive_failures: int
    failing_since: datetime.datetime | None
    last_success_at: datetime.datetime | None
    previous_secret_expires_at: datetime.datetime | None = Field(
        description="After a rotation: until when deliveries are also signed with the previous "
        "secret.")
    created_at: datetime.datetime
    updated_at: datetime.datetime


class CreatedWebhook(WebhookInfo):
    secret: str = Field(description="whsec_ + base64: the signing secret, shown this once.")


class WebhookSecret(BaseModel):
    secret: str = Field(description="The new signing secret, shown this once.")
    previous_secret_expires_at: datetime.datetime | None = Field(
        description="Until then deliveries carry the previous secret's signature too (null: "
        "the previous secret could not be decrypted any more and was dropped).")


class WebhookList(BaseModel):
    items: list[WebhookInfo] = Field(description="Oldest first.")


class WebhookPath(BaseModel):
    webhook_id: str = Field(pattern=ID_PATTERN)


class DeliveryPath(BaseModel):
    webhook_id: str = Field(pattern=ID_PATTERN)
    delivery_id: str = Field(pattern=ID_PATTERN)


class DeliveryQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    status: Literal["pending", "delivered", "failed"] | None = None
    limit: int = Field(DEFAULT_PAGE, ge=1, le=MAX_PAGE, description="Page size (max 200).")
    cursor: str | None = Field(None, max_length=512,
                               description="`next_cursor` of the previous page (opaque).")


class DeliveryInfo(BaseModel):
    id: str
    event_id: str = Field(description="The `webhook-id` header: the same on every attempt and "
                          "redelivery of the event.")
    event_type: EventType
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    response_status: int | None = Field(description="The last attempt's HTTP status.")
    latency_ms: int | None = Field(description="The last attempt's time to the answer.")
    error: str | None = Field(description="Why the last attempt failed (docs/webhooks.md).")
    next_attempt_at: datetime.datetime | None = Field(description="When it is tried next "
                                                      "(pending only).")
    last_attempt_at: datetime.datetime | None
    created_at: datetime.datetime


class DeliveryPage(BaseModel):
    items: list[DeliveryInfo] = Field(description="Newest first.")
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class EventTypeInfo(BaseModel):
    type: EventType
    description: str
    schema_: dict[str, Any] = Field(alias="schema", serialization_alias="schema",
                                    description="JSON Schema of the envelope's `data`.")


class EventTypeList(BaseModel):
    items: list[EventTypeInfo]
