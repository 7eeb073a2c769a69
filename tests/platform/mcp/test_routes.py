"""The client and policy routes come from one declaration per resource, named like the tools."""

from __future__ import annotations

from insureops.platform.mcp.routes import RESOURCES, routes
from insureops.platform.mcp_tools.registry import TOOLS


async def test_record_operations_carry_the_tool_names_when_declared_per_resource():
    record_paths = tuple(f"/{resource.plural}/" for resource in RESOURCES)
    operations = {route.name for route in routes.routes if route.path.startswith(record_paths)
                  and route.method != "PUT"}
    tools = {tool.name for tool in TOOLS if tool.path.startswith(
        tuple(f"/api/v2/mcp{path}" for path in record_paths))}
    assert operations == tools


def test_put_and_patch_update_alike_when_declared_for_each_resource():
    for resource in RESOURCES:
        updates = [route for route in routes.routes
                   if route.path == f"/{resource.plural}/{{uuid}}/update/"]
        assert sorted(route.method for route in updates) == ["PATCH", "PUT"]
        assert {(route.body, route.response, route.path_model) for route in updates} == {
            (resource.update, resource.record, updates[0].path_model)}
