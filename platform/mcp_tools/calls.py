"""The tools' calls without the MCP SDK: a refusal or failure as the API's error object
(`{"error": {"code", "message", "details"?}}`), the backend protocol a transport runs tools
through, and argument validation against the tool's input model (`validation_error` with one
`{field, message}` per field at fault; input values are never echoed). The service's tenant API
dispatch uses these without importing the SDK (mcp_tools/server.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from insureops.platform.mcp_tools.registry import Tool


@dataclass
class ToolFailure(Exception):
    """A tool call refused or failed, as the API's error object."""

    code: str
    message: str
    details: list[dict[str, str]] | None = None
    troubleshooting: tuple[str, ...] = field(default=())

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            error["details"] = self.details
        if self.troubleshooting:
            error["troubleshooting"] = list(self.troubleshooting)
        return {"error": error}


class ToolBackend(Protocol):
    """Runs a tool's operation for one caller; answers the result as JSON text."""

    async def call(self, tool: Tool, arguments: BaseModel, raw: dict[str, Any]) -> str:
        """Run `tool` with its validated `arguments` (`raw`: the same, as the JSON sent);
        raise ToolFailure when refused or failed."""


def validate_arguments(tool: Tool, raw: dict[str, Any]) -> BaseModel:
    """The tool's argument model from the JSON arguments, or ToolFailure(validation_error)."""
    try:
        return tool.arguments.model_validate(raw)
    except ValidationError as exc:
        details = [{"field": ".".join(str(part) for part in error["loc"]) or "arguments",
                    "message": error["msg"]}
                   for error in exc.errors(include_url=False, include_input=False)]
        raise ToolFailure("validation_error", f"The arguments of {tool.name} are invalid.",
                          details) from None
