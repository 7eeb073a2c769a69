"""`insureops rotate-keys` in a fresh process, with every kind of stored secret (issue 15: it
crashed with NoReferencedTableError once a tenant database connection was stored)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from cryptography.fernet import Fernet, MultiFernet
from sqlalchemy import text

from insureops.platform.config import Settings
from insureops.platform.records.llm_keys import decrypt_key
from insureops.platform.tenancy.databases import decrypt_url
from insureops.platform.webhooks.signing import decrypt_secret
from tests.platform.accounts.conftest import FakeClock
from tests.platform.workspaces import start_tenancy

OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()
TENANT_URL = "postgresql://agency_app:Rotate-Pa55@127.0.0.1:5432/agency"
OPENAI_KEY = "sk-rotation-test-0123456789abcd"


async def rotate_in_new_process(settings, keys: str) -> tuple[int, str]:
    """Run the installed `insureops rotate-keys` as a user does: a new interpreter that has
    imported nothing of the service before."""
    command = Path(sys.executable).with_name("insureops")
    env = {**os.environ, "INSUREOPS_DATABASE_URL": settings.database_url,
           "INSUREOPS_FERNET_KEYS": keys, "INSUREOPS_SECRET_KEY": "test-secret-key"}
    process = await asyncio.create_subprocess_exec(
        str(command), "rotate-keys", env=env, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    out, _ = await process.communicate()
    return process.returncode, out.decode()


async def stored(tenancy, query: str, workspace_id: str) -> str:
    async with tenancy.database.engine.connect() as connection:
        return (await connection.execute(text(query), {"w": workspace_id})).scalar_one()


async def test_rotate_keys_reencrypts_every_secret_when_a_tenant_database_is_stored(
        aiohttp_client, settings):
    before = Settings(**{**settings.model_dump(), "fernet_keys": (OLD,),
                         "tenant_database_allowed_networks": ("127.0.0.1/32",),
                         "webhook_allowed_networks": ("127.0.0.1/32",)})
    tenancy = await start_tenancy(aiohttp_client, before, FakeClock())
    ann = await tenancy.owner("ann@example.com")
    saved = await tenancy.client.post("/api/v2/settings/database/", json={"url": TENANT_URL},
                                      headers=ann.headers)
    assert saved.status == 200, await saved.text()
    saved = await tenancy.client.post("/api/v1/connectors/llm-adaptor/keys", headers=ann.headers,
                                      json={"provider": "openai", "api_key": OPENAI_KEY})
    assert saved.status == 200, await saved.text()
    hook = await (await tenancy.client.post("/api/v2/settings/webhooks/", headers=ann.headers, json={
        "url": "http://127.0.0.1:9/hook", "event_types": ["run.completed"]})).json()
    rotated = await (await tenancy.client.post(
        f"/api/v2/settings/webhooks/{hook['id']}/rotate-secret/", headers=ann.headers)).json()
    await tenancy.database.engine.dispose()

    code, output = await rotate_in_new_process(before, f"{NEW},{OLD}")
    assert code == 0, output
    assert "tenant database URLs: 1 stored, 1 re-encrypted" in output
    assert "LLM provider keys: 1 stored, 1 re-encrypted" in output
    assert "signing keys: " in output and "0 previous key(s)" in output  # none issued yet
    only_new = MultiFernet([Fernet(NEW)])
    url_token = await stored(
        tenancy, "SELECT url_encrypted FROM tenant_databases WHERE workspace_id = :w",
        ann.workspace_id)
    key_token = await stored(
        tenancy, "SELECT key_encrypted FROM llm_provider_keys WHERE workspace_id = :w",
        ann.workspace_id)
    assert decrypt_url(only_new, url_token) == TENANT_URL
    assert decrypt_key(only_new, key_token) == OPENAI_KEY
    assert "webhook signing secrets: 2 stored, 2 re-encrypted" in output  # current, previous
    secret_tokens = await stored(
        tenancy, "SELECT secret_encrypted || ' ' || previous_secret_encrypted FROM "
        "webhook_endpoints WHERE workspace_id = :w", ann.workspace_id)
    current, previous = secret_tokens.split(" ")
    assert decrypt_secret(only_new, current) == rotated["secret"]
    assert decrypt_secret(only_new, previous) == hook["secret"]
    assert OPENAI_KEY not in output and "Rotate-Pa55" not in output
    assert hook["secret"] not in output


async def test_rotate_keys_changes_nothing_when_a_key_cannot_be_decrypted(
        aiohttp_client, settings):
    before = Settings(**{**settings.model_dump(), "fernet_keys": (OLD,)})
    tenancy = await start_tenancy(aiohttp_client, before, FakeClock())
    ann = await tenancy.owner("ann@example.com")
    saved = await tenancy.client.post("/api/v1/connectors/llm-adaptor/keys", headers=ann.headers,
                                      json={"provider": "anthropic", "api_key": OPENAI_KEY})
    assert saved.status == 200, await saved.text()
    query = "SELECT key_encrypted FROM llm_provider_keys WHERE workspace_id = :w"
    token = await stored(tenancy, query, ann.workspace_id)
    await tenancy.database.engine.dispose()

    code, output = await rotate_in_new_process(before, NEW)
    assert code == 1 and "cannot be decrypted" in output
    assert await stored(tenancy, query, ann.workspace_id) == token
