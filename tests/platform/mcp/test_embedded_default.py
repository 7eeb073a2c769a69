"""The embedded default: with nothing configured, every workspace reaches a working tenant API.

Issue 11 ("Newcomer"): the MCP v2 API answered 503 until a tenant database was saved, and saving
127.0.0.1 was refused without naming the setting that changes it.
"""

from __future__ import annotations

import re

import pytest

from insureops.platform.app import create_app
from insureops.platform.config import Settings
from insureops.platform.email.backends import OutboxBackend
from insureops.platform.email.log import database_store
from insureops.platform.keys import CLOCK, DATABASE, EMAIL_BACKEND

PASSWORD = "a long enough password"


def as_served(settings: Settings, **changes) -> Settings:
    """`settings` without the tenant options the other tenant API tests set: what
    `insureops serve` runs with when only the platform database is configured."""
    return settings.model_copy(update={"tenant_sqlite_directory": None,
                                       "tenant_database_allowed_networks": (), **changes})


async def readme_walkthrough(client, mailbox: list[str]) -> tuple[dict, dict]:
    """The README's curl steps: sign up, verify with the printed code, log in, create a key,
    create a client. Answers the key's workspace and the creation's (status, body)."""
    email = "newcomer@example.com"
    signup = await client.post("/api/auth/signup/", json={
        "email": email, "password": PASSWORD, "name": "New Comer"})
    assert signup.status == 202
    code = re.findall(r"\b(\d{6})\b", mailbox[-1])[-1]
    assert (await client.post("/api/auth/verify/", json={"email": email, "code": code})).status == 200
    assert (await client.post("/api/auth/login/", json={
        "email": email, "password": PASSWORD})).status == 200
    created_key = await client.post("/api/v2/settings/api-keys/", json={"name": "laptop"})
    assert created_key.status == 201
    headers = {"Authorization": f"Bearer {(await created_key.json())['key']}"}
    workspace = await (await client.post("/api/v2/mcp/validate-key/", headers=headers)).json()
    created = await client.post("/api/v2/mcp/clients/", json={"name": "First client"},
                                headers=headers)
    return workspace, {"status": created.status, "body": await created.json(),
                       "headers": headers}


@pytest.fixture
def start(aiohttp_client):
    """`await start(settings)`: the whole service and the console its outbox prints to."""
    async def start(settings: Settings):
        app, mailbox = create_app(settings), []
        app[EMAIL_BACKEND] = OutboxBackend(database_store(app[DATABASE], app[CLOCK]),
                                           settings.email_from, echo=mailbox.append)
        return await aiohttp_client(app), mailbox
    return start


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_new_workspace_reaches_the_tenant_api_when_nothing_is_configured(settings, start):
    config = as_served(settings)
    assert config.embedded_tenants_on  # a SQLite platform database turns the default on
    client, mailbox = await start(config)
    workspace, created = await readme_walkthrough(client, mailbox)
    assert created["status"] == 201, created["body"]
    tenant_id = workspace["tenant_id"]
    own_file = config.sqlite_path.with_name(
        f"{config.sqlite_path.name}-tenants") / tenant_id / f"{tenant_id}.sqlite3"
    assert own_file.is_file()
    listed = await (await client.get("/api/v2/mcp/clients/list/",
                                     headers=created["headers"])).json()
    assert [item["name"] for item in listed["items"]] == ["First client"]
    shown = await (await client.get("/api/v2/settings/database/get/")).json()
    assert (shown["configured"], shown["embedded"]) == (False, True)


async def test_postgres_platform_gives_embedded_databases_when_a_directory_is_set(
        settings, start, tmp_path):
    # On PostgreSQL the default is off (instances may not share a disk); a directory turns it on.
    directory = tmp_path / "tenant-files"
    config = as_served(settings, tenant_sqlite_directory=directory)
    client, mailbox = await start(config)
    workspace, created = await readme_walkthrough(client, mailbox)
    assert created["status"] == 201, created["body"]
    assert (directory / workspace["tenant_id"] / f"{workspace['tenant_id']}.sqlite3").is_file()


async def test_503_names_the_setting_when_the_embedded_default_is_off(settings, start):
    client, mailbox = await start(as_served(settings, embedded_tenant_databases=False))
    _, created = await readme_walkthrough(client, mailbox)
    assert created["status"] == 503
    assert created["body"]["error"]["code"] == "tenant_database_unavailable"
    assert "INSUREOPS_EMBEDDED_TENANT_DATABASES" in created["body"]["error"]["message"]
    shown = await (await client.get("/api/v2/settings/database/get/")).json()
    assert (shown["configured"], shown["embedded"]) == (False, False)


@pytest.mark.parametrize(("url", "setting"), [
    ("postgresql://app:pw@127.0.0.1:5432/agency", "INSUREOPS_TENANT_DATABASE_ALLOWED_NETWORKS"),
    ("sqlite:///../elsewhere.sqlite3", "INSUREOPS_TENANT_SQLITE_DIRECTORY"),
])
async def test_refused_url_names_the_setting_that_changes_it_when_saved(settings, start, url,
                                                                        setting):
    client, mailbox = await start(as_served(settings, embedded_tenant_databases=True,
                                            tenant_sqlite_directory=settings.tenant_sqlite_root))
    await readme_walkthrough(client, mailbox)
    saved = await client.post("/api/v2/settings/database/", json={"url": url})
    message = (await saved.json())["error"]["message"]
    assert saved.status == 400 and setting in message
    if "127.0.0.1" in url:
        assert "INSUREOPS_EMBEDDED_TENANT_DATABASES" in message


async def test_sqlite_url_names_the_directory_setting_when_sqlite_tenants_are_off(settings,
                                                                                  start):
    client, mailbox = await start(as_served(settings, embedded_tenant_databases=False))
    await readme_walkthrough(client, mailbox)
    saved = await client.post("/api/v2/settings/database/", json={"url": "sqlite:///a.db"})
    assert saved.status == 400
    assert "INSUREOPS_TENANT_SQLITE_DIRECTORY" in (await saved.json())["error"]["message"]
