"""Request and response shapes of the carrier finder area."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    model_validator,
)

from insureops.carrier_matching.lines import LINES, expand_lines
from insureops.platform.carrier_finder.market.business_model import Business
from insureops.platform.tenancy.book.payloads import (
    ClientCreate,
    ClientRecord,
    UwSubmissionRecord,
)

LineCode = StrEnum("LineCode", {line.code: line.code for line in LINES})
# ACORD codes, or a policy's line_of_business (liability: every liability code), issue 33
LineCodes = Annotated[list[LineCode], BeforeValidator(expand_lines)]  # type: ignore[valid-type]
# one line asked for in a query: a code, or a policy line read as all of its codes
LineQuery = Annotated[list[LineCode], BeforeValidator(  # type: ignore[valid-type]
    lambda value: expand_lines([value]) if isinstance(value, str) else value)]
NAICS_PATTERN = r"^[0-9]{2,6}$"
NAICS_PREFIX = Field(None, pattern=NAICS_PATTERN, description="A NAICS code or prefix, 2-6 digits.")
STATE = Field(None, min_length=2, max_length=2, description="A state code, e.g. AZ.")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MatchRequest(_Strict):
    business: Business
    lines: LineCodes | None = Field(
        None, description="Line codes to match (ACORD codes, or a policy line_of_business such "
        "as liability for all its codes); default the business's lines_of_business, else the lines of its requests, else all.")
    explain: StrictBool = Field(False, description="Add the engine's trace to each result.")
    limit: StrictInt | None = Field(None, ge=1, le=1000, description="Return only the best N results.")


class CarrierRef(BaseModel):
    id: str
    name: str
    rating: str


class ProductRef(BaseModel):
    id: str
    name: str
    line: str


class AccessInfo(BaseModel):
    path: Literal["direct", "wholesaler", "mga"] = Field(
        description="direct: an appointment with the carrier; else through `via`.")
    via: str | None = Field(None, description="The wholesaler's or MGA's id in the market.")
    text: str = Field(description="In words, with the intermediary's contact.")


class MatchItem(BaseModel):
    carrier: CarrierRef
    product: ProductRef
    decision: Literal["accept", "refer", "decline"]
    score: float
    reasons: list[str] = Field(description="The deciding reason first.")
    questions: list[str] = Field(
        default_factory=list, description="\"Ask the client: ...\" lines of this product: what "
        "it would still ask (an unanswered question never decides).")
    notes: list[str] = Field(default_factory=list, description="The diligent-search note on a "
                             "surplus lines answer that is not a decline.")
    strength: Literal["preferred", "standard", "limited"] | None = Field(
        None, description="The carrier's appetite for the product (null: not stated).")
    access: AccessInfo | None = Field(None, description="How an agent reaches the product: the "
                                      "product's own path, else its carrier's (null: unknown).")
    submit: list[str] = Field(default_factory=list, description="Where submissions go: the "
                              "carrier's e-mail and portal.")
    quote_url: str | None = Field(None, description="An online quote, the product's or carrier's.")
    minimum_premium: float = Field(description="Dollars.")
    max_limit: float = Field(description="The largest per-occurrence limit, dollars.")
    tags: list[str]
    outputs: dict[str, Any]
    evaluated: bool = Field(description="False when the product was answered without running its "
                            "appetite (not offered in the state, or pruned).")
    trace: list[Any] | None = None
    own: bool = Field(False, description="The session workspace's own product, its appetite a "
                      "published rule of the rule studio.")


class UnmatchedItem(BaseModel):
    carrier: CarrierRef
    product: ProductRef
    appetite_rule_id: str
    appetite_status: str = Field(description="unpublished, archived, wrong_kind, wrong_inputs "
                                 "or invalid.")
    reason: str


class AskedQuestion(BaseModel):
    field: str = Field(description="The Business field that answers it (fleet.hazmat).")
    text: str
    products: list[str] = Field(description="The accepting and referring products that ask, "
                                "best first.")


class CarrierProductAnswer(BaseModel):
    id: str
    name: str
    line: str
    line_name: str
    decision: Literal["accept", "refer", "decline"]
    score: float
    strength: str | None
    minimum_premium: str = Field(description="Money as text ($1,250).")
    max_limit: str = Field(description="Money as text ($2,000,000).")
    reasons: list[str] = Field(description="The deciding reason first.")
    questions: list[str]
    notes: list[str]
    access: str | None = Field(description="Set when the product is reached otherwise than its "
                               "carrier.")
    quote_url: str | None


class CarrierAnswer(BaseModel):
    id: str
    name: str
    rating: str
    kind: str = Field(description="\"regional carrier, admitted\", \"E&S carrier, surplus lines "
                      "(non-admitted)\".")
    decision: Literal["accept", "refer", "decline"] = Field(description="Its best product's.")
    access: str | None = Field(description="\"Direct appointment\", or the wholesaler or MGA "
                               "with its contact.")
    underwriter: str | None = Field(description="Who answers for the business's state.")
    submit: str | None = Field(description="Where submissions go (e-mail or portal).")
    quote_url: str | None
    guide: str | None = Field(description="The appetite guide's effective and review dates.")
    products: list[CarrierProductAnswer]


class MatchResponse(BaseModel):
    results: list[MatchItem]
    carriers: list[CarrierAnswer] = Field(
        default_factory=list, description="The same results grouped by carrier, best carrier "
        "first, in the words a broker reads (carrier_matching/presentation.py).")
    questions: list[AskedQuestion] = Field(
        default_factory=list, description="Ask the client: what the accepting and referring "
        "products ask, once per Business field.")
    warnings: list[str] = Field(
        default_factory=list, description="What reading the business changed (a state by "
        "name, a NAICS 2017 code read as its 2022 code).")
    considered: int = Field(description="Active products on the lines asked for.")
    pruned: int = Field(description="Products the candidate index ruled out unevaluated.")
    elapsed_ms: float = Field(description="Server-side matching time.")
    unmatched: list[UnmatchedItem] = Field(
        default_factory=list, description="The workspace's own products on the lines asked for "
        "that were not matched because their appetite rule has no usable published version.")


class ListQuery(_Strict):
    line: LineQuery | None = Field(  # type: ignore[valid-type]
        None, description="An ACORD line code (CGL), or a policy line (liability: its codes).")
    state: str | None = STATE
    carrier: str | None = Field(None, max_length=100, description="A carrier id.")
    naics: str | None = NAICS_PREFIX
    q: str | None = Field(None, max_length=200, description="Words of a name or description.")
    limit: int = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, max_length=200, description="next_cursor of the previous page.")


class ProductInfo(BaseModel):
    id: str
    carrier_id: str
    carrier_name: str
    line: str
    line_name: str
    name: str
    description: str
    states: list[str]
    minimum_premium: float
    max_limit: float
    max_aggregate: float | None
    admitted: bool
    appetite: str = Field(description="The appetite's ruleset name.")
    own: bool = Field(False, description="The session workspace's own product (POST /products/).")
    appetite_rule_id: str | None = Field(None, description="Own products: the appetite rule.")
    appetite_status: str | None = Field(
        None, description="Own products: `published` (matched), else why it is not matched: "
        "unpublished, archived, wrong_kind, wrong_inputs, invalid.")


class CarrierInfo(BaseModel):
    id: str
    name: str
    naic_code: str
    rating: str
    market: Literal["admitted", "surplus_lines"]
    states: list[str]
    website: str | None
    lines: list[str]
    product_count: int
    own: bool = Field(False, description="The session workspace's own carrier (POST /carriers/).")


class CarrierDetail(CarrierInfo):
    products: list[ProductInfo]


class CarrierPath(BaseModel):
    carrier_id: str = Field(max_length=100)


class AppetiteInfo(BaseModel):
    name: str
    title: str | None
    path: str
    carrier_id: str
    content_hash: str
    version: int
    products: list[str]
    source: str


class CarrierPage(BaseModel):
    items: list[CarrierInfo]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class ProductPage(BaseModel):
    items: list[ProductInfo]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class AppetitePage(BaseModel):
    items: list[AppetiteInfo]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class Criteria(_Strict):
    naics: str | None = NAICS_PREFIX
    state: str | None = STATE
    lines: LineCodes | None = None


class SearchRequest(Criteria):
    q: str | None = Field(None, max_length=200, description="Words of a name or description.")


class SearchItem(BaseModel):
    carrier: CarrierRef
    product: ProductRef
    appetite: str
    reasons: list[str]


class SearchResponse(BaseModel):
    results: list[SearchItem]
    index: Literal["pruning", "named_classes"] = Field(
        description="What judged the NAICS class: the pruning index, or the classes appetites name.")


class Jurisdiction(BaseModel):
    code: str
    name: str
    kind: Literal["state", "district"]
    product_count: int


class JurisdictionList(BaseModel):
    jurisdictions: list[Jurisdiction]


class ProductLine(BaseModel):
    code: str
    name: str
    description: str
    product_count: int


class ProductLineList(BaseModel):
    product_lines: list[ProductLine]


class ClassifyRequest(_Strict):
    description: str = Field(min_length=1, max_length=10_000)
    name: str | None = Field(None, max_length=255)
    website: str | None = Field(None, max_length=2048)


class Classification(BaseModel):
    naics: str
    title: str
    confidence: float


class ClassifyResponse(BaseModel):
    results: list[Classification]
    method: Literal["offline", "llm"] = Field(
        description="offline: the project's classifier; llm: the workspace's LLM provider chose "
        "among the offline candidates.")
    fallback_reason: str | None = Field(
        None, description="Why a configured provider's answer was not used (docs/classifier.md).")
    provider: str | None = Field(None, description="The LLM provider asked, if any.")



class SubmissionRequest(_Strict):
    """Start an underwriting submission to one product for a business the agent matched."""

    product_id: str = Field(min_length=3, max_length=201, description="The chosen product's id "
                            "(`carrier/code`), of the market the workspace sees.")
    business: Business
    answered: dict[str, Any] = Field(
        default_factory=dict, max_length=200, description="The questions the client answered: "
        "the Business field that answers it (`fleet.hazmat`) -> the answer.")
    client_id: UUID | None = Field(None, description="An existing client of the workspace (its "
                                   "`id` or `uuid`); or `client`, never both.")
    client: ClientCreate | None = Field(None, description="A new client to save with the "
                                        "submission (the tenant API's client fields).")

    @model_validator(mode="after")
    def _one_client(self) -> SubmissionRequest:
        if (self.client_id is None) == (self.client is None):
            raise ValueError("name the client: client_id (an existing one) or client (a new "
                             "one), exactly one of them")
        return self


class SubmissionCreated(BaseModel):
    """The stored submission, the client it is for (as stored, when saved with it), and where
    the carrier takes submissions."""

    submission: UwSubmissionRecord
    client: ClientRecord | None = Field(None, description="The client saved with it, when "
                                        "the request gave `client`.")
    carrier: CarrierRef
    product: ProductRef
    submission_email: str | None = None
    submission_portal: str | None = None
