"""Test helper: the stand-ins the areas' fast tiers share (a unit of work, a mailbox) and the
platform database the store contracts run on (a copy of the migrated template, with the
workspaces their scenarios write under)."""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import AsyncIterator

from insureops.platform.data.database import Database
from insureops.platform.email import DeliveryResult, DeliveryStatus, EmailMessage
from insureops.platform.identity import Workspace

CONTRACT_NOW = datetime.datetime(2027, 1, 15, 8, 0, tzinfo=datetime.UTC)


class FakeUnitOfWork:
    """A unit of work whose session the fake stores ignore; `commits` counts its commits."""

    session = None

    def __init__(self) -> None:
        self.commits = 0

    async def commit(self) -> None:
        self.commits += 1


class MailBox:
    """An EmailBackend keeping what it is given (the real backends are test_email.py's)."""

    name = "memory"

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    async def send(self, message: EmailMessage) -> DeliveryResult:
        self.sent.append(message)
        return DeliveryResult(DeliveryStatus.SENT, self.name, f"<{len(self.sent)}@test>")


@contextlib.asynccontextmanager
async def contract_database(urls, *tenant_ids: str) -> AsyncIterator[Database]:
    """The platform database of `urls` (platform_database_urls) holding `tenant_ids`."""
    database = Database.connect(urls.async_)
    async with database.unit_of_work() as uow:
        for tenant_id in tenant_ids:
            uow.session.add(Workspace(tenant_id=tenant_id, name="Agency",
                                      created_at=CONTRACT_NOW))
    try:
        yield database
    finally:
        await database.dispose()
