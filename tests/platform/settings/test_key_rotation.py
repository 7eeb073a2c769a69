"""Fernet key rotation of the tenant database URLs: new key first, `insureops rotate-keys`,
then the old key can go."""

from __future__ import annotations

import asyncio

import pytest
from click.testing import CliRunner
from cryptography.fernet import Fernet, MultiFernet
from sqlalchemy import text

from insureops.platform.cli import main
from insureops.platform.config import Settings
from insureops.platform.tenancy.databases import TenantDatabaseSecretError, decrypt_url
from tests.platform.accounts.conftest import FakeClock
from tests.platform.settings.test_database import own_directory, prepared_sqlite
from tests.platform.workspaces import start_tenancy

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()


async def rotate(settings, keys: str):
    env = {"INSUREOPS_DATABASE_URL": settings.database_url, "INSUREOPS_FERNET_KEYS": keys,
           "INSUREOPS_SECRET_KEY": "test-secret-key"}
    return await asyncio.to_thread(CliRunner().invoke, main, ["rotate-keys"], env=env)


async def saved_token(tenancy, workspace_id: str) -> str:
    async with tenancy.database.engine.connect() as connection:
        return (await connection.execute(
            text("SELECT url_encrypted FROM tenant_databases WHERE workspace_id = :w"),
            {"w": workspace_id})).scalar_one()


def with_keys(settings: Settings, *keys: str) -> Settings:
    return Settings(**{**settings.model_dump(), "fernet_keys": keys})


async def test_saved_url_survives_rotation_when_the_new_key_goes_first(
        aiohttp_client, settings_under_test, tenant_directory):
    before = with_keys(settings_under_test, OLD)
    first = await start_tenancy(aiohttp_client, before, FakeClock())
    ann = await first.owner("ann@example.com")
    url = prepared_sqlite(own_directory(tenant_directory, ann))
    assert (await first.client.post("/api/v2/settings/database/", json={"url": url},
                                    headers=ann.headers)).status == 200
    old_token = await saved_token(first, ann.workspace_id)

    during = await start_tenancy(aiohttp_client, with_keys(settings_under_test, NEW, OLD),
                                 FakeClock())
    read = await during.client.get("/api/v2/settings/database/get/", headers=ann.headers)
    assert (await read.json())["url"] == url  # the old key still decrypts

    refused = await rotate(settings_under_test, Fernet.generate_key().decode())
    assert refused.exit_code == 1 and "cannot be decrypted" in refused.output
    assert await saved_token(first, ann.workspace_id) == old_token  # nothing rewritten

    result = await rotate(settings_under_test, f"{NEW},{OLD}")
    assert result.exit_code == 0, result.output
    assert "1 stored, 1 re-encrypted" in result.output
    new_token = await saved_token(first, ann.workspace_id)
    assert decrypt_url(MultiFernet([Fernet(NEW)]), new_token) == url
    with pytest.raises(TenantDatabaseSecretError):
        decrypt_url(MultiFernet([Fernet(OLD)]), new_token)

    after = await start_tenancy(aiohttp_client, with_keys(settings_under_test, NEW), FakeClock())
    read = await after.client.get("/api/v2/settings/database/get/", headers=ann.headers)
    assert (await read.json())["url"] == url
    tested = await after.client.post("/api/v2/settings/database/test/", json={},
                                     headers=ann.headers)
    assert (await tested.json())["ok"] is True
