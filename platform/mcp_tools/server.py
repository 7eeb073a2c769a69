"""The MCP server of the tool registry, for either transport, on the official SDK.

`build_server(backend_of)` makes one low-level MCP `Server` listing every tool of the registry
and calling it through a `ToolBackend`: the local server's (on DATABASE_URL and the service) or
the remote endpoint's (in the service). The low-level server is used rather than MCPServer,
whose tool wrapper rewrites every failure as `Error executing tool <name>: ...` text; here each
failure is the API's error object (calls.ToolFailure), as the tool result's text and
structured content with `isError: true`, arguments validated first (calls.validate_arguments).
Only the transports import this module, when they serve: the SDK's import is a large part of a
service's start.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import cache
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server

from insureops.platform.mcp_tools.calls import ToolBackend, ToolFailure, validate_arguments
from insureops.platform.mcp_tools.registry import BY_NAME, TOOLS

logger = logging.getLogger("insureops.mcp_tools")

INSTRUCTIONS = (
    "insureops: a workspace's clients and policies (data model 2.2.0), its tasks and "
    "underwriting scores, the carrier market (search, scored matching, NAICS classification) "
    "its rulesets (list, read, simulate, execute, the execution log) and rules at work "
    "(bindings; book runs: read, dry-run, cancel). Lists are paged: pass "
    "next_cursor back as cursor. Failures are {\"error\": {\"code\", \"message\", "
    "\"details\"?}} with isError true.")


def _result(text: str, *, error: bool = False) -> types.CallToolResult:
    structured = json.loads(text)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=structured if isinstance(structured, dict) else {"result": structured},
        is_error=error)


def failure_result(failure: ToolFailure) -> types.CallToolResult:
    return _result(json.dumps(failure.body()), error=True)


@cache
def tool_listing() -> tuple[types.Tool, ...]:
    """Every tool with its input schema (the arguments model's JSON Schema), built once."""
    return tuple(types.Tool(name=tool.name, description=tool.description,
                       input_schema=tool.arguments.model_json_schema())
            for tool in TOOLS)


async def call_tool(backend: ToolBackend, name: str,
                    raw: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call, every failure answered as the error object."""
    tool = BY_NAME.get(name)
    if tool is None:
        return failure_result(ToolFailure("not_found", f"There is no tool named {name!r}."))
    raw = dict(raw or {})
    try:
        arguments = validate_arguments(tool, raw)
        return _result(await backend.call(tool, arguments, raw))
    except ToolFailure as failure:
        return failure_result(failure)
    except Exception:  # a bug: logged with its trace, answered without it
        logger.exception("tool %s failed", name)
        return failure_result(ToolFailure("internal_error", "The tool failed; the service "
                                          "logged the error."))


def build_server(backend_of: Callable[[ServerRequestContext], ToolBackend]) -> Server:
    """The MCP server of every tool; `backend_of` gives the backend of a request's caller."""
    async def list_tools(ctx: ServerRequestContext,
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(tool_listing()))

    async def call(ctx: ServerRequestContext,
                   params: types.CallToolRequestParams) -> types.CallToolResult:
        return await call_tool(backend_of(ctx), params.name, params.arguments)

    return Server("insureops", instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call)
