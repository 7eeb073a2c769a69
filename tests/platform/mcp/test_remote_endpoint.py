"""The remote MCP endpoint (/mcp/) driven by the official SDK's Streamable HTTP client against the
running test service: tools, scopes, errors, another workspace, revoked keys, Origin, limits."""

from __future__ import annotations

import contextlib
import datetime
import io
import json
import time
from collections.abc import AsyncIterator

import pytest
import sqlalchemy as sa
from aiohttp.test_utils import TestClient
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from insureops.platform.auth.requirements import Scope
from insureops.platform.identity import Workspace, new_tenant_id
from insureops.platform.keys import API_KEY_CACHE, DATABASE, RATE_LIMITER, SETTINGS
from insureops.platform.mcp.endpoint import MCP_LIMIT
from insureops.platform.mcp_tools.registry import TOOLS
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.records.prospects import Prospect
from insureops.schema.sql.tables import sa_table
from tests.platform.mcp.conftest import add_key
from tests.platform.rules_studio.conftest import TRIAGE
from tests.platform.workspaces import Tenancy

ONE_ENGINE = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@contextlib.asynccontextmanager
async def remote(client: TestClient, key: str) -> AsyncIterator[ClientSession]:
    """An initialized SDK session at the service's /mcp/ with `key`."""
    url = str(client.make_url("/mcp/"))
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http, \
            streamable_http_client(url, http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def _error(result) -> dict:
    assert result.is_error
    body = json.loads(result.content[0].text)
    assert result.structured_content == body
    return body["error"]


async def test_tools_work_on_the_workspace_records_when_called_remotely(client, tenant):
    async with remote(client, tenant.key) as session:
        listed = await session.list_tools()
        created = _ok(await session.call_tool("create_client", {"client": {
            "name": "Ada", "email": "ada@example.org"}}))
        read = _ok(await session.call_tool("get_client", {"uuid": created["uuid"]}))
        policy = _ok(await session.call_tool("create_policy", {"policy": {
            "client_id": created["uuid"], "policy_number": "R-1", "premium": 99.5}}))
        page = _ok(await session.call_tool("list_policies", {"client_uuid": created["uuid"]}))
        moved = await session.call_tool("update_policy", {"uuid": policy["uuid"],
                                                         "policy": {"status": "expired"}})
        connection = _ok(await session.call_tool("get_database_connection", {}))
    assert {tool.name for tool in listed.tools} == {tool.name for tool in TOOLS}
    assert read["email"] == "ada@example.org" and read["tenant_id"] == tenant.tenant_id
    assert [item["uuid"] for item in page["items"]] == [policy["uuid"]]
    assert _error(moved)["code"] == "invalid_transition"
    assert connection["backend"] == sa.engine.make_url(tenant.database_url).get_backend_name()
    engine = sa.create_engine(tenant.database_url)
    with engine.connect() as db:
        audit = db.execute(sa.select(sa_table("audit_logs"))).mappings().all()
    engine.dispose()
    assert [(row["request_method"], row["request_path"]) for row in audit] == [
        ("POST", "/api/v2/mcp/clients/"), ("POST", "/api/v2/mcp/policies/")]
    assert {row["actor_email"] for row in audit} == {f"api-key:{tenant.key_id}"}


async def test_tasks_and_uw_scores_are_read_when_another_application_wrote_them(client, tenant):
    engine = sa.create_engine(tenant.database_url)
    submission = sa.insert(sa_table("uw_submissions")).values(tenant_id=tenant.tenant_id)
    with engine.begin() as db:
        db.execute(sa.insert(sa_table("tasks")).values(tenant_id=tenant.tenant_id,
                                                       subject="Call the insured", status="open"))
        db.execute(sa.insert(sa_table("tasks")).values(tenant_id=tenant.tenant_id,
                                                       subject="Done already", status="done"))
        submission_id = db.execute(submission.returning(sa_table("uw_submissions").c.id)
                                   ).scalar_one()
        db.execute(sa.insert(sa_table("uw_scores")).values(
            tenant_id=tenant.tenant_id, submission_id=submission_id, score=71.25,
            decision="refer", factors={"fired": ["big"]}))
    engine.dispose()
    async with remote(client, tenant.key) as session:
        open_tasks = _ok(await session.call_tool("list_tasks", {"status": "open"}))
        one = _ok(await session.call_tool("get_task", {"id": open_tasks["items"][0]["id"]}))
        scores = _ok(await session.call_tool("list_uw_scores", {
            "submission_id": str(submission_id)}))
        paged = _ok(await session.call_tool("list_tasks", {"limit": 1}))
        second = _ok(await session.call_tool("list_tasks", {"limit": 1,
                                                            "cursor": paged["next_cursor"]}))
    assert [task["subject"] for task in open_tasks["items"]] == ["Call the insured"]
    assert one["subject"] == "Call the insured" and one["priority"] == "normal"
    assert [(s["score"], s["decision"]) for s in scores["items"]] == [(71.25, "refer")]
    assert paged["items"][0]["id"] != second["items"][0]["id"]
    assert second["next_cursor"] is None


async def test_market_and_rulesets_are_served_when_called_remotely(client, tenant):
    owner = await Tenancy(client, time.time).owner("ops@agency.test")
    headers = owner.headers
    rule = await (await client.post("/api/rules/rules/", json={"source": TRIAGE},
                                    headers=headers)).json()
    draft = await (await client.post("/api/rules/rules/", json={
        "source": TRIAGE.replace("triage.small", "triage.draft")}, headers=headers)).json()
    await client.patch(f"/api/rules/rules/{rule['id']}/", json={"published_version": 1},
                       headers=headers)
    key, _ = await add_key(client, owner.workspace_id)
    async with remote(client, key) as session:
        rules = _ok(await session.call_tool("list_rulesets", {"status": "published"}))
        source = _ok(await session.call_tool("get_ruleset", {"rule_id": rule["id"]}))
        simulated = _ok(await session.call_tool("simulate_ruleset", {
            "rule_id": rule["id"], "cases": [{"inputs": {"claim": {"amount": 20000}}},
                                             {"inputs": {"claim": {"amount": 5}}}]}))
        executed = _ok(await session.call_tool("execute_ruleset", {
            "rule_id": rule["id"], "inputs": {"claim": {"amount": 20000}}}))
        log = _ok(await session.call_tool("list_executions", {"rule_id": rule["id"]}))
        entry = _ok(await session.call_tool("get_execution", {
            "rule_id": rule["id"], "execution_id": executed["execution"]["id"]}))
        unpublished = await session.call_tool("execute_ruleset", {
            "rule_id": draft["id"], "inputs": {"claim": {"amount": 1}}})
        classified = _ok(await session.call_tool("classify_business", {
            "description": "We install electrical wiring in new homes"}))
        found = _ok(await session.call_tool("search_market", {"naics": "238210"}))
    assert [r["id"] for r in rules["items"]] == [rule["id"]]
    assert "Small triage" in source["version"]["source"]
    assert simulated["summary"]["cases"] == 2
    assert executed["result"]["decision"] == "refer" and executed["execution"]["executed_by"] \
        is None
    assert [e["id"] for e in log["items"]] == [entry["id"]] and entry["decision"] == "refer"
    assert _error(unpublished)["code"] == "rule_not_published"
    assert classified["results"] and classified["method"] == "offline"
    assert "results" in found


async def test_tools_are_refused_when_the_key_lacks_the_scope(client, make_own_tenant):
    reader = await make_own_tenant(scopes=(Scope.READ,))
    async with remote(client, reader.key) as session:
        refused = await session.call_tool("create_client", {"client": {"name": "X"}})
        execute = await session.call_tool("execute_ruleset", {"rule_id": "0" * 26,
                                                              "inputs": {}})
        search = await session.call_tool("search_market", {"naics": "238210"})
        listed = _ok(await session.call_tool("list_clients", {}))
        rules = _ok(await session.call_tool("list_rulesets", {}))
    assert _error(refused)["code"] == "insufficient_scope"
    assert _error(execute)["code"] == "insufficient_scope"
    assert _error(search)["code"] == "insufficient_scope"  # a POST operation: write (spec)
    assert rules == {"items": [], "next_cursor": None}
    assert listed == {"items": [], "next_cursor": None}


async def test_errors_are_the_api_error_object_when_arguments_or_records_are_wrong(
        client, tenant):
    async with remote(client, tenant.key) as session:
        bad_uuid = await session.call_tool("get_client", {"uuid": "not-a-uuid"})
        bad_body = await session.call_tool("create_client", {"client": {"name": "x" * 300}})
        unknown = await session.call_tool("get_client", {
            "uuid": "00000000-0000-4000-8000-000000000000"})
        no_tool = await session.call_tool("drop_tables", {})
    error = _error(bad_uuid)
    assert error["code"] == "validation_error" and error["details"][0]["field"] == "uuid"
    assert "not-a-uuid" not in json.dumps(error)
    assert _error(bad_body)["details"] == [{"field": "client.name",
                                           "message": "is too long (at most 255 characters)"}]
    assert _error(unknown)["code"] == "not_found"
    assert _error(no_tool)["code"] == "not_found"
    for result in (bad_uuid, bad_body, unknown, no_tool):
        assert "Error executing tool" not in result.content[0].text


async def test_another_workspace_is_unreachable_when_its_uuid_is_named(client, make_own_tenant):
    a, b = await make_own_tenant(name="A"), await make_own_tenant(name="B")
    theirs = await (await client.post("/api/v2/mcp/clients/", json={"name": "B's client"},
                                      headers=b.headers)).json()
    async with remote(client, a.key) as session:
        read = await session.call_tool("get_client", {"uuid": theirs["uuid"]})
        write = await session.call_tool("update_client", {"uuid": theirs["uuid"],
                                                          "client": {"name": "taken"}})
        listed = _ok(await session.call_tool("list_clients", {}))
    assert _error(read)["code"] == "not_found" and _error(write)["code"] == "not_found"
    assert listed["items"] == []


async def test_the_endpoint_answers_401_when_the_key_is_revoked(client, tenant):
    async with client.app[DATABASE].unit_of_work() as uow:
        await uow.session.execute(sa.update(ApiKey).where(ApiKey.id == tenant.key_id).values(
            revoked_at=datetime.datetime.now(datetime.UTC)))
    client.app[API_KEY_CACHE].forget_all()
    response = await client.post("/mcp/", json=INITIALIZE,
                                 headers={**tenant.headers, **MCP_HEADERS})
    assert response.status == 401
    assert (await response.json())["error"]["code"] == "invalid_api_key"
    with pytest.raises(BaseException) as failure:  # the SDK client gives up on the 401
        async with remote(client, tenant.key):
            pass
    assert isinstance(_innermost(failure.value), MCPError)


def _innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


@ONE_ENGINE
async def test_the_endpoint_refuses_a_foreign_origin_when_a_browser_page_calls_it(
        client, tenant):
    foreign = await client.post("/mcp/", json=INITIALIZE, headers={
        **tenant.headers, **MCP_HEADERS, "Origin": "http://rebound.example"})
    own_host = await client.post("/mcp/", json=INITIALIZE, headers={
        **tenant.headers, **MCP_HEADERS, "Origin": str(client.make_url("")).rstrip("/")})
    without = await client.post("/mcp/", json=INITIALIZE, headers={**tenant.headers,
                                                                   **MCP_HEADERS})
    assert foreign.status == 403
    assert (await foreign.json())["error"]["code"] == "origin_not_allowed"
    assert own_host.status == 403  # the Host a rebinding page sets is no reason to trust it
    assert without.status == 200
    assert (await without.json())["result"]["serverInfo"]["name"] == "insureops"


@ONE_ENGINE
async def test_the_endpoint_answers_429_when_the_key_used_its_minute(client, tenant):
    limiter = client.app[RATE_LIMITER]
    for _ in range(MCP_LIMIT.limit):
        await limiter.hit(MCP_LIMIT, tenant.key_id)
    limited = await client.post("/mcp/", json=INITIALIZE, headers={**tenant.headers,
                                                                   **MCP_HEADERS})
    assert limited.status == 429
    assert (await limited.json())["error"]["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) >= 1
    assert limited.headers["X-RateLimit-Limit"] == str(MCP_LIMIT.limit)


@ONE_ENGINE
async def test_the_endpoint_refuses_a_body_over_the_cap_when_it_is_sent(client, tenant):
    cap = client.app[SETTINGS].simulation_max_body_bytes
    big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "' + b"x" * cap + b'"}}'
    response = await client.post("/mcp/", data=io.BytesIO(big), headers={
        **tenant.headers, **MCP_HEADERS, "Content-Type": "application/json"})
    assert response.status == 413
    assert (await response.json())["error"]["code"] == "payload_too_large"


async def _prospect(client: TestClient, owner_email: str, name: str) -> None:
    """A prospect as the extension's save leaves it (the owner's verified e-mail recorded)."""
    now = datetime.datetime.now(datetime.UTC)
    async with client.app[DATABASE].unit_of_work() as uow:
        uow.session.add(Prospect(id=new_tenant_id(time.time()), owner_issuer="https://idp.test/",
                                 owner_subject=name, owner_email=owner_email, company_name=name,
                                 status="new", created_at=now, updated_at=now))


@ONE_ENGINE
async def test_prospects_are_the_workspace_members_when_listed_remotely(client):
    owner = await Tenancy(client, time.time).owner("lee@agency.test")
    await _prospect(client, "lee@agency.test", "Lee's plumber")
    await _prospect(client, "kim@other.test", "Kim's bakery")
    key, _ = await add_key(client, owner.workspace_id)
    async with remote(client, key) as session:
        listed = _ok(await session.call_tool("list_prospects", {"status": "new"}))
        wrong = await session.call_tool("list_prospects", {"ordering": "owner_email"})
    assert [p["company_name"] for p in listed["items"]] == ["Lee's plumber"]
    assert "owner_email" not in listed["items"][0]
    assert _error(wrong)["details"][0]["field"] == "ordering"


@ONE_ENGINE
async def test_the_endpoint_refuses_a_deeply_nested_body_when_it_is_sent(client, tenant):
    deep = '{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + "[" * 100_000 + \
        "]" * 100_000 + "}}"
    response = await client.post("/mcp/", data=deep, headers={
        **tenant.headers, **MCP_HEADERS, "Content-Type": "application/json"})
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "invalid_json"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_configured_origin_passes_when_the_settings_allow_it(make_client, settings):
    configured = await make_client(settings.model_copy(update={
        "allowed_origins": ("https://assistant.example",)}))
    tenant_id = new_tenant_id(time.time())
    async with configured.app[DATABASE].unit_of_work() as uow:
        uow.session.add(Workspace(tenant_id=tenant_id, name="Configured",
                                  created_at=datetime.datetime.now(datetime.UTC)))
    key, _ = await add_key(configured, tenant_id)
    headers = {"Authorization": f"Bearer {key}", **MCP_HEADERS}
    allowed = await configured.post("/mcp/", json=INITIALIZE, headers={
        **headers, "Origin": "https://assistant.example"})
    empty = await configured.post("/mcp/", json=INITIALIZE, headers={**headers, "Origin": ""})
    assert allowed.status == 200
    assert empty.status == 403


@ONE_ENGINE
async def test_get_is_405_when_a_client_asks_for_a_stream(client, tenant):
    response = await client.get("/mcp/", headers={**tenant.headers,
                                                  "Accept": "text/event-stream"})
    assert response.status == 405
    assert (await response.json())["error"]["code"] == "method_not_allowed"
