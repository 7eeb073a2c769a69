"""Request and response shapes of the client and policy operations (HTTP bodies, MCP tool inputs).

The record payloads *are* the data model's JSON Schemas: validation runs schema/'s schema (with
one {field, message} per failure) and the published schema (OpenAPI, MCP tool input) is that same
schema, so the HTTP API and the local MCP server accept exactly the same payloads.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from insureops.carrier_matching.lines import LINES, policy_line_asked
from insureops.platform.http.timestamps import IsoDate, IsoDateTime
from insureops.platform.tenancy.book.validation import payload_errors
from insureops.schema.enums import ENUMS
from insureops.schema.jsonschemas import Mode, resource_schema

MAX_PAGE = 200
DEFAULT_PAGE = 50


class SchemaPayload(BaseModel):
    """A JSON object validated by a data-model JSON Schema; the fields sent are in `values`."""

    model_config = ConfigDict(extra="allow")
    resource: ClassVar[str]
    mode: ClassVar[Mode]
    descriptions: ClassVar[dict[str, str]] = {}  # what the service adds to the data model's words
    # field -> (reader, further values): a field that also takes another spelling than the data
    # model's (a policy line as an ACORD code), read to the stored value before validation
    spellings: ClassVar[dict[str, tuple[Callable[[Any], Any], tuple[str, ...]]]] = {}

    @model_validator(mode="wrap")
    @classmethod
    def _validate_with_schema(cls, data: Any, handler: Any) -> Any:
        if isinstance(data, cls):
            return data
        if isinstance(data, dict) and cls.spellings:
            data = {**data, **{name: read(data[name]) for name, (read, _) in
                               cls.spellings.items() if name in data}}
        errors = payload_errors(cls.resource, cls.mode, data)
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, [
                InitErrorDetails(type=PydanticCustomError("schema", error["message"]),
                                 loc=tuple(error["field"].split(".")), input=None)
                for error in errors])
        return handler(data)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        schema = resource_schema(cls.resource, cls.mode)
        schema.pop("$schema", None)
        schema.pop("$id", None)
        for name, description in cls.descriptions.items():
            schema["properties"][name] = {**schema["properties"][name],
                                          "description": description}
        for name, (_, further) in cls.spellings.items():
            field = schema["properties"][name]
            schema["properties"][name] = {**field, "enum": [*field["enum"], *further]}
        return schema

    @property
    def values(self) -> dict[str, Any]:
        """The fields given, as decoded JSON (dates, uuids and decimals still in JSON form)."""
        return dict(self.model_extra or {})


class ClientCreate(SchemaPayload):
    resource = "Client"
    mode = "create"


class ClientUpdate(SchemaPayload):
    """A partial update: only the fields given change (PATCH and PUT alike)."""

    resource = "Client"
    mode = "update"


ACORD_CODES = tuple(line.code for line in LINES)
# A policy's line of business is also accepted as the carrier finder's ACORD code (CGL is
# liability, WORK workers_comp; carrier_matching/lines.py), stored as the data model's value.
POLICY_LINE = {"line_of_business": (policy_line_asked, ACORD_CODES)}

POLICY_REFERENCES = {
    "client_id": "The policy's client, of the same workspace: the client's `id` or its `uuid` "
                 "(either one; stored and answered as the client's `id`).",
    "producer_id": "The producer's `id`, of the same workspace.",
    "line_of_business": "The data model's line (property, auto, liability, ...), or a carrier "
                        "finder ACORD code (CGL, BOP, WORK, ...) stored as the line it is "
                        "written as (docs/carrier-finder.md, \"Lines of business\").",
}


class PolicyCreate(SchemaPayload):
    resource = "Policy"
    mode = "create"
    descriptions = POLICY_REFERENCES
    spellings = POLICY_LINE


class PolicyUpdate(SchemaPayload):
    """A partial update; a `status` change must follow the policy state machine."""

    resource = "Policy"
    mode = "update"
    descriptions = POLICY_REFERENCES
    spellings = POLICY_LINE


SUBMISSION_FIELDS = {
    "client_id": "The submission's client, of the same workspace: the client's `id` or its "
                 "`uuid` (either one; stored and answered as the client's `id`).",
    "policy_id": "The policy it is for, when there is one, of the same workspace: its `id` or "
                 "its `uuid` (stored and answered as the policy's `id`).",
    "lob": "The data model's line, or a carrier finder ACORD code stored as its line.",
    "answers": "The application's answers (any JSON object).",
    "attachments": "What goes with it (any JSON).",
}


class UwSubmissionCreate(SchemaPayload):
    """A new underwriting submission: every field optional, as the data model has them."""

    resource = "UwSubmission"
    mode = "create"
    descriptions = SUBMISSION_FIELDS
    spellings = {"lob": (policy_line_asked, ACORD_CODES)}


class ClientRecord(SchemaPayload):
    """A stored client: every field of the data model."""

    resource = "Client"
    mode = "read"


class PolicyRecord(SchemaPayload):
    """A stored policy: every field of the data model."""

    resource = "Policy"
    mode = "read"


class ListQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int = Field(DEFAULT_PAGE, ge=1, le=MAX_PAGE, description="Page size (max 200).")
    cursor: str | None = Field(None, max_length=512,
                               description="`next_cursor` of the previous page (opaque).")


class ClientListQuery(ListQuery):
    """Filters of the client list (all optional, combined with AND)."""

    email: str | None = Field(None, max_length=255, description="Exact e-mail (case-insensitive).")
    name_contains: str | None = Field(None, max_length=255,
                                      description="Part of the name (case-insensitive).")
    country: str | None = Field(None, max_length=100, description="Exact country.")
    created_from: IsoDateTime | None = Field(None, description="Created at or after.")
    created_to: IsoDateTime | None = Field(None, description="Created before.")


PolicyStatus = Literal[ENUMS["policy_status"]]  # type: ignore[valid-type]
LineOfBusiness = Literal[ENUMS["lob"]]  # type: ignore[valid-type]
AcordCode = Literal[ACORD_CODES]  # type: ignore[valid-type]
# a filter's line: the data model's, or an ACORD code read as the line it is written as
LineFilter = Annotated[LineOfBusiness | AcordCode,  # type: ignore[valid-type]
                       BeforeValidator(policy_line_asked)]


class PolicyListQuery(ListQuery):
    """Filters of the policy list (all optional, combined with AND)."""

    status: PolicyStatus | None = None  # type: ignore[valid-type]
    line_of_business: LineFilter | None = Field(
        None, description="The data model's line, or an ACORD code (CGL: liability).")
    client_uuid: uuid.UUID | None = Field(None, description="Policies of this client (its uuid).")
    policy_number: str | None = Field(None, max_length=50, description="Exact policy number.")
    start_date_from: IsoDate | None = Field(None, description="start_date on or after.")
    start_date_to: IsoDate | None = Field(None, description="start_date on or before.")
    end_date_from: IsoDate | None = Field(None, description="end_date on or after.")
    end_date_to: IsoDate | None = Field(None, description="end_date on or before.")
    created_from: IsoDateTime | None = Field(None, description="Created at or after.")
    created_to: IsoDateTime | None = Field(None, description="Created before.")


class ClientPage(BaseModel):
    items: list[ClientRecord]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class PolicyPage(BaseModel):
    items: list[PolicyRecord]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class TaskListQuery(ListQuery):
    """Filters of the task list (all optional, combined with AND); oldest first."""

    status: Literal["open", "in_progress", "done", "cancelled"] | None = Field(
        None, description="The task state machine's states (docs/data-model.md).")
    entity_type: str | None = Field(None, max_length=50, description="policy, claim, client, "
                                    "invoice, ... (exact).")
    entity_id: uuid.UUID | None = Field(None, description="Tasks on this record (its `id`).")


class UwScoreListQuery(ListQuery):
    """Filters of the uw_scores list (all optional, combined with AND); oldest first."""

    submission_id: uuid.UUID | None = Field(None, description="Scores of this submission.")
    decision: str | None = Field(None, max_length=50, description="approve, decline, refer, "
                                 "... (exact).")


class UwSubmissionListQuery(ListQuery):
    """Filters of the uw_submissions list (all optional, combined with AND); oldest first."""

    client_id: uuid.UUID | None = Field(None, description="Submissions of this client (`id`).")
    lob: LineFilter | None = Field(None, description="The line: the data model's, or an ACORD "
                                   "code read as its line.")


class RecordId(BaseModel):
    id: uuid.UUID = Field(description="The record's `id`.")


class TaskRecord(BaseModel):
    """A task of the data model (opened by a person, an application or a rule)."""

    id: uuid.UUID
    subject: str
    due_at: IsoDateTime | None = None
    status: str
    priority: str
    assigned_to: uuid.UUID | None = None
    entity_type: str | None = None
    entity_id: uuid.UUID | None = None
    meta: Any = None
    created_at: IsoDateTime


class UwScoreRecord(BaseModel):
    """An underwriting score of a submission (decimals as JSON numbers)."""

    id: uuid.UUID
    submission_id: uuid.UUID
    score: float | None = None
    factors: Any = None
    decision: str | None = None
    decided_at: IsoDateTime


class UwSubmissionRecord(BaseModel):
    """A stored underwriting submission."""

    id: uuid.UUID
    client_id: uuid.UUID | None = None
    policy_id: uuid.UUID | None = None
    lob: str | None = None
    answers: Any = None
    attachments: Any = None
    created_at: IsoDateTime


class TaskPage(BaseModel):
    items: list[TaskRecord]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class UwScorePage(BaseModel):
    items: list[UwScoreRecord]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class UwSubmissionPage(BaseModel):
    items: list[UwSubmissionRecord]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")
