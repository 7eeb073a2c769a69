"""The market in the tenant API (MCP v2, API key): search, scored matching and classification.
Mounted at /api/v2/mcp/market with the carrier finder's state (docs/mcp.md).

The session routes' handlers and answers (routes.py); the caller is an API key with the write
scope (POST operations, the spec's rule), whose workspace's own carriers and appetites are part of the market it sees, as a
session's are. Classification uses the workspace's LLM key when it has one, as a session does.
"""

from __future__ import annotations

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.carrier_finder.market import routes as market
from insureops.platform.carrier_finder.market.payloads import (
    ClassifyRequest,
    ClassifyResponse,
    MatchRequest,
    MatchResponse,
    SearchRequest,
    SearchResponse,
)
from insureops.platform.http.routing import Call, RouteTable

# The spec's rule for the tenant API (service-interface.md, Authentication 3): read for GET,
# write for POST, also for a POST that changes nothing, as these.
WRITE = Auth.api_key(Scope.WRITE)

routes = RouteTable("mcp_market", "Tenant API (API key): market search, carrier matching and "
                    "classification.")
routes.errors.merge(market.routes.errors)


@routes.post("/search/", body=SearchRequest, response=SearchResponse, auth=WRITE,
             summary="Search the market by business criteria",
             description="As POST /api/v1/carrier_finder/search/.")
async def search_market(call: Call[SearchRequest, None]) -> SearchResponse:
    return await market.search(call)


@routes.post("/match-carriers-detailed/", body=MatchRequest, response=MatchResponse,
             auth=WRITE, errors=(400,), summary="Match carriers for a business, with scoring",
             description="As POST /api/v1/carrier_finder/match-carriers-detailed/.")
async def match_carriers(call: Call[MatchRequest, None]) -> MatchResponse:
    return await market.match_detailed(call)


@routes.post("/classify/", body=ClassifyRequest, response=ClassifyResponse, auth=WRITE,
             summary="Classify a business description into NAICS codes",
             description="As POST /api/v1/carrier_finder/classify/, for the key's workspace "
             "(its LLM key, when saved, chooses among the offline candidates).")
async def classify_business(call: Call[ClassifyRequest, None]) -> ClassifyResponse:
    return await market.classify_for(call, call.principal.active_workspace_id)
