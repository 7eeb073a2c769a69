"""Helpers of the rules-at-work tests: a studio whose serve process runs the jobs, published
rules, and reading the tenant database's tasks, uw_scores, audit rows and ledger."""

from __future__ import annotations

import asyncio
import time

import sqlalchemy as sa

from insureops.platform.tenancy.engine import create_tenant_engine
from tests.platform.rules_studio.conftest import BASE

# A rule that fails (invalid_date) on a client whose city is not a date: failed records.
CITY_DATES = '''ruleset clients.dates "Client dates"
input client: Client
default decision accept

rule dated "A city that is a date"
when date(client.city) > date("2000-01-01")
then
    refer "City {client.city} is a date"
end

test "no city is accepted"
given client = {"name": "Ann"}
expect decision == "accept"
end
'''

TASKS = '''ruleset policies.review "Policy review"
input policy: Policy
default decision accept

rule large "Large premium"
when policy.premium > 5000
then
    score += 10
    refer "Premium {policy.premium} above 5000"
    tag "high"
end

test "a small policy is accepted"
given policy = {"premium": 100, "status": "active"}
expect decision == "accept"
end
'''


async def published(studio, owner, source: str) -> dict:
    rule = await studio.created(owner, source)
    response = await studio.patch(owner, rule["id"], published_version=1)
    assert response.status == 200, await response.text()
    return rule


def tenant_rows(url: str, statement: str) -> list[dict]:
    engine = create_tenant_engine(url)
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(sa.text(statement))]
    finally:
        engine.dispose()


def tenant_execute(url: str, statement: str, **values) -> None:
    engine = create_tenant_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text(statement), values)
    finally:
        engine.dispose()


async def eventually(check, seconds: float = 8.0):
    """`check()`'s first truthy answer, polled; AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        found = await asyncio.to_thread(check)
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {check}")
        await asyncio.sleep(0.1)


async def bind(studio, member, **body):
    return await studio.client.post("/api/rules/bindings/", json=body, headers=member.headers)


async def start_run(studio, member, rule_id: str, **body):
    return await studio.client.post(f"{BASE}/{rule_id}/runs/", json=body,
                                    headers=member.headers)


async def finished_run(studio, member, run_id: str, seconds: float = 30.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        response = await studio.client.get(f"/api/rules/runs/{run_id}/", headers=member.headers)
        body = await response.json()
        if body["status"] in ("completed", "failed", "cancelled"):
            return body
        assert time.monotonic() < deadline, body
        await asyncio.sleep(0.1)
