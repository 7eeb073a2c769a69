"""The bindings and book-run tools (issue 33 on issue 31's rules at work) driven by the official
SDK's Streamable HTTP client at the service's /mcp/: read bindings and runs, dry-run a ruleset
over the book and cancel a dry run with the key; an apply run stays an admin's."""

from __future__ import annotations

import asyncio
import time

import pytest

from insureops.platform.auth.requirements import Scope
from tests.platform.mcp.conftest import add_key, save_database_url
from tests.platform.mcp.test_remote_endpoint import _error, _ok, remote
from tests.platform.rules_studio.work_helpers import TASKS, tenant_rows
from tests.platform.workspaces import Tenancy


async def _workspace(client, make_tenant_database, email: str):
    """An owner's workspace with its tenant database, a published rule, a binding and a key."""
    owner = await Tenancy(client, time.time).owner(email)
    database = make_tenant_database(owner.workspace_id)
    await save_database_url(client, owner.workspace_id, database)
    rule = await (await client.post("/api/rules/rules/", json={"source": TASKS},
                                    headers=owner.headers)).json()
    await client.patch(f"/api/rules/rules/{rule['id']}/", json={"published_version": 1},
                       headers=owner.headers)
    bound = await client.post("/api/rules/bindings/", json={
        "rule_id": rule["id"], "record_type": "policy", "on": ["created"]},
        headers=owner.headers)
    assert bound.status == 201, await bound.text()
    key, _ = await add_key(client, owner.workspace_id)
    return owner, database, rule, await bound.json(), key


async def _finished(session, run_id: str, seconds: float = 30.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        run = _ok(await session.call_tool("get_run", {"run_id": run_id}))
        if run["status"] in ("completed", "failed", "cancelled"):
            return run
        assert time.monotonic() < deadline, run
        await asyncio.sleep(0.1)


class TestWithJobs:
    @pytest.fixture
    def settings(self, settings):
        return settings.model_copy(update={"jobs_in_serve": True})

    async def test_bindings_and_a_dry_run_are_served_when_the_key_calls_them(
            self, client, make_tenant_database):
        owner, database, rule, binding, key = await _workspace(
            client, make_tenant_database, "ops@agency.test")
        async with remote(client, key) as session:
            listed = _ok(await session.call_tool("list_bindings", {}))
            one = _ok(await session.call_tool("get_binding", {"binding_id": binding["id"]}))
            started = _ok(await session.call_tool("start_run", {
                "rule_id": rule["id"], "record_type": "policy"}))
            done = await _finished(session, started["id"])
            runs = _ok(await session.call_tool("list_runs", {"rule_id": rule["id"]}))
            apply = await session.call_tool("start_run", {
                "rule_id": rule["id"], "record_type": "policy", "mode": "apply"})
            finished = await session.call_tool("cancel_run", {"run_id": started["id"]})
            missing = await session.call_tool("get_binding", {"binding_id": "0" * 26})
        assert [b["id"] for b in listed["items"]] == [binding["id"]]
        assert (one["rule_id"], one["record_type"], one["status"]) == (
            rule["id"], "policy", "active")
        assert (started["status"], started["mode"], started["created_by"]) == (
            "queued", "dry_run", None)
        assert done["status"] == "completed" and done["summary"] is not None
        assert [r["id"] for r in runs["items"]] == [started["id"]]
        assert _error(apply)["code"] == "permission_denied"
        assert _error(finished)["code"] == "run_finished"
        assert _error(missing)["code"] == "not_found"
        assert tenant_rows(database, "SELECT id FROM tasks") == []  # a dry run writes nothing


class TestWithoutJobs:
    @pytest.fixture
    def settings(self, settings):
        return settings.model_copy(update={"jobs_in_serve": False})  # runs stay queued

    async def test_a_key_cancels_a_dry_run_but_not_an_admins_apply_run(
            self, client, make_tenant_database):
        await _cancelling(client, make_tenant_database)


async def _cancelling(client, make_tenant_database):
    owner, _, rule, _, key = await _workspace(client, make_tenant_database, "ops@agency.test")
    applied = await client.post(f"/api/rules/rules/{rule['id']}/runs/", json={
        "record_type": "policy", "mode": "apply"}, headers=owner.headers)
    assert applied.status == 202, await applied.text()
    apply_run = await applied.json()
    async with remote(client, key) as session:
        started = _ok(await session.call_tool("start_run", {
            "rule_id": rule["id"], "record_type": "policy"}))
        cancelled = _ok(await session.call_tool("cancel_run", {"run_id": started["id"]}))
        refused = await session.call_tool("cancel_run", {"run_id": apply_run["id"]})
        still = _ok(await session.call_tool("get_run", {"run_id": apply_run["id"]}))
    assert (cancelled["status"], cancelled["cancel_requested"]) == ("cancelled", True)
    assert _error(refused)["code"] == "permission_denied"
    assert (still["status"], still["cancel_requested"]) == ("queued", False)


async def test_run_tools_are_refused_when_the_key_only_reads_or_is_another_workspaces(
        client, make_tenant_database):
    owner, _, rule, binding, _ = await _workspace(client, make_tenant_database, "b@agency.test")
    reader, _ = await add_key(client, owner.workspace_id, scopes=(Scope.READ,))
    other = await Tenancy(client, time.time).owner("a@agency.test", "A Agency")
    stranger, _ = await add_key(client, other.workspace_id)
    async with remote(client, reader) as session:
        start = await session.call_tool("start_run", {"rule_id": rule["id"],
                                                      "record_type": "policy"})
        listed = _ok(await session.call_tool("list_bindings", {}))
    async with remote(client, stranger) as session:
        foreign = await session.call_tool("get_binding", {"binding_id": binding["id"]})
        foreign_start = await session.call_tool("start_run", {"rule_id": rule["id"],
                                                              "record_type": "policy"})
        none = _ok(await session.call_tool("list_bindings", {}))
    assert _error(start)["code"] == "insufficient_scope"
    assert [b["id"] for b in listed["items"]] == [binding["id"]]
    assert _error(foreign)["code"] == "not_found"
    assert _error(foreign_start)["code"] == "not_found"
    assert none == {"items": []}
