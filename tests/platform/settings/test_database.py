"""POST /database/, GET /database/get/, POST /database/test/: the tenant database connection."""

from __future__ import annotations

import asyncio
import socket
import struct
import uuid
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from insureops.platform.tenancy.data_model import apply_data_model
from insureops.platform.tenancy.databases import TenantDatabase
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.model import DATA_MODEL_VERSION
from tests.conftest import SQLITE_ONLY, require_postgres
from tests.platform.workspaces import Member, Tenancy

BASE = "/api/v2/settings"
PASSWORD = "Pa55-word-never-shown"


async def save(tenancy: Tenancy, member: Member, url: str):
    return await tenancy.client.post(f"{BASE}/database/", json={"url": url},
                                     headers=member.headers)


async def read(tenancy: Tenancy, member: Member) -> dict:
    response = await tenancy.client.get(f"{BASE}/database/get/", headers=member.headers)
    assert response.status == 200
    return await response.json()


async def run_test(tenancy: Tenancy, member: Member, **body):
    return await tenancy.client.post(f"{BASE}/database/test/", json=body, headers=member.headers)


def own_directory(tenant_directory: Path, member: Member) -> Path:
    """The member's workspace's own directory, where its SQLite tenant databases must lie."""
    directory = tenant_directory / member.workspace_id
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def prepared_sqlite(directory: Path, name: str = "agency.sqlite3") -> str:
    path = directory / name
    engine = create_tenant_engine(f"sqlite:///{path}")
    try:
        apply_data_model(engine)
    finally:
        engine.dispose()
    return f"sqlite:///{path}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def postgres_tenant():
    """A PostgreSQL schema holding data model 2.2.0, as a URL with a password (trust auth
    ignores it) selecting the schema through `options`."""
    base = make_url(require_postgres())
    schema = f"tenant_{uuid.uuid4().hex[:12]}"
    conninfo = base.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
    url = base.set(drivername="postgresql", password=PASSWORD,
                   query={"options": f"-csearch_path={schema}"})
    engine = create_tenant_engine(url)
    try:
        apply_data_model(engine)
    finally:
        engine.dispose()
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def test_database_is_not_configured_when_nothing_was_saved(tenancy):
    ann = await tenancy.owner("ann@example.com")
    body = await read(tenancy, ann)
    assert body["configured"] is False and body["url"] is None and body["last_test"] is None
    response = await run_test(tenancy, ann)
    assert response.status == 404
    assert (await response.json())["error"]["code"] == "database_not_configured"


async def test_saved_postgres_url_is_masked_and_tests_its_schema_version_when_prepared(
        tenancy, postgres_tenant):
    ann = await tenancy.owner("ann@example.com")
    saved = await save(tenancy, ann, postgres_tenant)
    assert saved.status == 200, await saved.text()
    body = await read(tenancy, ann)
    assert PASSWORD not in str(body) and "***" in body["url"]
    assert body["configured"] and body["backend"] == "postgresql"
    assert body["host"] == "127.0.0.1"
    assert body["database"] == make_url(postgres_tenant).database
    assert body["last_test"] is None and body["schema_version"] is None
    response = await run_test(tenancy, ann)
    assert response.status == 200
    report = await response.json()
    assert report["ok"] is True and report["error"] is None
    assert report["schema_version"] == DATA_MODEL_VERSION and report["latency_ms"] >= 0
    after = await read(tenancy, ann)
    assert after["schema_version"] == DATA_MODEL_VERSION
    assert after["last_test"]["ok"] is True


async def test_stored_url_is_encrypted_when_saved(tenancy, postgres_tenant):
    ann = await tenancy.owner("ann@example.com")
    assert (await save(tenancy, ann, postgres_tenant)).status == 200
    async with tenancy.database.unit_of_work() as uow:
        row = await uow.session.get(TenantDatabase, ann.workspace_id)
    assert PASSWORD not in row.url_encrypted
    assert make_url(postgres_tenant).database not in row.url_encrypted


async def test_sqlite_file_under_the_directory_reports_its_version_when_tested(
        tenancy, tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    url = prepared_sqlite(own_directory(tenant_directory, ann))
    report = await (await run_test(tenancy, ann, url=url)).json()
    assert report == {"ok": True, "latency_ms": report["latency_ms"],
                      "schema_version": DATA_MODEL_VERSION, "error": None}
    assert (await read(tenancy, ann))["configured"] is False  # an unsaved URL is only tried


async def test_unprepared_database_reports_no_schema_version_when_tested(tenancy,
                                                                         tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    path = own_directory(tenant_directory, ann) / "empty.sqlite3"
    engine = create_tenant_engine(f"sqlite:///{path}")
    with engine.connect():
        pass
    engine.dispose()
    report = await (await run_test(tenancy, ann, url=f"sqlite:///{path}")).json()
    assert report["ok"] is True and report["schema_version"] is None


async def test_test_reports_only_connection_failed_when_the_cause_differs(
        tenancy, tenant_directory, postgres_tenant):
    ann = await tenancy.owner("ann@example.com")
    closed_port = f"postgresql://app:{PASSWORD}@127.0.0.1:{free_port()}/agency"
    wrong_database = make_url(postgres_tenant).set(database="no_such_database_here")
    missing_file = f"sqlite:///{own_directory(tenant_directory, ann) / 'missing.sqlite3'}"
    reports = []
    for url in (closed_port, wrong_database.render_as_string(hide_password=False), missing_file):
        response = await run_test(tenancy, ann, url=url)
        assert response.status == 200
        reports.append(await response.json())
    assert reports == [{"ok": False, "latency_ms": None, "schema_version": None,
                        "error": "connection_failed"}] * 3
    assert not (tenant_directory / ann.workspace_id / "missing.sqlite3").exists()


@SQLITE_ONLY  # the tester's timeout on a silent server: the platform's store is not the point
async def test_test_gives_up_within_the_timeout_when_the_server_never_answers(tenancy):
    ann = await tenancy.owner("ann@example.com")
    writers = []

    async def silent(reader, writer):  # accepts, then never says a word
        writers.append(writer)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        started = asyncio.get_running_loop().time()
        response = await run_test(tenancy, ann, url=f"postgresql://a:b@127.0.0.1:{port}/db")
        elapsed = asyncio.get_running_loop().time() - started
    finally:
        for writer in writers:
            writer.close()
        server.close()
        await server.wait_closed()
    assert (await response.json())["error"] == "connection_failed"
    assert elapsed < 2.0 + 2.5


async def answer_startup_then_stall(reader, writer) -> None:
    """Play a PostgreSQL server up to ReadyForQuery (no TLS, no password), then say nothing."""
    while True:
        length, code = struct.unpack("!ii", await reader.readexactly(8))
        if code not in (80877103, 80877104):  # SSLRequest, GSSENCRequest: answer "no"
            break
        writer.write(b"N")
        await writer.drain()
    await reader.readexactly(length - 8)  # the rest of the StartupMessage
    writer.write(b"R" + struct.pack("!ii", 8, 0) + b"Z" + struct.pack("!i", 5) + b"I")
    await writer.drain()


@SQLITE_ONLY  # the tester's timeout on a stalled server: the platform's store is not the point
async def test_test_gives_up_within_the_timeout_when_the_server_stalls_after_connecting(
        tenancy):
    ann = await tenancy.owner("ann@example.com")
    writers = []

    async def serve(reader, writer):
        writers.append(writer)
        await answer_startup_then_stall(reader, writer)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        started = asyncio.get_running_loop().time()
        response = await run_test(tenancy, ann, url=f"postgresql://a:b@127.0.0.1:{port}/db")
        elapsed = asyncio.get_running_loop().time() - started
    finally:
        for writer in writers:
            writer.close()
        server.close()
        await server.wait_closed()
    assert writers, "the service connected"
    assert (await response.json())["error"] == "connection_failed"
    # The 2 s timeout, then psycopg's grace for cancelling the query (it waits up to 5 s for
    # the server before closing the connection): bounded, where a blocking read would not be.
    assert 2.0 <= elapsed < 2.0 + 5.0 + 2.5


# each refusal through both routes, on one service (the policy's cases: test_tenant_urls.py)
REFUSED = [
    ("mysql://app:pw@db.example.com/agency", "unsupported_database"),
    ("postgresql://app:pw@10.1.2.3:5432/agency", "database_host_refused"),
    ("postgresql://app:pw@169.254.169.254/agency", "database_host_refused"),
    ("postgresql://app:pw@192.168.0.10/agency", "database_host_refused"),
    ("postgresql://app:pw@[fe80::1]/agency", "database_host_refused"),
    ("postgresql://app:pw@no-such-host.invalid/agency", "database_host_refused"),
    ("postgresql://app:pw@db.example.com/agency?host=10.0.0.1", "invalid_database_url"),
    ("postgresql://app:pw@/agency", "invalid_database_url"),
    ("sqlite:////etc/passwd", "database_location_refused"),
    ("sqlite:///../outside.sqlite3", "database_location_refused"),
    ("not a url", "invalid_database_url"),
]


async def test_url_is_400_database_url_refused_when_not_allowed(tenancy):
    ann = await tenancy.owner("ann@example.com")
    for url, refusal in REFUSED:
        for response in (await save(tenancy, ann, url), await run_test(tenancy, ann, url=url)):
            assert response.status == 400, url
            error = (await response.json())["error"]
            assert error["code"] == "database_url_refused", url
            assert error["details"] == [{"field": "url", "message": refusal}], url
            assert "pw" not in error["message"]
    assert (await read(tenancy, ann))["configured"] is False


async def test_loopback_is_refused_when_the_settings_do_not_allow_it(
        aiohttp_client, settings):
    from tests.platform.accounts.conftest import FakeClock
    from tests.platform.workspaces import start_tenancy
    strict = await start_tenancy(aiohttp_client, settings.model_copy(
        update={"embedded_tenant_databases": False}), FakeClock())
    ann = await strict.owner("ann@example.com")
    for url in ("postgresql://app:pw@127.0.0.1/agency", "postgresql://app:pw@localhost/agency",
                "sqlite:///agency.sqlite3"):
        response = await save(strict, ann, url)
        assert response.status == 400, url


async def test_other_workspace_sees_no_connection_when_one_was_saved(tenancy, tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.owner("bob@example.com", "Bob Brokers")
    url = prepared_sqlite(own_directory(tenant_directory, ann))
    assert (await save(tenancy, ann, url)).status == 200
    assert (await read(tenancy, bob))["configured"] is False
    assert (await run_test(tenancy, bob)).status == 404
    assert (await read(tenancy, ann))["configured"] is True


async def test_members_read_but_only_admins_save_and_test_when_roles_differ(tenancy,
                                                                           tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    member = await tenancy.member(ann, "max@example.com")
    url = prepared_sqlite(own_directory(tenant_directory, ann))
    assert (await save(tenancy, member, url)).status == 403
    assert (await run_test(tenancy, member, url=url)).status == 403
    assert (await save(tenancy, ann, url)).status == 200
    assert (await read(tenancy, member))["configured"] is True


async def test_database_test_is_rate_limited_when_run_too_often(tenancy, tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    url = prepared_sqlite(own_directory(tenant_directory, ann))
    for remaining in range(19, -1, -1):
        response = await run_test(tenancy, ann, url=url)
        assert response.status == 200
        assert response.headers["X-RateLimit-Remaining"] == str(remaining)
    refused = await run_test(tenancy, ann, url=url)
    assert refused.status == 429
    assert (await refused.json())["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0


# Issue 11 / issue 17, fix 3: with INSUREOPS_TENANT_SQLITE_DIRECTORY set, a workspace could save
# sqlite:///<other tenant_id>.sqlite3, write into the other workspace's file, and tell from the
# connection test which workspaces had a file.
async def test_other_workspace_file_is_neither_reached_nor_revealed_when_its_name_is_saved(
        tenancy, tenant_directory):
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.owner("bob@example.com", "Bob Brokers")
    quiet = await tenancy.owner("quiet@example.com", "No File Yet")
    bobs_file = own_directory(tenant_directory, bob) / "agency.sqlite3"
    assert (await save(tenancy, bob, prepared_sqlite(bobs_file.parent))).status == 200
    before = bobs_file.read_bytes()
    answers = []
    for victim in (bob, quiet):  # one workspace has a file, the other none
        for url in (f"sqlite:///../{victim.workspace_id}/agency.sqlite3",
                    f"sqlite:///{tenant_directory / victim.workspace_id / 'agency.sqlite3'}",
                    f"sqlite:///{tenant_directory.resolve()}/{victim.workspace_id}/agency.sqlite3"):
            for response in (await run_test(tenancy, ann, url=url), await save(tenancy, ann, url)):
                answers.append((response.status, await response.json()))
    assert {str(answer) for answer in answers} == {str(answers[0])}  # alike, whoever has a file
    status, body = answers[0]
    assert status == 400 and body["error"]["details"] == [
        {"field": "url", "message": "database_location_refused"}]
    assert (await read(tenancy, ann))["configured"] is False
    assert bobs_file.read_bytes() == before
    assert not (tenant_directory / quiet.workspace_id).exists()


async def test_saved_url_to_another_workspace_file_is_refused_when_the_tenant_api_connects(
        tenancy, tenant_directory):
    # A row saved before the check existed (or written around it) is checked again on connect.
    from tests.platform.mcp.conftest import add_key, save_database_url
    ann = await tenancy.owner("ann@example.com")
    bob = await tenancy.owner("bob@example.com", "Bob Brokers")
    bobs_url = prepared_sqlite(own_directory(tenant_directory, bob))
    await save_database_url(tenancy.client, ann.workspace_id, bobs_url)
    key, _ = await add_key(tenancy.client, ann.workspace_id)
    response = await tenancy.client.post("/api/v2/mcp/clients/", json={"name": "Intruder"},
                                         headers={"Authorization": f"Bearer {key}"})
    assert response.status == 503
    assert (await response.json())["error"]["code"] == "tenant_database_unavailable"
    engine = create_tenant_engine(bobs_url)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM clients").scalar() == 0
    finally:
        engine.dispose()


# Issue 11: GET /api/v2/mcp/database/connection/ and database/get/ answered
# postgresql+psycopg://..., which psql cannot use; the spec says URI form.
@pytest.mark.parametrize("saved", [
    "postgres://app:{pw}@127.0.0.1:5432/agency?sslmode=disable",
    "postgresql://app:{pw}@127.0.0.1/agency",
    "postgresql://app:{pw}@127.0.0.1:6543/agency?application_name=agency%20tools"])
async def test_connection_is_answered_as_saved_when_read_back(tenancy, saved):
    from tests.platform.mcp.conftest import add_key
    ann = await tenancy.owner("ann@example.com")
    url = saved.format(pw=PASSWORD)
    assert (await save(tenancy, ann, url)).status == 200
    key, _ = await add_key(tenancy.client, ann.workspace_id)
    connection = await (await tenancy.client.get(
        "/api/v2/mcp/database/connection/", headers={"Authorization": f"Bearer {key}"})).json()
    assert connection == {"connection_string": url, "backend": "postgresql"}
    assert (await read(tenancy, ann))["url"] == saved.format(pw="***")


async def test_connection_saved_in_the_driver_form_is_answered_as_a_uri_when_read_back(tenancy):
    # Rows saved before the fix hold postgresql+psycopg://.
    from tests.platform.mcp.conftest import add_key, save_database_url
    ann = await tenancy.owner("ann@example.com")
    await save_database_url(tenancy.client, ann.workspace_id,
                            f"postgresql+psycopg://app:{PASSWORD}@db.example.com/agency")
    key, _ = await add_key(tenancy.client, ann.workspace_id)
    connection = await (await tenancy.client.get(
        "/api/v2/mcp/database/connection/", headers={"Authorization": f"Bearer {key}"})).json()
    assert connection["connection_string"] == f"postgresql://app:{PASSWORD}@db.example.com/agency"
    assert (await read(tenancy, ann))["url"] == "postgresql://app:***@db.example.com/agency"
