"""The e-mail log: one row per message sent or kept in the outbox, secrets masked."""

from __future__ import annotations

import datetime
from collections.abc import Callable

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from insureops.platform.data.columns import UtcDateTime
from insureops.platform.data.database import Base, Database
from insureops.platform.email.backends import EmailStore
from insureops.platform.email.message import DeliveryResult, EmailMessage


class EmailLogEntry(Base):
    """A delivered (or failed) message as the connectors' e-mail log shows it (migration 0002)."""

    __tablename__ = "email_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime] = mapped_column(UtcDateTime, index=True)
    tenant_id: Mapped[str | None] = mapped_column(String(26), index=True)
    backend: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    message_id: Mapped[str] = mapped_column(String(255))
    sender: Mapped[str | None] = mapped_column(String(320))
    recipients: Mapped[str] = mapped_column(Text)
    subject: Mapped[str] = mapped_column(String(998))
    template: Mapped[str | None] = mapped_column(String(100))
    text_body: Mapped[str] = mapped_column(Text)
    html_body: Mapped[str | None] = mapped_column(Text)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)


def entry_for(message: EmailMessage, result: DeliveryResult,
              created_at: datetime.datetime) -> EmailLogEntry:
    """The log row of one delivery; the message's secrets are masked before storing."""
    safe = message.redacted()
    return EmailLogEntry(
        created_at=created_at, tenant_id=safe.tenant_id, backend=result.backend,
        status=result.status.value, message_id=result.message_id, sender=safe.sender,
        recipients=", ".join(safe.to), subject=safe.subject, template=safe.template,
        text_body=safe.text, html_body=safe.html, error_code=result.error_code,
        error_message=result.error_message)


def database_store(database: Database, clock: Callable[[], float]) -> EmailStore:
    """An EmailStore writing to the e-mail log in a unit of work of its own.

    Its own transaction, because mail goes out after the use case committed: a message is
    never sent for a change that was rolled back.
    """
    async def store(message: EmailMessage, result: DeliveryResult) -> None:
        created_at = datetime.datetime.fromtimestamp(clock(), tz=datetime.UTC)
        async with database.unit_of_work() as uow:
            uow.session.add(entry_for(message, result, created_at))
    return store
