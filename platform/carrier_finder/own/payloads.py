"""Request and response shapes of a workspace's own carriers and products (own/routes.py)."""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, Field, StrictBool, StrictFloat, field_validator

from insureops.carrier_matching.jurisdictions import STATE_CODES
from insureops.carrier_matching.manifest import RATINGS
from insureops.platform.carrier_finder.market.payloads import LineCode
from insureops.platform.http.bodies import EMAIL_PATTERN, UNKNOWN_FIELDS_REFUSED

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
RULE_ID = {"min_length": 26, "max_length": 26, "pattern": r"^[0-9A-HJKMNP-TV-Z]{26}$",
           "description": "The id of a rule studio rule of kind `appetite` in this workspace."}
AppetiteStatus = Literal["published", "unpublished", "archived", "wrong_kind", "wrong_inputs",
                         "invalid"]
# Dollars: a JSON number (an int is taken as its float; text and booleans refused). Not a union
# of int and float: pydantic would then write its bounds as `gt`/`le`, names JSON Schema lacks.
Amount = StrictFloat


def _states(value: list[str] | None) -> list[str] | None:
    if value is None:
        return None
    unknown = sorted({state for state in value if state not in STATE_CODES})
    if unknown:
        raise ValueError(f"unknown state codes: {', '.join(unknown)}")
    if not value:
        raise ValueError("name at least one state")
    return sorted(set(value))


def _rating(value: str | None) -> str | None:
    if value is not None and value not in RATINGS:
        raise ValueError("is not an AM Best-style rating (A++, A+, A, A-, B++, ... or NR)")
    return value


HTTPS_PATTERN = r"^https://\S+$"


class CarrierFields(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    name: str | None = Field(None, min_length=1, max_length=200)
    naic_code: str | None = Field(None, pattern=r"^[0-9]{5}$", description="NAIC company code.")
    rating: str | None = Field(None, max_length=4, description="AM Best-style; default NR.")
    market: Literal["admitted", "surplus_lines"] | None = None
    states: list[str] | None = Field(None, max_length=60, description="Where it writes.")
    website: str | None = Field(None, max_length=2048)
    submission_email: str | None = Field(None, max_length=254, pattern=EMAIL_PATTERN,
                                         description="Where submissions go, by e-mail.")
    submission_portal: str | None = Field(None, max_length=2048, pattern=HTTPS_PATTERN,
                                          description="Where submissions go, online.")
    quote_url: str | None = Field(None, max_length=2048, pattern=HTTPS_PATTERN,
                                  description="An online quote.")

    _check_states = field_validator("states")(_states)
    _check_rating = field_validator("rating")(_rating)


class CarrierCreate(CarrierFields):
    id: str = Field(min_length=2, max_length=100, pattern=SLUG_PATTERN,
                    description="The carrier's id: lowercase words joined by -.")
    name: str = Field(min_length=1, max_length=200)
    states: list[str] = Field(min_length=1, max_length=60, description="Where it writes.")


class CarrierUpdate(CarrierFields):
    active: StrictBool | None = Field(None, description="false deactivates, true reactivates.")


class OwnCarrierPath(BaseModel):
    carrier_id: str = Field(max_length=100)


class ProductFields(BaseModel):
    model_config = UNKNOWN_FIELDS_REFUSED

    line: LineCode | None = None  # type: ignore[valid-type]
    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = Field(None, max_length=10_000)
    states: list[str] | None = Field(None, max_length=60)
    minimum_premium: Amount | None = Field(None, ge=0, le=1e12)
    max_limit: Amount | None = Field(None, gt=0, le=1e12)
    max_aggregate: Amount | None = Field(None, gt=0, le=1e12)
    admitted: StrictBool | None = None
    strength: Literal["preferred", "standard", "limited"] | None = Field(
        None, description="The carrier's appetite for it.")
    quote_url: str | None = Field(None, max_length=2048, pattern=HTTPS_PATTERN,
                                  description="An online quote for this product.")
    appetite_rule_id: str | None = Field(None, **RULE_ID)

    _check_states = field_validator("states")(_states)


class ProductCreate(ProductFields):
    carrier_id: str = Field(max_length=100, description="One of this workspace's own carriers.")
    code: str = Field(min_length=1, max_length=99, pattern=SLUG_PATTERN,
                      description="The product's code; its id is `carrier_id/code`.")
    line: LineCode  # type: ignore[valid-type]
    name: str = Field(min_length=1, max_length=200)
    max_limit: Amount = Field(gt=0, le=1e12)
    appetite_rule_id: str = Field(**RULE_ID)


class ProductUpdate(ProductFields):
    active: StrictBool | None = Field(None, description="false deactivates, true reactivates.")


class OwnProductPath(BaseModel):
    carrier_id: str = Field(max_length=100)
    code: str = Field(max_length=99)


class OwnCarrierInfo(BaseModel):
    id: str
    name: str
    naic_code: str | None
    rating: str
    market: Literal["admitted", "surplus_lines"]
    states: list[str]
    website: str | None
    submission_email: str | None = None
    submission_portal: str | None = None
    quote_url: str | None = None
    active: bool
    own: Literal[True] = True
    created_at: datetime.datetime
    updated_at: datetime.datetime


class AppetiteState(BaseModel):
    rule_id: str
    name: str | None = Field(description="The rule's name (its ruleset's).")
    status: AppetiteStatus = Field(description="`published`: matched with `version`; anything "
                                   "else: the product is not matched, `reason` says why.")
    version: int | None = Field(description="The published version matching evaluates.")
    reason: str | None = None


class OwnProductInfo(BaseModel):
    id: str
    carrier_id: str
    line: str
    name: str
    description: str
    states: list[str]
    minimum_premium: float
    max_limit: float
    max_aggregate: float | None
    admitted: bool
    strength: str | None = None
    quote_url: str | None = None
    active: bool
    own: Literal[True] = True
    appetite: AppetiteState
    created_at: datetime.datetime
    updated_at: datetime.datetime
