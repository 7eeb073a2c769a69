"""The composition root: areas mounted at the interface spec's paths, routes reachable in each."""

from __future__ import annotations

from insureops.platform.app import AREAS, Area, create_app
from insureops.platform.auth.requirements import Auth
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.keys import MOUNTS

SPEC_PREFIXES = {
    "accounts": "/api/auth", "prospects": "/api/v1/carrier_finder/clients",
    "carrier_finder": "/api/v1/carrier_finder", "mcp": "/api/v2/mcp", "team": "/api/team",
    "settings": "/api/v2/settings", "rules_studio": "/api/rules",
    "connectors": "/api/v1/connectors", "studio_web": "/studio",
    "invitation_web": "/invitations",
    # the tenant API's operations of other areas (API key), and the remote MCP endpoint
    "mcp_market": "/api/v2/mcp/market", "mcp_rulesets": "/api/v2/mcp/rulesets",
    "mcp_prospects": "/api/v2/mcp/prospects", "mcp_endpoint": "/mcp",
    "mcp_bindings": "/api/v2/mcp/bindings", "mcp_runs": "/api/v2/mcp/runs",
    "finder_web": "/finder",
}


def test_each_area_is_mounted_at_its_spec_prefix_when_the_app_is_built(settings):
    mounts = create_app(settings)[MOUNTS]
    assert {m.table.tag: m.prefix for m in mounts if m.prefix} == SPEC_PREFIXES


def one_route_table(tag: str, path: str) -> RouteTable:
    table = RouteTable(tag)

    @table.get(path, response=None, status=204, auth=Auth.NONE, summary=tag)
    async def reached(call: Call[None, None]) -> None:
        return None

    return table


async def test_prospects_and_carrier_finder_both_answer_when_they_share_a_base_path(
        make_client, settings):
    shared = {"/api/v1/carrier_finder/clients", "/api/v1/carrier_finder"}
    areas = [area for area in AREAS if area.prefix not in shared] + [
        Area("/api/v1/carrier_finder/clients",
             one_route_table("prospects", "/check-duplicate/").build_app),
        Area("/api/v1/carrier_finder", one_route_table("carriers", "/carriers/").build_app),
    ]
    client = await make_client(settings, areas=areas)
    assert (await client.get("/api/v1/carrier_finder/clients/check-duplicate/")).status == 204
    assert (await client.get("/api/v1/carrier_finder/carriers/")).status == 204
    assert (await client.get("/api/v1/carrier_finder/clientsx/")).status == 404
