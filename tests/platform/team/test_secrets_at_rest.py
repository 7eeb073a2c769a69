"""A dump of the platform database holds no secret in clear: API keys, tenant database
passwords, session ids, invitation tokens and passwords are stored hashed or encrypted."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from urllib.parse import unquote

from sqlalchemy.engine import make_url

from insureops.platform.accounts.credentials import hash_session_id
from insureops.platform.records.api_keys import hash_api_key
from insureops.platform.team.invitations import hash_token
from tests.platform.accounts.conftest import FakeClock
from tests.platform.team.conftest import BASE, LINK
from tests.platform.workspaces import PASSWORD, start_tenancy

DATABASE_PASSWORD = "Tenant-db-Pa55word"


def sqlite_dump(url: str) -> str:
    """The SQL text of the database (iterdump reads through the WAL) plus the raw bytes of
    the database file and its WAL, decoded leniently."""
    path = Path(make_url(url).database)
    with sqlite3.connect(path) as connection:
        text = "\n".join(connection.iterdump())
    connection.close()
    raw = b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())
    return text + raw.decode("latin-1")


async def postgres_dump(url: str) -> str:
    """pg_dump of the test's schema (data and definitions): the one its search_path selects,
    else `public` of its own database."""
    parsed = make_url(url)
    options = unquote(str(parsed.query.get("options", "")))
    schema = options.split("search_path=", 1)[1] if "search_path=" in options else "public"
    process = await asyncio.create_subprocess_exec(
        "pg_dump", "-h", parsed.host or "127.0.0.1", "-p", str(parsed.port or 5432),
        "-U", parsed.username or "postgres", "-n", schema, parsed.database,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    assert f"CREATE TABLE {schema}.api_keys" in out.decode(), "the dump holds the tables"
    return out.decode()


async def test_platform_database_dump_holds_no_secret_in_clear_when_all_kinds_exist(
        aiohttp_client, smtp_settings, secure_smtp_server, backend):
    settings = smtp_settings.model_copy(update={
        "public_url": "https://app.insureops.test",
        "tenant_database_allowed_networks": ("127.0.0.1/32",),
        "webhook_allowed_networks": ("127.0.0.1/32",)})
    tenancy = await start_tenancy(aiohttp_client, settings, FakeClock())
    client = tenancy.client
    ann = await tenancy.owner("ann@example.com")
    key = (await (await client.post("/api/v2/settings/api-keys/", json={"name": "k"},
                                    headers=ann.headers)).json())["key"]
    saved = await client.post("/api/v2/settings/database/", headers=ann.headers, json={
        "url": f"postgresql://agency_app:{DATABASE_PASSWORD}@127.0.0.1:5432/agency"})
    assert saved.status == 200
    invited = await client.post(f"{BASE}/invite/", headers=ann.headers,
                                json={"email": "zoe@example.com", "role": "member"})
    assert invited.status == 201
    token = LINK.search(secure_smtp_server.messages[-1].text_body()).group(2)
    hook = await client.post("/api/v2/settings/webhooks/", headers=ann.headers, json={
        "url": "http://127.0.0.1:9/hook", "event_types": ["decision.made"]})
    signing = (await hook.json())["secret"].removeprefix("whsec_")  # kept encrypted (Fernet)
    await tenancy.database.engine.dispose()  # everything written and closed

    if backend == "sqlite":
        dump = sqlite_dump(settings.database_url)
    else:
        dump = await postgres_dump(settings.database_url)

    # The dump is real and complete: the rows holding the secrets' digests are in it.
    assert hash_api_key(key) in dump and hash_token(token) in dump
    assert hash_session_id(ann.session_id) in dump and "[redacted]" in dump
    assert "127.0.0.1:9/hook" in dump  # the webhook's row, its secret encrypted
    for secret in (key, DATABASE_PASSWORD, ann.session_id, token, PASSWORD, signing):
        assert secret not in dump, f"a secret is stored in clear: {secret[:6]}..."
