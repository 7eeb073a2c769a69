"""Request and response shapes of the rule studio."""

from __future__ import annotations

import datetime
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictBool, model_validator

from insureops.platform.data.columns import INTEGER_MAX
from insureops.platform.http.bodies import UNKNOWN_FIELDS_REFUSED
from insureops.platform.http.timestamps import IsoDate

Kind = Literal["appetite", "triage", "underwriting", "pricing", "other"]
Status = Literal["draft", "published", "archived"]
MAX_SOURCE = 512 * 1024  # characters of one ruleset
DEFAULT_PAGE, MAX_PAGE = 50, 200
ULID_PATTERN = "^[0-9A-HJKMNP-TV-Z]{26}$"  # rule and approval ids
# A rule version number: stored in an INTEGER column, so a larger one cannot exist (and
# PostgreSQL refuses to compare one with the column: a 500, issue 28). Execution ids alike.
VersionNumber = Annotated[int, Field(ge=1, le=INTEGER_MAX)]


class DiagnosticInfo(BaseModel):
    """One problem the checker found, with where it is and how to fix it."""

    code: str = Field(description="Stable diagnostic code, e.g. E104 (docs/rules-language.md).")
    name: str = Field(description="The code's snake_case name, e.g. unknown_field.")
    severity: Literal["error", "warning"]
    message: str
    hint: str | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None


class TestResult(BaseModel):
    """One embedded `test` block's outcome at save time."""

    __test__ = False  # not a pytest test class

    description: str
    passed: bool
    message: str | None = Field(description="Why it failed; null when it passed.")
    line: int | None


class RuleCreate(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    source: str = Field(min_length=1, max_length=MAX_SOURCE,
                        description="The ruleset's text; its `ruleset NAME` names the rule.")
    title: str | None = Field(None, min_length=1, max_length=200,
                              description="Default: the ruleset's title, else its name.")
    kind: Kind = "other"


class RuleUpdate(BaseModel):
    """Every field optional; a changed `source` makes a new version."""

    model_config = UNKNOWN_FIELDS_REFUSED


    source: str | None = Field(None, min_length=1, max_length=MAX_SOURCE)
    title: str | None = Field(None, min_length=1, max_length=200)
    kind: Kind | None = None
    published_version: VersionNumber | None = Field(
        None, description="Publish this version (an older one rolls back); its embedded "
        "tests must have passed.")
    status: Status | None = Field(
        None, description="published: publish the current version; draft: withdraw the "
        "publication; archived: as DELETE.")


class VersionInfo(BaseModel):
    number: int
    content_hash: str = Field(description="SHA-256 of the source.")
    author_id: str | None
    created_at: datetime.datetime
    tests_passed: bool = Field(description="Every embedded test passed at save time.")
    tests_failed: int


class VersionDetail(VersionInfo):
    source: str
    warnings: list[DiagnosticInfo]
    tests: list[TestResult]


class RuleSummary(BaseModel):
    id: str
    name: str = Field(description="The ruleset's name, unique in the workspace.")
    title: str
    kind: Kind
    status: Status
    current_version: int
    published_version: int | None
    created_by: str | None
    created_at: datetime.datetime
    updated_by: str | None
    updated_at: datetime.datetime


class RuleInfo(RuleSummary):
    version: VersionDetail = Field(description="The current version, or the one asked for "
                                   "with ?version=N.")


class RulePage(BaseModel):
    items: list[RuleSummary]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class VersionList(BaseModel):
    versions: list[VersionInfo] = Field(description="Oldest first.")


class PublicationEvent(BaseModel):
    action: Literal["published", "unpublished"]
    version: int | None
    actor_id: str | None = Field(description="The user who published or withdrew it.")
    at: datetime.datetime


class PublicationHistory(BaseModel):
    events: list[PublicationEvent] = Field(description="Oldest first.")


class StudioSettingsInfo(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    four_eyes: StrictBool = Field(description="Publishing needs the approval of an admin other than "
                            "the version's author.")


class ApprovalRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    version: VersionNumber | None = Field(None, description="Default: the current version.")


class ApprovalDecision(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    comment: str | None = Field(None, max_length=2000)


class ApprovalPath(BaseModel):
    rule_id: str = Field(pattern=ULID_PATTERN)
    approval_id: str = Field(pattern=ULID_PATTERN)


class ApprovalInfo(BaseModel):
    id: str
    version: int
    status: Literal["pending", "approved", "rejected"]
    requested_by: str | None
    requested_at: datetime.datetime
    decided_by: str | None
    decided_at: datetime.datetime | None
    comment: str | None


class ApprovalList(BaseModel):
    approvals: list[ApprovalInfo] = Field(description="Oldest first.")


class RuleListQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    kind: Kind | None = None
    status: Status | None = None
    name: str | None = Field(None, max_length=200, description="Ruleset names starting with it.")
    text: str | None = Field(None, max_length=200, description="Case-insensitive text in the "
                             "name, title or current source.")
    limit: int = Field(DEFAULT_PAGE, ge=1, le=MAX_PAGE, description="Page size (max 200).")
    cursor: str | None = Field(None, max_length=512,
                               description="`next_cursor` of the previous page (opaque).")


class RulePath(BaseModel):
    rule_id: str = Field(pattern=ULID_PATTERN)


class VersionQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    version: VersionNumber | None = Field(None, description="A version number; default: current.")


class CheckRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    source: str = Field(max_length=MAX_SOURCE)


class OutlineInput(BaseModel):
    name: str
    type: str


class OutlineRule(BaseModel):
    name: str
    title: str | None
    priority: int
    enabled: bool
    line: int | None


class OutlineTable(BaseModel):
    name: str
    title: str | None
    priority: int
    hit: str
    outputs: list[str]
    line: int | None


class Outline(BaseModel):
    name: str | None = Field(description="The ruleset's name; null after a syntax error.")
    title: str | None
    inputs: list[OutlineInput]
    rules: list[OutlineRule]
    tables: list[OutlineTable]


class CheckResponse(BaseModel):
    ok: bool = Field(description="No error (warnings allowed): the source can be saved.")
    diagnostics: list[DiagnosticInfo]
    outline: Outline


class AssistRequest(BaseModel):
    """A position in a source being edited (lines and columns from 1, in characters)."""

    model_config = UNKNOWN_FIELDS_REFUSED

    source: str = Field(max_length=MAX_SOURCE)
    line: int = Field(ge=1, le=INTEGER_MAX, description="The cursor's line, from 1.")
    column: int = Field(ge=1, le=INTEGER_MAX, description="The cursor's column, from 1, in "
                        "characters (Unicode code points), as diagnostics count them.")


class CompleteRequest(AssistRequest):
    known_source: str | None = Field(
        None, max_length=MAX_SOURCE, description="The last text of this editor that parsed "
        "(a check's `outline.name` was not null): while `source` does not parse (`business.` "
        "being typed), names and types come from it, as in the language server.")


class TextRange(BaseModel):
    line: int
    column: int
    end_line: int
    end_column: int


class CompletionEntry(BaseModel):
    label: str
    kind: Literal["field", "const", "input", "output", "function", "keyword", "type", "value",
                  "variable"]
    detail: str = Field(description="The type, or a built-in's summary.")
    documentation: str = Field(description="Markdown: the declaration, signature or schema "
                               "description; may be empty.")
    insert_text: str


class CompleteResponse(BaseModel):
    items: list[CompletionEntry] = Field(description="At most 500, in the language server's "
                                         "order; the editor filters them by the typed word.")
    range: TextRange = Field(description="The word before the cursor an item replaces.")
    notice: str | None = Field(description="Why the text was not analysed (over the editor's "
                               "budget), else null.")


class HoverInfo(TextRange):
    markdown: str


class HoverResponse(BaseModel):
    hover: HoverInfo | None = Field(description="The name under the position: its type and "
                                    "docs, and its range; null when there is none or the text "
                                    "does not parse.")
    notice: str | None


class RecordRef(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    type: Literal["client", "policy"]
    uuid: uuid.UUID


class SimulateCase(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    id: Any = Field(None, description="Any JSON value, copied to the case's result.")
    inputs: dict[str, Any] | None = Field(None, description="Every declared input name -> "
                                          "its value.")
    record: RecordRef | None = Field(None, description="Or a client or policy of the "
                                     "workspace's tenant database, given to the ruleset's "
                                     "only input (as execute does; at most 100 per request).")
    as_of: IsoDate | None = Field(None, description="Overrides the request's as_of.")
    expect: dict[str, Any] | None = Field(
        None, description="decision, score, reasons, tags, fired, outputs or error, checked "
        "as `insureops rules simulate` does.")

    @model_validator(mode="after")
    def _one(self) -> SimulateCase:
        if (self.inputs is None) == (self.record is None):
            raise ValueError("give exactly one of inputs and record")
        return self


class Baseline(BaseModel):
    """What to compare against: a version of the same rule, or a source."""

    model_config = UNKNOWN_FIELDS_REFUSED


    version: VersionNumber | None = None
    source: str | None = Field(None, min_length=1, max_length=MAX_SOURCE)

    @model_validator(mode="after")
    def _one(self) -> Baseline:
        if (self.version is None) == (self.source is None):
            raise ValueError("give exactly one of version and source")
        return self


class SimulateRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    source: str | None = Field(None, min_length=1, max_length=MAX_SOURCE,
                               description="A ruleset to simulate (not saved).")
    rule_id: str | None = Field(None, pattern=ULID_PATTERN,
                                description="Or a saved rule of the workspace.")
    version: VersionNumber | None = Field(None, description="With rule_id; default: current.")
    cases: list[SimulateCase] | None = Field(None, description="At most 10,000.")
    case_set_id: str | None = Field(None, pattern=ULID_PATTERN, description="Or the cases of "
                                    "a saved case set of a rule of the workspace.")
    as_of: IsoDate | None = Field(None, description="Default date; default: today (UTC).")
    explain: bool = Field(False, description="Add each case's evaluation trace.")
    baseline: Baseline | None = Field(None, description="Add the impact diff against it.")

    @model_validator(mode="after")
    def _target(self) -> SimulateRequest:
        if (self.source is None) == (self.rule_id is None):
            raise ValueError("give exactly one of source and rule_id")
        if (self.cases is None) == (self.case_set_id is None):
            raise ValueError("give exactly one of cases and case_set_id")
        if self.rule_id is None and (self.version is not None or (
                self.baseline is not None and self.baseline.version is not None)):
            raise ValueError("a version needs rule_id")
        return self


class Expectations(BaseModel):
    checked: int
    met: int
    not_met: int


class SimulateResponse(BaseModel):
    """Numbers are exact decimals written as JSON numbers, as the CLI writes them."""

    ruleset: str
    results: list[dict[str, Any]] = Field(description="Per case, in order: {id, result} or "
                                          "{id, error}, plus {expect: {met, mismatches}}.")
    summary: dict[str, Any] = Field(description="The summary of `insureops rules simulate`.")
    expectations: Expectations
    impact: dict[str, Any] | None = Field(description="With a baseline: the impact of "
                                          "`insureops rules diff --json`.")


class ExecuteRequest(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    inputs: dict[str, Any] | None = Field(None, description="Every declared input -> value.")
    record: RecordRef | None = Field(None, description="Or a client or policy of the "
                                     "workspace's tenant database, given to the ruleset's "
                                     "only input.")
    as_of: IsoDate | None = Field(None, description="Default: today (UTC).")
    explain: bool = Field(False, description="Add the evaluation trace to the result.")

    @model_validator(mode="after")
    def _one(self) -> ExecuteRequest:
        if (self.inputs is None) == (self.record is None):
            raise ValueError("give exactly one of inputs and record")
        return self


class ExecutionInfo(BaseModel):
    """One entry of the append-only execution log."""

    id: int
    rule_id: str
    version: int
    executed_by: str | None
    executed_at: datetime.datetime
    input_digest: str = Field(description="SHA-256 of the inputs as canonical JSON.")
    record: RecordRef | None
    as_of: datetime.date
    decision: str | None
    score: str | None = Field(description="The exact decimal score, as text.")
    fired: list[str]
    error: str | None = Field(description="The engine's error code when evaluation failed.")
    duration_ms: float


class ExecuteResponse(BaseModel):
    """Numbers in `result` are exact decimals written as JSON numbers."""

    execution: ExecutionInfo
    result: dict[str, Any] = Field(description="The result object of the rules language.")


class ExecutionPage(BaseModel):
    items: list[ExecutionInfo] = Field(description="Newest first.")
    next_cursor: str | None


class ExecutionListQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    limit: int = Field(DEFAULT_PAGE, ge=1, le=MAX_PAGE)
    cursor: str | None = Field(None, max_length=512)
    decision: str | None = Field(None, min_length=1, max_length=64,
                                 description="Only executions that decided this.")
    failed: bool | None = Field(None, description="true: only failed evaluations; false: "
                                "only evaluated ones.")
    executed_from: IsoDate | None = Field(None, description="Executed on or after this day "
                                          "(UTC).")
    executed_to: IsoDate | None = Field(None, description="Executed on or before this day "
                                        "(UTC).")
    record_uuid: uuid.UUID | None = Field(None, description="Only executions on this client "
                                          "or policy.")


class ExecutionPath(BaseModel):
    rule_id: str = Field(pattern=ULID_PATTERN)
    execution_id: int = Field(ge=1, le=INTEGER_MAX)


MAX_CASE_SET_CASES = 5_000  # cases of one saved case set
MAX_CASE_SET_BYTES = 2 * 1024 * 1024  # its cases as stored JSON
MAX_CASE_SETS = 50  # case sets of one rule


class CaseSetCreate(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    name: str = Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f]+$",
                      description="Unique among the rule's case sets.")
    cases: list[SimulateCase] = Field(description="At most 5,000 (2 MiB as JSON), at most 100 "
                                      "naming a tenant record: simulate's cases.")


class CaseSetUpdate(BaseModel):
    """Every field optional; send `If-Match: "N"` with the version the change is based on."""

    model_config = UNKNOWN_FIELDS_REFUSED

    name: str | None = Field(None, min_length=1, max_length=100, pattern=r"^[^\x00-\x1f]+$")
    cases: list[SimulateCase] | None = None


class CaseSetSummary(BaseModel):
    id: str
    rule_id: str
    name: str
    version: int = Field(description="Counts the set's saves from 1; `If-Match` names it.")
    case_count: int
    created_by: str | None
    created_at: datetime.datetime
    updated_by: str | None
    updated_at: datetime.datetime


class CaseSetInfo(CaseSetSummary):
    cases: list[dict[str, Any]] = Field(description="Simulate's cases, in order.")


class CaseSetList(BaseModel):
    case_sets: list[CaseSetSummary] = Field(description="By name.")


class CaseSetPath(BaseModel):
    rule_id: str = Field(pattern=ULID_PATTERN)
    case_set_id: str = Field(pattern=ULID_PATTERN)


class RuleSourceUpdate(BaseModel):
    """A push: a new source (a new version when it differs) and optionally title and kind.
    Publishing stays with the people of the workspace (PATCH by session, four eyes)."""

    model_config = UNKNOWN_FIELDS_REFUSED

    source: str = Field(min_length=1, max_length=MAX_SOURCE)
    title: str | None = Field(None, min_length=1, max_length=200)
    kind: Kind | None = None
