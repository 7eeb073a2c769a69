"""Request and response shapes of bindings and book runs."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from insureops.platform.http.bodies import UNKNOWN_FIELDS_REFUSED
from insureops.platform.http.timestamps import IsoDate
from insureops.platform.rules_studio.payloads import ULID_PATTERN, VersionNumber
from insureops.platform.rules_studio.work.conditions import MAX_LENGTH

RecordType = Literal["client", "policy", "claim", "uw_submission"]
Event = Literal["created", "updated"]


class BindingCreate(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    rule_id: str = Field(pattern=ULID_PATTERN, description="The rule whose published version "
                         "runs (at the time of each write).")
    record_type: RecordType
    on: list[Event] = Field(min_length=1, max_length=2, description="Which writes run it.",
                            json_schema_extra={"uniqueItems": True})
    where: str | None = Field(None, min_length=1, max_length=MAX_LENGTH, description=(
        "A condition in the rules language on the record, named by its type "
        "(`policy.premium > 5000`); checked now (400 with line and column)."))

    @field_validator("on")
    @classmethod
    def _distinct(cls, events: list[str]) -> list[str]:
        if len(set(events)) != len(events):
            raise ValueError("name each event once")
        return events


class BindingInfo(BaseModel):
    id: str
    rule_id: str
    record_type: RecordType
    on: list[Event]
    where: str | None
    status: Literal["active", "paused"]
    created_by: str | None
    created_at: datetime.datetime
    updated_at: datetime.datetime
    evaluated: int = Field(description="Records the binding evaluated.")
    effects: int = Field(description="uw_scores and tasks rows it wrote.")
    errors: int = Field(description="Records whose evaluation failed.")
    last_error: str | None = Field(description="The latest failure: record and error.")
    last_evaluated_at: datetime.datetime | None


class BindingList(BaseModel):
    items: list[BindingInfo]


class BindingPath(BaseModel):
    binding_id: str = Field(pattern=ULID_PATTERN)


class RunCreate(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    record_type: RecordType
    mode: Literal["dry_run", "apply"] = "dry_run"
    version: VersionNumber | None = Field(None, description="Default: the published version "
                                          "(an apply run needs it; a dry run may try any).")
    where: str | None = Field(None, min_length=1, max_length=MAX_LENGTH,
                              description="A condition on each record, as for bindings.")
    as_of: IsoDate | None = Field(None, description="Evaluation date; default: today.")


class RunPath(BaseModel):
    run_id: str = Field(pattern=ULID_PATTERN)


class RunListQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    rule_id: str | None = Field(None, pattern=ULID_PATTERN)
    limit: int = Field(50, ge=1, le=200)


class RunProgress(BaseModel):
    total: int | None = Field(description="Records the run covers (null until counted).")
    done: int = Field(description="Records examined so far.")
    matched: int = Field(description="Records the condition let through (all without one).")
    errors: int = Field(description="Records whose evaluation failed.")
    effects: int = Field(description="Effects written (apply runs).")
    rate: float | None = Field(description="Records per second of processing.")
    eta_seconds: float | None = Field(description="Seconds left at that rate.")
    percent: float | None


class RunInfo(BaseModel):
    id: str
    rule_id: str
    version: int
    baseline_version: int | None = Field(description="The version published when the run "
                                         "was asked for: the dry run's impact compares with it.")
    record_type: RecordType
    where: str | None
    mode: Literal["dry_run", "apply"]
    status: Literal["queued", "running", "completed", "failed", "cancelled"]
    as_of: datetime.date
    created_by: str | None
    created_at: datetime.datetime
    started_at: datetime.datetime | None
    finished_at: datetime.datetime | None
    cancel_requested: bool
    progress: RunProgress
    summary: dict[str, Any] | None = Field(description="Decisions, fired counts, scores and "
                                           "errors (with examples) of the records so far.")
    impact: dict[str, Any] | None = Field(description="Dry run: the `rules diff` report "
                                          "against the baseline version on the real book.")
    error: str | None


class RunList(BaseModel):
    items: list[RunInfo]


RECORD_ID_PATTERN = r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"


class FailureQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    limit: int = Field(50, ge=1, le=200)
    cursor: int | None = Field(None, ge=0, description="`next_cursor` of the previous page.")


class FailureError(BaseModel):
    code: str = Field(description="The engine's error code (e.g. step_limit, type_error).")
    message: str


class FailureInfo(BaseModel):
    record_type: RecordType
    record_id: str = Field(description="The record's id in the tenant database.")
    record_version: str | None = Field(description="The record version that failed (null "
                                       "for a dry run's failures).")
    error: FailureError
    failed_at: datetime.datetime | None


class FailureList(BaseModel):
    items: list[FailureInfo]
    next_cursor: int | None = Field(description="Pass as `cursor` for the next page.")


class BindingFailurePath(BaseModel):
    binding_id: str = Field(pattern=ULID_PATTERN)
    record_id: str = Field(pattern=RECORD_ID_PATTERN)


class RunFailurePath(BaseModel):
    run_id: str = Field(pattern=ULID_PATTERN)
    record_id: str = Field(pattern=RECORD_ID_PATTERN)


class RetryInfo(BaseModel):
    record_type: RecordType
    record_id: str
    status: Literal["succeeded", "failed", "not_matched"] = Field(description=(
        "succeeded: evaluated (its effects written, for a binding or an apply run) and the "
        "failure resolved; failed: it fails again (`error`), the failure stays; not_matched: "
        "the binding's or run's `where` no longer holds, the failure is resolved."))
    decision: str | None
    error: FailureError | None
    effects: int = Field(description="uw_scores and tasks rows written by the retry.")
