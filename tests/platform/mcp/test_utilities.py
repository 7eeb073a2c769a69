"""validate-key, database/connection and usage reports of the tenant API."""

from __future__ import annotations

import pytest

from insureops.platform.auth.requirements import Scope
from insureops.platform.keys import DATABASE
from insureops.platform.records.usage import summarise_usage


async def test_validate_key_returns_workspace_tenant_and_scopes_when_the_key_is_valid(
        client, make_tenant):
    reader = await make_tenant(None, scopes=(Scope.READ,), name="Reader's agency")
    response = await client.post("/api/v2/mcp/validate-key/", headers=reader.headers)
    assert response.status == 200
    assert await response.json() == {
        "valid": True, "key_id": reader.key_id, "tenant_id": reader.tenant_id,
        "workspace": {"tenant_id": reader.tenant_id, "name": "Reader's agency"},
        "scopes": ["read"]}


@pytest.mark.parametrize("authorization", [None, "Bearer iops_unknown", "Basic abc",
                                           "Bearer iops_" + "A" * 40])
async def test_every_operation_is_401_when_the_key_is_missing_or_unknown(
        client, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    for method, path in [("POST", "/api/v2/mcp/validate-key/"),
                         ("GET", "/api/v2/mcp/clients/list/"),
                         ("GET", "/api/v2/mcp/database/connection/")]:
        response = await client.request(method, path, headers=headers)
        assert response.status == 401
        assert (await response.json())["error"]["code"] == "invalid_api_key"


async def test_usage_reports_are_stored_per_workspace_when_posted(client, make_tenant):
    a, b = await make_tenant(None), await make_tenant(None)
    report = {"period_start": "2026-11-22T02:00:00Z", "period_end": "2026-11-22T03:00:00Z",
              "counts": [{"tool": "create_client", "count": 3},
                         {"tool": "list_policies", "count": 2},
                         {"tool": "create_client", "count": 1}]}
    response = await client.post("/api/v2/mcp/usage/", json=report, headers=a.headers)
    assert response.status == 202 and await response.json() == {"accepted": 6}
    async with client.app[DATABASE].unit_of_work() as uow:
        mine = await summarise_usage(uow, a.tenant_id)
        theirs = await summarise_usage(uow, b.tenant_id)
    assert [(c.tool, c.count) for c in mine.counts] == [("create_client", 4),
                                                       ("list_policies", 2)]
    assert mine.total == 6 and theirs.total == 0


@pytest.mark.parametrize("report", [
    {"period_start": "2026-11-22T03:00:00Z", "period_end": "2026-11-22T02:00:00Z",
     "counts": [{"tool": "get_client", "count": 1}]},
    {"period_start": "2026-11-22T02:00:00Z", "period_end": "2026-11-22T03:00:00Z",
     "counts": [{"tool": "get_client", "count": 0}]},
    {"period_start": "2026-11-22T02:00:00Z", "period_end": "2026-11-22T03:00:00Z",
     "counts": [{"tool": "get_client", "count": 1, "arguments": {"name": "Ann"}}]},
])
async def test_usage_report_is_refused_when_malformed_or_carrying_data(client, make_tenant,
                                                                       report):
    tenant = await make_tenant(None)
    response = await client.post("/api/v2/mcp/usage/", json=report, headers=tenant.headers)
    assert response.status == 400
