"""Pieces of the local server without a child process: key checks, URL checks, usage batches,
tool schemas."""

from __future__ import annotations

import datetime

import pytest
from aiohttp import web

from insureops.platform.mcp_server.service_client import ServiceClient
from insureops.platform.mcp_server.troubleshooting import key_problems, url_problem
from insureops.platform.mcp_server.usage import UsageBatcher
from insureops.platform.mcp_tools.server import tool_listing
from insureops.platform.tenancy.book.payloads import PolicyCreate
from insureops.schema.jsonschemas import resource_schema

GOOD_KEY = "iops_" + "a1B2c3" * 6 + "Zz1Y"


@pytest.mark.parametrize("key, expected", [
    (GOOD_KEY, []),
    ("", ["SERVICE_API_KEY is not set."]),
    (GOOD_KEY + "\r\n", ["the key contains spaces or line breaks"]),
    ("Bearer " + GOOD_KEY, ["the key contains spaces or line breaks",
                            "the key does not start with `iops_`"]),
    ("iops_abc", ["the key has 8 characters instead of 45 (incomplete copy?)"]),
])
def test_key_problems_are_named_when_the_text_is_wrong(key, expected):
    assert key_problems(key) == expected


@pytest.mark.parametrize("url, found", [
    ("", "not set"), ("mysql://u:p@h/db", "use postgresql://"),
    ("postgresql://u:p@ss@h/db", "percent-encoded"), ("postgresql://u:p%40ss@h/db", None),
    ("sqlite:///tmp/x.db", None),
])
def test_url_problem_points_at_the_cause_when_the_url_is_unusable(url, found):
    problem = url_problem(url)
    assert (problem is None) if found is None else (found in problem)


async def test_usage_is_kept_and_resent_when_the_first_report_fails(aiohttp_server):
    received, answers = [], [503, 202]

    async def usage(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.json_response({"accepted": 1}, status=answers.pop(0))

    app = web.Application()
    app.router.add_post("/api/v2/mcp/usage/", usage)
    server = await aiohttp_server(app, host="127.0.0.1")
    times = iter(datetime.datetime(2026, 11, 22, 3, minute, tzinfo=datetime.UTC)
                 for minute in range(10))
    async with ServiceClient(str(server.make_url("")), GOOD_KEY) as client:
        batcher = UsageBatcher(client, clock=lambda: next(times))
        batcher.count("get_client")
        assert await batcher.flush() is False and batcher.pending == {"get_client": 1}
        batcher.count("get_client")
        batcher.count("create_policy")
        assert await batcher.flush() is True and batcher.pending == {}
        assert await batcher.flush() is True  # nothing to send: no request
    assert len(received) == 2
    assert received[1]["counts"] == [{"tool": "create_policy", "count": 1},
                                     {"tool": "get_client", "count": 2}]
    assert received[1]["period_start"] == "2026-11-22T03:00:00+00:00"


async def test_tool_inputs_use_the_data_model_schemas_when_listed():
    tools = {tool.name: tool for tool in tool_listing()}
    schema = tools["create_policy"].input_schema
    model = schema["$defs"][schema["properties"]["policy"]["$ref"].rsplit("/", 1)[1]]
    for name, description in PolicyCreate.descriptions.items():  # the service's own words
        assert model["properties"][name].pop("description") == description
    expected = resource_schema("Policy", "create")["properties"]
    for name, (_, further) in PolicyCreate.spellings.items():  # ACORD codes too (issue 33)
        expected[name] = {**expected[name], "enum": [*expected[name]["enum"], *further]}
    assert model["properties"] == expected
    assert tools["update_client"].input_schema["required"] == ["uuid", "client"]
    assert set(tools["list_policies"].input_schema["properties"]) >= {
        "limit", "cursor", "status", "client_uuid", "start_date_from"}
