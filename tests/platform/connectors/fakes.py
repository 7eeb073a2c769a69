"""An in-memory fake of the connectors store's port (`connectors/repository.py`
`ConnectorsRepository`), of a unit of work and of the provider's probe, for the fast tier of the
use cases.

The fake keeps what the port promises: one key per workspace and provider, replaced whole; a
test's outcome written only while the key tested is still the saved one (its ciphertext); the
e-mail log by workspace, newest first, with its total. Whether the SQL does the same on SQLite
and PostgreSQL is the database tier's question (test_llm_keys.py, test_email.py).
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from insureops.platform.connectors.llm import ProbeOutcome
from insureops.platform.email.log import EmailLogEntry
from insureops.platform.records.llm_keys import LlmProviderKey
from tests.platform.fakes import FakeUnitOfWork


class FakeConnectors:
    """`ConnectorsRepository` in memory; the `session` each method receives is ignored."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], LlmProviderKey] = {}
        self.log: list[EmailLogEntry] = []

    async def put_key(self, session, workspace_id: str, provider: str,
                      values: dict[str, object]) -> LlmProviderKey:
        row = LlmProviderKey(workspace_id=workspace_id, provider=provider, **values)
        self.rows[workspace_id, provider] = row
        return row

    async def keys(self, session, workspace_id: str) -> list[LlmProviderKey]:
        return [row for (workspace, _), row in self.rows.items() if workspace == workspace_id]

    async def key(self, session, workspace_id: str, provider: str) -> LlmProviderKey | None:
        return self.rows.get((workspace_id, provider))

    async def delete_key(self, session, row: LlmProviderKey) -> None:
        del self.rows[row.workspace_id, row.provider]

    async def record_test(self, session, workspace_id: str, provider: str, key_encrypted: str,
                          values: dict[str, object]) -> bool:
        row = self.rows.get((workspace_id, provider))
        if row is None or row.key_encrypted != key_encrypted:
            return False
        for name, value in values.items():
            setattr(row, name, value)
        return True

    async def log_page(self, session, workspace_id: str, status: str | None, offset: int,
                       limit: int) -> tuple[list[EmailLogEntry], int]:
        rows = [row for row in self.log if row.tenant_id == workspace_id
                and (status is None or row.status == status)]
        rows.sort(key=lambda row: (row.created_at, row.id), reverse=True)
        return rows[offset:offset + limit], len(rows)


@asynccontextmanager
async def fake_units():
    """`Database.unit_of_work` over fake units of work."""
    yield FakeUnitOfWork()


class Provider:
    """The provider's stand-in: answers `outcomes` in turn and keeps the keys it was given
    (the real call is the database tier's, against a fake provider on 127.0.0.1); `during`
    runs while it "answers", as a request saving another key meanwhile would."""

    def __init__(self, *outcomes: ProbeOutcome, during=None) -> None:
        self.outcomes = list(outcomes)
        self.keys: list[str] = []
        self.during = during

    async def __call__(self, provider, api_key, base_url, model, settings) -> ProbeOutcome:
        self.keys.append(api_key)
        if self.during is not None:
            await self.during()
        return self.outcomes.pop(0)
