"""Settings gains GET /api/v2/settings/usage/: the workspace's reported tool calls (session)."""

from __future__ import annotations

import time

from tests.platform.mcp.conftest import add_key
from tests.platform.workspaces import start_tenancy

REPORT = {"period_start": "2026-11-22T01:00:00Z", "period_end": "2026-11-22T02:00:00Z",
          "counts": [{"tool": "get_client", "count": 5}, {"tool": "create_policy", "count": 2}]}


async def test_usage_summary_shows_the_workspace_counts_when_a_member_asks(aiohttp_client,
                                                                          settings):
    tenancy = await start_tenancy(aiohttp_client, settings, time.time)
    client = tenancy.client  # keeps no cookies: each request names its member
    owner = await tenancy.owner("owner@example.org")
    colleague = await tenancy.member(owner, "colleague@example.org")
    stranger = await tenancy.owner("stranger@example.org", "Other agency")
    key, _ = await add_key(client, owner.workspace_id)
    for _ in range(2):
        response = await client.post("/api/v2/mcp/usage/", json=REPORT,
                                     headers={"Authorization": f"Bearer {key}"})
        assert response.status == 202
    summary = await (await client.get("/api/v2/settings/usage/",
                                      headers=colleague.headers)).json()
    assert summary["tools"] == [{"tool": "get_client", "count": 10},
                                {"tool": "create_policy", "count": 4}]
    assert summary["total"] == 14
    assert summary["first_period_start"].startswith("2026-11-22T01:00:00")
    other = await (await client.get("/api/v2/settings/usage/", headers=stranger.headers)).json()
    assert other["total"] == 0 and other["tools"] == []
    later = await (await client.get("/api/v2/settings/usage/", params={
        "start": "2026-11-22T01:30:00Z"}, headers=owner.headers)).json()
    assert later["total"] == 0


async def test_usage_summary_needs_a_session_when_called_with_a_key(client, make_tenant):
    tenant = await make_tenant(None)
    response = await client.get("/api/v2/settings/usage/", headers=tenant.headers)
    assert response.status == 401


async def test_usage_report_is_refused_when_a_period_is_a_unix_number(aiohttp_client, settings):
    # Found by schemathesis: pydantic's lax mode read 0 as 1970-01-01, but the document says
    # format date-time.
    tenancy = await start_tenancy(aiohttp_client, settings, time.time)
    owner = await tenancy.owner("owner@example.org")
    key, _ = await add_key(tenancy.client, owner.workspace_id)
    response = await tenancy.client.post("/api/v2/mcp/usage/", json={**REPORT, "period_start": 0},
                                         headers={"Authorization": f"Bearer {key}"})
    assert response.status == 400
    [detail] = (await response.json())["error"]["details"]
    assert detail["field"] == "period_start"


async def test_usage_summary_is_refused_when_start_is_a_number(aiohttp_client, settings):
    # Found by schemathesis: ?start=0.5 was read as a Unix time instead of a 400.
    tenancy = await start_tenancy(aiohttp_client, settings, time.time)
    owner = await tenancy.owner("owner@example.org")
    response = await tenancy.client.get("/api/v2/settings/usage/", params={"start": "0.5"},
                                        headers=owner.headers)
    assert response.status == 400
    assert (await response.json())["error"]["details"][0]["field"] == "start"
