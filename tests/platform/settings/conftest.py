"""Fixtures of the settings tests: the service with two workspaces' owners logged in."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from insureops.platform.app import Area
from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.config import Settings
from insureops.platform.http.routing import Call, RouteTable
from tests.platform.accounts.conftest import FakeClock
from tests.platform.workspaces import Tenancy, start_tenancy


@pytest.fixture
def tenant_directory(tmp_path: Path) -> Path:
    directory = tmp_path / "tenants"
    directory.mkdir()
    return directory


@pytest.fixture
def settings_under_test(settings: Settings, tenant_directory: Path) -> Settings:
    """Loopback tenant databases allowed (the test PostgreSQL), SQLite files under a directory."""
    return settings.model_copy(update={
        "tenant_database_allowed_networks": ("127.0.0.1/32", "::1/128"),
        "tenant_sqlite_directory": tenant_directory,
        "tenant_database_timeout_seconds": 2.0})


KEY_PROBE = "/api/key-probe"


class KeyHolder(BaseModel):
    workspace_id: str
    key_id: str
    scopes: list[str]


def key_probe() -> RouteTable:
    """A tenant-API-like route (API key, read scope) answering whose key it was."""
    table = RouteTable("key_probe")

    @table.get("/whoami/", response=KeyHolder, auth=Auth.api_key(Scope.READ), summary="Who")
    async def whoami(call: Call[None, None]) -> KeyHolder:
        principal = call.principal
        return KeyHolder(workspace_id=principal.active_workspace_id, key_id=principal.subject,
                         scopes=sorted(principal.scopes))

    return table


@pytest.fixture
async def tenancy(aiohttp_client, settings_under_test: Settings) -> Tenancy:
    return await start_tenancy(aiohttp_client, settings_under_test, FakeClock(),
                               (Area(KEY_PROBE, lambda: key_probe().build_app()),))
