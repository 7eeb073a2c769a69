"""Request and response shapes of the prospects area."""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from insureops.platform.http.bodies import EMAIL_PATTERN, UNKNOWN_FIELDS_REFUSED
from insureops.platform.prospects.normalise import normalise_domain

Status = Literal["new", "contacted", "qualified", "converted", "lost"]
Ordering = Literal["created_at", "-created_at", "updated_at", "-updated_at", "company_name",
                   "-company_name"]


class _Editable(BaseModel):
    """The fields a caller sets; `domain` and `phone_digits` are derived, never sent."""

    model_config = UNKNOWN_FIELDS_REFUSED

    website: str | None = Field(None, max_length=500, description="The company's site; its "
                                "host (without www.) becomes `domain`.")
    contact_name: str | None = Field(None, max_length=200)
    email: str | None = Field(None, max_length=254, pattern=EMAIL_PATTERN)
    phone: str | None = Field(None, max_length=50, description="As given; its digits are "
                              "matched by search and duplicate checks.")
    address: str | None = Field(None, max_length=500)
    state: str | None = Field(None, max_length=50)
    naics: str | None = Field(None, pattern=r"^\d{2,6}$")
    notes: str | None = Field(None, max_length=10_000)
    source_url: str | None = Field(None, max_length=2000, description="The page the prospect "
                                   "was saved from.")

    @field_validator("website")
    @classmethod
    def _has_domain(cls, website: str | None) -> str | None:
        if website is not None and website.strip() and normalise_domain(website) is None:
            raise ValueError("is not a web address with a host name")
        return website


class ProspectCreate(_Editable):
    company_name: str = Field(min_length=1, max_length=200)
    status: Status = "new"


class ProspectUpdate(_Editable):
    """Only the fields sent change; null clears an optional field."""

    company_name: str | None = Field(None, min_length=1, max_length=200)
    status: Status | None = None

    @field_validator("company_name", "status")
    @classmethod
    def _not_null(cls, value):
        if value is None:
            raise ValueError("cannot be null")
        return value


class ProspectPath(BaseModel):
    prospect_id: str = Field(min_length=26, max_length=26, pattern=r"^[0-9A-Z]{26}$")


class Prospect(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str = Field(description="A ULID (26 characters).")
    company_name: str
    website: str | None
    domain: str | None = Field(description="Normalised host of `website` (read-only).")
    contact_name: str | None
    email: str | None
    phone: str | None
    phone_digits: str | None = Field(description="The digits of `phone` (read-only).")
    address: str | None
    state: str | None
    naics: str | None
    notes: str | None
    source_url: str | None
    status: Status
    created_at: datetime.datetime
    updated_at: datetime.datetime


class ListQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    limit: int = Field(50, ge=1, le=200, description="Page size (max 200).")
    cursor: str | None = Field(None, max_length=512,
                               description="`next_cursor` of the previous page (opaque).")
    status: Status | None = None
    state: str | None = Field(None, max_length=50, description="Exact state.")
    ordering: Ordering = Field("-created_at", description="Sort key; `-` for descending.")


class ProspectPage(BaseModel):
    items: list[Prospect]
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null: last.")


class TermsAccept(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    version: str = Field(min_length=1, max_length=64)


class TermsStatus(BaseModel):
    accepted: bool = Field(description="The current version is accepted.")
    version: str | None = Field(description="The latest version this user accepted.")
    accepted_at: datetime.datetime | None
    current_version: str


class SearchQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    q: str = Field(min_length=1, max_length=200)
    limit: int = Field(20, ge=1, le=100)


class SearchHit(BaseModel):
    prospect: Prospect
    score: int = Field(description="Higher is better (see docs/prospects.md).")
    matched: list[Literal["name", "domain", "email", "phone", "notes"]]


class SearchResults(BaseModel):
    items: list[SearchHit]


class DuplicateQuery(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    name: str | None = Field(None, max_length=200)
    website: str | None = Field(None, max_length=500)
    email: str | None = Field(None, max_length=254)
    phone: str | None = Field(None, max_length=50)

    @model_validator(mode="after")
    def _something_to_compare(self) -> DuplicateQuery:
        if not any(value and value.strip() for value in
                   (self.name, self.website, self.email, self.phone)):
            raise ValueError("give at least one of name, website, email, phone")
        return self


class Duplicate(BaseModel):
    prospect: Prospect
    reasons: list[Literal["same_domain", "same_email", "same_phone", "similar_name"]]
    name_similarity: float = Field(description="0-100, rapidfuzz ratio of the normalised names.")
    score: float


class Duplicates(BaseModel):
    duplicates: list[Duplicate] = Field(description="Strongest first.")
