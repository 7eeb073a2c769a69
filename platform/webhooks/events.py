"""The catalogue of webhook events: each type, what it means and its payload's schema.

One table (`CATALOGUE`) is the single source: `publish` validates every payload against it, the
settings API serves it (`GET /api/v2/settings/webhooks/event-types/`) and docs/webhooks.md's
table is generated from it (`docs_table()`; a test compares). A delivery's body is the Standard
Webhooks envelope `{"type", "timestamp", "data"}`, `data` one of the payloads below.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_BODY_BYTES = 256 * 1024  # one event's serialised envelope; publish refuses larger

_PAYLOAD = ConfigDict(extra="forbid")  # a field the catalogue does not name is a publisher bug


class EventType(StrEnum):
    DECISION_MADE = "decision.made"
    TASK_OPENED = "task.opened"
    RUN_STARTED = "run.started"
    RUN_COMPLETED = "run.completed"
    RUN_FAILED = "run.failed"
    RUN_CANCELLED = "run.cancelled"


RecordType = Literal["client", "policy", "claim", "uw_submission"]
Decision = Literal["accept", "refer", "decline"]


class RulesetRef(BaseModel):
    model_config = _PAYLOAD

    rule_id: str = Field(description="The rule's id in the rule studio.")
    name: str = Field(description="The ruleset's name (`appetite.acme.gl`).")
    version: int = Field(ge=1, description="The version that decided.")


class RecordRef(BaseModel):
    model_config = _PAYLOAD

    type: RecordType
    id: str = Field(description="The record's primary key in the tenant database (what "
                    "`tasks.entity_id` and `uw_scores` refer to).")
    uuid: str | None = Field(None, description="The tenant API's uuid of a client, policy or "
                             "claim, when the publisher read it; null otherwise.")


class DecisionMade(BaseModel):
    """A published ruleset decided on one record of the tenant database (a binding reacting to
    a change, or a book run in apply mode); sent once per (ruleset version, record, record
    version), like the effects themselves."""

    model_config = _PAYLOAD

    ruleset: RulesetRef
    record: RecordRef
    decision: Decision | None = Field(description="null: no rule decided and the ruleset has "
                                      "no default decision.")
    score: float | None = Field(None, description="The score, when the ruleset computes one.")
    fired: list[str] = Field(description="Names of the rules that fired, in order.")
    reasons: list[str] = Field(description="The fired rules' reasons.")
    outputs: dict[str, Any] = Field(description="The ruleset's outputs.")
    execution_id: str = Field(description="The execution's id (the audit trail's).")
    source: Literal["binding", "run"]
    binding_id: str | None = Field(None, description="The binding that ran it (source binding).")
    run_id: str | None = Field(None, description="The book run (source run).")
    decided_at: datetime.datetime


class TaskInfo(BaseModel):
    model_config = _PAYLOAD

    id: str = Field(description="The task's id in the tenant database.")
    subject: str
    priority: str
    status: str


class TaskOpened(BaseModel):
    """A decision opened a task on a record (a `refer` or `decline`, or `outputs.task`)."""

    model_config = _PAYLOAD

    task: TaskInfo
    record: RecordRef
    ruleset: RulesetRef
    execution_id: str
    opened_at: datetime.datetime


class RunInfo(BaseModel):
    model_config = _PAYLOAD

    id: str = Field(description="The run's id (`GET /api/rules/runs/<id>/`).")
    rule_id: str
    version: int = Field(ge=1)
    mode: Literal["dry_run", "apply"]
    record_type: RecordType
    status: Literal["queued", "running", "completed", "failed", "cancelled"]
    total: int | None = Field(ge=0, description="Records the run covers (null: not yet counted).")
    done: int = Field(ge=0)
    errors: int = Field(ge=0, description="Records whose evaluation failed.")


class RunEvent(BaseModel):
    """A book run started, completed, failed or was cancelled; `summary` is the run's summary
    (decisions and fired counts) once it ended, null when it starts."""

    model_config = _PAYLOAD

    run: RunInfo
    summary: dict[str, Any] | None = None
    at: datetime.datetime


@dataclass(frozen=True)
class EventKind:
    type: EventType
    payload: type[BaseModel]
    description: str


CATALOGUE: dict[EventType, EventKind] = {kind.type: kind for kind in (
    EventKind(EventType.DECISION_MADE, DecisionMade,
              "A published ruleset decided on a record (binding or apply run)."),
    EventKind(EventType.TASK_OPENED, TaskOpened, "A decision opened a task on a record."),
    EventKind(EventType.RUN_STARTED, RunEvent, "A book run started."),
    EventKind(EventType.RUN_COMPLETED, RunEvent, "A book run went over every record."),
    EventKind(EventType.RUN_FAILED, RunEvent, "A book run stopped on an error."),
    EventKind(EventType.RUN_CANCELLED, RunEvent, "A book run was cancelled."),
)}


class EventPayloadError(ValueError):
    """A payload that is not its event type's (a publisher's bug), or too large."""


def envelope(event_type: str, payload: BaseModel | dict[str, Any],
             at: datetime.datetime) -> bytes:
    """The delivery body of one event: the Standard Webhooks envelope as compact JSON bytes,
    serialised once so every delivery and retry sends (and signs) the same bytes."""
    try:
        kind = CATALOGUE[EventType(event_type)]
    except ValueError:
        raise EventPayloadError(f"unknown event type {event_type!r}") from None
    try:
        data = kind.payload.model_validate(
            payload.model_dump() if isinstance(payload, BaseModel) else payload)
    except ValidationError as exc:
        raise EventPayloadError(f"{event_type} payload: {exc}") from None
    body = json.dumps({"type": kind.type.value, "timestamp": at.isoformat(),
                       "data": data.model_dump(mode="json")},
                      separators=(",", ":"), ensure_ascii=False).encode()
    if len(body) > MAX_BODY_BYTES:
        raise EventPayloadError(f"{event_type} payload is {len(body)} bytes serialised; "
                                f"at most {MAX_BODY_BYTES}")
    return body


def json_schema(kind: EventKind) -> dict[str, Any]:
    """The JSON Schema of the event's `data`."""
    return kind.payload.model_json_schema()


def docs_table() -> str:
    """The catalogue as the Markdown table of docs/webhooks.md."""
    lines = ["| type | when | payload (`data`) |", "|---|---|---|"]
    for kind in CATALOGUE.values():
        fields = ", ".join(f"`{name}`" for name in kind.payload.model_fields)
        lines.append(f"| `{kind.type.value}` | {kind.description} | "
                     f"`{kind.payload.__name__}`: {fields} |")
    return "\n".join(lines)
