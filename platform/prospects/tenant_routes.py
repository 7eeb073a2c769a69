"""The prospects in the tenant API (MCP v2, API key): the workspace's prospects, read-only.
Mounted at /api/v2/mcp/prospects (docs/mcp.md).

Prospects belong to the browser extension's identity-provider users; a workspace sees those
whose owner e-mail is a verified member's (docs/prospects.md, "Prospects in a workspace"), as
the carrier finder's similar businesses does. A key reads them; saving stays with the extension.
"""

from __future__ import annotations

from insureops.platform.auth.requirements import Auth, Scope
from insureops.platform.http.routing import Call, RouteTable
from insureops.platform.prospects import routes as prospects
from insureops.platform.prospects import service
from insureops.platform.prospects.payloads import ListQuery, Prospect, ProspectPage

routes = RouteTable("mcp_prospects", "Tenant API (API key): the workspace's prospects.")
routes.errors.merge(prospects.routes.errors)


@routes.get("/", query=ListQuery, response=ProspectPage, auth=Auth.api_key(Scope.READ),
            summary="List the workspace's prospects",
            description="Those its verified members saved from the browser extension; filters "
            "`status` and `state`, `ordering` (default newest first), a page at a time.")
async def list_workspace_prospects(call: Call[None, ListQuery]) -> ProspectPage:
    rows, cursor = await call.read(lambda uow: service.workspace_page(
        uow, call.principal.active_workspace_id, call.query))
    return ProspectPage(items=[Prospect.model_validate(row) for row in rows], next_cursor=cursor)
