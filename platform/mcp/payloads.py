"""Request and response shapes of the tenant API's utility operations (key, connection, usage).

The client and policy shapes are shared with the local MCP server: platform.tenancy.book.payloads.
"""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from insureops.platform.auth.requirements import Scope
from insureops.platform.http.timestamps import IsoDateTime

TOOL_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"


class RecordPath(BaseModel):
    uuid: UUID = Field(description="The record's `uuid` field.")


class WorkspaceInfo(BaseModel):
    tenant_id: str = Field(description="The workspace's tenant id (a ULID).")
    name: str


class KeyValidation(BaseModel):
    """What a valid key may do, and for whom."""

    valid: bool = True
    key_id: str
    workspace: WorkspaceInfo
    tenant_id: str
    scopes: list[Scope]


class DatabaseConnection(BaseModel):
    """The workspace's tenant database connection string (it contains the password)."""

    connection_string: str = Field(description="A connection URI as the workspace saved it "
                                   "(`postgresql://...`, which psql takes; `sqlite:///<file>`).")
    backend: str = Field(description="postgresql or sqlite")


class ToolCount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str = Field(pattern=TOOL_NAME_PATTERN, description="The tool's name.")
    count: int = Field(ge=1, le=10_000_000, description="Calls in the period.")


class UsageReport(BaseModel):
    """Counts of tool calls of a local MCP server in one period: no arguments, no results."""

    model_config = ConfigDict(extra="forbid")

    period_start: IsoDateTime
    period_end: IsoDateTime
    counts: list[ToolCount] = Field(min_length=1, max_length=100)

    @model_validator(mode="after")
    def _check_period(self) -> UsageReport:
        if self.period_start.tzinfo is None or self.period_end.tzinfo is None:
            raise ValueError("period_start and period_end need a time zone")
        if self.period_end < self.period_start:
            raise ValueError("period_end is before period_start")
        return self


class UsageAccepted(BaseModel):
    accepted: int = Field(description="Calls counted from this report.")
