"""Request and response shapes of POST /scan/ and POST /similar-businesses/."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from insureops.carrier_matching.similarity import MAX_LIMIT
from insureops.platform.carrier_finder.market.payloads import (
    NAICS_PATTERN,
    Business,
    CarrierRef,
    ProductRef,
)
from insureops.platform.carrier_finder.scan.website import MAX_URL_LENGTH


class ScanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=MAX_URL_LENGTH,
                     description="The business's website: http(s)://host/...; a bare host name "
                     "is read as https.", examples=["https://riveraplumbing.example"])


class Classification(BaseModel):
    naics: str
    title: str
    confidence: float


class RecommendedLine(BaseModel):
    line: str = Field(description="Line of business code (BOP, CGL, WORK, ...).")
    name: str
    reasons: list[str]


class ScanCarrier(BaseModel):
    carrier: CarrierRef
    product: ProductRef
    decision: Literal["accept", "refer", "decline"]
    score: float
    reasons: list[str]


class ScanResponse(BaseModel):
    url: str = Field(description="The URL asked for, as normalised.")
    final_url: str = Field(description="Where the page was read, after redirects.")
    title: str | None
    description: str | None = Field(description="The page's meta description.")
    excerpt: str = Field(description="The start of the page's visible text.")
    naics: str | None = Field(description="The best classification, if any.")
    classification: list[Classification] = Field(description="Best first, at most 5.")
    method: Literal["offline", "llm"] = Field(
        "offline", description="How the classification was found (as POST /classify/ says).")
    fallback_reason: str | None = Field(
        None, description="Why a configured LLM provider's answer was not used.")
    recommendations: list[RecommendedLine] = Field(
        description="From examples/coverage_recommendations.rules, in the ruleset's order.")
    business: dict[str, Any] = Field(
        description="The Business the scan read (name, website, description, naics, state when "
        "the page names one): send it to match-carriers-detailed with more facts.")
    carriers: list[ScanCarrier] = Field(
        description="The best 5 products of the market for `business` on the recommended lines, "
        "ranked as match-carriers-detailed ranks them.")


class SimilarBusinessesRequest(BaseModel):
    """Either `business`, or `naics` and/or `description`."""

    model_config = ConfigDict(extra="forbid")

    business: Business | None = None
    naics: str | None = Field(None, pattern=NAICS_PATTERN)
    description: str | None = Field(None, max_length=10_000)
    limit: int = Field(10, ge=1, le=MAX_LIMIT)

    @model_validator(mode="after")
    def _one_form(self) -> SimilarBusinessesRequest:
        if self.business is not None and (self.naics or self.description):
            raise ValueError("give either `business` or `naics` and `description`, not both")
        query = self.query()
        if not query.get("naics") and not (query.get("description") or "").strip():
            raise ValueError("give a NAICS code or a description to compare")
        return self

    def query(self) -> dict[str, Any]:
        if self.business is not None:
            return self.business.model_dump(exclude_none=True)
        return {"naics": self.naics, "description": self.description}


class ReferenceBusinessBody(BaseModel):
    id: str = Field(description="The reference business's id, or the prospect's.")
    name: str
    naics: str | None
    naics_title: str | None
    description: str = Field(description="A prospect's notes stand for its description.")
    state: str | None
    city: str | None
    annual_revenue: int | None
    employee_count: int | None
    years_in_business: int | None


class SimilarBusinessBody(BaseModel):
    source: Literal["reference", "prospect"] = Field(
        description="reference: the shipped reference set; prospect: a prospect saved by a "
        "member of the session's workspace.")
    business: ReferenceBusinessBody
    score: float = Field(ge=0, le=1)
    parts: dict[str, float] = Field(description="class, description, size, location: each 0..1, "
                                    "for the parts the query could be compared on.")
    reasons: list[str]


class SimilarBusinessesResponse(BaseModel):
    results: list[SimilarBusinessBody]
    considered: int = Field(description="How many businesses were compared (reference set and "
                            "prospects).")
    prospects: int = Field(description="How many of them were the workspace's prospects.")
