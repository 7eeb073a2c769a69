"""The local MCP server driven by the official SDK's real client over stdio."""

from __future__ import annotations

import asyncio
import datetime
import json

import pytest
import sqlalchemy as sa
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from insureops.platform.auth.requirements import Scope
from insureops.platform.keys import API_KEY_CACHE, DATABASE
from insureops.platform.records.api_keys import ApiKey
from insureops.platform.tenancy.engine import create_tenant_engine
from insureops.schema.sql.tables import sa_table

EXPECTED_TOOLS = {"create_client", "get_client", "list_clients", "update_client",
                  "create_policy", "get_policy", "list_policies", "update_policy",
                  "list_tasks", "get_task", "list_uw_scores", "get_uw_score",
                  "create_uw_submission", "list_uw_submissions", "get_uw_submission",
                  "validate_key", "get_database_connection", "search_market", "match_carriers",
                  "classify_business", "list_prospects", "list_rulesets", "get_ruleset", "simulate_ruleset",
                  "execute_ruleset", "list_executions", "get_execution", "list_bindings",
                  "get_binding", "list_runs", "get_run", "start_run", "cancel_run"}
PRIVATE = ["Ada Lovelace", "ada@example.org", "Analytical", "POL-7781", "Engine works"]


def _audit_rows(url: str) -> list[dict]:
    engine = create_tenant_engine(url)
    try:
        with engine.connect() as connection:
            table = sa_table("audit_logs")
            return [dict(row._mapping) for row in
                    connection.execute(sa.select(table).order_by(table.c.id))]
    finally:
        engine.dispose()


def _json(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


async def _wait_for(predicate, seconds: float = 8.0) -> None:
    for _ in range(int(seconds * 20)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def test_tools_create_and_read_client_and_policy_when_driven_by_a_real_client(
        make_tenant, make_tenant_database, recording_service, server_parameters, errlog):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    database_url = make_tenant_database()
    params = server_parameters(SERVICE_API_KEY=tenant.key, DATABASE_URL=database_url,
                               SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        assert {tool.name for tool in tools.tools} == EXPECTED_TOOLS
        client = _json(await session.call_tool("create_client", {"client": {
                "name": PRIVATE[0], "email": PRIVATE[1], "company": PRIVATE[2]}}))
        assert client["tenant_id"] == tenant.tenant_id
        policy = _json(await session.call_tool("create_policy", {"policy": {
                "client_id": client["id"], "policy_number": PRIVATE[3], "notes": PRIVATE[4],
                "premium": 1200.5, "line_of_business": "cyber"}}))
        read_client = _json(await session.call_tool("get_client", {"uuid": client["uuid"]}))
        read_policy = _json(await session.call_tool("get_policy", {"uuid": policy["uuid"]}))
        bound = _json(await session.call_tool("update_policy", {
                "uuid": policy["uuid"], "policy": {"status": "bound"}}))
        listed = _json(await session.call_tool("list_policies", {"client_uuid":
                                                                     client["uuid"]}))
        refused = await session.call_tool("update_policy", {
                "uuid": policy["uuid"], "policy": {"status": "quote"}})
        submission = _json(await session.call_tool("create_uw_submission", {"uw_submission": {
                "client_id": client["uuid"], "lob": "CGL", "answers": {"product": "a/gl"}}}))
        submissions = _json(await session.call_tool("list_uw_submissions", {
                "client_id": client["id"]}))
    assert (submission["lob"], submission["client_id"]) == ("liability", client["id"])
    assert [s["id"] for s in submissions["items"]] == [submission["id"]]
    assert read_client["email"] == PRIVATE[1] and read_policy["premium"] == 1200.5
    assert bound["status"] == "bound" and [p["uuid"] for p in listed["items"]] == [policy["uuid"]]
    assert refused.is_error and "invalid_transition" in refused.content[0].text
    await _wait_for(lambda: "/api/v2/mcp/usage/" in recorder.paths())
    assert set(recorder.paths()) == {"/api/v2/mcp/validate-key/", "/api/v2/mcp/usage/"}
    for request in recorder.requests:
        assert request.headers["Authorization"] == f"Bearer {tenant.key}"
        for secret in [*PRIVATE, database_url, client["uuid"], policy["uuid"]]:
            assert secret not in request.body
    usage = json.loads(recorder.requests[-1].body)
    assert {item["tool"]: item["count"] for item in usage["counts"]}["create_client"] == 1
    audit = _audit_rows(database_url)
    assert [(row["action"], row["entity_type"], row["request_path"]) for row in audit] == [
        ("create", "client", "create_client"), ("create", "policy", "create_policy"),
        ("update", "policy", "update_policy"),
        ("create", "uw_submission", "create_uw_submission")]
    assert {row["actor_email"] for row in audit} == {f"api-key:{tenant.key_id}"}
    assert audit[2]["old_values"]["status"] == "quote" and audit[2]["new_values"]["status"] == \
        "bound"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the scope, not the store
async def test_tools_follow_the_key_scope_when_the_key_is_read_only(
        client, make_tenant, make_tenant_database, recording_service, server_parameters,
        errlog):
    service_url, _ = recording_service
    tenant = await make_tenant(None, scopes=(Scope.READ,))
    params = server_parameters(SERVICE_API_KEY=tenant.key, DATABASE_URL=make_tenant_database(),
                               SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        refused = await session.call_tool("create_client", {"client": {"name": "X"}})
        listed = _json(await session.call_tool("list_clients", {"limit": 5}))
        invalid = await session.call_tool("get_client", {"uuid": "not-a-uuid"})
    assert refused.is_error and "insufficient_scope" in refused.content[0].text
    assert listed == {"items": [], "next_cursor": None}
    assert invalid.is_error


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_tools_refuse_with_key_tips_when_the_key_is_revoked_during_a_session(
        client, make_tenant, make_tenant_database, recording_service, server_parameters,
        errlog):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    params = server_parameters("--validate-every", "0.3", SERVICE_API_KEY=tenant.key,
                               DATABASE_URL=make_tenant_database(), SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        before = await session.call_tool("create_client", {"client": {"name": "Kept"}})
        async with client.app[DATABASE].unit_of_work() as uow:
            await uow.session.execute(sa.update(ApiKey).where(ApiKey.id == tenant.key_id)
                                      .values(revoked_at=datetime.datetime.now(datetime.UTC)))
        client.app[API_KEY_CACHE].forget_all()  # as the settings area's revoke does
        seen = recorder.paths().count("/api/v2/mcp/validate-key/")
        # two more after the revocation: the first may have been answered before it; the
        # second's answer has been applied once a third is asked
        await _wait_for(lambda: recorder.paths().count("/api/v2/mcp/validate-key/") >= seen + 3)
        after = await session.call_tool("list_clients", {})
    assert not before.is_error
    assert after.is_error and "invalid_api_key" in after.content[0].text
    assert "Generate a new key" in after.content[0].text


async def test_tools_never_reach_another_workspace_when_they_share_the_database(
        client, make_tenant, make_own_tenant, recording_service, server_parameters, errlog):
    service_url, _ = recording_service
    b = await make_own_tenant(name="B")  # B's database, which A's local server opens directly
    shared = b.database_url
    a = await make_tenant(shared, name="A")
    theirs = await (await client.post("/api/v2/mcp/clients/", json={"name": "B's client"},
                                      headers=b.headers)).json()
    params = server_parameters(SERVICE_API_KEY=a.key, DATABASE_URL=shared,
                               SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        read_theirs = await session.call_tool("get_client", {"uuid": theirs["uuid"]})
        write_theirs = await session.call_tool("update_client", {
            "uuid": theirs["uuid"], "client": {"name": "taken over"}})
        link_theirs = await session.call_tool("create_policy", {"policy": {
            "client_id": theirs["id"]}})
        listed = _json(await session.call_tool("list_clients", {}))
    assert read_theirs.is_error and "not_found" in read_theirs.content[0].text
    assert write_theirs.is_error and "not_found" in write_theirs.content[0].text
    assert link_theirs.is_error and "client_id" in link_theirs.content[0].text
    assert listed["items"] == []
    unchanged = await (await client.get(f"/api/v2/mcp/clients/{theirs['uuid']}/",
                                        headers=b.headers)).json()
    assert unchanged["name"] == "B's client"


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_service_tools_ask_the_service_and_book_tools_stay_local_when_both_are_used(
        make_tenant, make_tenant_database, recording_service, server_parameters, errlog):
    service_url, recorder = recording_service
    tenant = await make_tenant(None)
    database_url = make_tenant_database()
    params = server_parameters(SERVICE_API_KEY=tenant.key, DATABASE_URL=database_url,
                               SERVICE_URL=service_url)
    async with stdio_client(params, errlog=errlog) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        created = _json(await session.call_tool("create_client", {"client": {
            "name": PRIVATE[0]}}))
        tasks = _json(await session.call_tool("list_tasks", {"status": "open"}))
        classified = _json(await session.call_tool("classify_business", {
            "description": "Electrical contractor wiring homes"}))
        rulesets = _json(await session.call_tool("list_rulesets", {"limit": 5}))
        missing = await session.call_tool("get_ruleset", {"rule_id": "0" * 26})
        invalid = await session.call_tool("get_client", {"uuid": "not-a-uuid"})
    assert created["name"] == PRIVATE[0] and tasks == {"items": [], "next_cursor": None}
    assert classified["results"] and rulesets == {"items": [], "next_cursor": None}
    error = json.loads(missing.content[0].text)["error"]
    assert missing.is_error and error["code"] == "not_found"
    invalid_error = json.loads(invalid.content[0].text)["error"]
    assert invalid_error["code"] == "validation_error"
    assert invalid_error["details"][0]["field"] == "uuid"
    asked = set(recorder.paths()) - {"/api/v2/mcp/validate-key/", "/api/v2/mcp/usage/"}
    assert asked == {"/api/v2/mcp/market/classify/", "/api/v2/mcp/rulesets/",
                     f"/api/v2/mcp/rulesets/{'0' * 26}/"}
    for request in recorder.requests:  # the book never left the machine
        for secret in (PRIVATE[0], created["uuid"], database_url):
            assert secret not in request.body and secret not in request.path
