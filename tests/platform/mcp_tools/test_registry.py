"""The tool registry against the tenant API it names: one route per tool, same scope, and
argument models that split into the route's own inputs (fast tier: no server)."""

from __future__ import annotations

import uuid

import pytest

from insureops.platform.app import create_app
from insureops.platform.auth.requirements import AuthKind
from insureops.platform.keys import MOUNTS
from insureops.platform.mcp.dispatch import operation_route
from insureops.platform.mcp_tools.calls import ToolFailure, validate_arguments
from insureops.platform.mcp_tools.registry import BY_NAME, TOOLS


def test_every_tool_is_an_api_key_route_with_its_scope_when_the_app_is_built(settings):
    mounts = create_app(settings)[MOUNTS]
    for tool in TOOLS:
        route = operation_route(mounts, tool)
        assert route.auth.kind is AuthKind.API_KEY, tool.name
        assert (route.auth.scope or tool.scope) is tool.scope, tool.name
        if route.path_model is not None:
            assert set(route.path_model.model_fields) == set(tool.path_parameters), tool.name


def test_tool_names_are_unique_when_the_registry_is_read():
    assert len(BY_NAME) == len(TOOLS)


def test_arguments_split_into_path_query_and_body_when_a_request_is_made():
    record = str(uuid.uuid4())
    update = BY_NAME["update_client"].request({"uuid": record, "client": {"name": "N"}})
    assert (update.method, update.path, update.query, update.body) == (
        "PATCH", f"/api/v2/mcp/clients/{record}/update/", {}, {"name": "N"})
    listed = BY_NAME["list_executions"].request({"rule_id": "01" * 13, "limit": 5,
                                                 "cursor": None})
    assert (listed.path, listed.query, listed.body) == (
        f"/api/v2/mcp/rulesets/{'01' * 13}/executions/", {"limit": "5"}, None)
    execute = BY_NAME["execute_ruleset"].request({"rule_id": "01" * 13, "inputs": {"a": 1}})
    assert execute.body == {"inputs": {"a": 1}}
    run = BY_NAME["start_run"].request({"rule_id": "01" * 13, "record_type": "policy"})
    assert (run.path, run.body) == (f"/api/v2/mcp/rulesets/{'01' * 13}/runs/",
                                    {"record_type": "policy"})


@pytest.mark.parametrize(("tool", "arguments", "fields"), [
    ("get_client", {"uuid": "not-a-uuid"}, {"uuid"}),
    ("get_client", {}, {"uuid"}),
    ("list_clients", {"limit": 500, "colour": "red"}, {"limit", "colour"}),
    ("execute_ruleset", {"rule_id": "x", "inputs": {}}, {"rule_id"}),
    ("create_client", {"client": {"name": "A", "tenant_id": "other"}}, {"client.tenant_id"}),
])
def test_argument_errors_name_the_fields_when_validation_fails(tool, arguments, fields):
    with pytest.raises(ToolFailure) as failure:
        validate_arguments(BY_NAME[tool], arguments)
    body = failure.value.body()["error"]
    assert body["code"] == "validation_error"
    assert {detail["field"] for detail in body["details"]} == fields
    assert "not-a-uuid" not in str(body) and "other" not in str(body)


def test_the_local_server_runs_every_book_tool_when_it_serves_the_registry():
    from insureops.platform.mcp_server.tools import BOOK_RUNS

    assert set(BOOK_RUNS) == {tool.name for tool in TOOLS if tool.book}
