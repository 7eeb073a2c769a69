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
