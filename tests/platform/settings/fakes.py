"""In-memory fakes of the settings area's store ports (`settings/repository.py`
`SettingsRepository`, `settings/webhooks/repository.py` `WebhookSettingsRepository`), of a unit
of work and of the outbound connection test, for the fast tier of the use cases.

The fakes keep what the ports promise: keys by workspace (another workspace's are never seen),
live keys newest first, a key revoked once; one connection per workspace, replaced whole, a
test's outcome written only while the connection tested is still the saved one (its
ciphertext); endpoints and deliveries by workspace, endpoints oldest first, deliveries newest
first after a key. Whether the SQL does the same on SQLite and PostgreSQL is the database tier's
question (test_api_keys.py, test_database.py, test_webhooks.py).
"""

from __future__ import annotations

import datetime

from insureops.platform.records.api_keys import ApiKey
from insureops.platform.settings.tester import ConnectionReport
from insureops.platform.tenancy.databases import TenantDatabase
from insureops.platform.tenancy.urls import CheckedUrl
from insureops.platform.webhooks.models import WebhookDelivery, WebhookEndpoint


class FakeSettings:
    """`SettingsRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.keys: list[ApiKey] = []
        self.databases: dict[str, TenantDatabase] = {}

    async def add_key(self, session, key: ApiKey) -> None:
        assert all(row.id != key.id for row in self.keys)
        self.keys.append(key)

    async def live_keys(self, session, workspace_id: str) -> list[ApiKey]:
        live = [row for row in self.keys
                if row.workspace_id == workspace_id and row.revoked_at is None]
        return sorted(live, key=lambda row: (row.created_at, row.id), reverse=True)

    async def revoke_key(self, session, workspace_id: str, key_id: str,
                         now: datetime.datetime) -> bool:
        for row in await self.live_keys(session, workspace_id):
            if row.id == key_id:
                row.revoked_at = now
                return True
        return False

    async def database_of(self, session, workspace_id: str) -> TenantDatabase | None:
        return self.databases.get(workspace_id)

    async def record_test(self, session, workspace_id: str, url_encrypted: str,
                          values: dict[str, object]) -> bool:
        row = self.databases.get(workspace_id)
        if row is None or row.url_encrypted != url_encrypted:
            return False
        for name, value in values.items():
            setattr(row, name, value)
        return True

    async def put_database(self, session, row: TenantDatabase) -> TenantDatabase:
        self.databases[row.workspace_id] = row
        return row


class FakeWebhooks:
    """`WebhookSettingsRepository` in memory; `held` lists the workspaces held, in order."""

    def __init__(self) -> None:
        self.endpoints_: dict[str, WebhookEndpoint] = {}
        self.deliveries_: dict[str, WebhookDelivery] = {}
        self.held: list[str] = []

    async def hold_workspace(self, session, workspace_id: str) -> None:
        self.held.append(workspace_id)

    async def count_endpoints(self, session, workspace_id: str) -> int:
        return len(await self.endpoints(session, workspace_id))

    async def add(self, session, row: WebhookEndpoint | WebhookDelivery) -> None:
        rows = self.endpoints_ if isinstance(row, WebhookEndpoint) else self.deliveries_
        assert row.id not in rows
        rows[row.id] = row

    async def endpoints(self, session, workspace_id: str) -> list[WebhookEndpoint]:
        mine = [row for row in self.endpoints_.values() if row.workspace_id == workspace_id]
        return sorted(mine, key=lambda row: (row.created_at, row.id))

    async def endpoint(self, session, workspace_id: str, endpoint_id: str, *,
                       fresh: bool = False) -> WebhookEndpoint | None:
        row = self.endpoints_.get(endpoint_id)
        return row if row is not None and row.workspace_id == workspace_id else None

    async def change_endpoint(self, session, workspace_id: str, endpoint_id: str,
                              values: dict[str, object]) -> bool:
        row = await self.endpoint(session, workspace_id, endpoint_id)
        if row is None:
            return False
        for name, value in values.items():
            setattr(row, name, value)
        return True

    async def delete_endpoint(self, session, row: WebhookEndpoint) -> None:
        del self.endpoints_[row.id]
        for delivery in [d for d in self.deliveries_.values() if d.endpoint_id == row.id]:
            del self.deliveries_[delivery.id]

    async def deliveries(self, session, workspace_id: str, endpoint_id: str,
                         status: str | None, after: str | None,
                         limit: int) -> list[WebhookDelivery]:
        rows = [row for row in self.deliveries_.values()
                if row.workspace_id == workspace_id and row.endpoint_id == endpoint_id
                and (status is None or row.status == status)
                and (after is None or row.id < after)]
        return sorted(rows, key=lambda row: row.id, reverse=True)[:limit + 1]

    async def delivery(self, session, workspace_id: str, endpoint_id: str,
                       delivery_id: str) -> WebhookDelivery | None:
        row = self.deliveries_.get(delivery_id)
        return (row if row is not None and row.workspace_id == workspace_id
                and row.endpoint_id == endpoint_id else None)


class Connections:
    """The connection test's stand-in: answers `reports` in turn and keeps what it was asked
    (the real one connects out: the database tier's, test_database.py); `during` runs while
    it "connects", as a request saving another connection meanwhile would."""

    def __init__(self, *reports: ConnectionReport, during=None) -> None:
        self.reports = list(reports)
        self.tested: list[tuple[CheckedUrl, float]] = []
        self.during = during

    async def __call__(self, checked: CheckedUrl, timeout: float) -> ConnectionReport:
        self.tested.append((checked, timeout))
        if self.during is not None:
            await self.during()
        return self.reports.pop(0)
